//! `zarr_codec_blosc._blosc`: the compiled half of the `zarr-codec-blosc` wheel.
//!
//! Thin by design: argument conversion through `zarr-codec-python`, codec work in
//! `zarr-codec-blosc` with the GIL released, batches spread over threads.

use std::mem::MaybeUninit;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use zarr_codec::{CodecError, Result as CodecResult};
use zarr_codec_blosc::{Blosc, Compressor, Params, Shuffle};
use zarr_codec_python::{
    BytesInput, BytesOutput, UninitBytes, parallel_map, run, thread_count, to_py_err,
};

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
    // The shared check (positive), then c-blosc's int; more threads than that is no use.
    let threads = thread_count(py, Some(threads), "blosc")?;
    Ok(codec.params(typesize, i32::try_from(threads).unwrap_or(i32::MAX)))
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
    // The frame is only known to fit in `len + 16` bytes, and a `bytes` cannot shrink, so
    // compress into this thread's reusable scratch buffer (no fresh pages per call) and copy
    // out only the frame.
    SCRATCH.with(|cell| {
        let mut scratch = cell.borrow_mut();
        let bound = zarr_codec_blosc::max_encoded_size(source.len());
        if scratch.len() < bound {
            scratch.resize(bound, 0);
        }
        let target = &mut scratch[..bound];
        let written = run(py, || {
            zarr_codec_blosc::encode_into(source, &params, target)
        })?;
        let frame = PyBytes::new(py, &scratch[..written]);
        if scratch.len() > MAX_SCRATCH {
            *scratch = Vec::new(); // do not keep an unusually large buffer alive
        }
        Ok(frame)
    })
}

/// Scratch buffers larger than this are released after use rather than kept per thread.
const MAX_SCRATCH: usize = 64 << 20;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Decode a frame; `limit` caps the decoded size.
#[pyfunction]
#[pyo3(signature = (data, limit=None, threads=1))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    limit: Option<usize>,
    threads: i32,
) -> PyResult<Bound<'py, PyBytes>> {
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
fn decode_into(py: Python<'_>, data: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>) -> PyResult<usize> {
    let input = BytesInput::new(data)?;
    let mut output = BytesOutput::new(out)?;
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_blosc::decode_into(input.as_slice(), target)
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
    let mut slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
    let encoded = run(py, || {
        parallel_map(&mut slices, threads, |input| {
            zarr_codec_blosc::encode(input, &params)
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    PyList::new(py, encoded.iter().map(|chunk| PyBytes::new(py, chunk)))
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
    module.add_function(wrap_pyfunction!(encode, module)?)?;
    module.add_function(wrap_pyfunction!(decode, module)?)?;
    module.add_function(wrap_pyfunction!(decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(frame_info, module)?)?;
    module.add_function(wrap_pyfunction!(encode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch, module)?)?;
    Ok(())
}
