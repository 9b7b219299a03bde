//! Shard indexes kept between reads: [`IndexCache`].
//!
//! Part of a shard costs two round trips, its index and then the inner chunks needed. Reads
//! of parts of the same shards (a dask task per inner chunk, a region read again) need the
//! same index each time: kept, a later read asks for the inner chunks straight away, in one
//! of two ways.
//!
//! - **Trusting the version** (`If-Match`): each range is asked on condition that the shard is
//!   still the version (`ETag`) the index came from; a shard replaced since fails it and its
//!   index is read again. That holds only where the store honours `If-Match` on a GET (a
//!   probe finds out, once: see [`IndexCache::conditions_honoured`]) and where an object's
//!   `ETag` changes with its content, as S3's (an MD5) do: a web server's `ETag` made of a
//!   file's size and modification time (to the second, for nginx) stays the same for a shard
//!   rewritten within the second at the same size. See [`IndexCache::trusts_versions`].
//! - **Checking the index**, everywhere else: the ranges the kept index gives are asked in the
//!   same round trip as the shard's current index, and used only if that equals the kept one
//!   (else they are asked again with the current one). One round trip while nothing changes,
//!   and no weaker than reading the index first: a writer between the two requests of that
//!   read is the same race as one between these.

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
    /// The shard's strong `ETag` when the index was read, if it had one.
    pub version: Option<String>,
}

/// Shard indexes by object, at most `capacity` bytes of them, the oldest dropped first.
#[derive(Debug)]
pub struct IndexCache {
    capacity: usize,
    /// Whether an object's `ETag` changes whenever its content does.
    versions_follow_content: bool,
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
    /// An empty cache of at most `capacity` bytes of indexes, for a store whose objects'
    /// `ETag`s change whenever their content does where `versions_follow_content` (S3), so
    /// that, once the store is found to honour `If-Match`, a kept index is used on that
    /// condition alone (see [`Self::trusts_versions`]).
    #[must_use]
    pub fn new(capacity: usize, versions_follow_content: bool) -> Self {
        Self {
            capacity,
            versions_follow_content,
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

    /// Whether a kept index is used on condition that its shard is still the version it came
    /// from (`If-Match`) alone: where `ETag`s follow the content and the store honours the
    /// condition. Else the shard's current index is fetched beside the ranges and compared.
    #[must_use]
    pub fn trusts_versions(&self) -> bool {
        self.versions_follow_content && self.conditions_honoured() == Some(true)
    }

    /// Whether the caller is to find out if the store honours `If-Match`: true for one
    /// caller while it is unknown and nobody else is finding out (never where `ETag`s may
    /// not follow the content: there the answer would not be used).
    pub fn start_probe(&self) -> bool {
        self.versions_follow_content
            && self
                .conditions
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

    /// Keeps `index` for `key` (one larger than a quarter of the capacity is not kept).
    pub fn keep(&self, key: &Path, index: CachedIndex) {
        let len = index.stored.len();
        if len > self.capacity / 4 {
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
            version: Some(version.into()),
        }
    }

    #[test]
    fn versions_are_trusted_once_the_store_honours_its_conditions() {
        let cache = IndexCache::new(100, true);
        let key = Path::from("a");
        cache.keep(&key, index(20, "1"));
        assert_eq!(cache.get(&key), Some(index(20, "1")), "kept all the same");
        assert_eq!(cache.conditions_honoured(), None);
        assert!(!cache.trusts_versions(), "not known yet");
        assert!(
            cache.start_probe() && !cache.start_probe(),
            "one probe at a time"
        );
        cache.set_conditions_honoured(None);
        assert!(cache.start_probe(), "an inconclusive probe is tried again");
        cache.abandon_probe();
        assert!(cache.start_probe(), "an abandoned probe is tried again");
        cache.set_conditions_honoured(Some(false));
        assert!(!cache.trusts_versions());
        cache.set_conditions_honoured(Some(true));
        assert!(cache.trusts_versions());
    }

    #[test]
    fn versions_that_may_not_follow_the_content_are_never_trusted() {
        let cache = IndexCache::new(100, false);
        assert!(!cache.start_probe(), "nothing to find out");
        cache.set_conditions_honoured(Some(true));
        assert!(!cache.trusts_versions());
        cache.keep(&Path::from("a"), index(20, "1"));
        assert!(cache.get(&Path::from("a")).is_some());
    }

    #[test]
    fn indexes_are_kept_replaced_forgotten_and_dropped_oldest_first() {
        let cache = IndexCache::new(100, true);
        let (a, b, c) = (Path::from("a"), Path::from("b"), Path::from("c"));
        cache.keep(&a, index(20, "1"));
        cache.keep(&b, index(20, "1"));
        assert_eq!(cache.get(&a), Some(index(20, "1")));
        cache.keep(&a, index(20, "2")); // kept again: now the newest
        assert_eq!(
            cache.get(&a).and_then(|kept| kept.version),
            Some("2".into())
        );
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
