//! Chunks fetched from object storage (S3, HTTP, any [`ObjectStore`]) and decoded as they
//! arrive: [`fetch_and_read`], and for whole shards, decoded as their bytes stream in:
//! [`fetch_and_read_shards`]. Behind the `object-store` feature.
//!
//! A read from object storage waits a round trip per request, so its speed is how many
//! requests are in flight and whether decoding overlaps the transfer. Here every chunk's GET
//! is a task of its own on a tokio runtime (at most `limit` at once), and the caller's threads
//! decode each chunk the moment its bytes are in: when the last one arrives, only its own
//! decoding is left. A shard is many chunks in one object: its inner chunks are decoded as the
//! body streams in, each once its last byte is in, so a large shard's decoding overlaps its
//! own transfer too. Nothing of a chunk is kept once it is decoded.

use std::future::{Future, poll_fn};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use tokio::runtime::Handle;
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};
use zarr_codec_shapes::CodecError;

use crate::files::{ChunkError, ChunkResult};
use crate::read::{ReadItem, Source};
use crate::region::{OutArray, Region};
use crate::shard_index::IndexLocation;
use crate::sharding::{COALESCE_GAP, InnerRead, Sharding};

/// One GET's outcome: the object's bytes, `None` where there is no such object, or the
/// store's error.
type Fetched = Result<Option<Bytes>, object_store::Error>;

/// What the fetching tasks hand the decoding threads.
enum Work {
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

/// One shard of [`fetch_and_read_shards`]: its object, the part of it read and where that goes.
#[derive(Debug, Clone)]
pub struct ShardRead {
    /// The shard's object.
    pub key: Path,
    /// The part of the shard read (within the shard's shape).
    pub part: Region,
    /// Where it goes in the output.
    pub place: Region,
    /// Whether to fetch the shard whole (else its index, then the inner chunks needed): so
    /// for all of a shard, and for a part that is all of it within the array (an edge shard).
    pub whole: bool,
}

/// Reads shards of `sharding` from `store` into `out` (missing shards and inner chunks as
/// `fill`, one element's bytes), at most `limit` shards' requests in flight (on `handle`), on
/// `threads` threads; for each shard, whether it was there.
///
/// Part of a shard is its index first, then only the inner chunks needed, by byte ranges
/// (neighbours closer than [`COALESCE_GAP`] in one), asked for the version whose index was
/// read. A whole shard is one GET, its inner chunks decoded while its body streams in, each as
/// soon as its last byte is in, once the index is known: at once for an index at the start;
/// for an index at the end, when `ask_index`, by a second request for the index alone sent
/// beside the body's (a shard whose body is all in before its index is decoded whole, as
/// without `ask_index`). The body's own index must then equal the one fetched apart. A shard
/// replaced between two requests is a [`ChunkError::Io`], as a store's error, never values of
/// two versions. Errors as [`fetch_and_read`]; the places of different shards must not
/// overlap.
#[allow(clippy::too_many_arguments)]
pub fn fetch_and_read_shards(
    handle: &Handle,
    store: &Arc<dyn ObjectStore>,
    sharding: &Sharding,
    reads: &[ShardRead],
    out: &OutArray<'_>,
    fill: &[u8],
    (limit, threads): (usize, usize),
    ask_index: bool,
) -> ChunkResult<Vec<bool>> {
    for read in reads {
        sharding.check_read(&read.part, &read.place, out.shape())?;
    }
    let keys: Vec<Path> = reads.iter().map(|read| read.key.clone()).collect();
    let fetch = {
        let (store, sharding) = (Arc::clone(store), Arc::new(sharding.clone()));
        let reads = reads.to_vec();
        move |index: usize, sender: Sender<Work>| {
            let shard = Shard {
                store: Arc::clone(&store),
                sharding: Arc::clone(&sharding),
                read: reads[index].clone(),
                ask_index,
            };
            async move {
                let work = match shard.stream(&sender).await {
                    Ok(Streamed::Missing) => Work::Object(index, Ok(None)),
                    Ok(Streamed::Whole(body)) => Work::Object(index, Ok(Some(body))),
                    Ok(Streamed::InPieces) => Work::Streamed(index),
                    Err(err) => Work::Failed(err),
                };
                let _ = sender.send(work);
            }
        }
    };
    drive(
        handle,
        &keys,
        limit,
        threads.max(1),
        fetch,
        |work| match work {
            Work::Object(index, fetched) => {
                let source = match &fetched {
                    Ok(Some(bytes)) => Source::Bytes(bytes),
                    Ok(None) => Source::Missing,
                    Err(err) => return Err(store_error(&keys[index], err)),
                };
                let read = &reads[index];
                let item = ReadItem {
                    source,
                    chunk: read.part.clone(),
                    out: read.place.clone(),
                };
                let found = sharding.read(std::slice::from_ref(&item), out, fill, threads)?;
                Ok(Some((index, found.first().copied().unwrap_or(false))))
            }
            Work::Inner {
                stored,
                chunk,
                out: place,
            } => {
                let source = stored.as_deref().map_or(Source::Missing, Source::Bytes);
                let item = ReadItem {
                    source,
                    chunk,
                    out: place,
                };
                sharding.read_inner(std::slice::from_ref(&item), out, fill)?;
                Ok(None)
            }
            Work::Streamed(index) => Ok(Some((index, true))),
            Work::Failed(err) => Err(err),
        },
    )
}

/// Runs `fetch(index, sender)` for every key on the runtime (at most `limit` at once), and
/// `decode` on `threads` threads (the caller's among them) for each piece of work the fetches
/// send, until all have ended or one fails; `decode` returns `(key, whether it was there)`
/// once a key is read. The first error cancels the fetches in flight and is returned.
fn drive<T, Fut, D>(
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
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
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
fn store_error(key: &Path, err: &object_store::Error) -> ChunkError {
    ChunkError::Io(std::io::Error::other(err.to_string()), key.as_ref().into())
}

/// How a shard's fetch ended.
enum Streamed {
    /// There is no such shard.
    Missing,
    /// All of it arrived before its index was known: decode it whole.
    Whole(Bytes),
    /// Every inner chunk was handed over as it arrived.
    InPieces,
}

/// A shard's fetch, for [`fetch_and_read_shards`].
struct Shard {
    store: Arc<dyn ObjectStore>,
    sharding: Arc<Sharding>,
    read: ShardRead,
    ask_index: bool,
}

impl Shard {
    /// Fetches the shard (or the part of it read), handing each inner chunk to `sender` once
    /// its bytes are in and the index is known.
    async fn stream(&self, sender: &Sender<Work>) -> ChunkResult<Streamed> {
        if !self.read.whole {
            return self.read_part(sender).await;
        }
        let key = &self.read.key;
        let index_len = self.sharding.index_len();
        let at_end = self.sharding.index_location() == IndexLocation::End;
        // Sent first: it is answered about when the body starts to arrive.
        let mut index_request = (at_end && self.ask_index).then(|| self.fetch_index());
        let answer = match self.store.get(key).await {
            Ok(answer) => answer,
            Err(object_store::Error::NotFound { .. }) => return Ok(Streamed::Missing),
            Err(err) => return Err(store_error(key, &err)),
        };
        let size = usize::try_from(answer.meta.size).map_err(|_| {
            CodecError::Corrupt(format!("{key}: a shard of {} bytes", answer.meta.size))
        })?;
        let mut body = Body::default();
        let mut stream = answer.into_stream();
        let mut pending: Option<Pending> = None;
        while let Some(piece) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
            body.push(piece.map_err(|err| store_error(key, &err))?);
            if pending.is_none() {
                let stored = if at_end {
                    Fetch::take_if_done(&mut index_request)
                } else {
                    body.get(0..index_len)
                };
                pending = match stored {
                    // The body's own index (at the start): it must be sound.
                    Some(stored) if !at_end => Some(self.pending(stored, size, sender)?),
                    // An index fetched apart is only a head start: the body decides.
                    Some(stored) => self.pending(stored, size, sender).ok(),
                    None => None,
                };
            }
            if let Some(pending) = pending.as_mut() {
                pending.send_ready(&mut body, sender);
            }
        }
        drop(index_request); // not needed any more: cancelled
        if body.len() != size {
            let message = format!("the shard ended after {} of {size} bytes", body.len());
            return Err(ChunkError::Io(
                std::io::Error::other(message),
                key.as_ref().into(),
            ));
        }
        let Some(mut pending) = pending else {
            return Ok(Streamed::Whole(body.get(0..size).unwrap_or_default()));
        };
        if at_end && body.get(size.saturating_sub(index_len)..size) != Some(pending.stored.clone())
        {
            let message = "the shard was replaced while it was read (its index changed)";
            return Err(ChunkError::Io(
                std::io::Error::other(message),
                key.as_ref().into(),
            ));
        }
        pending.send_ready(&mut body, sender);
        Ok(Streamed::InPieces)
    }

    /// Part of the shard: its index first, then the inner chunks the part needs, neighbours
    /// closer than [`COALESCE_GAP`] fetched by one range request, all ranges at once, each
    /// range's inner chunks handed over as it arrives. The ranges are asked for the version
    /// whose index was read (its `ETag`, where the store gives a strong one): a shard replaced
    /// in between is the store's error, never bytes read with another version's index.
    async fn read_part(&self, sender: &Sender<Work>) -> ChunkResult<Streamed> {
        let key = &self.read.key;
        let index_len = self.sharding.index_len();
        let index_range = match self.sharding.index_location() {
            IndexLocation::End => GetRange::Suffix(index_len as u64),
            IndexLocation::Start => GetRange::Bounded(0..index_len as u64),
        };
        let options = GetOptions {
            range: Some(index_range),
            ..GetOptions::default()
        };
        let answer = match self.store.get_opts(key, options).await {
            Ok(answer) => answer,
            Err(object_store::Error::NotFound { .. }) => return Ok(Streamed::Missing),
            Err(err) => return Err(store_error(key, &err)),
        };
        let size = usize::try_from(answer.meta.size).map_err(|_| {
            CodecError::Corrupt(format!("{key}: a shard of {} bytes", answer.meta.size))
        })?;
        let version = answer
            .meta
            .e_tag
            .clone()
            .filter(|tag| !tag.starts_with("W/"));
        let stored = answer.bytes().await.map_err(|err| store_error(key, &err))?;
        let index = self.sharding.index_of(&stored, size)?;
        let mut gets = JoinSet::new();
        for (range, reads) in ranges_to_fetch(self.sharding.inner_reads(
            &index,
            &self.read.part,
            &self.read.place,
        )) {
            let Some(range) = range else {
                for read in reads {
                    let _ = sender.send(Work::Inner {
                        stored: None,
                        chunk: read.chunk,
                        out: read.out,
                    });
                }
                continue;
            };
            let (store, key, version) = (Arc::clone(&self.store), key.clone(), version.clone());
            gets.spawn(async move {
                let options = GetOptions {
                    range: Some(GetRange::Bounded(range.start as u64..range.end as u64)),
                    if_match: version,
                    ..GetOptions::default()
                };
                let fetched = match store.get_opts(&key, options).await {
                    Ok(answer) => answer.bytes().await,
                    Err(err) => Err(err),
                };
                (range, reads, fetched)
            });
        }
        while let Some(joined) = gets.join_next().await {
            let (range, reads, fetched) = joined.map_err(|err| {
                ChunkError::Io(std::io::Error::other(err.to_string()), key.as_ref().into())
            })?;
            let bytes = fetched.map_err(|err| store_error(key, &err))?;
            if bytes.len() != range.len() {
                let message = format!("{} bytes answered for the range {range:?}", bytes.len());
                return Err(ChunkError::Io(
                    std::io::Error::other(message),
                    key.as_ref().into(),
                ));
            }
            for read in reads {
                let within = read
                    .stored
                    .as_ref()
                    .map(|stored| stored.start - range.start..stored.end - range.start);
                let _ = sender.send(Work::Inner {
                    stored: within.map(|within| bytes.slice(within)),
                    chunk: read.chunk,
                    out: read.out,
                });
            }
        }
        Ok(Streamed::InPieces)
    }

    /// The shard's index alone (its last bytes), fetched by a task of its own.
    fn fetch_index(&self) -> Fetch {
        let (store, key) = (Arc::clone(&self.store), self.read.key.clone());
        let suffix = u64::try_from(self.sharding.index_len()).unwrap_or(u64::MAX);
        Fetch(tokio::spawn(async move {
            let options = GetOptions {
                range: Some(GetRange::Suffix(suffix)),
                ..GetOptions::default()
            };
            let answer = store.get_opts(&key, options).await.ok()?;
            answer.bytes().await.ok()
        }))
    }

    /// The inner chunks to hand over, given the shard's stored index; the ones not stored
    /// are handed over at once (as the fill value).
    fn pending(&self, stored: Bytes, size: usize, sender: &Sender<Work>) -> ChunkResult<Pending> {
        let index = self.sharding.index_of(&stored, size)?;
        let mut reads = self
            .sharding
            .inner_reads(&index, &self.read.part, &self.read.place);
        let stored_from = reads.partition_point(|read| read.stored.is_none());
        for read in reads.drain(..stored_from) {
            let _ = sender.send(Work::Inner {
                stored: None,
                chunk: read.chunk,
                out: read.out,
            });
        }
        // The body's own index at the end is compared with this one once all is in.
        let keep_from = match self.sharding.index_location() {
            IndexLocation::End => size.saturating_sub(self.sharding.index_len()),
            IndexLocation::Start => size,
        };
        Ok(Pending {
            stored,
            reads: reads.into_iter(),
            next: None,
            keep_from,
        })
    }
}

/// Inner chunk reads grouped by what to fetch for them: the ones not stored under `None`,
/// then runs of stored ones (by where they lie) whose gaps are at most [`COALESCE_GAP`], each
/// under the byte range covering it.
fn ranges_to_fetch(reads: Vec<InnerRead>) -> Vec<(Option<Range<usize>>, Vec<InnerRead>)> {
    let mut groups: Vec<(Option<Range<usize>>, Vec<InnerRead>)> = vec![(None, Vec::new())];
    for read in reads {
        let Some(stored) = read.stored.clone() else {
            groups[0].1.push(read);
            continue;
        };
        match groups.last_mut() {
            Some((Some(range), run)) if stored.start <= range.end.saturating_add(COALESCE_GAP) => {
                range.end = range.end.max(stored.end);
                run.push(read);
            }
            _ => groups.push((Some(stored), vec![read])),
        }
    }
    groups
}

/// The stored inner chunks of a shard not yet handed over, by where they lie in it.
struct Pending {
    /// The shard's stored index they were found with.
    stored: Bytes,
    reads: std::vec::IntoIter<InnerRead>,
    /// The next to hand over, taken from `reads`.
    next: Option<InnerRead>,
    /// The body's bytes from here on are kept to the end.
    keep_from: usize,
}

impl Pending {
    /// Hands over, in order, every inner chunk whose bytes are all in `body`, and lets
    /// `body` drop what lies before the next one (but for its bytes from `keep_from`).
    fn send_ready(&mut self, body: &mut Body, sender: &Sender<Work>) {
        loop {
            let Some(read) = self.next.take().or_else(|| self.reads.next()) else {
                body.drop_before(body.len().min(self.keep_from));
                return;
            };
            let Some(range) = read.stored.clone() else {
                continue;
            };
            let Some(bytes) = body.get(range.clone()) else {
                body.drop_before(range.start.min(self.keep_from));
                self.next = Some(read);
                return;
            };
            let _ = sender.send(Work::Inner {
                stored: Some(bytes),
                chunk: read.chunk,
                out: read.out,
            });
        }
    }
}

/// A body as it arrives: its pieces, in order, and how many bytes of it came before them
/// (the pieces no longer needed are dropped).
#[derive(Default)]
struct Body {
    pieces: std::collections::VecDeque<Bytes>,
    /// The bytes dropped from the front.
    dropped: usize,
    /// The bytes in `pieces`.
    held: usize,
}

impl Body {
    fn push(&mut self, piece: Bytes) {
        self.held += piece.len();
        self.pieces.push_back(piece);
    }

    /// The bytes received so far.
    fn len(&self) -> usize {
        self.dropped + self.held
    }

    /// The bytes of `range`, once all in and not dropped: a slice of one piece where it lies
    /// within one (no copy), else the pieces' bytes copied together.
    fn get(&self, range: std::ops::Range<usize>) -> Option<Bytes> {
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
    fn drop_before(&mut self, offset: usize) {
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

/// A request running as a task of its own, cancelled when dropped.
struct Fetch(JoinHandle<Option<Bytes>>);

impl Fetch {
    /// The answer of `fetch` if it has come (`None` also when it was unsound), taken with
    /// it; `None` while it is in flight, `fetch` left as it is.
    fn take_if_done(fetch: &mut Option<Self>) -> Option<Bytes> {
        if !fetch.as_ref().is_some_and(|fetch| fetch.0.is_finished()) {
            return None;
        }
        let mut done = fetch.take()?;
        // Finished: its join is ready at the first poll.
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        match std::pin::Pin::new(&mut done.0).poll(&mut context) {
            std::task::Poll::Ready(Ok(answer)) => answer,
            _ => None,
        }
    }
}

impl Drop for Fetch {
    fn drop(&mut self) {
        self.0.abort();
    }
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

    #[test]
    fn no_keys_is_no_work() {
        let (rt, store) = store_with(&[]);
        let found = fetch_and_read(rt.handle(), &store, &[], 4, 2, |_, _| Ok(true));
        assert_eq!(found.expect("read"), Vec::<bool>::new());
    }
}
