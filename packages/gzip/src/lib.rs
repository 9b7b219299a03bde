//! `zarr_codec_gzip._gzip`: the compiled half of the `zarr-codec-gzip` wheel.
//!
//! Thin by design: argument conversion through `zarr-codec-python`, codec work in
//! `zarr-codec-gzip` with the GIL released, batches spread over threads.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use zarr_codec::{CodecError, ErrorKind, Result as CodecResult};
use zarr_codec_gzip::Level;
use zarr_codec_python::{BytesInput, BytesOutput, new_bytes_with, run};

fn level(py: Python<'_>, level: u32) -> PyResult<Level> {
    Level::new(level).map_err(|err| zarr_codec_python::to_py_err(py, &err))
}

/// Compress `data` (any buffer) into a gzip stream.
#[pyfunction]
fn encode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    level: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let level = self::level(py, level)?;
    let input = BytesInput::new(data)?;
    let encoded = run(py, || zarr_codec_gzip::encode(input.as_slice(), level))?;
    Ok(PyBytes::new(py, &encoded))
}

/// Compress `data` into the writable buffer `out`; returns the bytes written.
#[pyfunction]
fn encode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    level: u32,
) -> PyResult<usize> {
    let level = self::level(py, level)?;
    let input = BytesInput::new(data)?;
    let mut output = BytesOutput::new(out)?;
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_gzip::encode_into(input.as_slice(), level, target)
    })
}

/// Decompress a gzip stream; `limit` caps the decoded size.
#[pyfunction]
#[pyo3(signature = (data, limit=None))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    limit: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    // Fast path: a single-member stream states its size, so decode straight into the `bytes`
    // object Python gets, with no second copy. Any surprise falls back to the general path.
    if let Some(size) =
        zarr_codec_gzip::decoded_size_hint(bytes).filter(|&n| n <= limit.unwrap_or(n))
    {
        let filled = new_bytes_with(
            py,
            size,
            |target| match zarr_codec_gzip::decode_into_uninit(bytes, target) {
                Ok(written) => Ok(written == size),
                Err(err) if err.kind() == ErrorKind::OutputSize => Ok(false),
                Err(err) => Err(err),
            },
        )?;
        if let Some(object) = filled {
            return Ok(object);
        }
    }
    let decoded = run(py, || zarr_codec_gzip::decode(bytes, limit))?;
    Ok(PyBytes::new(py, &decoded))
}

/// Decompress into the writable buffer `out`; returns the bytes written.
#[pyfunction]
fn decode_into(py: Python<'_>, data: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>) -> PyResult<usize> {
    let input = BytesInput::new(data)?;
    let mut output = BytesOutput::new(out)?;
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_gzip::decode_into(input.as_slice(), target)
    })
}

/// The largest gzip stream `size` bytes can become at `level`.
#[pyfunction]
fn max_encoded_size(py: Python<'_>, size: usize, level: u32) -> PyResult<usize> {
    let level = self::level(py, level)?;
    run(py, || zarr_codec_gzip::max_encoded_size(size, level))
}

/// Apply `work` to every input on up to `threads` threads; results keep the input order.
fn parallel<F>(inputs: &[BytesInput], threads: usize, work: F) -> CodecResult<Vec<Vec<u8>>>
where
    F: Fn(&[u8]) -> CodecResult<Vec<u8>> + Sync,
{
    let threads = threads.clamp(1, inputs.len().max(1));
    if threads == 1 {
        return inputs.iter().map(|input| work(input.as_slice())).collect();
    }
    let slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
    let chunk = slices.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = slices
            .chunks(chunk)
            .map(|group| scope.spawn(|| group.iter().map(|s| work(s)).collect::<Vec<_>>()))
            .collect();
        let mut results = Vec::with_capacity(slices.len());
        for handle in handles {
            let group = handle
                .join()
                .map_err(|_| CodecError::corrupt("gzip: a worker thread panicked"))?;
            for result in group {
                results.push(result?);
            }
        }
        Ok(results)
    })
}

/// Views of every buffer in the iterable `chunks`.
fn inputs(chunks: &Bound<'_, PyAny>) -> PyResult<Vec<BytesInput>> {
    chunks
        .try_iter()?
        .map(|chunk| BytesInput::new(&chunk?))
        .collect()
}

/// The number of worker threads: as asked (at least 1), or one per available core.
fn thread_count(py: Python<'_>, threads: Option<i64>) -> PyResult<usize> {
    match threads {
        None => Ok(std::thread::available_parallelism().map_or(1, std::num::NonZero::get)),
        Some(n) => usize::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| {
            let message = format!("gzip: threads must be a positive integer, got {n}");
            zarr_codec_python::to_py_err(py, &CodecError::configuration(message))
        }),
    }
}

fn to_list<'py>(py: Python<'py>, chunks: &[Vec<u8>]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, chunks.iter().map(|chunk| PyBytes::new(py, chunk)))
}

/// Compress many buffers in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (chunks, level, threads=None))]
fn encode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    level: u32,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let level = self::level(py, level)?;
    let inputs = inputs(chunks)?;
    let threads = thread_count(py, threads)?;
    let encoded = run(py, || {
        parallel(&inputs, threads, |s| zarr_codec_gzip::encode(s, level))
    })?;
    to_list(py, &encoded)
}

/// Decompress many gzip streams in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (chunks, limit=None, threads=None))]
fn decode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    limit: Option<usize>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let inputs = inputs(chunks)?;
    let threads = thread_count(py, threads)?;
    let decoded = run(py, || {
        parallel(&inputs, threads, |s| zarr_codec_gzip::decode(s, limit))
    })?;
    to_list(py, &decoded)
}

#[pymodule]
fn _gzip(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ENGINE",
        "libdeflate 1.26 (libdeflate-sys, built from source)",
    )?;
    module.add_function(wrap_pyfunction!(encode, module)?)?;
    module.add_function(wrap_pyfunction!(encode_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode, module)?)?;
    module.add_function(wrap_pyfunction!(decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(max_encoded_size, module)?)?;
    module.add_function(wrap_pyfunction!(encode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch, module)?)?;
    Ok(())
}
