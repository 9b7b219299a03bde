//! Structure-aware: real shard indexes (`bytes` little-endian then crc32c, as the spec
//! recommends and zarr-python writes) of fuzzer-chosen entries, at either end of a shard, with
//! fuzzer-chosen edits, truncations and junk. Reading must never panic; an index read back
//! unedited must be the one written; any index accepted must keep every inner chunk within
//! the shard's data, outside the index.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use zarr_codec_runtime::{Chain, IndexLocation, ShardIndex};
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType, Endian};

#[derive(Arbitrary, Debug)]
struct Shard {
    /// Each inner chunk: `None` empty, else (start, length) folded into the data.
    entries: Vec<Option<(u16, u16)>>,
    data_len: u16,
    at_start: bool,
    /// (position in the index, new byte): edits that may keep the checksum right or not.
    edits: Vec<(u16, u8)>,
    /// Also rewrite the checksum after the edits (so the entries themselves are tested).
    fix_checksum: bool,
    cut: Option<u16>,
    junk: Vec<u8>,
}

fuzz_target!(|shard: Shard| {
    let count = shard.entries.len().clamp(1, 64);
    let Ok(spec) = ChunkSpec::with_default_fill_value(vec![count, 2], DataType::UInt64) else {
        return;
    };
    let crc32c: Arc<dyn BytesToBytesCodec> = Arc::new(zarr_codec_crc32c::Crc32c::default());
    let Ok(chain) = Chain::new(&[], Some(Endian::Little), &[crc32c], spec) else {
        return;
    };
    let Ok(encoded_len) = ShardIndex::encoded_len(chain.encode_plan(), count) else {
        return;
    };
    let data_len = usize::from(shard.data_len);
    let base = if shard.at_start { encoded_len } else { 0 };
    let chunks = (0..count)
        .map(|i| {
            shard.entries.get(i).copied().flatten().map(|(start, len)| {
                let start = usize::from(start) % (data_len + 1);
                let len = usize::from(len) % (data_len - start + 1);
                base + start..base + start + len
            })
        })
        .collect();
    let index = ShardIndex::new(chunks);
    let Ok(stored) = index.encode(chain.encode_plan()) else {
        return;
    };
    assert_eq!(stored.len(), encoded_len);
    let location = if shard.at_start {
        IndexLocation::Start
    } else {
        IndexLocation::End
    };
    let data = vec![0xA5u8; data_len];
    let whole = |index_bytes: &[u8]| -> Vec<u8> {
        if shard.at_start {
            [index_bytes, &data].concat()
        } else {
            [&data, index_bytes].concat()
        }
    };
    // Unedited, the index reads back as written.
    let read = ShardIndex::of_shard(
        &whole(&stored),
        chain.decode_plan(),
        count,
        encoded_len,
        location,
    )
    .expect("a valid index is read");
    assert_eq!(read, index);
    // Edited, truncated and extended, it is read or refused, never trusted out of bounds.
    let mut edited = stored.clone();
    for (at, byte) in &shard.edits {
        let at = usize::from(*at) % edited.len();
        edited[at] = *byte;
    }
    if shard.fix_checksum && edited.len() >= 4 {
        let body = edited.len() - 4;
        let checksum = zarr_codec_crc32c::checksum(&edited[..body]);
        edited[body..].copy_from_slice(&checksum.to_le_bytes());
    }
    let mut bytes = whole(&edited);
    if let Some(cut) = shard.cut {
        bytes.truncate(usize::from(cut) % (bytes.len() + 1));
    }
    bytes.extend_from_slice(&shard.junk);
    if let Ok(read) =
        ShardIndex::of_shard(&bytes, chain.decode_plan(), count, encoded_len, location)
    {
        let data = match location {
            IndexLocation::Start => encoded_len..bytes.len(),
            IndexLocation::End => 0..bytes.len() - encoded_len,
        };
        for range in read.chunks().iter().flatten() {
            assert!(
                data.start <= range.start && range.end <= data.end,
                "{range:?} in {data:?}"
            );
        }
    }
});
