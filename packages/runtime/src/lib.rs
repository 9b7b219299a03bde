//! `zarr_codec_runtime._runtime`: the compiled half of the `zarr-codec-runtime` wheel.
//!
//! The runtime's Python face, and the one module that runs chains: the codec wheels export
//! only their kernels (capsules through `zarr_codec_python::kernel`), which these runners run.
//! Its bindings live here, not in the glue every wheel is built with, so that a change to the
//! runtime rebuilds this wheel alone.

use pyo3::prelude::*;

mod remote;
mod runtime;
mod selection;
mod sharding;

/// The module: the runners (`Plan`, `Sharded`, `Remote`) and `cut_selection`.
#[pymodule]
fn _runtime(module: &Bound<'_, PyModule>) -> PyResult<()> {
    runtime::add_runtime(module)?;
    module.add(
        "KERNEL_CAPSULE",
        zarr_codec_python::kernel::CAPSULE
            .to_str()
            .unwrap_or_default(),
    )?;
    Ok(())
}
