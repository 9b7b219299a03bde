//! `zarr_codec_zstd._zstd`: the compiled half of the `zarr-codec-zstd` wheel.
//!
//! Thin by design: argument conversion through `zarr-codec-python`, codec work in
//! `zarr-codec-zstd` with the GIL released, batches spread over threads.

use std::mem::MaybeUninit;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyList};
use zarr_codec_python::{
    BytesInput, BytesOutput, IntoPyResult, UninitBytes, new_bytes_with, parallel_map, run,
    thread_count,
};
use zarr_codec_shapes::Result as CodecResult;
use zarr_codec_zstd::Level;

fn level(py: Python<'_>, level: i64) -> PyResult<Level> {
    Level::new(level).map_err(|err| zarr_codec_python::to_py_err(py, &err))
}

/// Compress `data` (any buffer) into one zstd frame.
#[pyfunction]
fn encode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    level: i64,
    checksum: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let level = self::level(py, level)?;
    let input = BytesInput::new(data)?;
    let source = input.as_slice();
    // The frame is written once, straight into the object Python gets (shrunk in place).
    let mut output = UninitBytes::new(py, zarr_codec_zstd::max_encoded_size(source.len()))?;
    let target = output.storage();
    let written = run(py, || {
        zarr_codec_zstd::encode_into_uninit(source, level, checksum, target)
    })?;
    // SAFETY: libzstd wrote the `written`-byte frame at the start of the storage.
    unsafe { output.assume_init_prefix(written) }
}

/// Compress `data` into the writable buffer `out`; returns the bytes written.
#[pyfunction]
fn encode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    level: i64,
    checksum: bool,
) -> PyResult<usize> {
    let level = self::level(py, level)?;
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_zstd::encode_into(input.as_slice(), level, checksum, target)
    })
}

/// Decompress every frame of `data`; `limit` caps the decoded size.
#[pyfunction]
#[pyo3(signature = (data, limit=None))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    limit: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    // Frames that state their content size (numcodecs' and zarr's do) decode straight into
    // the `bytes` object Python gets, with no second copy.
    if let Some(size) = exact_size(bytes, limit).into_py_result(py)? {
        let filled = new_bytes_with(py, size, |target| {
            zarr_codec_zstd::decode_into_uninit(bytes, target).map(|written| written == size)
        })?;
        if let Some(object) = filled {
            return Ok(object);
        }
    }
    let decoded = run(py, || zarr_codec_zstd::decode(bytes, limit))?;
    Ok(PyBytes::new(py, &decoded))
}

/// The size every frame of `input` states, if each states one and it is within `limit`;
/// an error for input that is not zstd frames or claims more than `limit`.
fn exact_size(input: &[u8], limit: Option<usize>) -> CodecResult<Option<usize>> {
    match zarr_codec_zstd::decoded_size(input)? {
        Some(size) if limit.is_some_and(|limit| size > limit) => {
            Err(zarr_codec_shapes::CodecError::OutputLimit {
                limit: limit.unwrap_or(size),
            })
        }
        size => Ok(size),
    }
}

/// Decompress into the writable buffer `out`; returns the bytes written.
#[pyfunction]
fn decode_into(py: Python<'_>, data: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>) -> PyResult<usize> {
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_zstd::decode_into(input.as_slice(), target)
    })
}

/// The largest frame `size` bytes can become.
#[pyfunction]
fn max_encoded_size(size: usize) -> usize {
    zarr_codec_zstd::max_encoded_size(size)
}

/// The exact decoded size of `data` when every frame states it, else `None`.
#[pyfunction]
fn decoded_size(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    let input = BytesInput::new(data)?;
    run(py, || zarr_codec_zstd::decoded_size(input.as_slice()))
}

/// Compress many buffers in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (chunks, level, checksum, threads=None))]
fn encode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    level: i64,
    checksum: bool,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let level = self::level(py, level)?;
    let inputs = BytesInput::all(chunks)?;
    let threads = thread_count(py, threads, "zstd")?;
    let mut outputs = inputs
        .iter()
        .map(|input| {
            UninitBytes::new(
                py,
                zarr_codec_zstd::max_encoded_size(input.as_slice().len()),
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut jobs: Vec<(&[u8], &mut [MaybeUninit<u8>])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(UninitBytes::storage))
        .collect();
    let written = run(py, || {
        parallel_map(&mut jobs, threads, |(input, target)| {
            zarr_codec_zstd::encode_into_uninit(input, level, checksum, target)
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    drop(jobs);
    // SAFETY: each compression succeeded and wrote its `written`-byte frame at the start.
    let frames = outputs
        .into_iter()
        .zip(written)
        .map(|(output, written)| unsafe { output.assume_init_prefix(written) })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, frames)
}

/// Decompress many chunks in parallel with the GIL released, each straight into the `bytes`
/// object returned for it when its frames state their size.
#[pyfunction]
#[pyo3(signature = (chunks, limit=None, threads=None))]
fn decode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    limit: Option<usize>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = thread_count(py, threads, "zstd")?;
    zarr_codec_python::decode_batch_claimed(
        py,
        chunks,
        threads,
        |input| exact_size(input, limit),
        |input, target| {
            zarr_codec_zstd::decode_into_uninit(input, target).map(|n| n == target.len())
        },
        |input| zarr_codec_zstd::decode(input, limit),
    )
}

/// Decompress each of `chunks` into the matching writable buffer of `outs`, in parallel with
/// the GIL released (one call for the batch); returns the bytes written into each.
#[pyfunction]
#[pyo3(signature = (chunks, outs, threads=None))]
fn decode_batch_into(
    py: Python<'_>,
    chunks: &Bound<'_, PyAny>,
    outs: &Bound<'_, PyAny>,
    threads: Option<i64>,
) -> PyResult<Vec<usize>> {
    let threads = thread_count(py, threads, "zstd")?;
    zarr_codec_python::decode_batch_into(py, chunks, outs, threads, "zstd", |input, output| {
        zarr_codec_zstd::decode_into(input, output)
    })
}

/// Decoding as a chain kernel (`zarr_codec_python::kernel`): a whole chain of our codecs runs
/// in Rust, chunk after chunk.
#[pyfunction]
fn decode_kernel(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
    zarr_codec_python::decode_kernel(py, |input: &[u8], output: &mut [u8]| {
        zarr_codec_zstd::decode_into(input, output)
    })
}

/// Compression at `level` as a chain kernel.
#[pyfunction]
fn encode_kernel(py: Python<'_>, level: i64, checksum: bool) -> PyResult<Bound<'_, PyCapsule>> {
    let level = self::level(py, level)?;
    zarr_codec_python::encode_kernel(
        py,
        move |input: &[u8], target: zarr_codec_python::Target<'_>| {
            // SAFETY: libzstd writes only bytes into its output.
            let out = unsafe { target.into_uninit() };
            zarr_codec_zstd::encode_into_uninit(input, level, checksum, out)
        },
        zarr_codec_zstd::max_encoded_size,
    )
}

/// The canonical v3 configuration (JSON text) of codec metadata `json` (JSON text) in Zarr
/// format `zarr_format`: the Rust configuration type is the one place it is validated.
#[pyfunction]
fn canonical_configuration(py: Python<'_>, json: &str, zarr_format: u8) -> PyResult<String> {
    zarr_codec_python::canonical_configuration::<zarr_codec_zstd::Zstd>(py, json, zarr_format)
}

#[pymodule]
fn _zstd(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ENGINE",
        format!(
            "libzstd {} (zstd-sys, built from source)",
            zarr_codec_zstd::engine_version()
        ),
    )?;
    module.add_function(wrap_pyfunction!(canonical_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encode, module)?)?;
    module.add_function(wrap_pyfunction!(encode_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode, module)?)?;
    module.add_function(wrap_pyfunction!(decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(decoded_size, module)?)?;
    module.add_function(wrap_pyfunction!(max_encoded_size, module)?)?;
    module.add_function(wrap_pyfunction!(encode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(encode_kernel, module)?)?;
    Ok(())
}
