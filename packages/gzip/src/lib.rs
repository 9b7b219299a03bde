//! `zarr_codec_gzip._gzip`: the compiled half of the `zarr-codec-gzip` wheel.
//!
//! Thin by design: argument conversion through `zarr-codec-python`, codec work in
//! `zarr-codec-gzip` with the GIL released, batches spread over threads.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyList};
use zarr_codec_gzip::Level;
use zarr_codec_python::{BytesInput, BytesOutput, new_bytes_with, parallel_map, run, thread_count};
use zarr_codec_shapes::{ErrorKind, Result as CodecResult};

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
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
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
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
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
    let inputs = BytesInput::all(chunks)?;
    let threads = thread_count(py, threads, "gzip")?;
    let mut slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
    let encoded = run(py, || {
        parallel_map(&mut slices, threads, |input| {
            zarr_codec_gzip::encode(input, level)
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    PyList::new(py, encoded.iter().map(|chunk| PyBytes::new(py, chunk)))
}

/// Decompress many gzip streams in parallel with the GIL released, each straight into the
/// `bytes` object returned for it when its trailer states its size.
#[pyfunction]
#[pyo3(signature = (chunks, limit=None, threads=None))]
fn decode_batch<'py>(
    py: Python<'py>,
    chunks: &Bound<'py, PyAny>,
    limit: Option<usize>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = thread_count(py, threads, "gzip")?;
    zarr_codec_python::decode_batch_claimed(
        py,
        chunks,
        threads,
        |input| Ok(size_claim(input, limit)),
        // The claim is ISIZE of the last member: several members or padding prove it wrong.
        |input, target| match zarr_codec_gzip::decode_into_uninit(input, target) {
            Ok(written) => Ok(written == target.len()),
            Err(err) if err.kind() == ErrorKind::OutputSize => Ok(false),
            Err(err) => Err(err),
        },
        |input| zarr_codec_gzip::decode(input, limit),
    )
}

/// The size a single-member stream claims, if it makes a plausible one within `limit`.
fn size_claim(input: &[u8], limit: Option<usize>) -> Option<usize> {
    zarr_codec_gzip::decoded_size_hint(input).filter(|&n| n <= limit.unwrap_or(n))
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
    let threads = thread_count(py, threads, "gzip")?;
    zarr_codec_python::decode_batch_into(py, chunks, outs, threads, "gzip", |input, output| {
        zarr_codec_gzip::decode_into(input, output)
    })
}

/// Decoding as a chain kernel (`zarr_codec_python::kernel`): a whole chain of our codecs runs
/// in Rust, chunk after chunk.
#[pyfunction]
fn decode_kernel(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
    zarr_codec_python::decode_kernel(py, |input: &[u8], output: &mut [u8]| {
        zarr_codec_gzip::decode_into(input, output)
    })
}

/// Compression at `level` as a chain kernel.
#[pyfunction]
fn encode_kernel(py: Python<'_>, level: u32) -> PyResult<Bound<'_, PyCapsule>> {
    let level = self::level(py, level)?;
    zarr_codec_python::encode_kernel(
        py,
        move |input: &[u8], target: zarr_codec_python::Target<'_>| {
            // SAFETY: libdeflate writes only bytes into its output.
            let out = unsafe { target.into_uninit() };
            zarr_codec_gzip::encode_into_uninit(input, level, out)
        },
        // A size beyond any bound is refused when its object is allocated.
        move |len| zarr_codec_gzip::max_encoded_size(len, level).unwrap_or(usize::MAX - 1),
    )
}

/// The canonical v3 configuration (JSON text) of codec metadata `json` (JSON text) in Zarr
/// format `zarr_format`: the Rust configuration type is the one place it is validated.
#[pyfunction]
fn canonical_configuration(py: Python<'_>, json: &str, zarr_format: u8) -> PyResult<String> {
    zarr_codec_python::canonical_configuration::<zarr_codec_gzip::Gzip>(py, json, zarr_format)
}

/// Compress `data` into a zlib stream (numcodecs' `zlib`).
#[pyfunction]
fn zlib_encode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    level: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let level = self::level(py, level)?;
    let input = BytesInput::new(data)?;
    let encoded = run(py, || zarr_codec_gzip::zlib_encode(input.as_slice(), level))?;
    Ok(PyBytes::new(py, &encoded))
}

/// Compress `data` as a zlib stream into the writable buffer `out`; returns the bytes written.
#[pyfunction]
fn zlib_encode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    level: u32,
) -> PyResult<usize> {
    let level = self::level(py, level)?;
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_gzip::zlib_encode_into(input.as_slice(), level, target)
    })
}

/// Decompress a zlib stream; `limit` caps the decoded size.
#[pyfunction]
#[pyo3(signature = (data, limit=None))]
fn zlib_decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    limit: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = BytesInput::new(data)?;
    let decoded = run(py, || zarr_codec_gzip::zlib_decode(input.as_slice(), limit))?;
    Ok(PyBytes::new(py, &decoded))
}

/// Decompress a zlib stream into the writable buffer `out`; returns the bytes written.
#[pyfunction]
fn zlib_decode_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    let mut output = BytesOutput::new(out)?;
    let input = BytesInput::new(data)?.apart_from(&output);
    let target = output.as_mut_slice();
    run(py, || {
        zarr_codec_gzip::zlib_decode_into(input.as_slice(), target)
    })
}

/// The largest zlib stream `size` bytes can become at `level`.
#[pyfunction]
fn zlib_max_encoded_size(py: Python<'_>, size: usize, level: u32) -> PyResult<usize> {
    let level = self::level(py, level)?;
    run(py, || zarr_codec_gzip::zlib_max_encoded_size(size, level))
}

/// zlib decoding as a chain kernel.
#[pyfunction]
fn zlib_decode_kernel(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
    zarr_codec_python::decode_kernel(py, |input: &[u8], output: &mut [u8]| {
        zarr_codec_gzip::zlib_decode_into(input, output)
    })
}

/// zlib compression at `level` as a chain kernel.
#[pyfunction]
fn zlib_encode_kernel(py: Python<'_>, level: u32) -> PyResult<Bound<'_, PyCapsule>> {
    let level = self::level(py, level)?;
    zarr_codec_python::encode_kernel(
        py,
        move |input: &[u8], target: zarr_codec_python::Target<'_>| {
            // SAFETY: libdeflate writes only bytes into its output.
            let out = unsafe { target.into_uninit() };
            zarr_codec_gzip::zlib_encode_into_uninit(input, level, out)
        },
        // A size beyond any bound is refused when its object is allocated.
        move |len| zarr_codec_gzip::zlib_max_encoded_size(len, level).unwrap_or(usize::MAX - 1),
    )
}

/// [`canonical_configuration`] for numcodecs' `zlib`.
#[pyfunction]
fn zlib_canonical_configuration(py: Python<'_>, json: &str, zarr_format: u8) -> PyResult<String> {
    zarr_codec_python::canonical_configuration::<zarr_codec_gzip::Zlib>(py, json, zarr_format)
}

#[pymodule]
fn _gzip(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ENGINE",
        "libdeflate 1.26 (libdeflate-sys, built from source)",
    )?;
    module.add_function(wrap_pyfunction!(canonical_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encode, module)?)?;
    module.add_function(wrap_pyfunction!(encode_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode, module)?)?;
    module.add_function(wrap_pyfunction!(decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(max_encoded_size, module)?)?;
    module.add_function(wrap_pyfunction!(encode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch, module)?)?;
    module.add_function(wrap_pyfunction!(decode_batch_into, module)?)?;
    module.add_function(wrap_pyfunction!(decode_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(encode_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_canonical_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_encode, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_encode_into, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_decode, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_decode_into, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_max_encoded_size, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_decode_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(zlib_encode_kernel, module)?)?;
    Ok(())
}
