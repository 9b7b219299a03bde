//! Any buffer-protocol object as a byte slice.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::prelude::*;

/// The bytes of a Python buffer in C order: borrowed when the buffer is C-contiguous (the fast
/// path: bytes, bytearray, memoryview and contiguous numpy arrays of any dtype), copied in C
/// order otherwise (strided or Fortran-ordered arrays).
pub struct BytesInput {
    inner: Inner,
}

enum Inner {
    Borrowed(PyUntypedBuffer),
    Owned(Vec<u8>),
}

impl BytesInput {
    /// Export `obj`'s buffer; a `TypeError` if it has none.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let buffer = match PyUntypedBuffer::get(obj) {
            Ok(buffer) => buffer,
            // 0-d buffers (numpy scalars' arrays) export no shape, which pyo3 refuses; they
            // hold one item, so a copy through `memoryview.tobytes()` costs nothing.
            Err(err) => match obj
                .py()
                .import("builtins")?
                .getattr("memoryview")?
                .call1((obj,))
            {
                Ok(view) => {
                    let bytes: Vec<u8> = view.call_method0("tobytes")?.extract()?;
                    return Ok(Self {
                        inner: Inner::Owned(bytes),
                    });
                }
                Err(_) => return Err(err),
            },
        };
        let inner = if buffer.is_c_contiguous() {
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
                // SAFETY: the buffer is C-contiguous, so its `len_bytes()` bytes start at
                // `buf_ptr()`; the export keeps them allocated and unresized until `buffer` is
                // released in `Drop`, which cannot happen while this borrow of `self` lives.
                // u8 has no alignment or validity requirements.
                unsafe { std::slice::from_raw_parts(buffer.buf_ptr().cast::<u8>(), len) }
            }
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
