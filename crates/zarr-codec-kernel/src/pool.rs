//! One work-stealing pool for every batch: [`parallel_map`], on the threads of `workers`.

use std::sync::{Mutex, PoisonError};

use crate::workers::run_with_helpers;

/// Apply `work` to every item on up to `threads` threads and return the results in item order.
///
/// Each thread owns a contiguous run of the items and takes them front to back; a thread done
/// with its run helps the others, taking from the back of theirs. So chunks of uneven cost
/// keep every thread busy, while neighbouring chunks (neighbouring pages of one output array)
/// stay on one thread: two threads do not fault in the same huge page at once. The calling
/// thread is one of the `threads` (it would only wait otherwise); the others are helpers
/// parked between batches, so every thread's scratch buffers, kept between calls, serve every
/// batch. One thread (or one item) runs inline. A helper that does not start in time (all
/// busy, say) is not waited for: the threads at work take its run.
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
    let runs = contiguous_runs(items, threads);
    let drain = |own: usize| {
        let mut done = Vec::new();
        for step in 0..threads {
            let run = &runs[(own + step) % threads];
            // A poisoned lock means another thread panicked; stop taking its items (that
            // panic is raised in the caller once every helper is done).
            while let Some((index, item)) = run.lock().ok().and_then(|mut run| run.take(step == 0))
            {
                done.push((index, work(item)));
            }
        }
        done
    };
    // The helpers' results; the caller's are returned by its own drain.
    let helped = Mutex::new(Vec::with_capacity(count));
    let help = |own: usize| {
        let done = drain(own);
        helped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(done);
    };
    let mut indexed = run_with_helpers(threads - 1, &help, || drain(0));
    indexed.extend(helped.into_inner().unwrap_or_else(PoisonError::into_inner));
    indexed.sort_unstable_by_key(|(index, _)| *index);
    debug_assert_eq!(indexed.len(), count);
    indexed.into_iter().map(|(_, result)| result).collect()
}

/// The items not yet taken of one thread's contiguous run, and the index of its first.
struct Run<'a, T> {
    first: usize,
    items: &'a mut [T],
}

impl<'a, T> Run<'a, T> {
    /// The next item from the front (the run's owner) or the back (a helper), with its index.
    fn take(&mut self, front: bool) -> Option<(usize, &'a mut T)> {
        let items = std::mem::take(&mut self.items);
        if front {
            let (item, rest) = items.split_first_mut()?;
            self.items = rest;
            self.first += 1;
            Some((self.first - 1, item))
        } else {
            let (item, rest) = items.split_last_mut()?;
            let index = self.first + rest.len();
            self.items = rest;
            Some((index, item))
        }
    }
}

/// `items` split into `threads` contiguous runs of nearly equal length.
fn contiguous_runs<T>(items: &mut [T], threads: usize) -> Vec<Mutex<Run<'_, T>>> {
    let count = items.len();
    let mut runs = Vec::with_capacity(threads);
    let mut rest = items;
    let mut first = 0;
    for thread in 1..=threads {
        let end = thread * count / threads;
        let (items, tail) = std::mem::take(&mut rest).split_at_mut(end - first);
        runs.push(Mutex::new(Run { first, items }));
        rest = tail;
        first = end;
    }
    runs
}

/// Worker threads for a batch when the caller names none: one per core, found once per
/// process. `available_parallelism` reads the process's cgroup files under /proc and /sys on
/// every call (a third of the time of a one-element read, measured), so it is not asked again.
#[must_use]
pub fn default_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
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
    fn the_calling_thread_takes_a_share() {
        let caller = std::thread::current().id();
        let mut items: Vec<u32> = (0..20).collect();
        let ran_on = parallel_map(&mut items, 2, |_| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            std::thread::current().id()
        });
        assert!(ran_on.contains(&caller), "the caller only waited");
        assert!(
            ran_on.iter().any(|id| *id != caller),
            "no second thread worked"
        );
    }

    #[test]
    fn each_thread_starts_on_its_own_contiguous_run() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let helper_started = AtomicBool::new(false);
        let mut items: Vec<u32> = (0..40).collect();
        let ran_on = parallel_map(&mut items, 2, |item| {
            if *item == 0 {
                // Wait (bounded) for the helper to start, as it would on an idle machine.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
                while !helper_started.load(Ordering::Acquire)
                    && std::time::Instant::now() < deadline
                {
                    std::thread::yield_now();
                }
            }
            if *item == 20 {
                helper_started.store(true, Ordering::Release);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            std::thread::current().id()
        });
        // The caller owns the first half and starts at item 0, the helper at item 20.
        assert_eq!(ran_on[0], std::thread::current().id());
        assert_ne!(ran_on[20], ran_on[0]);
        let switches = ran_on.windows(2).filter(|pair| pair[0] != pair[1]).count();
        assert!(switches <= 3, "items were interleaved: {switches} switches");
    }

    #[test]
    fn a_thread_done_with_its_run_helps_from_the_back() {
        // The caller's first item waits until the helper has done its own run and taken the
        // caller's last item, which a helper takes first.
        use std::sync::atomic::{AtomicBool, Ordering};
        let last_taken = AtomicBool::new(false);
        let mut items: Vec<u64> = (0..16).collect();
        let ran_on = parallel_map(&mut items, 2, |item| {
            if *item == 0 {
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
                while !last_taken.load(Ordering::Acquire) && std::time::Instant::now() < deadline {
                    std::thread::yield_now();
                }
            }
            if *item == 7 {
                last_taken.store(true, Ordering::Release);
            }
            std::thread::current().id()
        });
        let caller = std::thread::current().id();
        assert_eq!(ran_on[0], caller);
        assert_ne!(ran_on[7], caller, "the slow run was not helped");
        assert!(ran_on[8..].iter().all(|id| *id != caller));
    }

    #[test]
    fn runs_cover_every_item_once() {
        for (count, threads) in [(0, 3), (1, 1), (5, 2), (7, 3), (100, 8)] {
            let mut items: Vec<usize> = (0..count).collect();
            let runs = contiguous_runs(&mut items, threads);
            let mut seen = Vec::new();
            for run in &runs {
                let mut run = run.lock().expect("not poisoned");
                while let Some((index, item)) = run.take(seen.len() % 2 == 0) {
                    assert_eq!(index, *item);
                    seen.push(index);
                }
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..count).collect::<Vec<_>>());
        }
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
