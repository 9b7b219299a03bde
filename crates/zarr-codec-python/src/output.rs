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

/// A new `bytes` object whose storage is not yet initialised: a codec that knows its output
/// size decodes straight into the object Python receives, with no copy and no zeroing.
///
/// Python never sees the object before [`UninitBytes::assume_init`]; dropping it unfilled just
/// frees it. Large allocations are lazily mapped, so an unused or partly used one costs only
/// the pages written.
pub struct UninitBytes<'py> {
    object: Bound<'py, PyBytes>,
    len: usize,
}

impl<'py> UninitBytes<'py> {
    /// Allocate `len` bytes; `OutputSizeError` if that is more than a `bytes` can hold.
    pub fn new(py: Python<'py>, len: usize) -> PyResult<Self> {
        let size = isize::try_from(len).map_err(|_| {
            output_error(py, format!("{len} bytes is too large for a bytes object"))
        })?;
        // SAFETY: a null source asks CPython for an uninitialised `bytes` of `size` bytes; the
        // new reference it returns (or null with an exception set) is taken over here.
        let object = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                ffi::PyBytes_FromStringAndSize(std::ptr::null(), size),
            )?
        };
        Ok(Self {
            object: object.cast_into::<PyBytes>()?,
            len,
        })
    }

    /// The storage to fill (may be sent to another thread; see the type docs).
    pub fn storage(&mut self) -> &mut [MaybeUninit<u8>] {
        // SAFETY: the object is a fresh `bytes` of `len` bytes that no other code has seen, so
        // its storage (from `PyBytes_AsString`, valid while the object lives) is ours to write;
        // `&mut self` makes this the only reference to it.
        unsafe {
            let data = ffi::PyBytes_AsString(self.object.as_ptr()).cast::<MaybeUninit<u8>>();
            std::slice::from_raw_parts_mut(data, self.len)
        }
    }

    /// The finished `bytes` object.
    ///
    /// # Safety
    ///
    /// Every one of the `len` bytes of [`UninitBytes::storage`] must have been written.
    pub unsafe fn assume_init(self) -> Bound<'py, PyBytes> {
        self.object
    }

    /// The first `written` bytes as a `bytes` object: this object itself when it is full, else
    /// a copy of the prefix (a `bytes` cannot shrink under the stable ABI). Encoders that only
    /// know a worst-case size use this, so incompressible input costs no copy at all.
    ///
    /// # Safety
    ///
    /// The first `written` bytes of [`UninitBytes::storage`] must have been written, and
    /// `written` must be at most the allocated length.
    pub unsafe fn assume_init_prefix(mut self, written: usize) -> Bound<'py, PyBytes> {
        if written == self.len {
            return self.object;
        }
        let py = self.object.py();
        let prefix = &self.storage()[..written];
        // SAFETY: the caller promises these `written` bytes are initialised.
        let prefix = unsafe { &*(std::ptr::from_ref(prefix) as *const [u8]) };
        PyBytes::new(py, prefix)
    }
}

/// A new `bytes` object of exactly `len` bytes, filled by `fill` with the GIL released.
///
/// `fill` gets the storage uninitialised and returns `Ok(true)` once it has written all `len`
/// bytes, or `Ok(false)` to give up (the caller takes another path; the object is dropped
/// unseen); an error is raised as the matching `zarr_codec` exception.
pub fn new_bytes_with<F>(
    py: Python<'_>,
    len: usize,
    fill: F,
) -> PyResult<Option<Bound<'_, PyBytes>>>
where
    F: Send + FnOnce(&mut [MaybeUninit<u8>]) -> zarr_codec::Result<bool>,
{
    let mut bytes = UninitBytes::new(py, len)?;
    let storage = bytes.storage();
    if run(py, || fill(storage))? {
        // SAFETY: `fill` returned true, which its contract says means every byte was written.
        Ok(Some(unsafe { bytes.assume_init() }))
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
