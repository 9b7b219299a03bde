//! A basic selection of a whole array (an index or a strided span per dimension) on a regular
//! chunk grid, cut into what a batch needs: each chunk's key, the part of the chunk selected,
//! where that part goes in the output, and whether it covers the chunk. This is the work
//! zarr-python's indexers do per chunk in Python, done once per read or write.

use zarr_codec_shapes::{CodecError, Result};

use crate::grid::Grid;
use crate::region::{Region, Span};

/// One dimension of a basic selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// One index; the dimension is dropped from the output.
    Index(usize),
    /// A strided run of indices; the dimension stays, with as many elements.
    Span(Span),
}

/// How chunk coordinates become store keys (Zarr v3's `chunk_key_encoding`, Zarr v2's
/// `dimension_separator`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkKeys {
    /// v3 `default`: `c` then each coordinate after `separator` (`c/1/0`; `c` alone for a
    /// zero-dimensional array).
    Default {
        /// `/` or `.`.
        separator: char,
    },
    /// v3 `v2` and Zarr v2: the coordinates joined by `separator` (`1.0`; `0` for a
    /// zero-dimensional array).
    V2 {
        /// `.` or `/`.
        separator: char,
    },
}

impl ChunkKeys {
    /// The key of the chunk at `coords`, after `prefix`.
    #[must_use]
    pub fn key(&self, prefix: &str, coords: &[usize]) -> String {
        use std::fmt::Write;
        let mut key = String::with_capacity(prefix.len() + 2 + coords.len() * 4);
        key.push_str(prefix);
        match self {
            Self::Default { separator } => {
                key.push('c');
                for coord in coords {
                    key.push(*separator);
                    let _ = write!(key, "{coord}"); // writing to a String cannot fail
                }
            }
            Self::V2 { separator } => {
                if coords.is_empty() {
                    key.push('0');
                }
                for (dim, coord) in coords.iter().enumerate() {
                    if dim > 0 {
                        key.push(*separator);
                    }
                    let _ = write!(key, "{coord}");
                }
            }
        }
        key
    }
}

/// The most chunks one [`cut`] names. A larger selection is an error rather than lists larger
/// than any read a caller could hold (a caller falls back to cutting it in parts).
pub const MAX_PARTS: usize = 1 << 26;

/// What a selection needs of one chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPart {
    /// The chunk's coordinates in the grid.
    pub coords: Vec<usize>,
    /// The part selected, in the chunk's own dimensions (an index is a span of one).
    pub chunk: Region,
    /// Where that part goes in the output, whose dimensions are the selection's spans only.
    pub place: Region,
    /// Whether the part is all of the chunk that lies inside the array, read in order (what
    /// zarr-python calls a complete chunk: a write need not read the old one).
    pub complete: bool,
}

/// `selection` of an array of `shape`, stored in chunks of `chunk_shape`, cut into the chunks
/// it touches, in C order of the chunks (as zarr-python's indexers visit them). Errors when
/// the dimensions disagree, a chunk dimension is empty or the selection reaches outside the
/// array.
pub fn cut(shape: &[usize], chunk_shape: &[usize], selection: &[Axis]) -> Result<Vec<ChunkPart>> {
    if selection.len() != shape.len() {
        return Err(CodecError::configuration(format!(
            "a selection of {} dimensions of an array of {}",
            selection.len(),
            shape.len()
        )));
    }
    let grid = Grid::covering(shape, chunk_shape)?;
    let part = Region {
        spans: selection
            .iter()
            .map(|axis| match *axis {
                Axis::Index(index) => Span::run(index, 1),
                Axis::Span(span) => span,
            })
            .collect(),
    };
    part.check_within(shape, "a selection")?;
    if part.is_empty() {
        return Ok(Vec::new()); // no element, no chunk (whatever the other dimensions hold)
    }
    // How many chunks the selection touches at most, checked before any list is made.
    let touched = part
        .spans
        .iter()
        .zip(chunk_shape)
        .try_fold(1usize, |total, (span, &len)| {
            let chunks = match span.count.checked_sub(1) {
                None => 0,
                Some(last) => {
                    let end = last.checked_mul(span.step)?.checked_add(span.start)?;
                    // No more chunks than indices, nor than chunks between the ends.
                    (end / len - span.start / len + 1).min(span.count)
                }
            };
            total.checked_mul(chunks)
        });
    if touched.is_none_or(|touched| touched > MAX_PARTS) {
        return Err(CodecError::unsupported(format!(
            "a selection of more than {MAX_PARTS} chunks in one call"
        )));
    }
    let mut place = Vec::with_capacity(selection.len());
    for axis in selection {
        place.push(match axis {
            Axis::Index(_) => Span::run(0, 1),
            Axis::Span(span) => Span::run(0, span.count),
        });
    }
    let kept: Vec<bool> = selection
        .iter()
        .map(|axis| matches!(axis, Axis::Span(_)))
        .collect();
    let mut parts = Vec::new();
    grid.for_each_chunk(&part, &Region { spans: place }, |number, chunk, place| {
        let coords = grid.coordinates(number);
        let complete = chunk
            .spans
            .iter()
            .zip(selection)
            .zip(&coords)
            .zip(shape.iter().zip(chunk_shape))
            .all(|(((span, axis), &coord), (&len, &chunk_len))| {
                // The chunk's length inside the array (an edge chunk reaches past it).
                let inside = len
                    .saturating_sub(coord.saturating_mul(chunk_len))
                    .min(chunk_len);
                match axis {
                    Axis::Index(_) => inside == 1,
                    Axis::Span(whole) => whole.step == 1 && span.start == 0 && span.count == inside,
                }
            });
        let place = Region {
            spans: place
                .spans
                .into_iter()
                .zip(&kept)
                .filter_map(|(span, &kept)| kept.then_some(span))
                .collect(),
        };
        parts.push(ChunkPart {
            coords,
            chunk,
            place,
            complete,
        });
    });
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, step: usize, count: usize) -> Axis {
        Axis::Span(Span { start, step, count })
    }

    #[test]
    fn keys_follow_both_encodings() {
        let default = ChunkKeys::Default { separator: '/' };
        assert_eq!(default.key("a/", &[1, 20]), "a/c/1/20");
        assert_eq!(default.key("", &[]), "c");
        let v2 = ChunkKeys::V2 { separator: '.' };
        assert_eq!(v2.key("", &[3, 0, 7]), "3.0.7");
        assert_eq!(v2.key("x/", &[]), "x/0");
    }

    #[test]
    fn a_selection_is_cut_as_zarr_python_cuts_it() {
        // A 5x7 array in 2x3 chunks: row 3 (dropped), columns 1, 3, 5 (none in chunk 2).
        let parts = cut(&[5, 7], &[2, 3], &[Axis::Index(3), span(1, 2, 3)]).expect("a cut");
        let coords: Vec<&[usize]> = parts.iter().map(|part| part.coords.as_slice()).collect();
        assert_eq!(coords, [&[1, 0][..], &[1, 1]]);
        assert_eq!(
            parts[1].chunk,
            Region {
                spans: vec![
                    Span::run(1, 1),
                    Span {
                        start: 0,
                        step: 2,
                        count: 2
                    }
                ]
            }
        );
        assert_eq!(
            parts[1].place,
            Region {
                spans: vec![Span::run(1, 2)]
            }
        );
        assert!(parts.iter().all(|part| !part.complete));
    }

    #[test]
    fn completeness_counts_only_what_lies_inside_the_array() {
        // The last chunk of 5 in chunks of 2 holds one element inside the array.
        let parts = cut(&[5], &[2], &[span(0, 1, 5)]).expect("a cut");
        assert!(parts.iter().all(|part| part.complete));
        let parts = cut(&[5], &[2], &[Axis::Index(4)]).expect("a cut");
        assert!(parts[0].complete);
        let parts = cut(&[5], &[2], &[span(0, 1, 4)]).expect("a cut");
        assert_eq!(
            parts.iter().map(|part| part.complete).collect::<Vec<_>>(),
            [true, true]
        );
        // A step of 2 is never complete, even where it picks every element inside.
        let parts = cut(&[5], &[2], &[span(4, 2, 1)]).expect("a cut");
        assert!(!parts[0].complete);
    }

    #[test]
    fn selections_outside_the_array_are_errors() {
        assert!(cut(&[5], &[2], &[Axis::Index(5)]).is_err());
        assert!(cut(&[5], &[2], &[span(3, 1, 3)]).is_err());
        assert!(cut(&[5], &[0], &[span(0, 1, 1)]).is_err());
        assert!(cut(&[5, 5], &[2, 2], &[span(0, 1, 1)]).is_err());
        assert!(cut(&[5], &[2], &[span(0, 1, 0)]).expect("a cut").is_empty());
    }

    #[test]
    fn long_steps_and_empty_dimensions_cost_nothing_per_chunk_skipped() {
        // Found by the property test: each once looped over every chunk between two indices.
        let far = 1usize << 62;
        let empty = cut(
            &[2, 1 << 62],
            &[1, 1],
            &[span(0, 1, 0), span(0, 1 << 60, 3)],
        );
        assert!(empty.expect("a cut").is_empty());
        let parts = cut(&[usize::MAX], &[1], &[span(1, far, 3)]).expect("a cut");
        let coords: Vec<usize> = parts.iter().map(|part| part.coords[0]).collect();
        assert_eq!(coords, [1, far + 1, 2 * far + 1]);
        assert!(parts.iter().all(|part| part.chunk
            == Region {
                spans: vec![Span {
                    start: 0,
                    step: far,
                    count: 1
                }]
            }));
    }

    #[test]
    fn selections_of_too_many_chunks_are_refused_before_any_list_is_made() {
        let huge = 1usize << 40;
        let refused = cut(&[huge], &[1], &[span(0, 1, huge)]);
        assert!(matches!(refused, Err(CodecError::Unsupported(_))));
        let square = cut(&[1 << 14, 1 << 14], &[1, 1], &[span(0, 1, 1 << 14); 2]);
        assert!(matches!(square, Err(CodecError::Unsupported(_))));
        // At the limit exactly: allowed (counted, not built, here: one chunk per row).
        let rows = cut(&[MAX_PARTS, 1], &[1, 1], &[span(0, 1, 2), span(0, 1, 1)]);
        assert_eq!(rows.expect("a cut").len(), 2);
    }
}
