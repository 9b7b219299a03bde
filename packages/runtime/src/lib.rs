//! `zarr_codec_runtime._runtime`: the compiled half of the `zarr-codec-runtime` wheel.
//!
//! The runtime's Python face, and the one module that runs chains: the codec wheels export
//! only their kernels (capsules through `zarr_codec_python::kernel`), which these runners run.
//! Its bindings live here, not in the glue every wheel is built with, so that a change to the
//! runtime rebuilds this wheel alone.

use pyo3::prelude::*;

mod remote;
mod runner;
mod runtime;
mod selection;

/// The module: `plan_chain`, the plans it makes, the `Runner` of a chain's reads and writes,
/// `Remote` stores, `ChunkGrid` and `cut_selection`.
#[pymodule]
fn _runtime(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(runtime::plan_chain, module)?)?;
    module.add_class::<runtime::PyPlan>()?;
    module.add_class::<runner::PyRunner>()?;
    module.add_class::<remote::PyRemote>()?;
    module.add_class::<selection::PyCut>()?;
    module.add_class::<selection::PyChunkGrid>()?;
    module.add_function(wrap_pyfunction!(selection::cut_selection, module)?)?;
    module.add(
        "KERNEL_CAPSULE",
        zarr_codec_python::kernel::CAPSULE
            .to_str()
            .unwrap_or_default(),
    )?;
    Ok(())
}
