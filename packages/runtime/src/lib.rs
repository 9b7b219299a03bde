//! `zarr_codec_runtime._runtime`: the compiled half of the `zarr-codec-runtime` wheel.
//!
//! The one module that exports the chain runners (`Plan`); the codec wheels export only their
//! kernels, which any plan runs.

use pyo3::prelude::*;

/// The module: the `Plan` class.
#[pymodule]
fn _runtime(module: &Bound<'_, PyModule>) -> PyResult<()> {
    zarr_codec_python::add_runtime(module)?;
    module.add(
        "KERNEL_CAPSULE",
        zarr_codec_python::kernel::CAPSULE
            .to_str()
            .unwrap_or_default(),
    )?;
    Ok(())
}
