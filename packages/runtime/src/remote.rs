//! Python's `zarr_codec_runtime.Remote` (the `remote` feature): an object store (S3, HTTP)
//! whose chunks the runtime fetches and decodes itself, with no Python per chunk
//! (`zarr_codec_runtime::remote::fetch_and_read`).
//!
//! The requests run on one tokio runtime per process. Both it and each store's client (its
//! connection pool) are made again in a child process after a `fork` (dask's and
//! multiprocessing's workers): a child has none of its parent's threads, so theirs would never
//! answer.

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use object_store::ObjectStore;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::http::HttpBuilder;
use object_store::path::Path;
use object_store::{BackoffConfig, ClientConfigKey, ClientOptions, RetryConfig};
use pyo3::prelude::*;
use tokio::runtime::Runtime;
use zarr_codec_runtime::region::any_overlap;
use zarr_codec_runtime::remote::{
    Fetching, IndexCache, ShardRead, fetch_and_read, fetch_and_read_shards,
};
use zarr_codec_runtime::{ReadItem, Region, read_batch};
use zarr_codec_shapes::CodecError;

use crate::runner::{PyRunner, Runs};
use crate::runtime::{named, out_array, resolve, run_chunks};
use crate::selection::{complete_of, cut_now};
use zarr_codec_python::{thread_count, to_py_err};

/// Shards of at least this many decoded bytes have their index (at the end) fetched by a
/// request of its own beside the body's, so that their inner chunks decode while the body
/// streams in: below it a shard's decoding is too short to win back a request.
const INDEX_APART_FROM: usize = 1 << 20;

/// How failed requests are retried: obstore's `RetryConfig` (`max_retries`,
/// `retry_timeout` and the backoff's `init_backoff`, `max_backoff`, `base`), in seconds.
type Retry = (usize, f64, f64, f64, f64);

fn retry_config(retry: Option<Retry>) -> RetryConfig {
    let Some((max_retries, timeout, init, max, base)) = retry else {
        return RetryConfig::default();
    };
    RetryConfig {
        max_retries,
        retry_timeout: seconds(timeout),
        backoff: BackoffConfig {
            init_backoff: seconds(init),
            max_backoff: seconds(max),
            base,
        },
    }
}

/// A non-negative, finite number of seconds (anything else: none).
fn seconds(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::ZERO)
}

/// Where the store is and how it is reached.
#[derive(Clone)]
enum Kind {
    /// S3 (or any S3-compatible server): `object_store`'s `AmazonS3ConfigKey`s and values,
    /// over the `AWS_*` environment variables where the flag says so (as obstore's `S3Store`).
    S3(Vec<(AmazonS3ConfigKey, String)>, bool, Option<Retry>),
    /// Plain HTTP(S) under a URL, with `object_store`'s `ClientConfigKey`s and values.
    Http(String, Vec<(ClientConfigKey, String)>, Option<Retry>),
}

impl Kind {
    fn build(&self) -> object_store::Result<Arc<dyn ObjectStore>> {
        Ok(match self {
            Self::S3(options, from_env, retry) => {
                let start = if *from_env {
                    AmazonS3Builder::from_env()
                } else {
                    AmazonS3Builder::new()
                };
                let builder = options.iter().fold(start, |builder, (key, value)| {
                    builder.with_config(*key, value)
                });
                Arc::new(builder.with_retry(retry_config(*retry)).build()?)
            }
            Self::Http(url, options, retry) => {
                let client = options
                    .iter()
                    .fold(ClientOptions::new(), |client, (key, value)| {
                        client.with_config(*key, value)
                    });
                Arc::new(
                    HttpBuilder::new()
                        .with_url(url)
                        .with_client_options(client)
                        .with_retry(retry_config(*retry))
                        .build()?,
                )
            }
        })
    }
}

/// A store the runtime reads from: Python's `zarr_codec_runtime.Remote`.
#[pyclass(frozen, module = "zarr_codec_runtime._runtime", name = "Remote")]
pub struct PyRemote {
    kind: Kind,
    /// This process's client of the store (made again after a fork).
    client: Mutex<Option<(u32, Arc<dyn ObjectStore>)>>,
    /// Indexes of the shards read in part, kept between reads. Used on condition that the
    /// shard is unchanged (`If-Match`) alone for S3, whose `ETag`s change with the content (an
    /// MD5), once the store is found to honour it; else checked against the shard's current
    /// index, fetched in the same round trip: so for plain HTTP servers, whose `ETag`s often
    /// come from a file's size and modification time (to the second, for nginx), which a
    /// shard rewritten within the second at the same size keeps.
    indexes: Option<Arc<IndexCache>>,
}

/// The most bytes of shard indexes a store keeps.
const KEPT_INDEX_BYTES: usize = 32 << 20;

/// The process's runtime for requests, and the process it was made in.
static RUNTIME: Mutex<Option<(u32, Arc<Runtime>)>> = Mutex::new(None);

/// Threads of the request runtime: they wait on sockets; the decoding is the caller's.
const REQUEST_THREADS: usize = 2;

/// This process's request runtime.
fn runtime() -> std::io::Result<Arc<Runtime>> {
    let pid = std::process::id();
    let mut held = RUNTIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((made_in, runtime)) = held.as_ref()
        && *made_in == pid
    {
        return Ok(Arc::clone(runtime));
    }
    let runtime = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(REQUEST_THREADS)
            .thread_name("zarr-codecs-requests")
            .enable_all()
            .build()?,
    );
    // A parent's runtime is left as it is in a child: dropping it would wait for threads
    // that the child does not have.
    if let Some(parents) = held.replace((pid, Arc::clone(&runtime))) {
        std::mem::forget(parents);
    }
    Ok(runtime)
}

/// `options` (names and values as obstore and `object_store` spell them) parsed as `K`s; an
/// unsupported-error names the first one unknown.
fn parsed<K: FromStr>(
    py: Python<'_>,
    options: Vec<(String, String)>,
    what: &str,
) -> PyResult<Vec<(K, String)>> {
    options
        .into_iter()
        .map(|(name, value)| {
            let Ok(key) = name.parse::<K>() else {
                let message = format!("Remote: {what} has no option {name:?}");
                return Err(to_py_err(py, &CodecError::unsupported(message)));
            };
            Ok((key, value))
        })
        .collect()
}

impl PyRemote {
    /// This process's client of the store.
    fn client(&self, py: Python<'_>) -> PyResult<Arc<dyn ObjectStore>> {
        let pid = std::process::id();
        let mut held = self
            .client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((made_in, client)) = held.as_ref()
            && *made_in == pid
        {
            return Ok(Arc::clone(client));
        }
        let client = self
            .kind
            .build()
            .map_err(|err| to_py_err(py, &CodecError::configuration(format!("Remote: {err}"))))?;
        if let Some(parents) = held.replace((pid, Arc::clone(&client))) {
            std::mem::forget(parents); // its connections belong to the parent's runtime
            if let Some(indexes) = &self.indexes {
                indexes.abandon_probe(); // the parent's, if one was in flight
            }
        }
        Ok(client)
    }

    fn new(py: Python<'_>, kind: Kind) -> PyResult<Self> {
        let indexes = Some(Arc::new(IndexCache::new(
            KEPT_INDEX_BYTES,
            matches!(kind, Kind::S3(..)),
        )));
        let remote = Self {
            kind,
            client: Mutex::new(None),
            indexes,
        };
        remote.client(py)?; // a bad option fails here, not at the first read
        Ok(remote)
    }
}

#[pymethods]
impl PyRemote {
    /// An S3 bucket (or an S3-compatible server's): `options` are `object_store`'s (and
    /// obstore's) `S3Store` settings and client options by name, e.g. `bucket`, `endpoint`,
    /// `region`, `access_key_id`, `secret_access_key`, `token`, `skip_signature`, `allow_http`;
    /// over the `AWS_*` environment variables (as obstore's `S3Store` reads them) with
    /// `from_env`; `retry` as `(max_retries, retry_timeout, init_backoff, max_backoff, base)`
    /// (seconds), `object_store`'s defaults without.
    #[staticmethod]
    #[pyo3(signature = (options, from_env=false, retry=None))]
    fn s3(
        py: Python<'_>,
        options: Vec<(String, String)>,
        from_env: bool,
        retry: Option<Retry>,
    ) -> PyResult<Self> {
        let options = parsed::<AmazonS3ConfigKey>(py, options, "S3")?;
        Self::new(py, Kind::S3(options, from_env, retry))
    }

    /// Objects under an HTTP(S) URL (`GET` with byte ranges), with `object_store`'s client
    /// options by name (e.g. `allow_http`, `timeout`); `retry` as for `s3`.
    #[staticmethod]
    #[pyo3(signature = (url, options, retry=None))]
    fn http(
        py: Python<'_>,
        url: String,
        options: Vec<(String, String)>,
        retry: Option<Retry>,
    ) -> PyResult<Self> {
        let options = parsed::<ClientConfigKey>(py, options, "HTTP")?;
        Self::new(py, Kind::Http(url, options, retry))
    }

    /// One object's bytes, or `None` where there is none; a store's error is an `OSError`.
    fn get(&self, py: Python<'_>, key: &str) -> PyResult<Option<Vec<u8>>> {
        let client = self.client(py)?;
        let runtime = runtime().map_err(PyErr::from)?;
        let keys = [Path::parse(key).map_err(|err| {
            to_py_err(py, &CodecError::configuration(format!("Remote.get: {err}")))
        })?];
        let mut got = None;
        let slot = Mutex::new(&mut got);
        run_chunks(py, || {
            fetch_and_read(runtime.handle(), &client, &keys, 1, 1, |_, source| {
                let bytes = match source {
                    zarr_codec_runtime::Source::Bytes(bytes) => Some(bytes.to_vec()),
                    _ => None,
                };
                let found = bytes.is_some();
                if let Ok(mut slot) = slot.lock() {
                    **slot = bytes;
                }
                Ok(found)
            })
        })?;
        Ok(got)
    }

    /// A read of a batch in one call, as `Runner.read` (`runner`) reads one (`selections`
    /// likewise), with chunk `i` the object `keys[i]` (`None`: a `Cut`'s keys; `selections` may also be
    /// `(ChunkGrid, selection)`, cut here): every object fetched (at most `limit` requests in
    /// flight) and decoded as it arrives, the GIL released throughout. A missing object is
    /// its chunk's fill value. Returns whether each was there; `None`, with nothing fetched,
    /// when a selection or `out` is of another kind or a key is not a valid object name (a
    /// `.` or `..` part, a control character). Each chunk is fetched whole. A shard is fetched
    /// whole where `whole[i]` (by default, where its part is all of it within the array for a
    /// cut, else all of the shard), its inner chunks
    /// decoded as its body streams in (its index, at the end, fetched by a request of its own
    /// beside the body's when a shard holds 1 MiB or more); else its index, then the inner
    /// chunks needed, by byte ranges (the indexes read are kept, so that a later read of the
    /// same shard needs one round trip: on S3, each range asked on condition that the shard is
    /// unchanged; elsewhere, or where the server ignores `If-Match`, the ranges asked beside
    /// the shard's current index and used only if it equals the kept one). A store's error,
    /// or a shard replaced between two requests, is an `OSError` naming the key.
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
    #[pyo3(signature = (runner, keys, selections, out, limit, threads=None, whole=None))]
    fn read(
        &self,
        py: Python<'_>,
        runner: &PyRunner,
        keys: &Bound<'_, PyAny>,
        selections: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        limit: usize,
        threads: Option<i64>,
        whole: Option<Vec<bool>>,
    ) -> PyResult<Option<Vec<bool>>> {
        let selections = &cut_now(selections)?;
        let whole = whole.or_else(|| complete_of(selections));
        if !runner.takes(py, out) {
            return Ok(None);
        }
        let threads = thread_count(py, threads, "remote")?;
        let (fill, chunk_shape) = (&runner.fill, runner.chunk_shape());
        let Some((view, placed)) = resolve(out, true, selections, chunk_shape)? else {
            return Ok(None);
        };
        let keys = named(keys, selections)?
            .iter()
            .map(PyAnyMethods::extract)
            .collect::<PyResult<Vec<String>>>()?;
        if placed.regions.len() != keys.len() {
            let message = "Remote.read: keys and selections differ in number";
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let array = out_array(py, &view, &placed)?;
        let outs: Vec<&Region> = placed.regions.iter().map(|(_, place)| place).collect();
        let threads = if any_overlap(&outs) { 1 } else { threads };
        let client = self.client(py)?;
        let runtime = runtime().map_err(PyErr::from)?;
        // Each key as the store's own client names it: as written, never percent-encoded (a
        // key object_store cannot name so, such as one with a `..` part, is zarr's to read).
        let Ok(keys) = keys
            .iter()
            .map(Path::parse)
            .collect::<Result<Vec<Path>, _>>()
        else {
            return Ok(None);
        };
        let regions = &placed.regions;
        if let Runs::Sharded(sharding) = &runner.runs {
            if whole
                .as_ref()
                .is_some_and(|whole| whole.len() != keys.len())
            {
                let message = "Remote.read: keys and `whole` differ in number";
                return Err(to_py_err(py, &CodecError::configuration(message)));
            }
            let reads: Vec<ShardRead> = keys
                .into_iter()
                .zip(regions)
                .enumerate()
                .map(|(number, (key, (part, place)))| ShardRead {
                    key,
                    whole: whole.as_ref().map_or_else(
                        || part.is_whole(sharding.shard_shape()),
                        |whole| whole[number],
                    ),
                    part: part.clone(),
                    place: place.clone(),
                })
                .collect();
            // A large shard's index by a request of its own, so its inner chunks decode while
            // its body streams in (see `INDEX_APART_FROM`).
            let ask_index = reads
                .iter()
                .any(|read| read.place.len().saturating_mul(array.item()) >= INDEX_APART_FROM);
            let how = Fetching {
                limit,
                threads,
                ask_index,
                indexes: self.indexes.clone(),
            };
            return run_chunks(py, || {
                fetch_and_read_shards(
                    runtime.handle(),
                    &client,
                    sharding,
                    &reads,
                    &array,
                    fill,
                    &how,
                )
            })
            .map(Some);
        }
        let Runs::Chain { decode: plan, .. } = &runner.runs else {
            return Ok(None);
        };
        run_chunks(py, || {
            fetch_and_read(
                runtime.handle(),
                &client,
                &keys,
                limit,
                threads,
                |index, source| {
                    let (chunk, place) = &regions[index];
                    let item = ReadItem {
                        source,
                        chunk: chunk.clone(),
                        out: place.clone(),
                    };
                    let items = std::slice::from_ref(&item);
                    let found = read_batch(plan, chunk_shape, items, &array, fill, 1)?;
                    Ok(found.first().copied().unwrap_or(false))
                },
            )
        })
        .map(Some)
    }
}
