//! `zarr_codec_lz4._lz4`: the compiled half of the `zarr-codec-lz4` wheel.
//!
//! A registration: `lz4(json, zarr_format)` through the glue's generic bytes-codec binding
//! (one-chunk calls, batches, chain kernels, the GIL released).

use pyo3::prelude::*;

#[pymodule]
fn _lz4(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("ENGINE", zarr_codec_lz4::engine())?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_lz4::Lz4>(module, c"lz4")
}
