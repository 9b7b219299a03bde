//! `zarr_codec_lzma._lzma`: the compiled half of the `zarr-codec-lzma` wheel.
//!
//! A registration: `lzma(json, zarr_format)` through the glue's generic bytes-codec binding
//! (one-chunk calls, batches, chain kernels, the GIL released).

use pyo3::prelude::*;

#[pymodule]
fn _lzma(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("ENGINE", "liblzma (xz 5.8)")?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_lzma::Lzma>(module, c"lzma")
}
