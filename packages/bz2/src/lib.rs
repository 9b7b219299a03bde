//! `zarr_codec_bz2._bz2`: the compiled half of the `zarr-codec-bz2` wheel.
//!
//! A registration: `bz2(json, zarr_format)` through the glue's generic bytes-codec binding
//! (one-chunk calls, batches, chain kernels, the GIL released).

use pyo3::prelude::*;

#[pymodule]
fn _bz2(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("ENGINE", "libbzip2 1.0.8")?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_bz2::Bz2>(module, c"bz2")
}
