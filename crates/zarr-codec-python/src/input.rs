//! Any buffer-protocol object as a byte slice.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::prelude::*;

use crate::BytesOutput;
use crate::errors::{Raised, raise};

/// The bytes of a Python buffer, as numcodecs serialises one: in memory order when the buffer
/// is contiguous (C or Fortran order; borrowed, the fast path for bytes, bytearray, memoryview
/// and numpy arrays of any dtype), copied in C order otherwise (strided views), which is what
/// numpy's `tobytes(order="A")` gives.
///
/// datetime64 and timedelta64 arrays, which numpy exports no buffer for, are read through an
/// int64 view of the same memory. Object arrays are refused: their buffer holds pointers.
pub struct BytesInput {
    inner: Inner,
}

enum Inner {
    Borrowed(PyUntypedBuffer),
    Owned(Vec<u8>),
}

impl BytesInput {
    /// Export `obj`'s buffer; `zarr_codec_shapes.BufferTypeError` (a `TypeError`) if it has none or
    /// holds Python objects.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let buffer = match plain_buffer(obj)? {
            Exported::Buffer(buffer) => buffer,
            Exported::Bytes(bytes) => {
                return Ok(Self {
                    inner: Inner::Owned(bytes),
                });
            }
        };
        let inner = if buffer.is_c_contiguous() || buffer.is_fortran_contiguous() {
            Inner::Borrowed(buffer)
        } else {
            Inner::Owned(copy_c_order(&buffer))
        };
        Ok(Self { inner })
    }

    /// The bytes, valid while `self` lives.
    ///
    /// The slice may be read with the GIL released. Like every extension that does so (numpy,
    /// numcodecs), this relies on the caller not mutating the buffer from another thread while
    /// a codec call is running; the exporter cannot free or resize the memory while the buffer
    /// export held by `self` is alive.
    pub fn as_slice(&self) -> &[u8] {
        match &self.inner {
            Inner::Owned(bytes) => bytes,
            Inner::Borrowed(buffer) => {
                let len = buffer.len_bytes();
                if len == 0 {
                    return &[];
                }
                // SAFETY: the buffer is C- or Fortran-contiguous (`new` borrows no other), so
                // its `len_bytes()` bytes are one block starting at `buf_ptr()`; the export keeps them allocated and unresized until `buffer` is
                // released in `Drop`, which cannot happen while this borrow of `self` lives.
                // u8 has no alignment or validity requirements.
                unsafe { std::slice::from_raw_parts(buffer.buf_ptr().cast::<u8>(), len) }
            }
        }
    }

    /// This input, or a copy of it when it shares memory with `output`: `decode_into(buf,
    /// buf)` then reads the original bytes while the codec writes, as if they were apart.
    #[must_use]
    pub fn apart_from(self, output: &BytesOutput) -> Self {
        if output.overlaps(self.as_slice()) {
            let copy = self.as_slice().to_vec();
            Self {
                inner: Inner::Owned(copy),
            }
        } else {
            self
        }
    }

    /// Views of every buffer in the iterable `chunks` (a batch).
    pub fn all(chunks: &Bound<'_, PyAny>) -> PyResult<Vec<Self>> {
        chunks.try_iter()?.map(|chunk| Self::new(&chunk?)).collect()
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// True for an empty buffer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What [`plain_buffer`] found: a buffer export, or (for 0-d arrays) the bytes themselves.
pub(crate) enum Exported {
    Buffer(PyUntypedBuffer),
    Bytes(Vec<u8>),
}

/// The buffer of `obj` when it holds plain data: `BufferTypeError` for objects without one
/// and for object arrays; datetime64/timedelta64 arrays through an int64 view; 0-d arrays,
/// which export no shape, as their bytes.
pub(crate) fn plain_buffer(obj: &Bound<'_, PyAny>) -> PyResult<Exported> {
    let buffer = match PyUntypedBuffer::get(obj) {
        Ok(buffer) => buffer,
        Err(err) => return without_buffer(obj, &err),
    };
    if holds_objects(buffer.format().to_bytes()) {
        return Err(raise(
            obj.py(),
            Raised::BufferType,
            "object arrays are not supported: their buffer holds pointers to Python objects, \
             not data"
                .into(),
        ));
    }
    Ok(Exported::Buffer(buffer))
}

/// Whether a PEP 3118 format names Python objects (`O`), alone or as a field of a structured
/// type; field names (between colons) are skipped.
fn holds_objects(format: &[u8]) -> bool {
    let mut in_name = false;
    format.iter().any(|&byte| {
        if byte == b':' {
            in_name = !in_name;
        }
        !in_name && byte == b'O'
    })
}

/// `obj` exported no buffer (`err`): a datetime64/timedelta64 array (numpy exports none)
/// through an int64 view, a 0-d array (pyo3 refuses buffers without a shape) through
/// `memoryview.tobytes()`, anything else a `BufferTypeError`.
fn without_buffer(obj: &Bound<'_, PyAny>, err: &PyErr) -> PyResult<Exported> {
    let py = obj.py();
    refuse_device_memory(obj)?;
    if let Ok(kind) = obj
        .getattr("dtype")
        .and_then(|dtype| dtype.getattr("kind"))
        .and_then(|kind| kind.extract::<String>())
        && (kind == "M" || kind == "m")
    {
        // Every datetime64/timedelta64 item is 8 bytes, so an int64 view covers the same memory.
        let view = obj.call_method1("view", ("i8",))?;
        return plain_buffer(&view);
    }
    if let Ok(view) = py.import("builtins")?.getattr("memoryview")?.call1((obj,)) {
        if holds_objects(view.getattr("format")?.extract::<String>()?.as_bytes()) {
            return Err(raise(
                py,
                Raised::BufferType,
                "object arrays are not supported: their buffer holds pointers to Python \
                 objects, not data"
                    .into(),
            ));
        }
        return Ok(Exported::Bytes(view.call_method0("tobytes")?.extract()?));
    }
    let type_name = obj.get_type().name()?;
    Err(raise(
        py,
        Raised::BufferType,
        format!(
            "a buffer (bytes, bytearray, memoryview, numpy array) is required, got {type_name}: {err}"
        ),
    ))
}

/// Copy a strided buffer element by element into C order.
fn copy_c_order(buffer: &PyUntypedBuffer) -> Vec<u8> {
    let item = buffer.item_size();
    let shape = buffer.shape();
    let strides = buffer.strides();
    let count: usize = shape.iter().product();
    let mut out = Vec::with_capacity(count * item);
    if count == 0 {
        return out;
    }
    let mut index = vec![0usize; shape.len()];
    let base = buffer.buf_ptr().cast::<u8>();
    for _ in 0..count {
        let offset: isize = index
            .iter()
            .zip(strides)
            .map(|(&i, &stride)| i.cast_signed() * stride)
            .sum();
        // SAFETY: the exporter guarantees that `buf + sum(index[k] * strides[k])` addresses a
        // whole item for every in-bounds index (the buffer protocol's definition of strides),
        // and `index` stays within `shape` below.
        let item_bytes = unsafe { std::slice::from_raw_parts(base.offset(offset), item) };
        out.extend_from_slice(item_bytes);
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    out
}

/// `DeviceError` when `obj` says its data is in GPU memory: it has the CUDA array interface
/// (`CuPy`, `Numba`, `PyTorch` on CUDA) or a `DLPack` device that is not host memory. Such objects
/// export no buffer, so this only runs once exporting one has failed.
pub(crate) fn refuse_device_memory(obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = obj.py();
    let device = if obj.hasattr("__cuda_array_interface__")? {
        Some("cuda".to_owned())
    } else {
        obj.call_method0("__dlpack_device__")
            .and_then(|device| device.get_item(0))
            .and_then(|kind| kind.extract::<i64>())
            .ok()
            // DLPack's host-memory device types: CPU, CUDA host (pinned), ROCm host.
            .filter(|kind| !matches!(kind, 1 | 3 | 11))
            .map(|kind| format!("DLPack device type {kind}"))
    };
    match device {
        Some(device) => Err(raise(
            py,
            Raised::Device,
            format!(
                "{} is in GPU memory ({device}), but this codec runs on the CPU: copy it to host \
                 memory first (cupy.asnumpy), or use zarr_codecs.gpu",
                obj.get_type().name()?
            ),
        )),
        None => Ok(()),
    }
}
