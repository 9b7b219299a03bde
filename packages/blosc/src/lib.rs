//! `zarr_codec_blosc._blosc`: the compiled half of the `zarr-codec-blosc` wheel.
//!
//! `blosc(json, zarr_format, threads)` builds the codec from its JSON metadata through the
//! glue's generic bytes-codec binding (one-chunk calls, batches, chain kernels, the GIL
//! released), with c-blosc's own threads inside a chunk, which no metadata states;
//! `frame_info` reads a frame's validated header.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use zarr_codec_blosc::{Blosc, Compressor};
use zarr_codec_python::{BytesInput, PyBytesCodec, parse_codec_json, thread_count, to_py_err};

/// The compiled codec of blosc metadata `json` (JSON text, Zarr format 2 or 3), with
/// `threads` c-blosc threads working inside each chunk.
#[pyfunction]
#[pyo3(signature = (json, zarr_format, threads=1))]
fn blosc(py: Python<'_>, json: &str, zarr_format: u8, threads: i64) -> PyResult<PyBytesCodec> {
    let threads = thread_count(py, Some(threads), "blosc")?;
    let codec: Blosc = parse_codec_json(py, json, zarr_format)?;
    let codec = codec.with_threads(i32::try_from(threads).unwrap_or(i32::MAX));
    PyBytesCodec::new(Arc::new(codec)).map_err(|err| to_py_err(py, &err))
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
    module.add_function(wrap_pyfunction!(frame_info, module)?)?;
    module.add_function(wrap_pyfunction!(blosc, module)?)?;
    module.add_class::<PyBytesCodec>()
}
