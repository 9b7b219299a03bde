//! [`Grid`]: a regular grid of chunks, and a region of the gridded array cut into the parts
//! that lie in each chunk: what turns a selection of an array (or a shard) into a batch.

use zarr_codec_shapes::{CodecError, Result};

use crate::region::{Region, Span};

/// A regular grid: chunks of `chunk_shape`, `counts` of them along each dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    chunk_shape: Vec<usize>,
    counts: Vec<usize>,
}

impl Grid {
    /// `counts` chunks of `chunk_shape` (no dimension empty) along each dimension, no more
    /// chunks in all than a `usize` counts (chunks are numbered).
    pub fn new(chunk_shape: &[usize], counts: &[usize]) -> Result<Self> {
        let countable = counts
            .iter()
            .try_fold(1usize, |n, &count| n.checked_mul(count))
            .is_some();
        if chunk_shape.len() != counts.len() || chunk_shape.contains(&0) || !countable {
            return Err(CodecError::configuration(format!(
                "a grid of {counts:?} chunks of {chunk_shape:?}"
            )));
        }
        Ok(Self {
            chunk_shape: chunk_shape.to_vec(),
            counts: counts.to_vec(),
        })
    }

    /// The grid covering an array of `shape` (edge chunks may reach past it).
    pub fn covering(shape: &[usize], chunk_shape: &[usize]) -> Result<Self> {
        if shape.len() != chunk_shape.len() || chunk_shape.contains(&0) {
            return Err(CodecError::configuration(format!(
                "chunks of {chunk_shape:?} for an array of {shape:?}"
            )));
        }
        let counts: Vec<usize> = shape
            .iter()
            .zip(chunk_shape)
            .map(|(&len, &chunk)| len.div_ceil(chunk))
            .collect();
        Self::new(chunk_shape, &counts)
    }

    /// The shape of every chunk.
    #[must_use]
    pub fn chunk_shape(&self) -> &[usize] {
        &self.chunk_shape
    }

    /// Chunks along each dimension.
    #[must_use]
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// The number of chunks; `None` when it overflows.
    #[must_use]
    pub fn len(&self) -> Option<usize> {
        self.counts
            .iter()
            .try_fold(1usize, |n, &count| n.checked_mul(count))
    }

    /// Whether the grid has no chunk.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.contains(&0)
    }

    /// The coordinates of chunk `number` (C order).
    #[must_use]
    pub fn coordinates(&self, mut number: usize) -> Vec<usize> {
        let mut coords = vec![0usize; self.counts.len()];
        for (dim, &count) in self.counts.iter().enumerate().rev() {
            coords[dim] = number % count.max(1);
            number /= count.max(1);
        }
        coords
    }

    /// `visit(chunk number, part of the chunk, place)` for each chunk that region `part` of
    /// the array (within the grid, as checked by the caller) touches, in C order of the
    /// chunks; `place` is where `part`'s elements are (as many per dimension), and each
    /// chunk's place is the matching piece of it.
    pub fn for_each_chunk(
        &self,
        part: &Region,
        place: &Region,
        mut visit: impl FnMut(usize, Region, Region),
    ) {
        let pieces: Vec<Vec<Piece>> = part
            .spans
            .iter()
            .zip(&place.spans)
            .zip(&self.chunk_shape)
            .map(|((&span, &place), &len)| split(span, place, len))
            .collect();
        if pieces.len() != self.counts.len() || pieces.iter().any(Vec::is_empty) {
            return;
        }
        // Every combination of one piece per dimension, last dimension fastest.
        let mut at = vec![0usize; pieces.len()];
        loop {
            let mut number = 0;
            let mut inner = Vec::with_capacity(at.len());
            let mut out = Vec::with_capacity(at.len());
            for ((dim_pieces, &i), &count) in pieces.iter().zip(&at).zip(&self.counts) {
                let piece = dim_pieces[i];
                number = number * count + piece.chunk;
                inner.push(piece.inner);
                out.push(piece.place);
            }
            visit(number, Region { spans: inner }, Region { spans: out });
            let mut dim = at.len();
            loop {
                if dim == 0 {
                    return;
                }
                dim -= 1;
                at[dim] += 1;
                if at[dim] < pieces[dim].len() {
                    break;
                }
                at[dim] = 0;
            }
        }
    }
}

/// The part of one dimension of a region in one chunk: which chunk, the part in it, and
/// where its elements go.
#[derive(Debug, Clone, Copy)]
struct Piece {
    chunk: usize,
    inner: Span,
    place: Span,
}

/// `span` (`place`: where its elements go) cut at the boundaries of chunks of `len`.
fn split(span: Span, place: Span, len: usize) -> Vec<Piece> {
    let mut pieces = Vec::new();
    if span.count == 0 || len == 0 || span.step == 0 {
        return pieces;
    }
    let Some(last) = (span.count - 1)
        .checked_mul(span.step)
        .and_then(|reach| reach.checked_add(span.start))
    else {
        return pieces;
    };
    if span.step >= len {
        // Each index in a chunk of its own: one piece per index, not one look per chunk
        // between them (a long step over small chunks would visit every chunk it skips).
        for i in 0..span.count {
            let index = span.start + i * span.step; // at most `last`
            pieces.push(Piece {
                chunk: index / len,
                inner: Span {
                    start: index % len,
                    step: span.step,
                    count: 1,
                },
                place: Span {
                    start: place.start + i * place.step,
                    step: place.step,
                    count: 1,
                },
            });
        }
        return pieces;
    }
    for chunk in span.start / len..=last / len {
        let low = chunk * len;
        let high = low.saturating_add(len);
        let first = if low > span.start {
            (low - span.start).div_ceil(span.step)
        } else {
            0
        };
        let end = (high - span.start).div_ceil(span.step).min(span.count);
        if end > first {
            pieces.push(Piece {
                chunk,
                inner: Span {
                    start: span.start + first * span.step - low,
                    step: span.step,
                    count: end - first,
                },
                place: Span {
                    start: place.start + first * place.step,
                    step: place.step,
                    count: end - first,
                },
            });
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` indices from `start`, `step` apart.
    fn strided(start: usize, step: usize, count: usize) -> Span {
        Span { start, step, count }
    }

    #[test]
    fn spans_split_at_chunk_boundaries() {
        let pieces = split(strided(1, 3, 4), Span::run(10, 4), 4);
        // Elements 1, 4, 7, 10: chunk 0 has 1; chunk 1 has 4 and 7; chunk 2 has 10.
        let found: Vec<(usize, Span, Span)> = pieces
            .iter()
            .map(|piece| (piece.chunk, piece.inner, piece.place))
            .collect();
        assert_eq!(
            found,
            [
                (0, strided(1, 3, 1), Span::run(10, 1)),
                (1, strided(0, 3, 2), Span::run(11, 2)),
                (2, strided(2, 3, 1), Span::run(13, 1)),
            ]
        );
        assert!(split(Span::run(3, 0), Span::run(0, 0), 4).is_empty());
        // A step longer than a chunk skips the chunks it jumps over.
        let skipping = split(strided(0, 9, 2), Span::run(0, 2), 4);
        let chunks: Vec<usize> = skipping.iter().map(|piece| piece.chunk).collect();
        assert_eq!(chunks, [0, 2]);
    }

    #[test]
    fn a_region_visits_each_chunk_it_touches_in_c_order() {
        let grid = Grid::covering(&[5, 7], &[2, 3]).expect("a grid");
        assert_eq!(grid.counts(), [3, 3]);
        let part = Region::block(&[1, 2], &[2, 3]);
        let place = Region::block(&[0, 0], &[2, 3]);
        let mut seen = Vec::new();
        grid.for_each_chunk(&part, &place, |number, inner, out| {
            seen.push((number, inner, out));
        });
        let numbers: Vec<usize> = seen.iter().map(|(number, ..)| *number).collect();
        assert_eq!(numbers, [0, 1, 3, 4]);
        assert_eq!(seen[0].1, Region::block(&[1, 2], &[1, 1]));
        assert_eq!(seen[3].2, Region::block(&[1, 1], &[1, 2]));
        assert_eq!(grid.coordinates(5), [1, 2]);
    }
}
