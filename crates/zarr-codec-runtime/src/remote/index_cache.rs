//! Shard indexes kept between reads: [`IndexCache`].
//!
//! Part of a shard costs two round trips, its index and then the inner chunks needed. Reads
//! of parts of the same shards (a dask task per inner chunk, a region read again) need the
//! same index each time: kept, with the version (`ETag`) it came from, a later read asks for
//! the inner chunks straight away, on condition that the shard is still that version
//! (`If-Match`). A shard replaced since fails that condition and its index is read again.
//! That holds only where the store honours `If-Match` on a GET (S3 and common web servers
//! do; a server may not): the first time, a request on a condition no object meets tells
//! (see [`IndexCache::conditions_honoured`]), and nothing is kept unless it was refused. And
//! only where an object's `ETag` changes with its content, as S3's (an MD5) do: a web server's
//! `ETag` made of a file's size and modification time (to the second, for nginx) stays the same
//! for a shard rewritten within the second at the same size, so do not keep indexes for one.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};

use bytes::Bytes;
use object_store::path::Path;

/// A shard's stored index, the shard's size and the version it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedIndex {
    /// The index as stored.
    pub stored: Bytes,
    /// The shard's size in bytes.
    pub size: usize,
    /// The shard's strong `ETag` when the index was read.
    pub version: String,
}

/// Shard indexes by object, at most `capacity` bytes of them, the oldest dropped first.
#[derive(Debug)]
pub struct IndexCache {
    capacity: usize,
    held: Mutex<Held>,
    /// Whether the store honours `If-Match`: [`UNKNOWN`], [`PROBING`], [`HONOURED`] or
    /// [`IGNORED`].
    conditions: AtomicU8,
}

const UNKNOWN: u8 = 0;
const PROBING: u8 = 1;
const HONOURED: u8 = 2;
const IGNORED: u8 = 3;

#[derive(Debug, Default)]
struct Held {
    indexes: HashMap<Path, CachedIndex>,
    /// Objects in the order they were kept, oldest first (an object kept again is listed
    /// again: entries no longer in `indexes` at their turn are skipped).
    order: VecDeque<Path>,
    bytes: usize,
}

impl IndexCache {
    /// An empty cache of at most `capacity` bytes of indexes.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            held: Mutex::new(Held::default()),
            conditions: AtomicU8::new(UNKNOWN),
        }
    }

    /// Whether the store refuses a GET whose `If-Match` names another version (`None`: not
    /// known yet). Indexes are kept only once it is known to.
    #[must_use]
    pub fn conditions_honoured(&self) -> Option<bool> {
        match self.conditions.load(Ordering::Relaxed) {
            HONOURED => Some(true),
            IGNORED => Some(false),
            _ => None,
        }
    }

    /// Whether the caller is to find out if the store honours `If-Match`: true for one
    /// caller while it is unknown and nobody else is finding out.
    pub fn start_probe(&self) -> bool {
        self.conditions
            .compare_exchange(UNKNOWN, PROBING, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Forgets a probe in flight: in a forked child, whose parent's probe will never report
    /// to it, so that the child may probe again.
    pub fn abandon_probe(&self) {
        let _ = self.conditions.compare_exchange(
            PROBING,
            UNKNOWN,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Records what a probe found: whether the store honours `If-Match` (`None`: it could not
    /// tell; another read will try again).
    pub fn set_conditions_honoured(&self, honoured: Option<bool>) {
        let value = match honoured {
            Some(true) => HONOURED,
            Some(false) => IGNORED,
            None => UNKNOWN,
        };
        self.conditions.store(value, Ordering::Relaxed);
    }

    /// The index kept for `key`, if any.
    pub fn get(&self, key: &Path) -> Option<CachedIndex> {
        self.held.lock().ok()?.indexes.get(key).cloned()
    }

    /// Keeps `index` for `key` (one larger than a quarter of the capacity is not kept, nor
    /// any until the store is known to honour `If-Match`).
    pub fn keep(&self, key: &Path, index: CachedIndex) {
        let len = index.stored.len();
        if len > self.capacity / 4 || self.conditions_honoured() != Some(true) {
            return;
        }
        let Ok(mut held) = self.held.lock() else {
            return;
        };
        if let Some(old) = held.indexes.insert(key.clone(), index) {
            held.bytes -= old.stored.len();
        }
        held.bytes += len;
        held.order.push_back(key.clone());
        while held.bytes > self.capacity {
            let Some(oldest) = held.order.pop_front() else {
                break;
            };
            // Kept again since: its later turn in `order` drops it.
            if held.order.contains(&oldest) {
                continue;
            }
            if let Some(old) = held.indexes.remove(&oldest) {
                held.bytes -= old.stored.len();
            }
        }
    }

    /// Forgets the index kept for `key` (its shard was replaced).
    pub fn forget(&self, key: &Path) {
        if let Ok(mut held) = self.held.lock()
            && let Some(old) = held.indexes.remove(key)
        {
            held.bytes -= old.stored.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(len: usize, version: &str) -> CachedIndex {
        CachedIndex {
            stored: Bytes::from(vec![7; len]),
            size: 100,
            version: version.into(),
        }
    }

    #[test]
    fn nothing_is_kept_unless_the_store_honours_its_conditions() {
        let cache = IndexCache::new(100);
        let key = Path::from("a");
        cache.keep(&key, index(20, "1"));
        assert_eq!((cache.conditions_honoured(), cache.get(&key)), (None, None));
        assert!(
            cache.start_probe() && !cache.start_probe(),
            "one probe at a time"
        );
        cache.set_conditions_honoured(None);
        assert!(cache.start_probe(), "an inconclusive probe is tried again");
        cache.abandon_probe();
        assert!(cache.start_probe(), "an abandoned probe is tried again");
        cache.set_conditions_honoured(Some(false));
        cache.keep(&key, index(20, "1"));
        assert_eq!(cache.get(&key), None);
        cache.set_conditions_honoured(Some(true));
        cache.keep(&key, index(20, "1"));
        assert_eq!(cache.get(&key), Some(index(20, "1")));
    }

    #[test]
    fn indexes_are_kept_replaced_forgotten_and_dropped_oldest_first() {
        let cache = IndexCache::new(100);
        cache.set_conditions_honoured(Some(true));
        let (a, b, c) = (Path::from("a"), Path::from("b"), Path::from("c"));
        cache.keep(&a, index(20, "1"));
        cache.keep(&b, index(20, "1"));
        assert_eq!(cache.get(&a), Some(index(20, "1")));
        cache.keep(&a, index(20, "2")); // kept again: now the newest
        assert_eq!(cache.get(&a).map(|kept| kept.version), Some("2".into()));
        cache.keep(&c, index(25, "1")); // 65 bytes held
        cache.keep(&Path::from("d"), index(25, "1")); // 90
        cache.keep(&Path::from("e"), index(25, "1")); // 115: b, the oldest, goes
        assert_eq!(cache.get(&b), None);
        assert!(cache.get(&a).is_some() && cache.get(&c).is_some());
        cache.forget(&c);
        assert_eq!(cache.get(&c), None);
        cache.keep(&Path::from("big"), index(26, "1")); // over a quarter: not kept
        assert_eq!(cache.get(&Path::from("big")), None);
    }
}
