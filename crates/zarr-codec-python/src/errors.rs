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

/// The exceptions the glue raises itself, beyond the codec errors [`to_py_err`] maps.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Raised {
    /// The base class `zarr_codec_shapes.CodecError`, for errors with no more specific kind.
    Codec,
    /// `zarr_codec_shapes.OutputSizeError`, for unusable caller buffers.
    OutputSize,
    /// `zarr_codec_shapes.BufferTypeError` (also a `TypeError`), for objects that are not
    /// buffers of plain data.
    BufferType,
    /// `zarr_codec_shapes.DeviceError` (a `BufferTypeError`, so also a `TypeError`), for
    /// buffers in GPU memory, which no codec here can read.
    Device,
}

/// The exception `raised` with `message`; its builtin base class should
/// `zarr_codec_shapes` be missing.
pub(crate) fn raise(py: Python<'_>, raised: Raised, message: String) -> PyErr {
    let Ok(found) = classes(py) else {
        return match raised {
            Raised::Codec | Raised::OutputSize => PyValueError::new_err(message),
            Raised::BufferType | Raised::Device => PyTypeError::new_err(message),
        };
    };
    let class = match raised {
        Raised::Codec => &found.base,
        Raised::OutputSize => &found.output_size,
        Raised::BufferType => &found.buffer_type,
        Raised::Device => &found.device,
    };
    PyErr::from_type(class.bind(py).clone(), message)
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
