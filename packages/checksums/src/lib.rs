//! `zarr_codec_checksums._checksums`: the compiled half of the `zarr-codec-checksums` wheel.
//!
//! Four registrations through the glue's generic bytes-codec binding (one-chunk calls,
//! batches, chain kernels, the GIL released), and the bare checksum functions.

use pyo3::prelude::*;
use zarr_codec_checksums::{Adler32, Crc32, Fletcher32, JenkinsLookup3};
use zarr_codec_python::{BytesInput, run};

/// Small buffers cost less than releasing the GIL does.
const GIL_FREE_FROM: usize = 1 << 16;

fn bare(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    sum: impl Fn(&[u8]) -> u32 + Send + Sync,
) -> PyResult<u32> {
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    if bytes.len() < GIL_FREE_FROM {
        return Ok(sum(bytes));
    }
    run(py, || Ok(sum(bytes)))
}

/// zlib's CRC-32 of `data` (any buffer).
#[pyfunction]
fn crc32(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u32> {
    bare(py, data, zarr_codec_checksums::crc32)
}

/// zlib's Adler-32 of `data` (any buffer).
#[pyfunction]
fn adler32(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u32> {
    bare(py, data, zarr_codec_checksums::adler32)
}

/// HDF5's Fletcher-32 of `data` (any buffer).
#[pyfunction]
fn fletcher32(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u32> {
    bare(py, data, zarr_codec_checksums::fletcher32)
}

/// lookup3's `hashlittle` of `data` (any buffer) from the seed `initval`.
#[pyfunction]
#[pyo3(signature = (data, initval=0))]
fn jenkins_lookup3(py: Python<'_>, data: &Bound<'_, PyAny>, initval: u32) -> PyResult<u32> {
    bare(py, data, |bytes| {
        zarr_codec_checksums::jenkins_lookup3(bytes, initval)
    })
}

#[pymodule]
fn _checksums(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(crc32, module)?)?;
    module.add_function(wrap_pyfunction!(adler32, module)?)?;
    module.add_function(wrap_pyfunction!(fletcher32, module)?)?;
    module.add_function(wrap_pyfunction!(jenkins_lookup3, module)?)?;
    zarr_codec_python::add_bytes_codec::<Crc32>(module, c"crc32_codec")?;
    zarr_codec_python::add_bytes_codec::<Adler32>(module, c"adler32_codec")?;
    zarr_codec_python::add_bytes_codec::<Fletcher32>(module, c"fletcher32_codec")?;
    zarr_codec_python::add_bytes_codec::<JenkinsLookup3>(module, c"jenkins_lookup3_codec")
}
