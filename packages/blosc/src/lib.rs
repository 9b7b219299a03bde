//! `zarr_codec_blosc._blosc`: the compiled half of the `zarr-codec-blosc` wheel.
//!
//! Thin by design: argument conversion through `zarr-codec-python`, codec work in
//! `zarr-codec-blosc` with the GIL released, batches spread over threads.

use std::mem::MaybeUninit;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList};
use zarr_codec_blosc::{Blosc, Compressor, Params, Shuffle};
use zarr_codec_python::{
    BytesInput, BytesOutput, UninitBytes, parallel_map, run, thread_count, to_py_err,
};
use zarr_codec_shapes::{CodecError, Result as CodecResult};

fn configuration_error(py: Python<'_>, message: String) -> PyErr {
    to_py_err(py, &CodecError::configuration(message))
}

/// Validated compression parameters from the Python arguments.
#[allow(clippy::too_many_arguments)]
fn params(
    py: Python<'_>,
    cname: &str,
    clevel: u8,
    shuffle: &str,
    typesize: usize,
    blocksize: usize,
    threads: i64,
) -> PyResult<Params> {
    let cname: Compressor = serde_json::from_value(serde_json::Value::from(cname))
        .map_err(|_| configuration_error(py, format!("blosc: unknown cname {cname:?}")))?;
    let shuffle: Shuffle = serde_json::from_value(serde_json::Value::from(shuffle))
        .map_err(|_| configuration_error(py, format!("blosc: unknown shuffle {shuffle:?}")))?;
    let codec = Blosc::new(cname, clevel, Some(shuffle), Some(typesize), blocksize)
        .map_err(|err| to_py_err(py, &err))?;
    Ok(codec.params(typesize, internal_threads(py, threads)?))
}

/// Compress `data` (any buffer) into a c-blosc 1.x frame.
#[pyfunction]
#[pyo3(signature = (data, cname, clevel, shuffle, typesize, blocksize=0, threads=1))]
#[allow(clippy::too_many_arguments)]
fn encode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    cname: &str,
    clevel: u8,
    shuffle: &str,
    typesize: usize,
    blocksize: usize,
    threads: i64,
) -> PyResult<Bound<'py, PyBytes>> {
    let params = params(py, cname, clevel, shuffle, typesize, blocksize, threads)?;
    let input = BytesInput::new(data)?;
    let source = input.as_slice();
    let mut output = UninitBytes::new(py, zarr_codec_blosc::max_encoded_size(source.len()))?;
    let target = output.storage();
    let written = run(py, || {
        zarr_codec_blosc::encode_into_uninit(source, &params, target)
    })?;
    // SAFETY: c-blosc wrote the `written`-byte frame at the start of the storage.
    unsafe { output.assume_init_prefix(written) }
}

/// c-blosc's int thread count from a Python argument, through the shared positive check.
fn internal_threads(py: Python<'_>, threads: i64) -> PyResult<i32> {
    let threads = thread_count(py, Some(threads), "blosc")?;
    Ok(i32::try_from(threads).unwrap_or(i32::MAX))
}

/// Decode a frame; `limit` caps the decoded size.
#[pyfunction]
#[pyo3(signature = (data, limit=None, threads=1))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    limit: Option<usize>,
    threads: i64,
) -> PyResult<Bound<'py, PyBytes>> {
    let threads = internal_threads(py, threads)?;
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let info = zarr_codec_blosc::frame_info(bytes).map_err(|err| to_py_err(py, &err))?;
    if let Some(limit) = limit.filter(|&l| info.nbytes > l) {
        return Err(to_py_err(py, &CodecError::OutputLimit { limit }));
    }
    // The validated header states the size: decode straight into the returned object.
    let mut output = UninitBytes::new(py, info.nbytes)?;
    let target = output.storage();
    run(py, || {
        zarr_codec_blosc::decode_into_uninit(bytes, target, threads)
    })?;
    // SAFETY: decode_into_uninit succeeded, so c-blosc wrote exactly `nbytes` bytes.
    Ok(unsafe { output.assume_init() })
}

/// Decode into the writable buffer `out`; returns the bytes written.
#[pyfunction]
#[pyo3(signature = (data, out, threads=1))]
fn decode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    threads: i64,
) -> PyResult<usize> {
    let threads = internal_threads(py, threads)?;
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_blosc::decode_into_threads(input.as_slice(), target, threads)
    })
}

/// The frame header's fields, after validation.
#[pyfunction]
fn frame_info<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let input = BytesInput::new(data)?;
    let info = zarr_codec_blosc::frame_info(input.as_slice()).map_err(|err| to_py_err(py, &err))?;
    let dict = PyDict::new(py);
    dict.set_item("nbytes", info.nbytes)?;
    dict.set_item("cbytes", info.cbytes)?;
    dict.set_item("typesize", info.typesize)?;
    dict.set_item("blocksize", info.blocksize)?;
    dict.set_item("compressor", info.compressor)?;
    dict.set_item("memcpyed", info.memcpyed)?;
    dict.set_item("shuffle", info.shuffle)?;
    dict.set_item("bitshuffle", info.bitshuffle)?;
    Ok(dict)
}

/// Compress many buffers in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (chunks, cname, clevel, shuffle, typesize, blocksize=0, threads=None))]
#[allow(clippy::too_many_arguments)]
fn encode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    cname: &str,
    clevel: u8,
    shuffle: &str,
    typesize: usize,
    blocksize: usize,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let params = params(py, cname, clevel, shuffle, typesize, blocksize, 1)?;
    let inputs = BytesInput::all(chunks)?;
    let threads = thread_count(py, threads, "blosc")?;
    // Each chunk compresses straight into a `bytes` of its worst-case size, as in `encode`.
    let mut outputs = inputs
        .iter()
        .map(|input| UninitBytes::new(py, zarr_codec_blosc::max_encoded_size(input.len())))
        .collect::<PyResult<Vec<_>>>()?;
    let mut jobs: Vec<(&[u8], &mut [MaybeUninit<u8>])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(UninitBytes::storage))
        .collect();
    let written = run(py, || {
        parallel_map(&mut jobs, threads, |(input, target)| {
            zarr_codec_blosc::encode_into_uninit(input, &params, target)
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    drop(jobs);
    // SAFETY: each compression succeeded and wrote its frame's `written` bytes at the start.
    let frames = outputs
        .into_iter()
        .zip(written)
        .map(|(output, written)| unsafe { output.assume_init_prefix(written) })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, frames)
}

/// Decode many frames in parallel with the GIL released, each straight into its result.
#[pyfunction]
#[pyo3(signature = (chunks, limit=None, threads=None))]
fn decode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    limit: Option<usize>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let inputs = BytesInput::all(chunks)?;
    let threads = thread_count(py, threads, "blosc")?;
    // Every header is validated (and its size checked against `limit`) before allocating.
    let mut outputs = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let info =
            zarr_codec_blosc::frame_info(input.as_slice()).map_err(|err| to_py_err(py, &err))?;
        if let Some(limit) = limit.filter(|&l| info.nbytes > l) {
            return Err(to_py_err(py, &CodecError::OutputLimit { limit }));
        }
        outputs.push(UninitBytes::new(py, info.nbytes)?);
    }
    let mut jobs: Vec<(&[u8], &mut [MaybeUninit<u8>])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(UninitBytes::storage))
        .collect();
    run(py, || {
        parallel_map(&mut jobs, threads, |(input, target)| {
            zarr_codec_blosc::decode_into_uninit(input, target, 1)
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    drop(jobs);
    // SAFETY: every decode succeeded, and each wrote exactly its frame's `nbytes`, the length
    // its output was allocated with.
    PyList::new(
        py,
        outputs
            .into_iter()
            .map(|output| unsafe { output.assume_init() }),
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
    let threads = thread_count(py, threads, "blosc")?;
    zarr_codec_python::decode_batch_into(py, chunks, outs, threads, "blosc", |input, output| {
        zarr_codec_blosc::decode_into_threads(input, output, 1)
    })
}

/// Decoding as a chain kernel (`zarr_codec_python::kernel`): a whole chain of our codecs runs
/// in Rust, chunk after chunk.
#[pyfunction]
fn decode_kernel(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
    zarr_codec_python::decode_kernel(py, |input: &[u8], output: &mut [u8]| {
        zarr_codec_blosc::decode_into_threads(input, output, 1)
    })
}

/// Compression with these parameters as a chain kernel.
#[pyfunction]
#[pyo3(signature = (cname, clevel, shuffle, typesize, blocksize=0))]
fn encode_kernel<'py>(
    py: Python<'py>,
    cname: &str,
    clevel: u8,
    shuffle: &str,
    typesize: usize,
    blocksize: usize,
) -> PyResult<Bound<'py, PyCapsule>> {
    let params = params(py, cname, clevel, shuffle, typesize, blocksize, 1)?;
    zarr_codec_python::encode_kernel(
        py,
        move |input: &[u8], target: zarr_codec_python::Target<'_>| {
            // SAFETY: c-blosc writes only bytes into its output.
            let out = unsafe { target.into_uninit() };
            zarr_codec_blosc::encode_into_uninit(input, &params, out)
        },
        zarr_codec_blosc::max_encoded_size,
    )
}

/// The canonical v3 configuration (JSON text) of codec metadata `json` (JSON text) in Zarr
/// format `zarr_format`: the Rust configuration type is the one place it is validated.
#[pyfunction]
fn canonical_configuration(py: Python<'_>, json: &str, zarr_format: u8) -> PyResult<String> {
    zarr_codec_python::canonical_configuration::<zarr_codec_blosc::Blosc>(py, json, zarr_format)
}

#[pymodule]
fn _blosc(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let compressors: Vec<&str> = [
        Compressor::BloscLz,
        Compressor::Lz4,
        Compressor::Lz4Hc,
        Compressor::Snappy,
        Compressor::Zlib,
        Compressor::Zstd,
    ]
    .into_iter()
    .filter(|c| c.is_available())
    .map(Compressor::name)
    .collect();
    module.add("COMPRESSORS", compressors)?;
    module.add("CBLOSC_VERSION", zarr_codec_blosc::version())?;
    module.add_function(wrap_pyfunction!(canonical_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encode, module)?)?;
    module.add_function(wrap_pyfunction!(decode, module)?)?;
    module.add_function(wrap_pyfunction!(decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(frame_info, module)?)?;
    module.add_function(wrap_pyfunction!(encode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(encode_kernel, module)?)?;
    Ok(())
}
