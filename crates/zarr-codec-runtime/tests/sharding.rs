//! `sharding_indexed` in the runtime with real codecs and no Python: arrays written as shards
//! (in memory and as files, index first or last, nested) and read back whole and in any
//! strided part, checked against the values written.

use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use zarr_codec_runtime::{
    Chain, ChunkError, EmptyRule, FetchedRead, Grid, InArray, IndexLocation, Inner, OutArray,
    ReadItem, Region, ShardWrite, Sharding, Source, Span, WriteItem, WriteOrder,
};
use zarr_codec_shapes::{
    BytesToBytesCodec, ChunkSpec, CodecError, CodecFromJson, DataType, Endian, ZarrFormat,
};

const SHAPE: [usize; 2] = [9, 10];
const SHARD: [usize; 2] = [4, 6];
const INNER: [usize; 2] = [2, 3];
const ITEM: usize = 2; // uint16

fn zstd() -> Arc<dyn BytesToBytesCodec> {
    let json = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
    Arc::new(zarr_codec_zstd::Zstd::from_json(&json, ZarrFormat::V3).expect("zstd"))
}

fn spec(shape: &[usize], data_type: DataType) -> ChunkSpec {
    ChunkSpec::with_default_fill_value(shape.to_vec(), data_type).expect("a spec")
}

/// Shards of `shard` in inner chunks of `inner` (uint16, zstd), index `bytes` + `crc32c`.
fn sharding(
    shard: &[usize],
    inner: Inner,
    inner_shape: &[usize],
    location: IndexLocation,
) -> Sharding {
    let mut index_shape: Vec<usize> = shard.iter().zip(inner_shape).map(|(s, i)| s / i).collect();
    index_shape.push(2);
    let crc32c: Arc<dyn BytesToBytesCodec> = Arc::new(zarr_codec_crc32c::Crc32c::default());
    let index = Chain::new(
        &[],
        Some(Endian::Little),
        &[crc32c],
        spec(&index_shape, DataType::UInt64),
    )
    .expect("an index chain");
    Sharding::new(
        shard,
        inner_shape,
        inner,
        (index.decode_plan().clone(), index.encode_plan().clone()),
        location,
        WriteOrder::Morton,
    )
    .expect("a sharding")
}

fn chain_inner(shape: &[usize]) -> Inner {
    let chain = Chain::new(
        &[],
        Some(Endian::Little),
        &[zstd()],
        spec(shape, DataType::UInt16),
    )
    .expect("a chain");
    Inner::Chain {
        decode: chain.decode_plan().clone(),
        encode: chain.encode_plan().clone(),
    }
}

/// The layouts tested: index last and first, and shards of shards.
fn layouts() -> Vec<(&'static str, Sharding)> {
    let nested_inner = sharding(&[2, 6], chain_inner(&INNER), &INNER, IndexLocation::End);
    vec![
        (
            "end",
            sharding(&SHARD, chain_inner(&INNER), &INNER, IndexLocation::End),
        ),
        (
            "start",
            sharding(&SHARD, chain_inner(&INNER), &INNER, IndexLocation::Start),
        ),
        (
            "nested",
            sharding(
                &SHARD,
                Inner::Sharded(Box::new(nested_inner)),
                &[2, 6],
                IndexLocation::Start,
            ),
        ),
    ]
}

/// Element values with a run of zeros (the fill value), so some inner chunks are empty.
fn values() -> Vec<u8> {
    (0..SHAPE[0] * SHAPE[1])
        .flat_map(|i| {
            let (row, col) = (i / SHAPE[1], i % SHAPE[1]);
            let value = if row < 2 && col < 3 {
                0u16
            } else {
                u16::try_from(i * 97 % 65_521).expect("small")
            };
            value.to_ne_bytes()
        })
        .collect()
}

/// Each shard's part within the array and where it lies there.
fn shard_parts() -> Vec<(usize, Region, Region)> {
    parts_of(&SHAPE, &SHARD)
}

/// Each shard's number, its part within an array of `shape` in shards of `shard`, and where
/// that part lies in the array.
fn parts_of(shape: &[usize], shard: &[usize]) -> Vec<(usize, Region, Region)> {
    let grid = Grid::covering(shape, shard).expect("a grid");
    let mut parts = Vec::new();
    grid.for_each_chunk(
        &Region::whole(shape),
        &Region::whole(shape),
        |number, part, place| {
            parts.push((number, part, place));
        },
    );
    parts
}

/// The whole array written as shards in memory.
fn write_all(sharding: &Sharding, data: &[u8]) -> Vec<Option<Vec<u8>>> {
    write_all_on(sharding, data, 2)
}

/// [`write_all`] on `threads` threads (fewer threads than shards: a shard per thread; more:
/// every inner chunk of every shard on the pool).
fn write_all_on(sharding: &Sharding, data: &[u8], threads: usize) -> Vec<Option<Vec<u8>>> {
    let values = InArray::contiguous(data, &SHAPE, ITEM).expect("values");
    let writes: Vec<ShardWrite<'_>> = shard_parts()
        .into_iter()
        .map(|(_, chunk, values)| ShardWrite {
            old: None,
            chunk,
            values,
        })
        .collect();
    sharding
        .write_buffers(&writes, &values, &[0, 0], EmptyRule::SameBytes, threads)
        .expect("written")
}

/// `region` of the array read from `shards` (indexed by shard number) into a new array of its
/// counts.
fn read_region(sharding: &Sharding, sources: &[Source<'_>], region: &Region) -> Vec<u8> {
    let counts = region.counts();
    let place = Region::whole(&counts);
    let grid = Grid::covering(&SHAPE, &SHARD).expect("a grid");
    let mut items = Vec::new();
    grid.for_each_chunk(region, &place, |number, chunk, out| {
        items.push(ReadItem {
            source: sources[number],
            chunk,
            out,
        });
    });
    let mut array = vec![0xEE; counts.iter().product::<usize>() * ITEM];
    let out = OutArray::contiguous(&mut array, &counts, ITEM).expect("an array");
    sharding.read(&items, &out, &[0, 0], 2).expect("read");
    array
}

/// `region` of `data` (the whole array) copied by hand.
fn expected(data: &[u8], region: &Region) -> Vec<u8> {
    let (a, b) = (region.spans[0], region.spans[1]);
    let mut out = Vec::new();
    for i in 0..a.count {
        for j in 0..b.count {
            let at = ((a.start + i * a.step) * SHAPE[1] + b.start + j * b.step) * ITEM;
            out.extend_from_slice(&data[at..at + ITEM]);
        }
    }
    out
}

fn sources(shards: &[Option<Vec<u8>>]) -> Vec<Source<'_>> {
    shards
        .iter()
        .map(|shard| shard.as_deref().map_or(Source::Missing, Source::Bytes))
        .collect()
}

#[test]
fn shards_written_whole_read_back_whole_and_elide_empty_inner_chunks() {
    let data = values();
    for (name, sharding) in layouts() {
        let shards = write_all(&sharding, &data);
        assert_eq!(
            read_region(&sharding, &sources(&shards), &Region::whole(&SHAPE)),
            data,
            "{name}"
        );
        // A shard per thread and every inner chunk on the pool lay shards out alike.
        assert_eq!(write_all_on(&sharding, &data, 8), shards, "{name}");
        // The first inner chunk is all zeros: not stored, so the first shard is smaller than
        // one that stored it would be, and its index says so.
        let first = shards[0].as_deref().expect("a shard");
        let with_it = {
            let mut other = data.clone();
            other[0] = 1;
            write_all(&sharding, &other)[0].clone().expect("a shard")
        };
        assert!(first.len() < with_it.len(), "{name}");
    }
}

#[test]
fn an_all_fill_shard_is_not_stored_and_reads_as_the_fill_value() {
    let sharding = sharding(&SHARD, chain_inner(&INNER), &INNER, IndexLocation::End);
    let zeros = vec![0u8; SHAPE[0] * SHAPE[1] * ITEM];
    let shards = write_all(&sharding, &zeros);
    assert!(shards.iter().all(Option::is_none));
    let read = read_region(&sharding, &sources(&shards), &Region::whole(&SHAPE));
    assert_eq!(read, zeros);
}

#[test]
fn a_partial_write_keeps_the_rest_of_the_shard() {
    let data = values();
    for (name, sharding) in layouts() {
        let shards = write_all(&sharding, &data);
        // Rows 1..3, columns 2..5 of the first shard: parts of four inner chunks.
        let part = Region::block(&[1, 2], &[2, 3]);
        let new_values: Vec<u8> = (0..6u16).flat_map(|v| (1000 + v).to_ne_bytes()).collect();
        let values = InArray::contiguous(&new_values, &[2, 3], ITEM).expect("values");
        let write = ShardWrite {
            old: shards[0].as_deref(),
            chunk: part,
            values: Region::whole(&[2, 3]),
        };
        let mut written = sharding
            .write_buffers(&[write], &values, &[0, 0], EmptyRule::SameBytes, 2)
            .expect("written");
        let mut updated = shards.clone();
        updated[0] = written.remove(0);
        let mut want = data.clone();
        for (k, v) in (0..6u16).enumerate() {
            let at = ((1 + k / 3) * SHAPE[1] + 2 + k % 3) * ITEM;
            want[at..at + ITEM].copy_from_slice(&(1000 + v).to_ne_bytes());
        }
        assert_eq!(
            read_region(&sharding, &sources(&updated), &Region::whole(&SHAPE)),
            want,
            "{name}"
        );
    }
}

#[test]
fn shard_files_are_written_read_in_parts_and_removed_when_empty() {
    let dir = std::env::temp_dir().join(format!(
        "zarr-codec-runtime-sharding-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let data = values();
    let sharding = sharding(&SHARD, chain_inner(&INNER), &INNER, IndexLocation::End);
    let parts = shard_parts();
    let paths: Vec<PathBuf> = parts
        .iter()
        .map(|(n, ..)| dir.join("c").join(n.to_string()))
        .collect();
    let items: Vec<WriteItem<'_>> = parts
        .iter()
        .zip(&paths)
        .map(|((_, chunk, values), path)| WriteItem {
            path,
            chunk: chunk.clone(),
            values: values.clone(),
        })
        .collect();
    let values = InArray::contiguous(&data, &SHAPE, ITEM).expect("values");
    let stored = sharding
        .write_files(&items, &values, &[0, 0], EmptyRule::SameBytes, 2)
        .expect("written");
    assert!(stored.iter().all(|&s| s));
    let in_memory = write_all(&sharding, &data);
    for (path, shard) in paths.iter().zip(&in_memory) {
        assert_eq!(
            &std::fs::read(path).expect("a file"),
            shard.as_ref().expect("a shard")
        );
    }
    let files: Vec<Source<'_>> = paths.iter().map(|p| Source::File(p)).collect();
    let part = Region {
        spans: vec![
            Span {
                start: 1,
                step: 3,
                count: 3,
            },
            Span::run(4, 5),
        ],
    };
    assert_eq!(
        read_region(&sharding, &files, &part),
        expected(&data, &part)
    );
    // An inner chunk the part does not need may be garbage: it is neither read nor decoded.
    let mut shard = std::fs::read(&paths[0]).expect("a file");
    // The first stored inner chunk: in Morton order (0, 0), empty, then (1, 0).
    shard[0] ^= 0xFF;
    std::fs::write(&paths[0], &shard).expect("written");
    let elsewhere = Region::block(&[0, 3], &[2, 3]); // inner chunk (0, 1)
    assert_eq!(
        read_region(&sharding, &files, &elsewhere),
        expected(&data, &elsewhere)
    );
    // Zeros over a whole shard remove its file.
    let zeros = vec![0u8; SHARD[0] * SHARD[1] * ITEM];
    let zero_values = InArray::contiguous(&zeros, &SHARD, ITEM).expect("values");
    let item = WriteItem {
        path: &paths[0],
        chunk: Region::whole(&SHARD),
        values: Region::whole(&SHARD),
    };
    let stored = sharding
        .write_files(&[item], &zero_values, &[0, 0], EmptyRule::SameBytes, 1)
        .expect("written");
    assert_eq!(stored, [false]);
    assert!(!paths[0].exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Shard files written one at a time on more threads than shards (every inner chunk on the
/// pool, the shard written from its pieces) and read one at a time on two threads (each inner
/// chunk read and decoded by the thread that takes it), in every layout: the same bytes as
/// shards written in memory, the values written, a missing file as the fill value and a file
/// cut short as corrupt.
#[test]
fn single_shard_files_are_written_and_read_by_every_thread() {
    let data = values();
    for (name, sharding) in layouts() {
        let dir = std::env::temp_dir().join(format!(
            "zarr-codec-runtime-single-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let values = InArray::contiguous(&data, &SHAPE, ITEM).expect("values");
        let in_memory = write_all(&sharding, &data);
        for ((number, chunk, place), shard) in shard_parts().into_iter().zip(&in_memory) {
            let path = dir.join(number.to_string());
            let item = WriteItem {
                path: &path,
                chunk: chunk.clone(),
                values: place.clone(),
            };
            let stored = sharding
                .write_files(&[item], &values, &[0, 0], EmptyRule::SameBytes, 4)
                .expect("written");
            assert_eq!(stored, [true], "{name}");
            let written = std::fs::read(&path).expect("a file");
            assert!(Some(&written) == shard.as_ref(), "{name}: shard {number}");
            let counts = place.counts();
            let mut array = vec![0xEE; counts.iter().product::<usize>() * ITEM];
            let out = OutArray::contiguous(&mut array, &counts, ITEM).expect("an array");
            let item = ReadItem {
                source: Source::File(&path),
                chunk,
                out: Region::whole(&counts),
            };
            let found = sharding.read(&[item], &out, &[0, 0], 2).expect("read");
            assert_eq!(found, [true], "{name}");
            assert!(array == expected(&data, &place), "{name}: shard {number}");
        }
        let whole = Region::whole(&SHARD);
        let mut array = vec![0xEE; SHARD[0] * SHARD[1] * ITEM];
        let missing = dir.join("missing");
        let out = OutArray::contiguous(&mut array, &SHARD, ITEM).expect("an array");
        let item = ReadItem {
            source: Source::File(&missing),
            chunk: whole.clone(),
            out: whole.clone(),
        };
        assert_eq!(
            sharding.read(&[item], &out, &[0, 0], 2).expect("read"),
            [false]
        );
        assert!(
            array.iter().all(|&byte| byte == 0),
            "{name}: the fill value"
        );
        let shard = in_memory[0].as_ref().expect("a shard");
        let cut = dir.join("cut");
        std::fs::write(&cut, &shard[..shard.len() / 2]).expect("written");
        let out = OutArray::contiguous(&mut array, &SHARD, ITEM).expect("an array");
        let item = ReadItem {
            source: Source::File(&cut),
            chunk: whole.clone(),
            out: whole,
        };
        let error = sharding.read(&[item], &out, &[0, 0], 2).expect_err("cut");
        assert!(
            matches!(error, ChunkError::Codec(CodecError::Corrupt(_))),
            "{name}: {error}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_lying_or_short_shard_is_corrupt() {
    let data = values();
    let sharding = sharding(&SHARD, chain_inner(&INNER), &INNER, IndexLocation::End);
    let shards = write_all(&sharding, &data);
    let shard = shards[1].clone().expect("a shard");
    let mut lying = shard.clone();
    let at = lying.len() - 10; // inside the index: its checksum no longer matches
    lying[at] ^= 1;
    for bad in [lying, shard[..10].to_vec(), Vec::new()] {
        let mut all = shards.clone();
        all[1] = Some(bad);
        let grid = Grid::covering(&SHAPE, &SHARD).expect("a grid");
        let mut items = Vec::new();
        grid.for_each_chunk(
            &Region::whole(&SHAPE),
            &Region::whole(&SHAPE),
            |number, chunk, out| {
                items.push(ReadItem {
                    source: sources(&all)[number],
                    chunk,
                    out,
                });
            },
        );
        let mut array = vec![0; SHAPE[0] * SHAPE[1] * ITEM];
        let out = OutArray::contiguous(&mut array, &SHAPE, ITEM).expect("an array");
        let error = sharding
            .read(&items, &out, &[0, 0], 2)
            .expect_err("accepted");
        assert!(
            matches!(error, ChunkError::Codec(CodecError::Corrupt(_))),
            "{error}"
        );
    }
}

/// A span within `len` from proptest's picks.
fn span_within(len: usize, start: usize, step: usize, count: usize) -> Span {
    let start = start % len;
    let step = 1 + step % 4;
    let room = (len - 1 - start) / step + 1;
    Span {
        start,
        step,
        count: 1 + count % room,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any strided region of the array reads as the values written, from every layout.
    #[test]
    fn any_region_reads_as_written(picks in proptest::collection::vec(0usize..100, 6)) {
        let data = values();
        let region = Region {
            spans: vec![
                span_within(SHAPE[0], picks[0], picks[1], picks[2]),
                span_within(SHAPE[1], picks[3], picks[4], picks[5]),
            ],
        };
        for (name, sharding) in layouts() {
            let shards = write_all(&sharding, &data);
            prop_assert_eq!(read_region(&sharding, &sources(&shards), &region), expected(&data, &region), "{}", name);
        }
    }
}

#[test]
fn a_shard_fetched_in_parts_reads_as_written() {
    let data = values();
    for (name, sharding) in layouts() {
        let shards = write_all(&sharding, &data);
        let index_len = sharding.index_len();
        // Rows 1, 3 and 5, columns 2..9 of the array: parts of four shards.
        let region = Region {
            spans: vec![
                Span {
                    start: 1,
                    step: 2,
                    count: 3,
                },
                Span::run(2, 7),
            ],
        };
        let grid = Grid::covering(&SHAPE, &SHARD).expect("a grid");
        let mut parts = Vec::new();
        grid.for_each_chunk(
            &region,
            &Region::whole(&region.counts()),
            |n, chunk, out| {
                parts.push((n, chunk, out));
            },
        );
        let mut items = Vec::new();
        for (n, chunk, out) in parts {
            let shard = shards[n].as_deref().expect("a shard");
            let index = if name == "end" {
                &shard[shard.len() - index_len..]
            } else {
                &shard[..index_len] // "start", and "nested", whose outer index is first
            };
            let needed = sharding.needed(index, &chunk).expect("ranges");
            assert!(!needed.is_empty(), "{name}");
            let chunks = needed
                .into_iter()
                .map(|(inner, range)| (inner, &shard[range]))
                .collect();
            items.push(FetchedRead {
                index: Some(index),
                chunks,
                chunk,
                out,
            });
        }
        let counts = region.counts();
        let mut array = vec![0xEE; counts.iter().product::<usize>() * ITEM];
        let out = OutArray::contiguous(&mut array, &counts, ITEM).expect("an array");
        let found = sharding
            .read_fetched(&items, &out, &[0, 0], 2)
            .expect("read");
        assert_eq!(found, [true; 4], "{name}");
        assert_eq!(array, expected(&data, &region), "{name}");
        // An inner chunk left out, or fetched short, is an error, not a fill value.
        let mut missing = items.clone();
        missing[0].chunks.pop();
        let mut array = vec![0; counts.iter().product::<usize>() * ITEM];
        let out = OutArray::contiguous(&mut array, &counts, ITEM).expect("an array");
        assert!(sharding.read_fetched(&missing, &out, &[0, 0], 1).is_err());
        let mut short = items.clone();
        short[1].chunks[0].1 = &short[1].chunks[0].1[1..];
        assert!(sharding.read_fetched(&short, &out, &[0, 0], 1).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any bytes as a shard, and any edit of a real one (flipped bytes, a cut, junk appended),
    /// read whole or in part, from memory, from a file or fetched in parts: a value or an
    /// error, never a panic or a read out of bounds.
    #[test]
    fn hostile_shards_read_as_values_or_errors(
        junk in proptest::collection::vec(any::<u8>(), 0..400),
        edits in proptest::collection::vec((0usize..4096, any::<u8>()), 0..6),
        cut in 0usize..4096,
        layout in 0usize..3,
        whole in any::<bool>(),
    ) {
        let data = values();
        let (_, sharding) = layouts().swap_remove(layout);
        let mut shard = write_all(&sharding, &data)[0].clone().expect("a shard");
        for &(at, value) in &edits {
            let at = at % shard.len();
            shard[at] ^= value;
        }
        shard.truncate(cut.max(1).min(shard.len()));
        shard.extend_from_slice(&junk);
        let part = if whole { Region::whole(&SHARD) } else { Region::block(&[1, 2], &[2, 3]) };
        let counts = part.counts();
        let place = Region::whole(&counts);
        let mut array = vec![0u8; counts.iter().product::<usize>() * ITEM];
        for candidate in [shard.clone(), junk.clone()] {
            let out = OutArray::contiguous(&mut array, &counts, ITEM).expect("an array");
            let item = ReadItem { source: Source::Bytes(&candidate), chunk: part.clone(), out: place.clone() };
            let _ = sharding.read(&[item], &out, &[0, 0], 1);
            let dir = std::env::temp_dir().join(format!("zarr-codec-runtime-hostile-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("a directory");
            let path = dir.join("shard");
            std::fs::write(&path, &candidate).expect("written");
            for threads in [1, 2] {
                let item = ReadItem { source: Source::File(&path), chunk: part.clone(), out: place.clone() };
                let _ = sharding.read(&[item], &out, &[0, 0], threads);
            }
            let _ = std::fs::remove_dir_all(&dir);
            let index_len = sharding.index_len().min(candidate.len());
            for index in [&candidate[..index_len], &candidate[candidate.len() - index_len..]] {
                if let Ok(needed) = sharding.needed(index, &part) {
                    let chunks = needed
                        .into_iter()
                        .filter_map(|(inner, range)| candidate.get(range).map(|bytes| (inner, bytes)))
                        .collect();
                    let item = FetchedRead { index: Some(index), chunks, chunk: part.clone(), out: place.clone() };
                    let _ = sharding.read_fetched(&[item], &out, &[0, 0], 1);
                }
            }
        }
    }
}

/// Whole shard files, more of them than threads, read whole on two threads (each thread takes
/// a shard and reads it in runs of adjacent inner chunks): shards of 512 KiB of incompressible
/// values in inner chunks of 32 KiB (several runs a shard), edge shards cut short, an inner
/// chunk left empty (not stored), a shard file missing (the fill value) and one cut short
/// (corrupt, nothing else wrong).
#[test]
fn whole_shard_files_are_read_a_shard_per_thread_in_runs() {
    const BIG: [usize; 2] = [1100, 1000];
    const BIG_SHARD: [usize; 2] = [512, 512];
    const BIG_INNER: [usize; 2] = [128, 128];
    let dir = std::env::temp_dir().join(format!(
        "zarr-codec-runtime-whole-shards-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    // Every element distinct and no run zstd can shorten, but for inner chunk (0, 0): zeros.
    let data: Vec<u8> = (0..BIG[0] * BIG[1])
        .flat_map(|i| {
            let (row, col) = (i / BIG[1], i % BIG[1]);
            let mixed = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48;
            let value = if row < 128 && col < 128 {
                0
            } else {
                u16::try_from(mixed).expect("16 bits")
            };
            value.to_ne_bytes()
        })
        .collect();
    for location in [IndexLocation::End, IndexLocation::Start] {
        let sharding = sharding(&BIG_SHARD, chain_inner(&BIG_INNER), &BIG_INNER, location);
        let parts: Vec<(PathBuf, Region, Region)> = parts_of(&BIG, &BIG_SHARD)
            .into_iter()
            .map(|(n, part, place)| (dir.join(n.to_string()), part, place))
            .collect();
        let values = InArray::contiguous(&data, &BIG, ITEM).expect("values");
        let writes: Vec<WriteItem<'_>> = parts
            .iter()
            .map(|(path, part, place)| WriteItem {
                path,
                chunk: part.clone(),
                values: place.clone(),
            })
            .collect();
        let stored = sharding
            .write_files(&writes, &values, &[0, 0], EmptyRule::SameBytes, 2)
            .expect("written");
        assert!(stored.iter().all(|&s| s));
        assert!(std::fs::metadata(&parts[0].0).expect("a file").len() > 256 << 10); // runs
        let read_all = |paths: &[&std::path::Path]| {
            let mut array = vec![0xEEu8; data.len()];
            let out = OutArray::contiguous(&mut array, &BIG, ITEM).expect("an array");
            let items: Vec<ReadItem<'_>> = parts
                .iter()
                .zip(paths)
                .map(|((_, part, place), path)| ReadItem {
                    source: Source::File(path),
                    chunk: part.clone(),
                    out: place.clone(),
                })
                .collect();
            sharding
                .read(&items, &out, &[0, 0], 2)
                .map(|found| (found, array))
        };
        let paths: Vec<&std::path::Path> = parts.iter().map(|(path, ..)| path.as_path()).collect();
        let (found, array) = read_all(&paths).expect("read");
        assert_eq!(found, [true; 6]); // 3 x 2 shards, the last row of them cut short
        assert!(array == data, "{location:?}");
        // A missing shard file: its place is the fill value, the rest as written.
        let missing = dir.join("missing");
        let mut some_missing = paths.clone();
        some_missing[5] = &missing;
        let (found, array) = read_all(&some_missing).expect("read");
        assert_eq!(found, [true, true, true, true, true, false]);
        let (_, _, place) = &parts[5];
        let (rows, cols) = (place.spans[0], place.spans[1]);
        for row in 0..BIG[0] {
            let at = row * BIG[1] * ITEM;
            let in_place = row >= rows.start && row < rows.start + rows.count;
            let (left, right) = (at + cols.start * ITEM, at + BIG[1] * ITEM);
            assert_eq!(array[at..left], data[at..left], "row {row}");
            if in_place {
                assert!(array[left..right].iter().all(|&b| b == 0), "row {row}");
            } else {
                assert_eq!(array[left..right], data[left..right], "row {row}");
            }
        }
        // A shard file cut short: corrupt.
        let cut = dir.join("cut");
        let whole = std::fs::read(&parts[1].0).expect("a file");
        std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).expect("written");
        let mut some_cut = paths.clone();
        some_cut[1] = &cut;
        let error = read_all(&some_cut).expect_err("cut");
        assert!(
            matches!(error, ChunkError::Codec(CodecError::Corrupt(_))),
            "{location:?}: {error}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
