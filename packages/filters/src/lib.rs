//! `zarr_codec_filters._filters`: the compiled half of the `zarr-codec-filters` wheel.
//!
//! Registrations through the glue's generic bytes-codec binding (one-chunk calls, batches,
//! chain kernels, the GIL released): `shuffle(json, zarr_format)`.

use pyo3::prelude::*;

#[pymodule]
fn _filters(module: &Bound<'_, PyModule>) -> PyResult<()> {
    zarr_codec_python::add_bytes_codec::<zarr_codec_filters::Shuffle>(module, c"shuffle")
}
