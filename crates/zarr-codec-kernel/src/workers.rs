//! The threads that help every batch: started once, parked between batches.
//!
//! A batch used to start its helper threads and join them on every call. That cost more than
//! the start itself (tens of microseconds a thread): a new thread begins with none of the
//! per-thread scratch the chunk work keeps (zstd contexts, file and decode buffers), so it
//! allocated and faulted them in again on every call; and Linux places a new thread by the
//! cores' recent load, not by which are idle now, so on two cores after another library's
//! threads had run, the helper often started behind the caller on the same core and the batch
//! ran on one core (half the calls of one shard read twice as long in wall time, measured).
//! Parked threads woken for a batch keep their scratch, and a wake-up goes to an idle core.
//!
//! A caller never waits for a helper that has not started: after its own share (and whatever
//! it takes from the others), it withdraws the requests no helper has taken and waits only for
//! helpers already at work. So a batch needs no free helper to finish (a nested batch, busy
//! helpers, a helper that cannot be started, a process forked with its helpers left behind).
//! A helper idle for `IDLE_EXIT` ends, and its scratch is freed with it.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long a helper waits for work before it ends.
const IDLE_EXIT: Duration = Duration::from_secs(10);

/// The most helper threads of a process: batches beyond wait for a free one, or their callers
/// do the work.
const MAX_HELPERS: usize = 512;

/// A caller's share for helper `n` (numbered from 1; the caller is 0).
pub type Task<'a> = dyn Fn(usize) + Sync + 'a;

/// Runs `own` on this thread while up to `helpers` pooled threads run `task(1)` ..
/// `task(helpers)`; returns `own`'s result once every helper that started is done. A panic in
/// `own` or a helper is raised here, after that.
pub fn run_with_helpers<R>(helpers: usize, task: &Task<'_>, own: impl FnOnce() -> R) -> R {
    Pool::current().run(helpers, task, own)
}

/// One batch's requests for help.
struct Job {
    /// The caller's task, its lifetime erased. Dereferenced only by a helper that took one of
    /// the job's requests, between taking it and counting itself done (see `Pool::finish`).
    task: *const Task<'static>,
    state: Mutex<JobState>,
    done: Condvar,
}

// SAFETY: `task` points to a `Sync` closure, which any thread may call through a shared
// reference; `Pool::finish` keeps it alive while any thread may still do so.
unsafe impl Send for Job {}
// SAFETY: as for `Send`: shared access is only calls of the `Sync` closure and the locked state.
unsafe impl Sync for Job {}

#[derive(Default)]
struct JobState {
    /// Helpers that took a request and are not done.
    running: usize,
    panic: Option<Box<dyn Any + Send>>,
}

/// The helpers of this process and their queue of requests.
struct Pool {
    /// The process the helpers run in: a forked child finds its parent's pool, whose helpers
    /// it does not have (and whose locks another thread may have held at the fork).
    pid: u32,
    queue: Mutex<Queue>,
    work: Condvar,
    /// How long a helper waits for work before it ends ([`IDLE_EXIT`]).
    idle_exit: Duration,
    /// The most helpers alive at once ([`MAX_HELPERS`]).
    max_helpers: usize,
}

#[derive(Default)]
struct Queue {
    /// Requests not yet taken: a job and the helper number to run it as.
    requests: VecDeque<(Arc<Job>, usize)>,
    /// Helper threads alive, and those running a request.
    helpers: usize,
    busy: usize,
}

/// The pool of this process (`Pool::current`), never freed: helpers hold it for good.
static POOL: AtomicPtr<Pool> = AtomicPtr::new(std::ptr::null_mut());

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while one of these locks is held (the tasks run outside them).
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    fn new(pid: u32, idle_exit: Duration, max_helpers: usize) -> Self {
        Pool {
            pid,
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
            idle_exit,
            max_helpers,
        }
    }

    /// [`run_with_helpers`] on this pool.
    fn run<R>(&'static self, helpers: usize, task: &Task<'_>, own: impl FnOnce() -> R) -> R {
        let job = self.post(helpers, task);
        let outcome = catch_unwind(AssertUnwindSafe(own));
        let helper_panic = self.finish(&job);
        match (outcome, helper_panic) {
            (Err(panic), _) | (Ok(_), Some(panic)) => resume_unwind(panic),
            (Ok(result), None) => result,
        }
    }

    /// This process's pool, made on first use (and again in a forked child).
    fn current() -> &'static Pool {
        let pid = std::process::id();
        loop {
            let found = POOL.load(Ordering::Acquire);
            // SAFETY: a non-null `POOL` is a leaked `Box<Pool>`, never freed.
            if let Some(pool) = unsafe { found.as_ref() }
                && pool.pid == pid
            {
                return pool;
            }
            // None yet, or a forked parent's, left leaked: its helpers may be thought to hold
            // it.
            let made = Box::into_raw(Box::new(Pool::new(pid, IDLE_EXIT, MAX_HELPERS)));
            if POOL
                .compare_exchange(found, made, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                // SAFETY: `made` is now `POOL`, leaked, never freed.
                return unsafe { &*made };
            }
            // Another thread put its own first: take that one.
            // SAFETY: `made` came from `Box::into_raw` above and was never shared.
            drop(unsafe { Box::from_raw(made) });
        }
    }

    /// Queues `helpers` requests for `task`, starting helper threads where too few are free.
    fn post(&'static self, helpers: usize, task: &Task<'_>) -> Arc<Job> {
        let task: *const Task<'static> =
            // SAFETY: only the lifetime is erased (same type, same layout); the pointer is
            // dereferenced as `Job::task` says, and `run` calls `finish` on every path before
            // `task`'s borrow ends.
            unsafe { std::mem::transmute::<&Task<'_>, &'static Task<'static>>(task) };
        let job = Arc::new(Job {
            task,
            state: Mutex::new(JobState::default()),
            done: Condvar::new(),
        });
        let mut queue = lock(&self.queue);
        queue
            .requests
            .extend((1..=helpers).map(|helper| (Arc::clone(&job), helper)));
        // A helper for every request waiting (this batch's and others' at once, from other
        // threads or nested batches): a batch is not left to its caller alone because another
        // holds the helpers.
        while queue.helpers - queue.busy < queue.requests.len() && queue.helpers < self.max_helpers
        {
            let started = std::thread::Builder::new()
                .name("zarr-codec-runtime".into())
                .spawn(move || self.serve());
            if started.is_err() {
                break; // the caller and the helpers there are do the work
            }
            queue.helpers += 1; // it looks for requests before it first waits
        }
        for _ in 0..helpers {
            self.work.notify_one();
        }
        job
    }

    /// Withdraws `job`'s requests no helper took, waits for those that did, and gives back
    /// the first panic of theirs.
    fn finish(&self, job: &Arc<Job>) -> Option<Box<dyn Any + Send>> {
        lock(&self.queue)
            .requests
            .retain(|(queued, _)| !Arc::ptr_eq(queued, job));
        // A helper counts itself running while it holds the queue lock as it takes a request,
        // so no request of this job is taken from here on and every taker is counted.
        let mut state = lock(&job.state);
        while state.running > 0 {
            state = job.done.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        state.panic.take()
    }

    /// A helper's life: take requests and run them, wait for more, end when idle too long.
    fn serve(&self) {
        let mut queue = lock(&self.queue);
        loop {
            if let Some((job, helper)) = queue.requests.pop_front() {
                queue.busy += 1;
                lock(&job.state).running += 1;
                drop(queue);
                // SAFETY: this request was taken under the queue lock and counted running
                // there, so `finish` waits for it before the task's borrow ends (`Job::task`).
                let task = unsafe { &*job.task };
                let outcome = catch_unwind(AssertUnwindSafe(|| task(helper)));
                // Free again before the caller hears it is done, so that the caller's next
                // batch finds this helper free and starts no other.
                queue = lock(&self.queue);
                queue.busy -= 1;
                let mut state = lock(&job.state);
                state.running -= 1;
                if let Err(panic) = outcome {
                    state.panic.get_or_insert(panic);
                }
                job.done.notify_all();
                continue;
            }
            let (waited, timeout) = self
                .work
                .wait_timeout(queue, self.idle_exit)
                .unwrap_or_else(PoisonError::into_inner);
            queue = waited;
            if timeout.timed_out() && queue.requests.is_empty() {
                queue.helpers -= 1;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    /// A pool of its own, so that other tests' batches do not share its helpers.
    fn private_pool(max_helpers: usize) -> &'static Pool {
        Box::leak(Box::new(Pool::new(
            std::process::id(),
            IDLE_EXIT,
            max_helpers,
        )))
    }

    /// Waits (bounded) until `count` reaches `value`.
    fn wait_for(count: &AtomicUsize, value: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while count.load(Ordering::SeqCst) < value {
            assert!(Instant::now() < deadline, "helpers did not start");
            std::thread::yield_now();
        }
    }

    /// Waits (bounded) until no helper of `pool` is busy; how many there are.
    fn parked(pool: &Pool) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let queue = lock(&pool.queue);
            if queue.busy == 0 {
                return queue.helpers;
            }
            drop(queue);
            assert!(Instant::now() < deadline, "helpers did not park");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A batch of `helpers` helpers, each waited for, so each runs its share; how many ran.
    fn batch(pool: &'static Pool, helpers: usize) -> usize {
        let entered = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let task = |_helper: usize| {
            entered.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(5));
            done.fetch_add(1, Ordering::SeqCst);
        };
        pool.run(helpers, &task, || wait_for(&entered, helpers));
        done.load(Ordering::SeqCst)
    }

    #[test]
    fn helpers_work_beside_the_caller_and_are_done_when_it_returns() {
        let pool = private_pool(MAX_HELPERS);
        for helpers in [1, 3, 12] {
            assert_eq!(batch(pool, helpers), helpers);
        }
        // Parked helpers serve the next batches: none is started again.
        let kept = parked(pool);
        assert!(kept >= 12);
        assert_eq!(batch(pool, 12), 12);
        assert_eq!(parked(pool), kept);
    }

    #[test]
    fn idle_helpers_end_and_new_ones_start_when_needed() {
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(
            std::process::id(),
            Duration::from_millis(50),
            MAX_HELPERS,
        )));
        for _ in 0..2 {
            let entered = AtomicUsize::new(0);
            let task = |_| {
                entered.fetch_add(1, Ordering::SeqCst);
            };
            pool.run(2, &task, || wait_for(&entered, 2));
            let deadline = Instant::now() + Duration::from_secs(30);
            while lock(&pool.queue).helpers > 0 {
                assert!(Instant::now() < deadline, "idle helpers did not end");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    #[test]
    fn a_caller_does_not_wait_for_helpers_that_never_start() {
        // Both helpers of a pool (of two at most) held by a slow batch: a second batch
        // finishes on its own thread, its request withdrawn.
        let pool = private_pool(2);
        let gate = Mutex::new(());
        let held = lock(&gate);
        let entered = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let slow = scope.spawn(|| {
                let task = |_| {
                    entered.fetch_add(1, Ordering::SeqCst);
                    drop(lock(&gate));
                };
                pool.run(2, &task, || wait_for(&entered, 2));
            });
            wait_for(&entered, 2);
            let ran = AtomicUsize::new(0);
            let own = pool.run(
                1,
                &|_| {
                    ran.fetch_add(1, Ordering::SeqCst);
                },
                || 7,
            );
            assert_eq!((own, ran.load(Ordering::SeqCst)), (7, 0));
            assert!(lock(&pool.queue).requests.is_empty());
            drop(held);
            slow.join().expect("the slow batch ends");
        });
    }

    #[test]
    fn a_helpers_panic_reaches_the_caller_and_the_pool_goes_on() {
        let pool = private_pool(MAX_HELPERS);
        let entered = AtomicUsize::new(0);
        let outcome = catch_unwind(|| {
            let task = |_| {
                entered.fetch_add(1, Ordering::SeqCst);
                panic!("helper");
            };
            pool.run(1, &task, || wait_for(&entered, 1));
        });
        let panic = outcome.expect_err("the helper's panic is raised");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"helper"));
        let ran = AtomicUsize::new(0);
        pool.run(
            1,
            &|_| {
                ran.fetch_add(1, Ordering::SeqCst);
            },
            || {
                wait_for(&ran, 1);
            },
        );
    }

    #[test]
    fn a_forked_child_gets_a_pool_of_its_own() {
        // What `current` does when the pool it finds is another process's.
        let parent = Box::into_raw(Box::new(Pool::new(
            std::process::id().wrapping_add(1),
            IDLE_EXIT,
            MAX_HELPERS,
        )));
        // The pool replaced is leaked, as `current` leaks a parent's; batches of other tests
        // running meanwhile finish on whichever pool they posted to.
        POOL.store(parent, Ordering::Release);
        let pool = Pool::current();
        assert_eq!(pool.pid, std::process::id());
        assert!(!std::ptr::eq(pool, parent));
        assert!(std::ptr::eq(Pool::current(), pool));
    }
}
