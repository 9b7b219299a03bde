//! `zarr_codec_gzip._gzip`: the compiled half of the `zarr-codec-gzip` wheel.
//!
//! A registration of its two codecs on the one deflate core: `gzip(json, zarr_format)` and
//! numcodecs' `zlib(json, zarr_format)`, through the glue's generic bytes-codec binding
//! (one-chunk calls, batches, chain kernels, the GIL released).

use pyo3::prelude::*;

#[pymodule]
fn _gzip(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ENGINE",
        "libdeflate 1.26 (libdeflate-sys, built from source)",
    )?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_gzip::Gzip>(module, c"gzip")?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_gzip::Zlib>(module, c"zlib")
}
