//! Caller-provided output buffers, and codec output handed to Python.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::mem::MaybeUninit;
use std::sync::OnceLock;

use numpy::PyArray1;
use pyo3::buffer::PyUntypedBuffer;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use zarr_codec_shapes::{CodecError, Result as CodecResult};

use crate::errors::{Raised, raise};
use crate::input::{Exported, plain_buffer};
use crate::run::run;

/// A writable, contiguous Python buffer (`bytearray`, a numpy array in C or Fortran order, a
/// writable `memoryview`) as `&mut [u8]` in memory order, for `decode_into` / `encode_into`;
/// datetime64/timedelta64 arrays through an int64 view, as for inputs.
pub struct BytesOutput {
    buffer: PyUntypedBuffer,
}

impl BytesOutput {
    /// Export `obj`'s buffer: `BufferTypeError` (a `TypeError`) if it has none or holds Python
    /// objects, `OutputSizeError` if it is read-only or not contiguous.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let buffer = match plain_buffer(obj)? {
            Exported::Buffer(buffer) => buffer,
            // Only 0-d arrays come back as bytes: a copy could not be written back.
            Exported::Bytes(_) => {
                return Err(raise(
                    obj.py(),
                    Raised::OutputSize,
                    "the output buffer must have at least one dimension".into(),
                ));
            }
        };
        if buffer.readonly() {
            return Err(raise(
                obj.py(),
                Raised::OutputSize,
                "the output buffer is read-only".into(),
            ));
        }
        if !(buffer.is_c_contiguous() || buffer.is_fortran_contiguous()) {
            return Err(raise(
                obj.py(),
                Raised::OutputSize,
                "the output buffer must be contiguous".into(),
            ));
        }
        Ok(Self { buffer })
    }

    /// Whether `bytes` shares memory with this buffer (then read them from a copy: writing
    /// while reading the same memory through two Rust references is not allowed, and no codec
    /// can decode or encode in place).
    pub fn overlaps(&self, bytes: &[u8]) -> bool {
        let start = self.buffer.buf_ptr() as usize;
        let end = start + self.buffer.len_bytes();
        let other = bytes.as_ptr() as usize;
        !bytes.is_empty() && start < end && other < end && start < other + bytes.len()
    }

    /// The writable bytes, valid while `self` lives (see [`crate::BytesInput::as_slice`] for
    /// the rule on concurrent mutation from Python).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.buffer.len_bytes();
        if len == 0 {
            return &mut [];
        }
        // SAFETY: the buffer was exported writable (not `readonly`) and C- or
        // Fortran-contiguous, so its `len_bytes()` bytes are one block from `buf_ptr()`, ours to
        // write until the export is released in `Drop`; `&mut self` makes this the only Rust
        // reference to them.
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
            raise(
                py,
                Raised::OutputSize,
                format!("{len} bytes is too large for a bytes object"),
            )
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

    /// The first `written` bytes as a `bytes` object: this object itself, shrunk in place
    /// where the interpreter offers that (see `shrink_bytes`), else a copy of the prefix.
    /// Encoders that only know a worst-case size use this: the frame is written once, straight
    /// into the object Python receives.
    ///
    /// # Safety
    ///
    /// The first `written` bytes of [`UninitBytes::storage`] must have been written, and
    /// `written` must be at most the allocated length.
    pub unsafe fn assume_init_prefix(mut self, written: usize) -> PyResult<Bound<'py, PyBytes>> {
        if written == self.len {
            return Ok(self.object);
        }
        let py = self.object.py();
        if let Some(shrink) = shrink_bytes() {
            let size = isize::try_from(written).unwrap_or(isize::MAX);
            let mut object = self.object.into_ptr();
            // SAFETY: `object` is a `bytes` this function owns the only reference to, never
            // seen by Python code or hashed, which is what `_PyBytes_Resize` asks; `written`
            // is at most its length. On success `object` is the (possibly moved) resized
            // object, owned by us; on failure CPython has released it and set an exception.
            return unsafe {
                if shrink(&raw mut object, size) == 0 {
                    Ok(Bound::from_owned_ptr(py, object).cast_into_unchecked())
                } else {
                    Err(PyErr::fetch(py))
                }
            };
        }
        let prefix = &self.storage()[..written];
        // SAFETY: the caller promises these `written` bytes are initialised.
        let prefix = unsafe { &*(std::ptr::from_ref(prefix) as *const [u8]) };
        Ok(PyBytes::new(py, prefix))
    }
}

/// `CPython`'s `_PyBytes_Resize`, looked up at run time.
///
/// It is how `CPython`'s own codecs (and numcodecs) shrink a `bytes` allocated for the worst
/// case: the allocator shrinks the block in place, so nothing is copied. It is not in the
/// limited API these abi3 wheels are built for, so it is found by name when the module is
/// first used and, on an interpreter that does not export it, a copy is made instead.
type ShrinkBytes = unsafe extern "C" fn(*mut *mut ffi::PyObject, ffi::Py_ssize_t) -> c_int;

fn shrink_bytes() -> Option<ShrinkBytes> {
    static SHRINK: OnceLock<Option<ShrinkBytes>> = OnceLock::new();
    *SHRINK.get_or_init(|| {
        let address = lookup_symbol(c"_PyBytes_Resize")?;
        // SAFETY: the symbol is CPython's `int _PyBytes_Resize(PyObject **, Py_ssize_t)`,
        // unchanged in every CPython version this abi3 wheel runs on (3.12 and later).
        Some(unsafe { std::mem::transmute::<*mut c_void, ShrinkBytes>(address) })
    })
}

/// The address of `name` in the process's global symbols (the interpreter's among them).
#[cfg(any(target_os = "linux", target_vendor = "apple"))]
fn lookup_symbol(name: &CStr) -> Option<*mut c_void> {
    unsafe extern "C" {
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }
    // RTLD_DEFAULT: the global scope, searched in load order.
    #[cfg(target_os = "linux")]
    let everywhere = std::ptr::null_mut();
    #[cfg(target_vendor = "apple")]
    let everywhere = -2isize as *mut c_void;
    // SAFETY: `dlsym` reads a NUL-terminated name and returns an address or null.
    let address = unsafe { dlsym(everywhere, name.as_ptr()) };
    (!address.is_null()).then_some(address)
}

#[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
fn lookup_symbol(_name: &CStr) -> Option<*mut c_void> {
    None
}

/// A new `bytes` object of exactly `len` bytes, filled by `fill` with the GIL released.
///
/// `fill` gets the storage uninitialised and returns `Ok(true)` once it has written all `len`
/// bytes, or `Ok(false)` to give up (the caller takes another path; the object is dropped
/// unseen); an error is raised as the matching `zarr_codec_shapes` exception.
pub fn new_bytes_with<F>(
    py: Python<'_>,
    len: usize,
    fill: F,
) -> PyResult<Option<Bound<'_, PyBytes>>>
where
    F: Send + FnOnce(&mut [MaybeUninit<u8>]) -> zarr_codec_shapes::Result<bool>,
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

/// One new `bytes` object per input, `rooms[i]` bytes of room each, filled by `fill` (run with
/// the GIL released) over `(input, storage)` pairs, which returns the bytes it wrote into each
/// (at most its room): each object is then that prefix, shrunk in place. A batch of encodings
/// written once, straight into the objects Python gets.
pub fn new_bytes_batch<'py, F>(
    py: Python<'py>,
    inputs: &[&[u8]],
    rooms: &[usize],
    fill: F,
) -> PyResult<Bound<'py, PyList>>
where
    F: Send + FnOnce(&mut [(&[u8], &mut [MaybeUninit<u8>])]) -> CodecResult<Vec<usize>>,
{
    let mut outputs = rooms
        .iter()
        .map(|&room| UninitBytes::new(py, room))
        .collect::<PyResult<Vec<_>>>()?;
    let mut jobs: Vec<(&[u8], &mut [MaybeUninit<u8>])> = inputs
        .iter()
        .copied()
        .zip(outputs.iter_mut().map(UninitBytes::storage))
        .collect();
    let written = run(py, || fill(&mut jobs))?;
    drop(jobs);
    if written.len() != outputs.len() || written.iter().zip(rooms).any(|(w, room)| w > room) {
        let message = "a batch wrote more than its room, or not every chunk";
        return Err(crate::to_py_err(py, &CodecError::configuration(message)));
    }
    // SAFETY: `fill` succeeded and initialised the first `written` bytes of each storage,
    // at most its room (checked above).
    let objects = outputs
        .into_iter()
        .zip(written)
        .map(|(output, written)| unsafe { output.assume_init_prefix(written) })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, objects)
}
