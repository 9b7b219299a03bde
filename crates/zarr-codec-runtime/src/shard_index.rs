//! The shard index of the `sharding_indexed` codec: where each inner chunk's bytes lie in a
//! shard ([the spec](https://zarr-specs.readthedocs.io/en/latest/v3/codecs/sharding-indexed/)).
//!
//! The index is an array of `uint64` pairs `(offset, nbytes)`, one per inner chunk in C order,
//! both `2^64 - 1` for an empty chunk, encoded with the index codecs (recommended: `bytes`
//! little-endian then `crc32c`) and stored at the start or the end of the shard. Reading it
//! checks every entry against the shard: a chunk must lie in the shard's data, outside the
//! index, so a lying index is a [`CodecError::Corrupt`], never an out-of-bounds read.

use std::ops::Range;

use zarr_codec_shapes::{CodecError, Result};

use crate::plan::Plan;

/// The value of both fields of an empty inner chunk's entry.
const EMPTY: u64 = u64::MAX;

/// Bytes per entry: two `uint64`.
const ENTRY: usize = 16;

/// Where a shard keeps its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexLocation {
    /// Before the inner chunks.
    Start,
    /// After them (the default).
    End,
}

/// Each inner chunk's byte range in its shard (`None`: empty, the fill value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardIndex {
    chunks: Vec<Option<Range<usize>>>,
}

impl ShardIndex {
    /// An index of `chunks` entries.
    #[must_use]
    pub fn new(chunks: Vec<Option<Range<usize>>>) -> Self {
        Self { chunks }
    }

    /// Every inner chunk's byte range, in C order.
    #[must_use]
    pub fn chunks(&self) -> &[Option<Range<usize>>] {
        &self.chunks
    }

    /// The decoded size of the index of `chunks` inner chunks: what the index chain's
    /// `bytes` codec sees.
    pub fn decoded_len(chunks: usize) -> Result<usize> {
        chunks
            .checked_mul(ENTRY)
            .ok_or_else(|| CodecError::configuration("sharding: too many inner chunks"))
    }

    /// The stored size of the index of `chunks` inner chunks through `encode` (the index
    /// codecs' encoding plan, whose size must follow from its input's: `bytes` and
    /// checksums, as the spec requires).
    pub fn encoded_len(encode: &Plan, chunks: usize) -> Result<usize> {
        encode.room(Self::decoded_len(chunks)?)
    }

    /// The index of a whole shard of `shard_len` bytes whose encoded index, `encoded_len`
    /// bytes at `location`, is `stored`: decoded with `decode` (the index codecs' decoding
    /// plan, into native-order `uint64`s) and checked entry by entry against the shard's data.
    pub fn read(
        stored: &[u8],
        decode: &Plan,
        chunks: usize,
        shard_len: usize,
        location: IndexLocation,
    ) -> Result<Self> {
        let encoded_len = stored.len();
        if encoded_len > shard_len {
            return Err(CodecError::Corrupt(format!(
                "sharding: a shard of {shard_len} bytes cannot hold an index of {encoded_len}"
            )));
        }
        let mut decoded = vec![0u8; Self::decoded_len(chunks)?];
        decode.run_exact(stored, &mut decoded)?;
        let data = match location {
            IndexLocation::Start => encoded_len..shard_len,
            IndexLocation::End => 0..shard_len - encoded_len,
        };
        Self::parse(&decoded, data)
    }

    /// The index at `location` of a whole shard `shard`, `encoded_len` bytes long (see
    /// [`ShardIndex::encoded_len`]); [`ShardIndex::read`] does the rest.
    pub fn of_shard(
        shard: &[u8],
        decode: &Plan,
        chunks: usize,
        encoded_len: usize,
        location: IndexLocation,
    ) -> Result<Self> {
        let stored = match location {
            IndexLocation::Start => shard.get(..encoded_len),
            IndexLocation::End => shard
                .len()
                .checked_sub(encoded_len)
                .and_then(|start| shard.get(start..)),
        }
        .ok_or_else(|| {
            CodecError::Corrupt(format!(
                "sharding: a shard of {} bytes cannot hold an index of {encoded_len}",
                shard.len()
            ))
        })?;
        Self::read(stored, decode, chunks, shard.len(), location)
    }

    /// The entries of a decoded index (native-order `uint64` pairs), each checked to lie
    /// within `data`, the shard's bytes outside its index.
    pub fn parse(decoded: &[u8], data: Range<usize>) -> Result<Self> {
        if !decoded.len().is_multiple_of(ENTRY) {
            return Err(CodecError::Corrupt(format!(
                "sharding: an index of {} bytes is not whole entries of {ENTRY}",
                decoded.len()
            )));
        }
        let word = |bytes: &[u8]| {
            let mut array = [0u8; 8];
            array.copy_from_slice(bytes);
            u64::from_ne_bytes(array)
        };
        let chunks = decoded
            .chunks_exact(ENTRY)
            .enumerate()
            .map(|(index, entry)| {
                let (offset, nbytes) = (word(&entry[..8]), word(&entry[8..]));
                match (offset, nbytes) {
                    (EMPTY, EMPTY) => Ok(None),
                    (EMPTY, _) | (_, EMPTY) => Err(CodecError::Corrupt(format!(
                        "sharding: inner chunk {index} has offset {offset} and nbytes {nbytes}; \
                         an empty chunk has both 2^64 - 1"
                    ))),
                    _ => Self::range(index, offset, nbytes, &data).map(Some),
                }
            })
            .collect::<Result<_>>()?;
        Ok(Self { chunks })
    }

    /// Inner chunk `index`'s bytes, checked to lie within `data`.
    fn range(index: usize, offset: u64, nbytes: u64, data: &Range<usize>) -> Result<Range<usize>> {
        let start = usize::try_from(offset).ok();
        let end = start
            .zip(usize::try_from(nbytes).ok())
            .and_then(|(s, n)| s.checked_add(n));
        match (start, end) {
            (Some(start), Some(end)) if data.start <= start && end <= data.end => Ok(start..end),
            _ => Err(CodecError::Corrupt(format!(
                "sharding: inner chunk {index} claims bytes {offset}..+{nbytes}, outside the \
                 shard's data {}..{}",
                data.start, data.end
            ))),
        }
    }

    /// The index encoded with `encode` (the index codecs' encoding plan): each entry's
    /// `(offset, nbytes)` as native-order `uint64`s, `2^64 - 1` twice for an empty chunk.
    pub fn encode(&self, encode: &Plan) -> Result<Vec<u8>> {
        let mut decoded = Vec::with_capacity(Self::decoded_len(self.chunks.len())?);
        for chunk in &self.chunks {
            let (offset, nbytes) = chunk.as_ref().map_or((EMPTY, EMPTY), |range| {
                (range.start as u64, (range.end - range.start) as u64)
            });
            decoded.extend_from_slice(&offset.to_ne_bytes());
            decoded.extend_from_slice(&nbytes.to_ne_bytes());
        }
        encode.run_to_vec(&decoded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(u64, u64)]) -> Vec<u8> {
        pairs
            .iter()
            .flat_map(|(offset, nbytes)| [offset.to_ne_bytes(), nbytes.to_ne_bytes()].concat())
            .collect()
    }

    #[test]
    fn entries_within_the_data_parse_and_empty_ones_are_none() {
        let index = ShardIndex::parse(&entries(&[(0, 10), (EMPTY, EMPTY), (10, 0)]), 0..20)
            .expect("an index");
        assert_eq!(index.chunks(), [Some(0..10), None, Some(10..10)]);
    }

    #[test]
    fn lying_entries_are_corrupt() {
        for pairs in [
            [(15, 10)],          // past the data
            [(EMPTY, 3)],        // half empty
            [(3, EMPTY)],        // half empty
            [(u64::MAX - 1, 2)], // overflows
            [(0, 1)],            // inside the index (data starts at 8)
        ] {
            let error = ShardIndex::parse(&entries(&pairs), 8..20).expect_err("accepted");
            assert!(
                matches!(error, CodecError::Corrupt(_)),
                "{pairs:?}: {error}"
            );
        }
        let error = ShardIndex::parse(&[0; 15], 0..20).expect_err("a partial entry");
        assert!(matches!(error, CodecError::Corrupt(_)));
    }

    #[test]
    fn an_index_encodes_and_reads_back_through_an_identity_plan() {
        let plan = Plan::new(Vec::new(), None);
        let index = ShardIndex::new(vec![Some(0..5), None, Some(5..9)]);
        let stored = index.encode(&plan).expect("encoded");
        assert_eq!(
            ShardIndex::encoded_len(&plan, 3).expect("a size"),
            stored.len()
        );
        let mut shard = vec![7u8; 9];
        shard.extend_from_slice(&stored);
        let read =
            ShardIndex::of_shard(&shard, &plan, 3, stored.len(), IndexLocation::End).expect("read");
        assert_eq!(read, index);
        let short = ShardIndex::of_shard(&shard[..20], &plan, 3, stored.len(), IndexLocation::End);
        assert!(short.is_err());
    }
}
