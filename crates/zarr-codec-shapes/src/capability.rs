//! What a codec can do beyond encoding and decoding whole chunks, for a pipeline to plan with.

/// How many threads a codec can put to work on one chunk: at least [`min`](Self::min), at
/// most [`max`](Self::max), both at least 1. A pipeline splits its threads between chunks
/// (parallel chunks) and inside chunks (this) accordingly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecommendedConcurrency {
    min: usize,
    max: usize,
}

impl RecommendedConcurrency {
    /// One thread: the codec works on a chunk sequentially.
    pub const ONE: Self = Self { min: 1, max: 1 };

    /// `min` to `max` threads (each raised to at least 1, `max` to at least `min`).
    #[must_use]
    pub fn new(min: usize, max: usize) -> Self {
        let min = min.max(1);
        Self {
            min,
            max: max.max(min),
        }
    }

    /// The fewest threads worth using.
    #[must_use]
    pub fn min(self) -> usize {
        self.min
    }

    /// The most threads that still help.
    #[must_use]
    pub fn max(self) -> usize {
        self.max
    }
}

impl Default for RecommendedConcurrency {
    fn default() -> Self {
        Self::ONE
    }
}

/// Whether a codec can serve part of a chunk without all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PartialDecodeCapability {
    /// Part of the decoded chunk needs only part of the encoded bytes, so a reader may fetch
    /// byte ranges instead of the whole chunk.
    pub partial_read: bool,
    /// Part of the decoded chunk can be decoded without decoding the rest.
    pub partial_decode: bool,
}

impl PartialDecodeCapability {
    /// Neither: the whole chunk is read and decoded (compressors, checksums).
    pub const NONE: Self = Self {
        partial_read: false,
        partial_decode: false,
    };
    /// Both: each element is encoded on its own (element-wise codecs).
    pub const ELEMENTWISE: Self = Self {
        partial_read: true,
        partial_decode: true,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_is_at_least_one_and_ordered() {
        assert_eq!(
            RecommendedConcurrency::new(0, 0),
            RecommendedConcurrency::ONE
        );
        let c = RecommendedConcurrency::new(4, 2);
        assert_eq!((c.min(), c.max()), (4, 4));
        assert_eq!(
            RecommendedConcurrency::default(),
            RecommendedConcurrency::ONE
        );
        assert_eq!(RecommendedConcurrency::new(1, 8).max(), 8);
    }

    #[test]
    fn partial_decoding_defaults_to_none() {
        assert_eq!(
            PartialDecodeCapability::default(),
            PartialDecodeCapability::NONE
        );
        assert_ne!(
            PartialDecodeCapability::ELEMENTWISE,
            PartialDecodeCapability::NONE
        );
    }
}
