//! A body as it streams in, kept as the pieces it arrived in.

use std::collections::VecDeque;
use std::ops::Range;

use bytes::Bytes;

/// A body as it arrives: its pieces, in order, and how many bytes of it came before them
/// (the pieces no longer needed are dropped).
#[derive(Default)]
pub(super) struct Body {
    pieces: VecDeque<Bytes>,
    /// The bytes dropped from the front.
    dropped: usize,
    /// The bytes in `pieces`.
    held: usize,
}

impl Body {
    pub(super) fn push(&mut self, piece: Bytes) {
        self.held += piece.len();
        self.pieces.push_back(piece);
    }

    /// The bytes received so far.
    pub(super) fn len(&self) -> usize {
        self.dropped + self.held
    }

    /// The bytes of `range`, once all in and not dropped: a slice of one piece where it lies
    /// within one (no copy), else the pieces' bytes copied together.
    pub(super) fn get(&self, range: Range<usize>) -> Option<Bytes> {
        if range.start < self.dropped || range.end > self.len() || range.start > range.end {
            return None;
        }
        let mut at = self.dropped;
        let mut joined: Option<Vec<u8>> = None;
        for piece in &self.pieces {
            let (start, end) = (at, at + piece.len());
            at = end;
            if end <= range.start {
                continue;
            }
            let part = &piece[range.start.max(start) - start..range.end.min(end) - start];
            match joined.as_mut() {
                None if range.end <= end => {
                    return Some(piece.slice(range.start - start..range.end - start));
                }
                None => {
                    let mut bytes = Vec::with_capacity(range.len());
                    bytes.extend_from_slice(part);
                    joined = Some(bytes);
                }
                Some(bytes) => bytes.extend_from_slice(part),
            }
            if range.end <= end {
                break;
            }
        }
        Some(joined.map_or_else(Bytes::new, Bytes::from))
    }

    /// Drops the pieces that end at or before byte `offset`.
    pub(super) fn drop_before(&mut self, offset: usize) {
        while let Some(first) = self.pieces.front() {
            if self.dropped + first.len() > offset {
                return;
            }
            self.dropped += first.len();
            self.held -= first.len();
            self.pieces.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_in_pieces_gives_any_range_it_holds() {
        let whole: Vec<u8> = (0..10).collect();
        let mut body = Body::default();
        for piece in [&whole[..3], &whole[3..7], &whole[7..7], &whole[7..]] {
            body.push(Bytes::copy_from_slice(piece));
        }
        for start in 0..=10 {
            for end in start..=10 {
                let got = body.get(start..end).expect("held");
                assert_eq!(&got[..], &whole[start..end], "{start}..{end}");
            }
        }
        assert_eq!(body.get(9..11), None, "past what arrived");
        body.drop_before(5); // the first piece only: the second ends at 7
        assert_eq!(body.get(2..4), None, "dropped");
        assert_eq!(&body.get(3..9).expect("held")[..], &whole[3..9]);
        body.drop_before(10);
        assert_eq!(body.len(), 10);
        assert_eq!(body.get(9..10), None, "all dropped");
    }
}
