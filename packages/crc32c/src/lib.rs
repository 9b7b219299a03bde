//! `zarr_codec_crc32c._crc32c`: the compiled half of the `zarr-codec-crc32c` wheel.
//!
//! A registration: `crc32c(json, zarr_format)` through the glue's generic bytes-codec binding
//! (one-chunk calls, batches, chain kernels, the GIL released), and the bare `checksum`.

use pyo3::prelude::*;
use zarr_codec_python::{BytesInput, run};

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
    zarr_codec_python::add_bytes_codec::<zarr_codec_crc32c::Crc32c>(module, c"crc32c")
}
