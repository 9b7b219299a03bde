//! `zarr_codec_zstd._zstd`: the compiled half of the `zarr-codec-zstd` wheel.
//!
//! A registration: `zstd(json, zarr_format)` builds the codec from its JSON metadata through
//! the glue's generic bytes-codec binding (one-chunk calls, batches, chain kernels, the GIL
//! released); the work is `zarr-codec-zstd`'s.

use pyo3::prelude::*;

#[pymodule]
fn _zstd(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ENGINE",
        format!(
            "libzstd {} (zstd-sys, built from source)",
            zarr_codec_zstd::engine_version()
        ),
    )?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_zstd::Zstd>(module, c"zstd")
}
