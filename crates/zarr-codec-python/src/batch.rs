//! Running a codec over many chunks on several threads (called with the GIL released).

use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use zarr_codec_shapes::CodecError;

use crate::errors::to_py_err;
use crate::input::BytesInput;
use crate::output::{BytesOutput, UninitBytes};
use crate::run::run;

/// Apply `work` to every item on up to `threads` threads and return the results in item order.
///
/// Each thread owns a contiguous run of the items and takes them front to back; a thread done
/// with its run helps the others, taking from the back of theirs. So chunks of uneven cost
/// keep every thread busy, while neighbouring chunks (neighbouring pages of one output array)
/// stay on one thread: two threads do not fault in the same huge page at once. The calling
/// thread is one of the `threads` (it would only wait otherwise), so its per-thread scratch
/// buffers, kept between calls, serve every batch; one thread (or one item) runs inline
/// without spawning.
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
            // A poisoned lock means another worker panicked; stop taking its items (that
            // panic is re-raised by `scope` when it joins).
            while let Some((index, item)) = run.lock().ok().and_then(|mut run| run.take(step == 0))
            {
                done.push((index, work(item)));
            }
        }
        done
    };
    let drain = &drain;
    let mut indexed: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .map(|own| scope.spawn(move || drain(own)))
            .collect();
        let mut all = drain(0);
        for worker in workers {
            all.extend(
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        all
    });
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

/// Decodes each buffer of `chunks` into the matching writable buffer of `outs`, on up to
/// `threads` threads with the GIL released, one Python call for the whole batch; returns the
/// bytes written into each. `decode` is one chunk's `decode_into`.
///
/// The outputs are written concurrently, so they must not overlap one another or any input
/// (a `ConfigurationError` naming `codec` otherwise); different counts of chunks and outputs
/// are one too. Nothing is decoded unless every buffer passes those checks.
pub fn decode_batch_into<F>(
    py: Python<'_>,
    chunks: &Bound<'_, PyAny>,
    outs: &Bound<'_, PyAny>,
    threads: usize,
    codec: &str,
    decode: F,
) -> PyResult<Vec<usize>>
where
    F: Fn(&[u8], &mut [u8]) -> zarr_codec_shapes::Result<usize> + Sync,
{
    let (inputs, mut outputs) = checked_buffers(py, chunks, outs, codec)?;
    let mut jobs: Vec<(&[u8], &mut [u8])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
        .collect();
    run(py, || {
        parallel_map(&mut jobs, threads, |(input, output)| decode(input, output))
            .into_iter()
            .collect()
    })
}

/// The buffers of `chunks` and of the writable `outs`, as many of each, no output
/// overlapping another or a chunk (a `ConfigurationError` naming `codec` otherwise).
pub(crate) fn checked_buffers<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    outs: &Bound<'py, PyAny>,
    codec: &str,
) -> PyResult<(Vec<BytesInput>, Vec<BytesOutput>)> {
    let configuration = |message: String| to_py_err(py, &CodecError::configuration(message));
    let inputs = BytesInput::all(chunks)?;
    let mut outputs = outs
        .try_iter()?
        .map(|out| BytesOutput::new(&out?))
        .collect::<PyResult<Vec<_>>>()?;
    if inputs.len() != outputs.len() {
        return Err(configuration(format!(
            "{codec}: {} chunks but {} outputs",
            inputs.len(),
            outputs.len()
        )));
    }
    let addresses: Vec<_> = inputs
        .iter()
        .zip(outputs.iter_mut())
        .map(|(input, output)| {
            (
                addresses(input.as_slice()),
                addresses(output.as_mut_slice()),
            )
        })
        .collect();
    if let Some(index) = first_overlap(&addresses) {
        return Err(configuration(format!(
            "{codec}: output {index} overlaps another output or a chunk; a batch writes its \
             outputs at the same time"
        )));
    }
    Ok((inputs, outputs))
}

/// The writable `outs`, `count` of them, none overlapping another (a `ConfigurationError`
/// naming `codec` otherwise): the outputs of a batch whose inputs are not Python buffers.
pub(crate) fn checked_outputs(
    py: Python<'_>,
    outs: &Bound<'_, PyAny>,
    count: usize,
    codec: &str,
) -> PyResult<Vec<BytesOutput>> {
    let configuration = |message: String| to_py_err(py, &CodecError::configuration(message));
    let mut outputs = outs
        .try_iter()?
        .map(|out| BytesOutput::new(&out?))
        .collect::<PyResult<Vec<_>>>()?;
    if outputs.len() != count {
        return Err(configuration(format!(
            "{codec}: {count} chunks but {} outputs",
            outputs.len()
        )));
    }
    let addresses: Vec<_> = outputs
        .iter_mut()
        .map(|output| (0..0, addresses(output.as_mut_slice())))
        .collect();
    if let Some(index) = first_overlap(&addresses) {
        return Err(configuration(format!(
            "{codec}: output {index} overlaps another output; a batch writes its outputs at \
             the same time"
        )));
    }
    Ok(outputs)
}

/// The addresses `bytes` covers.
fn addresses(bytes: &[u8]) -> Range<usize> {
    let range = bytes.as_ptr_range();
    range.start as usize..range.end as usize
}

/// The index of an output sharing memory with another output or with any input, if one does;
/// `jobs` are the (input, output) address ranges of a batch.
fn first_overlap(jobs: &[(Range<usize>, Range<usize>)]) -> Option<usize> {
    // (start, end, output index or None for an input), empty ranges left out.
    let mut ranges: Vec<(usize, usize, Option<usize>)> = Vec::with_capacity(jobs.len() * 2);
    for (index, (input, output)) in jobs.iter().enumerate() {
        for (range, owner) in [(input, None), (output, Some(index))] {
            if !range.is_empty() {
                ranges.push((range.start, range.end, owner));
            }
        }
    }
    ranges.sort_unstable_by_key(|&(start, ..)| start);
    // Sorted by start, a range overlaps an earlier one exactly when it starts before the
    // furthest end seen so far; inputs may overlap each other, nothing may overlap an output.
    let (mut any_end, mut output_end) = (0usize, (0usize, 0usize));
    for &(start, end, owner) in &ranges {
        match owner {
            Some(index) if start < any_end => return Some(index),
            None if start < output_end.0 => return Some(output_end.1),
            _ => {}
        }
        any_end = any_end.max(end);
        if let Some(index) = owner
            && end > output_end.0
        {
            output_end = (end, index);
        }
    }
    None
}

/// One chunk of [`decode_batch_claimed`]: its input, and the storage of its claimed size.
type ClaimedJob<'a> = (&'a [u8], Option<&'a mut [MaybeUninit<u8>]>);

/// Decompress every chunk of `chunks` on up to `threads` threads with the GIL released, each
/// straight into the `bytes` object returned for it when `claim` states its decoded size (a
/// size the stream itself records, already checked against any limit). `fill` decodes into
/// that storage and says whether it filled it exactly; a chunk without a claim, or whose claim
/// proved wrong, goes through `decode` into a `Vec` (one copy more).
pub fn decode_batch_claimed<'py, C, F, D>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    threads: usize,
    claim: C,
    fill: F,
    decode: D,
) -> PyResult<Bound<'py, PyList>>
where
    C: Fn(&[u8]) -> zarr_codec_shapes::Result<Option<usize>>,
    F: Fn(&[u8], &mut [MaybeUninit<u8>]) -> zarr_codec_shapes::Result<bool> + Sync,
    D: Fn(&[u8]) -> zarr_codec_shapes::Result<Vec<u8>> + Sync,
{
    let inputs = BytesInput::all(chunks)?;
    let mut outputs = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let size = claim(input.as_slice()).map_err(|err| to_py_err(py, &err))?;
        outputs.push(size.map(|n| UninitBytes::new(py, n)).transpose()?);
    }
    let mut jobs: Vec<ClaimedJob<'_>> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(
            outputs
                .iter_mut()
                .map(|o| o.as_mut().map(UninitBytes::storage)),
        )
        .collect();
    let decoded = run(py, || {
        parallel_map(&mut jobs, threads, |(input, target)| {
            if let Some(target) = target.as_deref_mut()
                && fill(input, target)?
            {
                return Ok(None);
            }
            decode(input).map(Some)
        })
        .into_iter()
        .collect::<zarr_codec_shapes::Result<Vec<_>>>()
    })?;
    drop(jobs);
    let objects = decoded
        .into_iter()
        .zip(outputs)
        .map(|(result, output)| match (result, output) {
            // SAFETY: `None` means `fill` reported writing every byte of the target.
            (None, Some(output)) => unsafe { output.assume_init() },
            (Some(data), _) => PyBytes::new(py, &data),
            // A chunk without a target always decodes into a `Vec`: this cannot occur.
            (None, None) => PyBytes::new(py, &[]),
        });
    PyList::new(py, objects)
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

    #[test]
    fn overlapping_outputs_are_found() {
        // (input, output) address ranges.
        let ok = [(0..10, 100..132), (10..64, 132..164)];
        assert_eq!(first_overlap(&ok), None); // adjacent outputs
        let shared_input = [(0..64, 100..110), (0..64, 110..120)];
        assert_eq!(first_overlap(&shared_input), None); // inputs may overlap
        let outputs = [(0..10, 100..164), (10..20, 116..132)];
        assert_eq!(first_overlap(&outputs), Some(1));
        let nested = [(0..10, 100..200), (10..20, 300..310), (20..30, 150..160)];
        assert_eq!(first_overlap(&nested), Some(2));
        let own_input = [(100..108, 100..108)];
        assert_eq!(first_overlap(&own_input), Some(0));
        let other_input = [(0..8, 100..200), (150..160, 300..310)];
        assert_eq!(first_overlap(&other_input), Some(0)); // chunk 1 is read from output 0
        let empty = [(0..0, 5..5), (5..5, 5..5)];
        assert_eq!(first_overlap(&empty), None);
    }
}
