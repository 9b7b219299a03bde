//! Rust codec errors as the Python exceptions of `zarr_codec_shapes.errors`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use zarr_codec_shapes::{CodecError, ErrorKind};

/// The exception classes, imported once per interpreter.
struct Classes {
    base: Py<PyType>,
    buffer_type: Py<PyType>,
    device: Py<PyType>,
    configuration: Py<PyType>,
    corrupt: Py<PyType>,
    out_of_range: Py<PyType>,
    output_size: Py<PyType>,
    unsupported: Py<PyType>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let module = PyModule::import(py, "zarr_codec_shapes.errors")?;
        let get = |name: &str| -> PyResult<Py<PyType>> {
            Ok(module.getattr(name)?.cast_into::<PyType>()?.unbind())
        };
        Ok(Classes {
            base: get("CodecError")?,
            buffer_type: get("BufferTypeError")?,
            device: get("DeviceError")?,
            configuration: get("ConfigurationError")?,
            corrupt: get("CorruptInputError")?,
            out_of_range: get("OutOfRangeError")?,
            output_size: get("OutputSizeError")?,
            unsupported: get("UnsupportedError")?,
        })
    })
}

/// The Python exception for a codec error: a `zarr_codec_shapes.CodecError` subclass.
///
/// Should `zarr_codec_shapes` itself be missing (a broken install), the message is still raised, as a
/// `ValueError`, the base class every `CodecError` has.
pub fn to_py_err(py: Python<'_>, err: &CodecError) -> PyErr {
    let message = err.to_string();
    let Ok(found) = classes(py) else {
        return PyValueError::new_err(message);
    };
    let class = match err.kind() {
        ErrorKind::Configuration => &found.configuration,
        ErrorKind::Corrupt => &found.corrupt,
        ErrorKind::OutOfRange => &found.out_of_range,
        ErrorKind::OutputSize => &found.output_size,
        ErrorKind::Unsupported => &found.unsupported,
        _ => &found.base,
    };
    PyErr::from_type(class.bind(py).clone(), message)
}

/// The exception of class `class` (one of `zarr_codec_shapes.errors`) with `message`, or
/// `fallback`'s (that class's builtin base) should the module be missing.
fn raise(
    py: Python<'_>,
    class: impl FnOnce(&Classes) -> &Py<PyType>,
    fallback: fn(String) -> PyErr,
    message: String,
) -> PyErr {
    match classes(py) {
        Ok(found) => PyErr::from_type(class(found).bind(py).clone(), message),
        Err(_) => fallback(message),
    }
}

/// The base class `zarr_codec_shapes.CodecError`, for errors with no more specific kind.
pub(crate) fn codec_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, |found| &found.base, PyValueError::new_err, message)
}

/// `zarr_codec_shapes.OutputSizeError`, raised for unusable caller buffers.
pub(crate) fn output_error(py: Python<'_>, message: String) -> PyErr {
    raise(
        py,
        |found| &found.output_size,
        PyValueError::new_err,
        message,
    )
}

/// `zarr_codec_shapes.BufferTypeError` (also a `TypeError`), raised for objects that are not buffers
/// of plain data.
pub(crate) fn buffer_type_error(py: Python<'_>, message: String) -> PyErr {
    raise(
        py,
        |found| &found.buffer_type,
        PyTypeError::new_err,
        message,
    )
}

/// `zarr_codec_shapes.DeviceError` (a `BufferTypeError`, so also a `TypeError`), raised for
/// buffers in GPU memory, which no codec here can read.
pub(crate) fn device_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, |found| &found.device, PyTypeError::new_err, message)
}

/// Converts `zarr_codec_shapes::Result<T>` into `PyResult<T>` with [`to_py_err`].
pub trait IntoPyResult<T> {
    /// Map the error, if any, onto its Python exception class.
    fn into_py_result(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for zarr_codec_shapes::Result<T> {
    fn into_py_result(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|err| to_py_err(py, &err))
    }
}
