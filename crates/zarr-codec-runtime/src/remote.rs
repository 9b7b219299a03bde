//! Chunks fetched from object storage (S3, HTTP, any [`ObjectStore`]) and decoded as they
//! arrive: [`fetch_and_read`]. Behind the `object-store` feature.
//!
//! A read from object storage waits a round trip per request, so its speed is how many
//! requests are in flight and whether decoding overlaps the transfer. Here every chunk's GET
//! is a task of its own on a tokio runtime (at most `limit` at once), and the caller's threads
//! decode each chunk the moment its bytes are in: when the last one arrives, only its own
//! decoding is left. Nothing of a chunk is kept once it is decoded.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
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

/// One GET's outcome: the object's bytes, `None` where there is no such object, or the
/// store's error.
type Fetched = Result<Option<Bytes>, object_store::Error>;

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
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let (sender, receiver) = channel::<(usize, Fetched)>();
    let requests = {
        let store = Arc::clone(store);
        let keys = keys.to_vec();
        let window = Arc::new(Semaphore::new(limit.max(1)));
        handle.spawn(async move {
            // Dropped (aborted) when a reader fails: the requests in flight are cancelled.
            let mut gets = JoinSet::new();
            for (index, key) in keys.into_iter().enumerate() {
                let (store, window, sender) =
                    (Arc::clone(&store), Arc::clone(&window), sender.clone());
                gets.spawn(async move {
                    let Ok(_turn) = window.acquire().await else {
                        return;
                    };
                    let fetched = get(store.as_ref(), &key).await;
                    // The readers are gone only after a failure: nothing is waiting for it.
                    let _ = sender.send((index, fetched));
                });
            }
            drop(sender);
            while gets.join_next().await.is_some() {}
        })
    };
    let receiver = Mutex::new(receiver);
    let results: Mutex<Vec<Option<bool>>> = Mutex::new(vec![None; keys.len()]);
    let failure: Mutex<Option<ChunkError>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let drain = || {
        while !failed.load(Ordering::Relaxed) {
            let Some((index, fetched)) = next(&receiver) else {
                return;
            };
            let outcome = match fetched {
                Ok(Some(bytes)) => read(index, Source::Bytes(&bytes)),
                Ok(None) => read(index, Source::Missing),
                Err(err) => Err(store_error(&keys[index], &err)),
            };
            match outcome {
                Ok(found) => {
                    if let Ok(mut results) = results.lock() {
                        results[index] = Some(found);
                    }
                }
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
    std::thread::scope(|scope| {
        for _ in 1..threads.clamp(1, keys.len()) {
            scope.spawn(drain);
        }
        drain();
    });
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

/// The next object to decode, or `None` once every request has answered (or been cancelled).
fn next(receiver: &Mutex<Receiver<(usize, Fetched)>>) -> Option<(usize, Fetched)> {
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
fn store_error(key: &Path, err: &object_store::Error) -> ChunkError {
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
