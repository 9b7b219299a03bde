//! Whole shards read from object storage as their bodies stream in
//! (`remote::fetch_and_read_shards`), over `object_store`'s in-memory store slowed down per
//! byte, so that an index fetched by a request of its own arrives before the body: every
//! layout read back exactly, missing shards and inner chunks as the fill value, and a shard
//! replaced between its two requests refused.
#![cfg(feature = "object-store")]

use std::fmt;
use std::sync::Arc;
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
use zarr_codec_runtime::remote::{ShardRead, fetch_and_read_shards};
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

/// Each shard of the array: its key, its part and its place (the array's shape is whole
/// shards).
fn shard_reads() -> Vec<ShardRead> {
    let grid = Grid::covering(&SHAPE, &SHARD).expect("a grid");
    let mut reads = Vec::new();
    let whole = Region::whole(&SHAPE);
    grid.for_each_chunk(&whole, &whole, |number, part, place| {
        reads.push(ShardRead {
            key: Path::from(format!("a/c/{number}")),
            part,
            place,
        });
    });
    reads
}

/// The array's shards as stored, `(key, bytes)`.
fn shards(sharding: &Sharding, data: &[u8]) -> Vec<(Path, Vec<u8>)> {
    let values = InArray::contiguous(data, &SHAPE, ITEM).expect("values");
    let reads = shard_reads();
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

/// The whole array read through `store` on 2 threads.
fn read_all(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    sharding: &Sharding,
    ask_index: bool,
) -> Result<(Vec<u8>, Vec<bool>), ChunkError> {
    let mut array = vec![0xEE; SHAPE[0] * SHAPE[1] * ITEM];
    let out = OutArray::contiguous(&mut array, &SHAPE, ITEM).expect("an array");
    let found = fetch_and_read_shards(
        rt.handle(),
        store,
        sharding,
        &shard_reads(),
        &out,
        &[0, 0],
        (4, 2),
        ask_index,
    )?;
    Ok((array, found))
}

#[test]
fn whole_shards_stream_in_exactly_with_or_without_their_index_apart() {
    let rt = runtime();
    let data = values();
    for location in [IndexLocation::End, IndexLocation::Start] {
        let sharding = sharding(location);
        let mut stored = shards(&sharding, &data);
        stored.remove(1); // a missing shard: its place is the fill value
        let mut expected = data.clone();
        for row in 0..SHARD[0] {
            let at = (row * SHAPE[1] + SHARD[1]) * ITEM;
            expected[at..at + SHARD[1] * ITEM].fill(0);
        }
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

/// A store whose suffix requests (a shard's index alone) answer from an older version of
/// every object, as if each were replaced between a reader's two requests.
#[derive(Debug)]
struct Replaced {
    now: ThrottledStore<InMemory>,
    before: InMemory,
}

impl fmt::Display for Replaced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Replaced")
    }
}

#[async_trait]
impl ObjectStore for Replaced {
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
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        if matches!(options.range, Some(GetRange::Suffix(_))) {
            self.before.get_opts(location, options).await
        } else {
            self.now.get_opts(location, options).await
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
fn a_shard_replaced_between_its_two_requests_is_an_error_not_a_mix() {
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
    let now = slow_store(&rt, &shards(&sharding, &data), Duration::from_micros(200));
    let store: Arc<dyn ObjectStore> = Arc::new(Replaced { now, before });
    let err = read_all(&rt, &store, &sharding, true).expect_err("replaced");
    assert!(matches!(err, ChunkError::Io(..)), "{err}");
    assert!(
        err.to_string().contains("replaced while it was read"),
        "{err}"
    );
    // Without the index apart, the body alone is read: the values of one version, the newer.
    let (array, _) = read_all(&rt, &store, &sharding, false).expect("read");
    assert!(array == data, "the values differ");
}
