//! Running a codec over many chunks on several threads (called with the GIL released).

use std::mem::MaybeUninit;
use std::ops::Range;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use zarr_codec_shapes::CodecError;

use crate::errors::to_py_err;
use crate::input::BytesInput;
use crate::output::{BytesOutput, UninitBytes};
use crate::run::run;
pub use zarr_codec_kernel::parallel_map;

/// Worker threads for a batch: `requested` (which must be at least 1), or one per core.
///
/// A count below 1 is a `ConfigurationError` naming `codec`.
pub fn thread_count(py: Python<'_>, requested: Option<i64>, codec: &str) -> PyResult<usize> {
    match requested {
        None => Ok(zarr_codec_kernel::default_threads()),
        Some(n) => usize::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| {
            let message = format!("{codec}: threads must be a positive integer, got {n}");
            to_py_err(py, &CodecError::configuration(message))
        }),
    }
}

/// The buffers of `chunks` and of the writable `outs`, as many of each, no output
/// overlapping another or a chunk (a `ConfigurationError` naming `codec` otherwise).
pub fn checked_buffers<'py>(
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
pub fn checked_outputs(
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
pub(crate) fn decode_batch_claimed<'py, C, F, D>(
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
