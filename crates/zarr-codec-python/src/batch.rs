//! Running a codec over many chunks on several threads (called with the GIL released).

use std::ops::Range;
use std::sync::Mutex;

use pyo3::prelude::*;
use zarr_codec::CodecError;

use crate::errors::to_py_err;
use crate::input::BytesInput;
use crate::output::BytesOutput;
use crate::run::run;

/// Apply `work` to every item on up to `threads` threads and return the results in item order.
///
/// Items are handed out one at a time from a shared queue, so chunks of uneven cost keep every
/// thread busy. The calling thread is one of the `threads` (it would only wait otherwise), so
/// its per-thread scratch buffers, kept between calls, serve every batch; one thread (or one
/// item) runs inline without spawning.
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
    let drain = || {
        let mut done = Vec::new();
        loop {
            // A poisoned lock means another worker panicked; stop taking items (that panic
            // is re-raised by `scope` when it joins).
            let next = queue.lock().ok().and_then(|mut items| items.next());
            let Some((index, item)) = next else { break };
            done.push((index, work(item)));
        }
        done
    };
    let mut indexed: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(drain)).collect();
        let mut all = drain();
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
    F: Fn(&[u8], &mut [u8]) -> zarr_codec::Result<usize> + Sync,
{
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
    let mut jobs: Vec<(&[u8], &mut [u8])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
        .collect();
    let addresses: Vec<_> = jobs
        .iter()
        .map(|(input, output)| (addresses(input), addresses(output)))
        .collect();
    if let Some(index) = first_overlap(&addresses) {
        return Err(configuration(format!(
            "{codec}: output {index} overlaps another output or a chunk; a batch writes its \
             outputs at the same time"
        )));
    }
    run(py, || {
        parallel_map(&mut jobs, threads, |(input, output)| decode(input, output))
            .into_iter()
            .collect()
    })
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
