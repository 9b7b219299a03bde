//! `zarr_codec_crc32c._crc32c`: the compiled half of the `zarr-codec-crc32c` wheel.
//!
//! Thin by design: argument conversion through `zarr-codec-python`, checksums in
//! `zarr-codec-crc32c` with the GIL released, batches spread over threads.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyList};
use zarr_codec_crc32c::{CHECKSUM_LEN, Location};
use zarr_codec_python::{BytesInput, BytesOutput, new_bytes_with, parallel_map, run, thread_count};
use zarr_codec_shapes::{CodecError, Result as CodecResult};

fn location(py: Python<'_>, location: &str) -> PyResult<Location> {
    match location {
        "end" => Ok(Location::End),
        "start" => Ok(Location::Start),
        other => Err(zarr_codec_python::to_py_err(
            py,
            &CodecError::configuration(format!(
                "crc32c: location must be \"end\" or \"start\", got {other:?}"
            )),
        )),
    }
}

/// The CRC-32C of `data` (any buffer), continuing from `value`.
#[pyfunction]
#[pyo3(signature = (data, value=0))]
fn checksum(py: Python<'_>, data: &Bound<'_, PyAny>, value: u32) -> PyResult<u32> {
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    // Small buffers cost less than releasing the GIL does.
    if bytes.len() < 1 << 16 {
        return Ok(zarr_codec_crc32c::checksum_append(value, bytes));
    }
    run(py, || Ok(zarr_codec_crc32c::checksum_append(value, bytes)))
}

/// `data` with its checksum at `location`.
#[pyfunction]
#[pyo3(signature = (data, location="end"))]
fn encode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    location: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let location = self::location(py, location)?;
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let len = bytes.len() + CHECKSUM_LEN;
    new_bytes_with(py, len, |target| {
        zarr_codec_crc32c::encode_into_uninit(bytes, location, target).map(|n| n == len)
    })?
    .ok_or_else(|| zarr_codec_python::to_py_err(py, &CodecError::OutputLimit { limit: len }))
}

/// [`encode`] into the writable buffer `out`; returns the bytes written.
#[pyfunction]
#[pyo3(signature = (data, out, location="end"))]
fn encode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    location: &str,
) -> PyResult<usize> {
    let location = self::location(py, location)?;
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_crc32c::encode_into(input.as_slice(), location, target)
    })
}

/// The data of `data` after checking its checksum.
#[pyfunction]
#[pyo3(signature = (data, location="end"))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    location: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let location = self::location(py, location)?;
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let len = bytes.len().saturating_sub(CHECKSUM_LEN);
    new_bytes_with(py, len, |target| {
        zarr_codec_crc32c::decode_into_uninit(bytes, location, target).map(|n| n == len)
    })?
    .ok_or_else(|| {
        zarr_codec_python::to_py_err(
            py,
            &CodecError::corrupt("crc32c: input too short to hold a checksum"),
        )
    })
}

/// The checked data of `data` copied into the writable buffer `out`; returns its length.
#[pyfunction]
#[pyo3(signature = (data, out, location="end"))]
fn decode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    location: &str,
) -> PyResult<usize> {
    let location = self::location(py, location)?;
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_crc32c::decode_into(input.as_slice(), location, target)
    })
}

/// Checksum many buffers in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (chunks, location="end", threads=None))]
fn encode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    location: &str,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let location = self::location(py, location)?;
    let inputs = BytesInput::all(chunks)?;
    let threads = thread_count(py, threads, "crc32c")?;
    let mut slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
    let encoded = run(py, || {
        Ok(parallel_map(&mut slices, threads, |input| {
            zarr_codec_crc32c::encode(input, location)
        }))
    })?;
    PyList::new(py, encoded.iter().map(|chunk| PyBytes::new(py, chunk)))
}

/// Check and strip many buffers in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (chunks, location="end", threads=None))]
fn decode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    location: &str,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let location = self::location(py, location)?;
    let inputs = BytesInput::all(chunks)?;
    let threads = thread_count(py, threads, "crc32c")?;
    let mut slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
    let decoded = run(py, || {
        parallel_map(&mut slices, threads, |input| {
            zarr_codec_crc32c::decode(input, location)
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    PyList::new(py, decoded.iter().map(|chunk| PyBytes::new(py, chunk)))
}

/// Check each of `chunks` and copy its data into the matching writable buffer of `outs`, in
/// parallel with the GIL released; returns the bytes written into each.
#[pyfunction]
#[pyo3(signature = (chunks, outs, location="end", threads=None))]
fn decode_batch_into(
    py: Python<'_>,
    chunks: &Bound<'_, PyAny>,
    outs: &Bound<'_, PyAny>,
    location: &str,
    threads: Option<i64>,
) -> PyResult<Vec<usize>> {
    let location = self::location(py, location)?;
    let threads = thread_count(py, threads, "crc32c")?;
    zarr_codec_python::decode_batch_into(py, chunks, outs, threads, "crc32c", |input, output| {
        zarr_codec_crc32c::decode_into(input, location, output)
    })
}

/// Checking and stripping as a chain kernel.
#[pyfunction]
#[pyo3(signature = (location="end"))]
fn decode_kernel<'py>(py: Python<'py>, location: &str) -> PyResult<Bound<'py, PyCapsule>> {
    let location = self::location(py, location)?;
    zarr_codec_python::bounded_decode_kernel(
        py,
        move |input: &[u8], output: &mut [u8]| {
            zarr_codec_crc32c::decode_into(input, location, output)
        },
        // The payload is the stream less its checksum: a step outside another bytes codec.
        |len| len.saturating_sub(CHECKSUM_LEN),
    )
}

/// Appending the checksum as a chain kernel.
#[pyfunction]
#[pyo3(signature = (location="end"))]
fn encode_kernel<'py>(py: Python<'py>, location: &str) -> PyResult<Bound<'py, PyCapsule>> {
    let location = self::location(py, location)?;
    zarr_codec_python::encode_kernel(
        py,
        move |input: &[u8], target: zarr_codec_python::Target<'_>| {
            // SAFETY: the checksum codec writes only bytes into its output.
            let out = unsafe { target.into_uninit() };
            zarr_codec_crc32c::encode_into_uninit(input, location, out)
        },
        |len| len.saturating_add(CHECKSUM_LEN),
    )
}

/// The canonical v3 configuration (JSON text) of codec metadata `json` (JSON text) in Zarr
/// format `zarr_format`: the Rust configuration type is the one place it is validated.
#[pyfunction]
fn canonical_configuration(py: Python<'_>, json: &str, zarr_format: u8) -> PyResult<String> {
    zarr_codec_python::canonical_configuration::<zarr_codec_crc32c::Crc32c>(py, json, zarr_format)
}

#[pymodule]
fn _crc32c(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ENGINE",
        format!(
            "crc-fast 1.9.0 ({}, chosen at run time)",
            zarr_codec_crc32c::engine()
        ),
    )?;
    module.add_function(wrap_pyfunction!(checksum, module)?)?;
    module.add_function(wrap_pyfunction!(canonical_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encode, module)?)?;
    module.add_function(wrap_pyfunction!(encode_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode, module)?)?;
    module.add_function(wrap_pyfunction!(decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(encode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(encode_kernel, module)?)?;
    Ok(())
}
