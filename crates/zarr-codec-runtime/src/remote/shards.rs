//! Shards read from object storage: [`fetch_and_read_shards`] and the fetch of each shard,
//! whole (its inner chunks decoded as the body streams in) or in part (its index, then the
//! inner chunks needed, by byte ranges).

use std::future::{Future, poll_fn};
use std::ops::Range;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore};
use tokio::runtime::Handle;
use tokio::task::{JoinHandle, JoinSet};
use zarr_codec_shapes::CodecError;

use super::body::Body;
use super::index_cache::{CachedIndex, IndexCache};
use super::{Work, drive, store_error};
use crate::files::{ChunkError, ChunkResult};
use crate::read::{ReadItem, Source};
use crate::region::{OutArray, Region};
use crate::shard_index::IndexLocation;
use crate::sharding::{COALESCE_GAP, InnerRead, Sharding};

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

/// How [`fetch_and_read_shards`] fetches and decodes.
#[derive(Debug, Clone)]
pub struct Fetching {
    /// At most this many shards' requests in flight.
    pub limit: usize,
    /// Decoding threads (the caller's among them).
    pub threads: usize,
    /// Whether a whole shard's index (at its end) is fetched by a request of its own beside
    /// the body's, so that its inner chunks decode as the body streams in.
    pub ask_index: bool,
    /// Where indexes of parts of shards read are kept between reads (only for a store that
    /// honours `If-Match`).
    pub indexes: Option<Arc<IndexCache>>,
}

/// Reads shards of `sharding` from `store` into `out` (missing shards and inner chunks as
/// `fill`, one element's bytes), as `how` says (at most `how.limit` shards' requests in
/// flight, on `handle`, on `how.threads` threads); for each shard, whether it was there.
///
/// Part of a shard is its index first (or the one kept in `how.indexes` from an earlier
/// read), then only the inner chunks needed, by byte ranges (neighbours closer than
/// [`COALESCE_GAP`] in one), asked for the version whose index was read. A whole shard is one GET, its inner chunks decoded while its body streams in, each as
/// soon as its last byte is in, once the index is known: at once for an index at the start;
/// for an index at the end, when `how.ask_index`, by a second request for the index alone sent
/// beside the body's (a shard whose body is all in before its index is decoded whole, as
/// without it). The body's own index must then equal the one fetched apart. A shard
/// replaced between two requests is a [`ChunkError::Io`], as a store's error, never values of
/// two versions. Errors as [`super::fetch_and_read`]; the places of different shards must not
/// overlap.
#[allow(clippy::too_many_arguments)]
pub fn fetch_and_read_shards(
    handle: &Handle,
    store: &Arc<dyn ObjectStore>,
    sharding: &Sharding,
    reads: &[ShardRead],
    out: &OutArray<'_>,
    fill: &[u8],
    how: &Fetching,
) -> ChunkResult<Vec<bool>> {
    let (limit, threads, ask_index) = (how.limit, how.threads, how.ask_index);
    for read in reads {
        sharding.check_read(&read.part, &read.place, out.shape())?;
    }
    let keys: Vec<Path> = reads.iter().map(|read| read.key.clone()).collect();
    let fetch = {
        let (store, sharding) = (Arc::clone(store), Arc::new(sharding.clone()));
        let (reads, indexes) = (reads.to_vec(), how.indexes.clone());
        move |index: usize, sender: Sender<Work>| {
            let shard = Shard {
                store: Arc::clone(&store),
                sharding: Arc::clone(&sharding),
                read: reads[index].clone(),
                ask_index,
                indexes: indexes.clone(),
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

/// A range of a shard fetched (`None`: no bytes, for the inner chunks not stored), the inner
/// chunk reads within it and its bytes.
type FetchedRange = (Option<Range<usize>>, Vec<InnerRead>, Bytes);

/// Why part of a shard could not be fetched.
enum PartError {
    /// The shard is no longer the version whose index was read.
    Replaced,
    /// The shard is gone.
    Missing,
    /// Anything else.
    Failed(ChunkError),
}

impl From<ChunkError> for PartError {
    fn from(err: ChunkError) -> Self {
        Self::Failed(err)
    }
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
#[derive(Clone)]
struct Shard {
    store: Arc<dyn ObjectStore>,
    sharding: Arc<Sharding>,
    read: ShardRead,
    ask_index: bool,
    indexes: Option<Arc<IndexCache>>,
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
        let Some((answer, size)) = self.get(GetOptions::default()).await? else {
            return Ok(Streamed::Missing);
        };
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

    /// The shard's object (or the part of it `options` asks for) and the shard's size;
    /// `None` where there is no shard.
    async fn get(&self, options: GetOptions) -> ChunkResult<Option<(GetResult, usize)>> {
        let key = &self.read.key;
        let answer = match self.store.get_opts(key, options).await {
            Ok(answer) => answer,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(err) => return Err(store_error(key, &err)),
        };
        let size = usize::try_from(answer.meta.size).map_err(|_| {
            CodecError::Corrupt(format!("{key}: a shard of {} bytes", answer.meta.size))
        })?;
        Ok(Some((answer, size)))
    }

    /// Part of the shard: its index (kept from an earlier read where the store keeps
    /// indexes, else fetched first), then the inner chunks the part needs, neighbours closer
    /// than [`COALESCE_GAP`] fetched by one range request, all ranges at once. Never bytes read
    /// with another version's index: a fresh index's ranges are asked for its version (its
    /// `ETag`, where the store gives a strong one), a shard replaced since being the store's
    /// error; a kept index's ranges either on that condition alone (where the store's versions
    /// are trusted: a shard replaced since is read again) or beside the shard's current index,
    /// used only if it equals the kept one (see [`IndexCache`]). Nothing is handed over before
    /// every range is in.
    async fn read_part(&self, sender: &Sender<Work>) -> ChunkResult<Streamed> {
        if let Some(indexes) = &self.indexes
            && let Some(kept) = indexes.get(&self.read.key)
        {
            if !indexes.trusts_versions() || kept.version.is_none() {
                return self.read_part_checked(kept, sender).await;
            }
            match self.fetch_part(&kept.stored, kept.size, kept.version).await {
                Ok(fetched) => return Ok(Self::hand_over(fetched, sender)),
                Err(PartError::Failed(err)) => return Err(err),
                // Replaced or deleted since: read afresh.
                Err(PartError::Replaced | PartError::Missing) => self.forget(),
            }
        }
        match self.fetch_index_with_size().await? {
            Some(current) => self.read_part_with(current, sender).await,
            None => Ok(Streamed::Missing),
        }
    }

    /// Part of the shard by the ranges its `kept` index gives, asked in the same round trip
    /// as its current index: used if that equals the kept one, else asked again with it.
    async fn read_part_checked(
        &self,
        kept: CachedIndex,
        sender: &Sender<Work>,
    ) -> ChunkResult<Streamed> {
        let current = {
            let shard = self.clone();
            tokio::spawn(async move { shard.fetch_index_with_size().await })
        };
        let guessed = self.fetch_part(&kept.stored, kept.size, None).await;
        let current = current.await.map_err(|err| {
            let key = self.read.key.as_ref();
            ChunkError::Io(std::io::Error::other(err.to_string()), key.into())
        })??;
        let Some(current) = current else {
            self.forget();
            return Ok(Streamed::Missing);
        };
        if (&current.stored, current.size) == (&kept.stored, kept.size) {
            match guessed {
                Ok(fetched) => return Ok(Self::hand_over(fetched, sender)),
                Err(PartError::Failed(err)) => return Err(err),
                // Replaced just after its index was read: read with the newer one.
                Err(PartError::Replaced | PartError::Missing) => {}
            }
        }
        self.read_part_with(current, sender).await
    }

    /// The shard's stored index (by a suffix or prefix range), with the shard's size and
    /// strong `ETag`; `None` where there is no shard.
    async fn fetch_index_with_size(&self) -> ChunkResult<Option<CachedIndex>> {
        let index_len = self.sharding.index_len();
        let index_range = match self.sharding.index_location() {
            IndexLocation::End => GetRange::Suffix(index_len as u64),
            IndexLocation::Start => GetRange::Bounded(0..index_len as u64),
        };
        let options = GetOptions {
            range: Some(index_range),
            ..GetOptions::default()
        };
        let Some((answer, size)) = self.get(options).await? else {
            return Ok(None);
        };
        let version = answer
            .meta
            .e_tag
            .clone()
            .filter(|tag| !tag.starts_with("W/"));
        let key = &self.read.key;
        let stored = answer.bytes().await.map_err(|err| store_error(key, &err))?;
        Ok(Some(CachedIndex {
            stored,
            size,
            version,
        }))
    }

    /// Part of the shard by the ranges its `current` index gives, asked for its version, and
    /// the index kept for later reads.
    async fn read_part_with(
        &self,
        current: CachedIndex,
        sender: &Sender<Work>,
    ) -> ChunkResult<Streamed> {
        let key = &self.read.key;
        // The first time, alongside: whether the store honours If-Match, which trusting a
        // kept index's version needs.
        let probe = self
            .indexes
            .as_ref()
            .filter(|indexes| current.version.is_some() && indexes.start_probe());
        let probe = probe.map(|indexes| self.probe_conditions(Arc::clone(indexes)));
        let fetched = self
            .fetch_part(&current.stored, current.size, current.version.clone())
            .await;
        if let Some(probe) = probe {
            let _ = probe.await;
        }
        match fetched {
            Ok(fetched) => {
                if let Some(indexes) = &self.indexes {
                    indexes.keep(key, current);
                }
                Ok(Self::hand_over(fetched, sender))
            }
            Err(PartError::Failed(err)) => Err(err),
            Err(PartError::Missing) => Ok(Streamed::Missing),
            Err(PartError::Replaced) => {
                let message = "the shard was replaced while it was read (its ETag changed)";
                Err(ChunkError::Io(
                    std::io::Error::other(message),
                    key.as_ref().into(),
                ))
            }
        }
    }

    /// Asks for the shard's first byte on a condition no version meets, on a task of its
    /// own, and records in `indexes` whether the store refused (it honours `If-Match`) or
    /// answered (it ignores it); any other error leaves it unknown. It runs to its end even
    /// where its read is cancelled.
    fn probe_conditions(&self, indexes: Arc<IndexCache>) -> JoinHandle<()> {
        let (store, key) = (Arc::clone(&self.store), self.read.key.clone());
        tokio::spawn(async move {
            let options = GetOptions {
                range: Some(GetRange::Bounded(0..1)),
                if_match: Some("\"zarr-codecs: no such version\"".into()),
                ..GetOptions::default()
            };
            match store.get_opts(&key, options).await {
                Err(object_store::Error::Precondition { .. }) => {
                    indexes.set_conditions_honoured(Some(true));
                }
                Ok(_) => indexes.set_conditions_honoured(Some(false)),
                Err(_) => indexes.set_conditions_honoured(None),
            }
        })
    }

    /// The inner chunks the part needs, given the shard's stored index `stored` and its
    /// `size`: every range at once, each asked for `version` where given; with the reads each
    /// range is for (the inner chunks not stored under `None`, with no bytes).
    async fn fetch_part(
        &self,
        stored: &[u8],
        size: usize,
        version: Option<String>,
    ) -> Result<Vec<FetchedRange>, PartError> {
        let key = &self.read.key;
        let index = self
            .sharding
            .index_of(stored, size)
            .map_err(ChunkError::from)?;
        let reads = self
            .sharding
            .inner_reads(&index, &self.read.part, &self.read.place);
        let mut fetched = Vec::new();
        let mut gets = JoinSet::new();
        for (range, reads) in ranges_to_fetch(reads) {
            let Some(range) = range else {
                fetched.push((None, reads, Bytes::new()));
                continue;
            };
            let (store, key, version) = (Arc::clone(&self.store), key.clone(), version.clone());
            gets.spawn(async move {
                let options = GetOptions {
                    range: Some(GetRange::Bounded(range.start as u64..range.end as u64)),
                    if_match: version,
                    ..GetOptions::default()
                };
                let bytes = match store.get_opts(&key, options).await {
                    Ok(answer) => answer.bytes().await,
                    Err(err) => Err(err),
                };
                (range, reads, bytes)
            });
        }
        while let Some(joined) = gets.join_next().await {
            let (range, reads, bytes) = joined.map_err(|err| {
                ChunkError::Io(std::io::Error::other(err.to_string()), key.as_ref().into())
            })?;
            let bytes = match bytes {
                Ok(bytes) => bytes,
                Err(object_store::Error::Precondition { .. }) => return Err(PartError::Replaced),
                Err(object_store::Error::NotFound { .. }) => return Err(PartError::Missing),
                Err(err) => return Err(store_error(key, &err).into()),
            };
            if bytes.len() != range.len() {
                let message = format!("{} bytes answered for the range {range:?}", bytes.len());
                let err = ChunkError::Io(std::io::Error::other(message), key.as_ref().into());
                return Err(err.into());
            }
            fetched.push((Some(range), reads, bytes));
        }
        Ok(fetched)
    }

    /// Hands over the inner chunks of `fetched` to decode.
    fn hand_over(fetched: Vec<FetchedRange>, sender: &Sender<Work>) -> Streamed {
        for (range, reads, bytes) in fetched {
            for read in reads {
                let within = range
                    .as_ref()
                    .zip(read.stored.as_ref())
                    .map(|(range, stored)| stored.start - range.start..stored.end - range.start);
                let _ = sender.send(Work::Inner {
                    stored: within.map(|within| bytes.slice(within)),
                    chunk: read.chunk,
                    out: read.out,
                });
            }
        }
        Streamed::InPieces
    }

    /// Forgets the shard's kept index.
    fn forget(&self) {
        if let Some(indexes) = &self.indexes {
            indexes.forget(&self.read.key);
        }
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
