//! Chunks fetched from object storage (S3, HTTP, any [`ObjectStore`]) and decoded as they
//! arrive: [`fetch_and_read`]; shards, whole or in part: [`fetch_and_read_shards`]. Behind the
//! `object-store` feature.
//!
//! A read from object storage waits a round trip per request, so its speed is how many
//! requests are in flight and whether decoding overlaps the transfer. Here every chunk's GET
//! is a task of its own on a tokio runtime (at most `limit` at once), and the caller's threads
//! decode each chunk the moment its bytes are in: when the last one arrives, only its own
//! decoding is left. A shard is many chunks in one object: its inner chunks are decoded as the
//! body streams in, each once its last byte is in, so a large shard's decoding overlaps its
//! own transfer too; part of a shard is its index, then only the inner chunks needed, by byte
//! ranges. Nothing of a chunk is kept once it is decoded.

mod body;
mod index_cache;
mod shards;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use tokio::runtime::Handle;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use zarr_codec_shapes::CodecError;

use crate::files::{ChunkError, ChunkResult};
use crate::read::Source;
use crate::region::Region;
use crate::workers::run_with_helpers;

pub use index_cache::{CachedIndex, IndexCache};
pub use shards::{Fetching, ShardRead, fetch_and_read_shards};

/// One GET's outcome: the object's bytes, `None` where there is no such object, or the
/// store's error.
type Fetched = Result<Option<Bytes>, object_store::Error>;

/// What the fetching tasks hand the decoding threads.
pub(super) enum Work {
    /// A whole object of key `usize` (`None`: there is none), or the store's error.
    Object(usize, Fetched),
    /// An inner chunk of a shard: its stored bytes (`None`: the fill value), the part of it
    /// needed and where that goes.
    Inner {
        stored: Option<Bytes>,
        chunk: Region,
        out: Region,
    },
    /// The shard of key `usize` was there and every inner chunk of it has been handed over.
    Streamed(usize),
    /// The read of a key failed.
    Failed(ChunkError),
}

/// Fetches every object of `keys` from `store` (at most `limit` requests in flight, on the
/// runtime `handle`) and hands each, as it arrives, to `read(index, source)` on one of
/// `threads` threads (the caller's among them): `Source::Bytes` for an object, and
/// `Source::Missing` where the store has none. Returns `read`'s result for each key, in order.
///
/// The first error (a store's, or `read`'s) cancels the requests still in flight and is
/// returned; a store's error is a [`ChunkError::Io`] naming the key. `read` may run on several
/// threads at once: whatever it writes for different keys must not overlap (pass
/// `threads = 1` otherwise).
pub fn fetch_and_read<F>(
    handle: &Handle,
    store: &Arc<dyn ObjectStore>,
    keys: &[Path],
    limit: usize,
    threads: usize,
    read: F,
) -> ChunkResult<Vec<bool>>
where
    F: Fn(usize, Source<'_>) -> ChunkResult<bool> + Sync,
{
    let fetch = {
        let (store, keys) = (Arc::clone(store), keys.to_vec());
        move |index: usize, sender: Sender<Work>| {
            let (store, key) = (Arc::clone(&store), keys[index].clone());
            async move {
                let fetched = get(store.as_ref(), &key).await;
                // The readers are gone only after a failure: nothing is waiting for it.
                let _ = sender.send(Work::Object(index, fetched));
            }
        }
    };
    let threads = threads.clamp(1, keys.len().max(1));
    drive(handle, keys, limit, threads, fetch, |work| match work {
        Work::Object(index, fetched) => {
            let found = match fetched {
                Ok(Some(bytes)) => read(index, Source::Bytes(&bytes))?,
                Ok(None) => read(index, Source::Missing)?,
                Err(err) => return Err(store_error(&keys[index], &err)),
            };
            Ok(Some((index, found)))
        }
        Work::Failed(err) => Err(err),
        Work::Inner { .. } | Work::Streamed(_) => Ok(None),
    })
}

/// Runs `fetch(index, sender)` for every key on the runtime (at most `limit` at once), and
/// `decode` on `threads` threads (the caller's among them) for each piece of work the fetches
/// send, until all have ended or one fails; `decode` returns `(key, whether it was there)`
/// once a key is read. The first error cancels the fetches in flight and is returned.
pub(super) fn drive<T, Fut, D>(
    handle: &Handle,
    keys: &[Path],
    limit: usize,
    threads: usize,
    fetch: T,
    decode: D,
) -> ChunkResult<Vec<bool>>
where
    T: Fn(usize, Sender<Work>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
    D: Fn(Work) -> ChunkResult<Option<(usize, bool)>> + Sync,
{
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let (sender, receiver) = channel::<Work>();
    let count = keys.len();
    let requests = handle.spawn(async move {
        let window = Arc::new(Semaphore::new(limit.max(1)));
        // Dropped (aborted) when a reader fails: the requests in flight are cancelled.
        let mut tasks = JoinSet::new();
        for index in 0..count {
            let (window, task) = (Arc::clone(&window), fetch(index, sender.clone()));
            tasks.spawn(async move {
                let Ok(_turn) = window.acquire().await else {
                    return;
                };
                task.await;
            });
        }
        drop(sender);
        while tasks.join_next().await.is_some() {}
    });
    let receiver = Mutex::new(receiver);
    let results: Mutex<Vec<Option<bool>>> = Mutex::new(vec![None; count]);
    let failure: Mutex<Option<ChunkError>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let drain = || {
        while !failed.load(Ordering::Relaxed) {
            let Some(work) = next(&receiver) else {
                return;
            };
            match decode(work) {
                Ok(Some((index, found))) => {
                    if let Ok(mut results) = results.lock() {
                        results[index] = Some(found);
                    }
                }
                Ok(None) => {}
                Err(err) => {
                    failed.store(true, Ordering::Relaxed);
                    requests.abort();
                    if let Ok(mut first) = failure.lock() {
                        first.get_or_insert(err);
                    }
                    return;
                }
            }
        }
    };
    // The pool's parked helpers (they keep their scratch); one that does not start in time is
    // not waited for, as the caller drains the channel to its end.
    run_with_helpers(threads.max(1) - 1, &|_| drain(), drain);
    requests.abort();
    if let Some(err) = failure.into_inner().ok().flatten() {
        return Err(err);
    }
    let results = results.into_inner().unwrap_or_default();
    results
        .into_iter()
        .enumerate()
        .map(|(index, found)| {
            found.ok_or_else(|| {
                let message = format!("{}: the request ended without an answer", keys[index]);
                ChunkError::from(CodecError::configuration(message))
            })
        })
        .collect()
}

/// The next piece of work, or `None` once every fetch has ended (or been cancelled).
fn next(receiver: &Mutex<Receiver<Work>>) -> Option<Work> {
    receiver.lock().ok()?.recv().ok()
}

/// One object's bytes (`None`: no such object).
async fn get(store: &dyn ObjectStore, key: &Path) -> Fetched {
    match store.get(key).await {
        Ok(answer) => answer.bytes().await.map(Some),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(err) => Err(err),
    }
}

/// A store's error as the runtime reports a file it could not read: an I/O error and the key.
pub(super) fn store_error(key: &Path, err: &object_store::Error) -> ChunkError {
    ChunkError::Io(std::io::Error::other(err.to_string()), key.as_ref().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::PutPayload;
    use object_store::memory::InMemory;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
    }

    fn store_with(objects: &[(&str, &[u8])]) -> (tokio::runtime::Runtime, Arc<dyn ObjectStore>) {
        let rt = runtime();
        let store = InMemory::new();
        rt.block_on(async {
            for (key, bytes) in objects {
                store
                    .put(&Path::from(*key), PutPayload::from(bytes.to_vec()))
                    .await
                    .expect("put");
            }
        });
        (rt, Arc::new(store))
    }

    #[test]
    fn every_object_reaches_its_reader_and_missing_ones_are_missing() {
        let (rt, store) = store_with(&[("a/0", b"zero"), ("a/2", b"two!")]);
        let keys: Vec<Path> = ["a/0", "a/1", "a/2"].into_iter().map(Path::from).collect();
        let seen = Mutex::new(vec![Vec::new(); 3]);
        let found = fetch_and_read(rt.handle(), &store, &keys, 2, 2, |index, source| {
            let bytes = match source {
                Source::Bytes(bytes) => bytes.to_vec(),
                Source::Missing => return Ok(false),
                Source::File(_) => unreachable!("no files here"),
            };
            seen.lock().expect("lock")[index] = bytes;
            Ok(true)
        })
        .expect("read");
        assert_eq!(found, [true, false, true]);
        assert_eq!(
            seen.into_inner().expect("lock"),
            [b"zero".to_vec(), Vec::new(), b"two!".to_vec()]
        );
    }

    #[test]
    fn a_reader_error_stops_the_read_and_is_returned() {
        let objects: Vec<(String, Vec<u8>)> =
            (0..50).map(|i| (format!("k/{i}"), vec![i; 8])).collect();
        let borrowed: Vec<(&str, &[u8])> = objects
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_slice()))
            .collect();
        let (rt, store) = store_with(&borrowed);
        let keys: Vec<Path> = objects
            .iter()
            .map(|(k, _)| Path::from(k.as_str()))
            .collect();
        let err = fetch_and_read(rt.handle(), &store, &keys, 4, 2, |index, _| {
            if index == 7 {
                Err(CodecError::corrupt("chunk 7 is bad").into())
            } else {
                Ok(true)
            }
        })
        .expect_err("chunk 7 fails");
        assert!(err.to_string().contains("chunk 7 is bad"), "{err}");
    }

    #[test]
    fn no_keys_is_no_work() {
        let (rt, store) = store_with(&[]);
        let found = fetch_and_read(rt.handle(), &store, &[], 4, 2, |_, _| Ok(true));
        assert_eq!(found.expect("read"), Vec::<bool>::new());
    }
}
