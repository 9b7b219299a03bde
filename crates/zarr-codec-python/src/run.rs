//! Running codec work with the GIL released.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::prelude::*;

use crate::errors::{Raised, raise, to_py_err};

/// Run `work` with the GIL released and map its error onto the `zarr_codec_shapes` exceptions.
///
/// A panic inside `work` is a bug in a codec, but it must still reach Python as an ordinary
/// `zarr_codec_shapes.CodecError` rather than pyo3's `PanicException` (a `BaseException` that
/// `except Exception` does not catch), so it is caught here.
pub fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    F: Send + FnOnce() -> zarr_codec_shapes::Result<T>,
    T: Send,
{
    finish(py, py.detach(|| catch_unwind(AssertUnwindSafe(work))))
}

/// Inputs below this many bytes are worked on with the GIL held: releasing and taking it back
/// costs more than such work (microseconds), and frees no other thread for long.
pub const GIL_RELEASE_MIN: usize = 16 << 10;

/// [`run`] for work on `bytes` bytes: the GIL released only from [`GIL_RELEASE_MIN`].
pub fn run_sized<T, F>(py: Python<'_>, bytes: usize, work: F) -> PyResult<T>
where
    F: Send + FnOnce() -> zarr_codec_shapes::Result<T>,
    T: Send,
{
    if bytes >= GIL_RELEASE_MIN {
        return run(py, work);
    }
    finish(py, catch_unwind(AssertUnwindSafe(work)))
}

fn finish<T>(
    py: Python<'_>,
    outcome: std::thread::Result<zarr_codec_shapes::Result<T>>,
) -> PyResult<T> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(to_py_err(py, &err)),
        Err(panic) => Err(raise(
            py,
            Raised::Codec,
            format!(
                "internal error in codec (please report): {}",
                panic_detail(&*panic)
            ),
        )),
    }
}

/// The message a panic carried (a `&str` or a `String`, as `panic!` makes them), or nothing.
pub(crate) fn panic_detail(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
