//! Running a codec over many chunks on several threads (called with the GIL released).

use std::sync::Mutex;

use pyo3::prelude::*;
use zarr_codec::CodecError;

use crate::errors::to_py_err;

/// Apply `work` to every item on up to `threads` threads and return the results in item order.
///
/// Items are handed out one at a time from a shared queue, so chunks of uneven cost keep every
/// thread busy. One thread (or one item) runs inline without spawning.
pub fn parallel_map<T, R, F>(items: &mut [T], threads: usize, work: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(&mut T) -> R + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter_mut().map(work).collect();
    }
    let count = items.len();
    let queue = Mutex::new(items.iter_mut().enumerate());
    let mut indexed: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        // A poisoned lock means another worker panicked; stop taking items
                        // (that panic is re-raised by `scope` when it joins).
                        let next = queue.lock().ok().and_then(|mut items| items.next());
                        let Some((index, item)) = next else { break };
                        done.push((index, work(item)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    indexed.sort_unstable_by_key(|(index, _)| *index);
    debug_assert_eq!(indexed.len(), count);
    indexed.into_iter().map(|(_, result)| result).collect()
}

/// Worker threads for a batch: `requested` (which must be at least 1), or one per core.
///
/// A count below 1 is a `ConfigurationError` naming `codec`.
pub fn thread_count(py: Python<'_>, requested: Option<i64>, codec: &str) -> PyResult<usize> {
    match requested {
        None => Ok(std::thread::available_parallelism().map_or(1, std::num::NonZero::get)),
        Some(n) => usize::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| {
            let message = format!("{codec}: threads must be a positive integer, got {n}");
            to_py_err(py, &CodecError::configuration(message))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_item_order_on_any_thread_count() {
        for threads in [1, 2, 3, 8, 100] {
            let mut items: Vec<u64> = (0..50).collect();
            let results = parallel_map(&mut items, threads, |item| {
                *item *= 2;
                *item + 1
            });
            assert_eq!(results, (0..50).map(|i| i * 2 + 1).collect::<Vec<_>>());
            assert_eq!(items, (0..50).map(|i| i * 2).collect::<Vec<_>>());
        }
        let mut empty: Vec<u8> = Vec::new();
        assert!(parallel_map(&mut empty, 4, |_| 0).is_empty());
    }

    #[test]
    fn panics_propagate() {
        let outcome = std::panic::catch_unwind(|| {
            let mut items = vec![1, 2, 3, 4];
            parallel_map(&mut items, 2, |item| assert!(*item != 3, "boom"));
        });
        assert!(outcome.is_err());
    }
}
