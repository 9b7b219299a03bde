//! Whole shards read from object storage as their bodies stream in
//! (`remote::fetch_and_read_shards`), over `object_store`'s in-memory store slowed down per
//! byte, so that an index fetched by a request of its own arrives before the body: every
//! layout read back exactly, whole and in parts (the index, then only the inner chunks
//! needed), missing shards and inner chunks as the fill value, and a shard replaced between
//! its requests refused.
#![cfg(feature = "object-store")]

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::throttle::{ThrottleConfig, ThrottledStore};
use object_store::{
    CopyOptions, GetOptions, GetRange, GetResult, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use serde_json::json;
use zarr_codec_runtime::remote::{Fetching, IndexCache, ShardRead, fetch_and_read_shards};
use zarr_codec_runtime::{
    Chain, ChunkError, EmptyRule, Grid, InArray, IndexLocation, Inner, OutArray, Region,
    ShardWrite, Sharding, WriteOrder,
};
use zarr_codec_shapes::{
    BytesToBytesCodec, ChunkSpec, CodecFromJson, DataType, Endian, ZarrFormat,
};

const SHAPE: [usize; 2] = [8, 18];
const SHARD: [usize; 2] = [4, 6];
const INNER: [usize; 2] = [2, 3];
const ITEM: usize = 2; // uint16

fn spec(shape: &[usize], data_type: DataType) -> ChunkSpec {
    ChunkSpec::with_default_fill_value(shape.to_vec(), data_type).expect("a spec")
}

/// Shards of uint16 in zstd inner chunks, the index `bytes` + `crc32c` at `location`.
fn sharding(location: IndexLocation) -> Sharding {
    let zstd_json = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
    let zstd: Arc<dyn BytesToBytesCodec> =
        Arc::new(zarr_codec_zstd::Zstd::from_json(&zstd_json, ZarrFormat::V3).expect("zstd"));
    let inner = Chain::new(
        &[],
        Some(Endian::Little),
        &[zstd],
        spec(&INNER, DataType::UInt16),
    )
    .expect("a chain");
    let crc32c: Arc<dyn BytesToBytesCodec> = Arc::new(zarr_codec_crc32c::Crc32c::default());
    let index = Chain::new(
        &[],
        Some(Endian::Little),
        &[crc32c],
        spec(&[2, 2, 2], DataType::UInt64),
    )
    .expect("an index chain");
    Sharding::new(
        &SHARD,
        &INNER,
        Inner::Chain {
            decode: inner.decode_plan().clone(),
            encode: inner.encode_plan().clone(),
        },
        (index.decode_plan().clone(), index.encode_plan().clone()),
        location,
        WriteOrder::Morton,
    )
    .expect("a sharding")
}

/// Distinct bytes in every element, but for one inner chunk of fill values (not stored).
fn values() -> Vec<u8> {
    (0..SHAPE[0] * SHAPE[1])
        .flat_map(|i| {
            let (row, col) = (i / SHAPE[1], i % SHAPE[1]);
            let value = if row < 2 && col < 3 {
                0u16
            } else {
                u16::try_from(i * 257 + 1).expect("small")
            };
            value.to_ne_bytes()
        })
        .collect()
}

/// The shards `region` of the array touches: each one's key, the part of it in the region
/// and where that goes in an output of the region's counts.
fn shard_reads(region: &Region) -> Vec<ShardRead> {
    let grid = Grid::covering(&SHAPE, &SHARD).expect("a grid");
    let mut reads = Vec::new();
    let place = Region::whole(&region.counts());
    grid.for_each_chunk(region, &place, |number, part, place| {
        reads.push(ShardRead {
            key: Path::from(format!("a/c/{number}")),
            whole: part.is_whole(&SHARD),
            part,
            place,
        });
    });
    reads
}

/// `region` (steps of 1) of `data`, the whole array, copied by hand.
fn expected(data: &[u8], region: &Region) -> Vec<u8> {
    let (rows, cols) = (region.spans[0], region.spans[1]);
    let mut out = Vec::new();
    for row in rows.start..rows.start + rows.count {
        let at = (row * SHAPE[1] + cols.start) * ITEM;
        out.extend_from_slice(&data[at..at + cols.count * ITEM]);
    }
    out
}

/// The array's shards as stored, `(key, bytes)`.
fn shards(sharding: &Sharding, data: &[u8]) -> Vec<(Path, Vec<u8>)> {
    let values = InArray::contiguous(data, &SHAPE, ITEM).expect("values");
    let reads = shard_reads(&Region::whole(&SHAPE));
    let writes: Vec<ShardWrite<'_>> = reads
        .iter()
        .map(|read| ShardWrite {
            old: None,
            chunk: read.part.clone(),
            values: read.place.clone(),
        })
        .collect();
    let written = sharding
        .write_buffers(&writes, &values, &[0, 0], EmptyRule::SameBytes, 2)
        .expect("written");
    reads
        .into_iter()
        .zip(written)
        .map(|(read, bytes)| (read.key, bytes.expect("every shard has values")))
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// An in-memory store holding `objects`, each byte of an answer taking `per_byte`.
fn slow_store(
    rt: &tokio::runtime::Runtime,
    objects: &[(Path, Vec<u8>)],
    per_byte: Duration,
) -> ThrottledStore<InMemory> {
    let store = InMemory::new();
    rt.block_on(async {
        for (key, bytes) in objects {
            store
                .put(key, PutPayload::from(bytes.clone()))
                .await
                .expect("put");
        }
    });
    let config = ThrottleConfig {
        wait_get_per_byte: per_byte,
        ..ThrottleConfig::default()
    };
    ThrottledStore::new(store, config)
}

/// `region` of the array read through `store` on 2 threads: its values and, for each shard
/// it touches, whether it was there.
fn read_region(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    sharding: &Sharding,
    region: &Region,
    ask_index: bool,
) -> Result<(Vec<u8>, Vec<bool>), ChunkError> {
    let how = Fetching {
        limit: 4,
        threads: 2,
        ask_index,
        indexes: None,
    };
    read_region_with(rt, store, sharding, region, &how)
}

/// [`read_region`], fetched as `how` says.
fn read_region_with(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    sharding: &Sharding,
    region: &Region,
    how: &Fetching,
) -> Result<(Vec<u8>, Vec<bool>), ChunkError> {
    let counts = region.counts();
    let mut array = vec![0xEE; counts.iter().product::<usize>() * ITEM];
    let out = OutArray::contiguous(&mut array, &counts, ITEM).expect("an array");
    let found = fetch_and_read_shards(
        rt.handle(),
        store,
        sharding,
        &shard_reads(region),
        &out,
        &[0, 0],
        how,
    )?;
    Ok((array, found))
}

/// The whole array read through `store`.
fn read_all(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    sharding: &Sharding,
    ask_index: bool,
) -> Result<(Vec<u8>, Vec<bool>), ChunkError> {
    read_region(rt, store, sharding, &Region::whole(&SHAPE), ask_index)
}

/// The values stored, but shard 1 missing (fill values): the shards, and the array's values.
fn stored_but_shard_1(sharding: &Sharding) -> (Vec<(Path, Vec<u8>)>, Vec<u8>) {
    let data = values();
    let mut stored = shards(sharding, &data);
    stored.remove(1);
    let mut expected = data;
    for row in 0..SHARD[0] {
        let at = (row * SHAPE[1] + SHARD[1]) * ITEM;
        expected[at..at + SHARD[1] * ITEM].fill(0);
    }
    (stored, expected)
}

#[test]
fn whole_shards_stream_in_exactly_with_or_without_their_index_apart() {
    let rt = runtime();
    for location in [IndexLocation::End, IndexLocation::Start] {
        let sharding = sharding(location);
        let (stored, expected) = stored_but_shard_1(&sharding);
        for per_byte in [Duration::ZERO, Duration::from_micros(200)] {
            let store: Arc<dyn ObjectStore> = Arc::new(slow_store(&rt, &stored, per_byte));
            for ask_index in [false, true] {
                let (array, found) = read_all(&rt, &store, &sharding, ask_index).expect("read");
                let case = format!("{location:?}, {per_byte:?} a byte, index apart: {ask_index}");
                assert_eq!(found, [true, false, true, true, true, true], "{case}");
                assert!(array == expected, "{case}: the values differ");
            }
        }
    }
}

#[test]
fn parts_of_shards_fetch_their_index_then_only_the_inner_chunks_needed() {
    let rt = runtime();
    // Rows 1..7 and columns 2..17: part of every shard, some inner chunks not touched.
    let region = Region::block(&[1, 2], &[6, 15]);
    for location in [IndexLocation::End, IndexLocation::Start] {
        let sharding = sharding(location);
        let (stored, data) = stored_but_shard_1(&sharding);
        let watched = Arc::new(Watched::new(slow_store(&rt, &stored, Duration::ZERO), None));
        let store: Arc<dyn ObjectStore> = Arc::clone(&watched) as Arc<dyn ObjectStore>;
        let (array, found) = read_region(&rt, &store, &sharding, &region, true).expect("read");
        assert_eq!(found, [true, false, true, true, true, true], "{location:?}");
        assert!(
            array == expected(&data, &region),
            "{location:?}: the values differ"
        );
        let gets = watched.gets();
        for (key, shard) in &stored {
            let ranges: Vec<&Option<GetRange>> = gets
                .iter()
                .filter(|(path, _)| path == key)
                .map(|(_, range)| range)
                .collect();
            let index = u64::try_from(sharding.index_len()).expect("small");
            let index_range = match location {
                IndexLocation::End => GetRange::Suffix(index),
                IndexLocation::Start => GetRange::Bounded(0..index),
            };
            assert_eq!(
                ranges.first(),
                Some(&&Some(index_range)),
                "{key}: {ranges:?}"
            );
            // The rest are byte ranges of inner chunks, fewer than the shard's 4, none past
            // the data.
            assert!(ranges.len() <= 1 + 4, "{key}: {ranges:?}");
            for range in &ranges[1..] {
                let Some(GetRange::Bounded(range)) = range else {
                    panic!("{key}: {range:?} is not an inner chunk's range");
                };
                assert!(
                    usize::try_from(range.end).expect("small") <= shard.len(),
                    "{key}"
                );
            }
        }
    }
}

/// A store that logs the range of every GET, and whose index requests (a suffix range)
/// answer from `before`, where given: an older version of every object, as if each were
/// replaced between a reader's requests.
#[derive(Debug)]
struct Watched {
    now: ThrottledStore<InMemory>,
    before: Option<InMemory>,
    gets: Mutex<Vec<(Path, Option<GetRange>)>>,
    /// Answers whatever `If-Match` says, as a server that ignores it.
    ignores_conditions: bool,
    /// Where given, holds each index request until a range of its shard is in the log from
    /// there on (failing after a while): a reader that waits for the index before asking for
    /// ranges fails.
    index_waits_for_a_range: Mutex<Option<usize>>,
}

impl Watched {
    fn new(now: ThrottledStore<InMemory>, before: Option<InMemory>) -> Self {
        Self {
            now,
            before,
            gets: Mutex::new(Vec::new()),
            ignores_conditions: false,
            index_waits_for_a_range: Mutex::new(None),
        }
    }

    fn gets(&self) -> Vec<(Path, Option<GetRange>)> {
        self.gets.lock().expect("log").clone()
    }

    /// Waits until a bounded range of `key` is in the log from the `from`th request on.
    async fn a_range_asked(&self, key: &Path, from: usize) -> object_store::Result<()> {
        for _ in 0..5000 {
            let asked = self.gets.lock().expect("log")[from..]
                .iter()
                .any(|(of, range)| of == key && matches!(range, Some(GetRange::Bounded(_))));
            if asked {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        Err(object_store::Error::Generic {
            store: "Watched",
            source: format!("{key}: no range asked beside its index").into(),
        })
    }
}

impl fmt::Display for Watched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Watched")
    }
}

#[async_trait]
impl ObjectStore for Watched {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.now.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.now.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        mut options: GetOptions,
    ) -> object_store::Result<GetResult> {
        if self.ignores_conditions {
            options.if_match = None;
        }
        self.gets
            .lock()
            .expect("log")
            .push((location.clone(), options.range.clone()));
        let waits_from = *self.index_waits_for_a_range.lock().expect("flag");
        if let (Some(from), Some(GetRange::Suffix(_))) = (waits_from, &options.range) {
            self.a_range_asked(location, from).await?;
        }
        match &self.before {
            Some(before) if matches!(options.range, Some(GetRange::Suffix(_))) => {
                before.get_opts(location, options).await
            }
            _ => self.now.get_opts(location, options).await,
        }
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.now.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.now.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.now.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.now.copy_opts(from, to, options).await
    }
}

#[test]
fn a_shard_replaced_between_its_requests_is_an_error_not_a_mix() {
    let rt = runtime();
    let sharding = sharding(IndexLocation::End);
    let data = values();
    // The first row of inner chunks of every shard all fill values (not stored), so every
    // shard's index differs from its older one's.
    let mut older = data.clone();
    for row in (0..SHAPE[0]).filter(|row| row % SHARD[0] < INNER[0]) {
        older[row * SHAPE[1] * ITEM..(row + 1) * SHAPE[1] * ITEM].fill(0);
    }
    let before = InMemory::new();
    rt.block_on(async {
        for (key, bytes) in shards(&sharding, &older) {
            before
                .put(&key, PutPayload::from(bytes))
                .await
                .expect("put");
        }
    });
    // One more object first: the newer versions' ETags differ from the older ones'.
    let mut newer = vec![(Path::from("other"), vec![1u8])];
    newer.extend(shards(&sharding, &data));
    let now = slow_store(&rt, &newer, Duration::from_micros(200));
    let store: Arc<dyn ObjectStore> = Arc::new(Watched::new(now, Some(before)));
    // Whole shards: the index fetched apart is the older one's.
    let err = read_all(&rt, &store, &sharding, true).expect_err("replaced");
    assert!(matches!(err, ChunkError::Io(..)), "{err}");
    assert!(
        err.to_string().contains("replaced while it was read"),
        "{err}"
    );
    // Parts of shards: the inner chunks' ranges are asked for the older version.
    let region = Region::block(&[1, 2], &[6, 15]);
    let err = read_region(&rt, &store, &sharding, &region, true).expect_err("replaced");
    assert!(matches!(err, ChunkError::Io(..)), "{err}");
    assert!(err.to_string().contains("its ETag changed"), "{err}");
    // Without the index apart, the body alone is read: the values of one version, the newer.
    let (array, _) = read_all(&rt, &store, &sharding, false).expect("read");
    assert!(array == data, "the values differ");
}

/// How a store of [`read_thrice`] treats versions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Versions {
    /// `ETag`s follow the content and `If-Match` is honoured: kept indexes are trusted.
    Trusted,
    /// `If-Match` is ignored: each kept index is checked against the current one.
    ConditionsIgnored,
    /// `ETag`s may not follow the content (a web server's): checked too.
    MayNotFollowContent,
}

/// Reads `region` three times through a store over the array's shards (replaced by `newer`
/// before the third where given), keeping indexes: the values of each read and how many
/// index requests each made. Where kept indexes are checked, from the second read on, each
/// index request is held until a range of its shard is asked (so that reading the index
/// before the ranges fails).
fn read_thrice(versions: Versions, newer: Option<&[u8]>) -> (Vec<Vec<u8>>, Vec<usize>) {
    let rt = runtime();
    let sharding = sharding(IndexLocation::End);
    let region = Region::block(&[1, 2], &[6, 15]);
    let mut watched = Watched::new(
        slow_store(&rt, &shards(&sharding, &values()), Duration::ZERO),
        None,
    );
    watched.ignores_conditions = versions == Versions::ConditionsIgnored;
    let watched = Arc::new(watched);
    let store: Arc<dyn ObjectStore> = Arc::clone(&watched) as Arc<dyn ObjectStore>;
    let follow = versions != Versions::MayNotFollowContent;
    let how = Fetching {
        limit: 4,
        threads: 2,
        ask_index: false,
        indexes: Some(Arc::new(IndexCache::new(1 << 20, follow))),
    };
    let index_requests = || {
        let gets = watched.gets();
        gets.iter()
            .filter(|(_, range)| matches!(range, Some(GetRange::Suffix(_))))
            .count()
    };
    let (mut arrays, mut counts) = (Vec::new(), Vec::new());
    for round in 0..3 {
        if let (2, Some(newer)) = (round, newer) {
            rt.block_on(async {
                for (key, bytes) in shards(&sharding, newer) {
                    watched
                        .put(&key, PutPayload::from(bytes))
                        .await
                        .expect("put");
                }
            });
        }
        let checked = round > 0 && versions != Versions::Trusted;
        *watched.index_waits_for_a_range.lock().expect("flag") =
            checked.then(|| watched.gets().len());
        let before = index_requests();
        let (array, _) = read_region_with(&rt, &store, &sharding, &region, &how).expect("read");
        arrays.push(array);
        counts.push(index_requests() - before);
    }
    (arrays, counts)
}

/// Every shard's bytes but one in three flipped: every shard's index differs.
fn newer_values() -> Vec<u8> {
    let mut newer = values();
    newer.iter_mut().step_by(3).for_each(|byte| *byte ^= 0x5A);
    newer
}

#[test]
fn kept_indexes_save_a_round_trip_until_their_shard_is_replaced() {
    let region = Region::block(&[1, 2], &[6, 15]);
    let data = values();
    let (arrays, counts) = read_thrice(Versions::Trusted, None);
    assert!(
        arrays
            .iter()
            .all(|array| *array == expected(&data, &region))
    );
    // The first read finds that the store honours If-Match (one request, while every
    // shard's index is read); from the second on, every index is kept.
    assert_eq!(counts[0], 6, "{counts:?}");
    assert_eq!(counts[2], 0, "{counts:?}");
    // Every shard replaced before the third read: each kept index fails its condition and
    // is read again; the values are the newer ones.
    let newer = newer_values();
    let (arrays, counts) = read_thrice(Versions::Trusted, Some(&newer));
    assert!(arrays[2] == expected(&newer, &region), "the newer values");
    assert_eq!(counts[2], 6, "{counts:?}");
}

#[test]
fn untrusted_kept_indexes_are_checked_in_the_same_round_trip() {
    let region = Region::block(&[1, 2], &[6, 15]);
    for versions in [Versions::ConditionsIgnored, Versions::MayNotFollowContent] {
        // Each read asks for every shard's index (from the second on, beside its ranges).
        let (arrays, counts) = read_thrice(versions, None);
        assert!(
            arrays
                .iter()
                .all(|array| *array == expected(&values(), &region))
        );
        assert_eq!(counts, [6, 6, 6]);
        // Replaced before the third read: the kept indexes differ from the current ones,
        // whose ranges are asked for then; the values are the newer ones.
        let newer = newer_values();
        let (arrays, counts) = read_thrice(versions, Some(&newer));
        assert!(arrays[2] == expected(&newer, &region), "the newer values");
        assert_eq!(counts, [6, 6, 6]);
    }
}
