//! Caller-provided output buffers, and codec output handed to Python.

use std::mem::MaybeUninit;

use numpy::PyArray1;
use pyo3::buffer::PyUntypedBuffer;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::output_error;
use crate::run::run;

/// A writable, C-contiguous Python buffer (`bytearray`, a numpy array, a writable
/// `memoryview`) as `&mut [u8]`, for `decode_into` / `encode_into`.
pub struct BytesOutput {
    buffer: PyUntypedBuffer,
}

impl BytesOutput {
    /// Export `obj`'s buffer; `OutputSizeError` if it is read-only or not C-contiguous.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let buffer = PyUntypedBuffer::get(obj)?;
        if buffer.readonly() {
            return Err(output_error(
                obj.py(),
                "the output buffer is read-only".into(),
            ));
        }
        if !buffer.is_c_contiguous() {
            return Err(output_error(
                obj.py(),
                "the output buffer must be C-contiguous".into(),
            ));
        }
        Ok(Self { buffer })
    }

    /// The writable bytes, valid while `self` lives (see [`crate::BytesInput::as_slice`] for
    /// the rule on concurrent mutation from Python).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.buffer.len_bytes();
        if len == 0 {
            return &mut [];
        }
        // SAFETY: the buffer was exported writable (not `readonly`) and C-contiguous, so its
        // `len_bytes()` bytes from `buf_ptr()` are ours to write until the export is released
        // in `Drop`; `&mut self` makes this the only Rust reference to them.
        unsafe { std::slice::from_raw_parts_mut(self.buffer.buf_ptr().cast::<u8>(), len) }
    }
}

/// A new `bytes` object of exactly `len` bytes, filled by `fill` with the GIL released.
///
/// The memory is not zeroed first: `fill` gets it uninitialised and must return `Ok(true)`
/// only once it has written all `len` bytes. `Ok(false)` gives up (the caller takes another
/// path) and the object is dropped unseen; so does an error, which is raised. This lets a
/// codec that knows its output size decode straight into the object Python receives.
pub fn new_bytes_with<F>(
    py: Python<'_>,
    len: usize,
    fill: F,
) -> PyResult<Option<Bound<'_, PyBytes>>>
where
    F: Send + FnOnce(&mut [MaybeUninit<u8>]) -> zarr_codec::Result<bool>,
{
    let size = isize::try_from(len)
        .map_err(|_| output_error(py, format!("{len} bytes is too large for a bytes object")))?;
    // SAFETY: a null source asks CPython for an uninitialised `bytes` of `size` bytes; the
    // new reference it returns (or null with an exception set) is taken over here.
    let object = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), size))?
    };
    let object = object.cast_into::<PyBytes>()?;
    // SAFETY: `object` is a fresh `bytes` of `len` bytes that no other code has seen yet, so
    // its storage (from `PyBytes_AsString`, valid while `object` lives) is ours to write; we
    // hand out no other reference to it until `fill` has returned.
    let storage = unsafe {
        let data = ffi::PyBytes_AsString(object.as_ptr()).cast::<MaybeUninit<u8>>();
        std::slice::from_raw_parts_mut(data, len)
    };
    if run(py, || fill(storage))? {
        Ok(Some(object))
    } else {
        Ok(None)
    }
}

/// Codec output as `bytes` (one copy: Python owns its own memory).
pub fn bytes_from_vec<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, data)
}

/// Codec output as a 1-D `uint8` numpy array that takes over the `Vec` without copying.
pub fn numpy_from_vec(py: Python<'_>, data: Vec<u8>) -> Bound<'_, PyArray1<u8>> {
    PyArray1::from_vec(py, data)
}
