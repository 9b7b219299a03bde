//! numpy arrays as native-endian, C-order element bytes.

use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;
use zarr_codec_shapes::DataType;

use crate::errors::to_py_err;

/// The Zarr data type of one of numpy's own numeric dtypes, from its kind and item size (no
/// Python call: this runs once per call of every codec); `None` for any other dtype.
fn builtin_data_type(dtype: &Bound<'_, PyArrayDescr>) -> Option<DataType> {
    // Types registered by other packages (`ml_dtypes`' int4, bfloat16, ...) number from
    // NPY_USERDEF (256) and may reuse a kind and size of numpy's: they go by their name.
    if !(0..256).contains(&dtype.num()) {
        return None;
    }
    Some(match (dtype.kind(), dtype.itemsize()) {
        (b'b', 1) => DataType::Bool,
        (b'i', 1) => DataType::Int8,
        (b'i', 2) => DataType::Int16,
        (b'i', 4) => DataType::Int32,
        (b'i', 8) => DataType::Int64,
        (b'u', 1) => DataType::UInt8,
        (b'u', 2) => DataType::UInt16,
        (b'u', 4) => DataType::UInt32,
        (b'u', 8) => DataType::UInt64,
        (b'f', 2) => DataType::Float16,
        (b'f', 4) => DataType::Float32,
        (b'f', 8) => DataType::Float64,
        (b'c', 8) => DataType::Complex64,
        (b'c', 16) => DataType::Complex128,
        _ => return None,
    })
}

/// numpy's dtype of `data_type`: numpy's own descriptor for its built-in types (no string
/// parsed per call), others (`float16`, `ml_dtypes`' types) by their name.
pub fn dtype_of(py: Python<'_>, data_type: DataType) -> PyResult<Bound<'_, PyArrayDescr>> {
    use numpy::dtype;
    Ok(match data_type {
        DataType::Bool => dtype::<bool>(py),
        DataType::Int8 => dtype::<i8>(py),
        DataType::Int16 => dtype::<i16>(py),
        DataType::Int32 => dtype::<i32>(py),
        DataType::Int64 => dtype::<i64>(py),
        DataType::UInt8 => dtype::<u8>(py),
        DataType::UInt16 => dtype::<u16>(py),
        DataType::UInt32 => dtype::<u32>(py),
        DataType::UInt64 => dtype::<u64>(py),
        DataType::Float32 => dtype::<f32>(py),
        DataType::Float64 => dtype::<f64>(py),
        other => PyArrayDescr::new(py, other.name())?,
    })
}

/// The Zarr data type of a numpy dtype (any byte order; extension types through `ml_dtypes`).
pub fn data_type_of(dtype: &Bound<'_, PyArrayDescr>) -> PyResult<DataType> {
    if let Some(data_type) = builtin_data_type(dtype) {
        return Ok(data_type);
    }
    let py = dtype.py();
    let name = dtype.typeobj().name()?.to_string();
    // numpy 1 calls its boolean scalar type `bool_`.
    let name = if name == "bool_" {
        "bool".to_owned()
    } else {
        name
    };
    let data_type = DataType::from_name(&name).map_err(|err| to_py_err(py, &err))?;
    if data_type.size() != dtype.itemsize() {
        let message = format!("numpy dtype {name} has an unexpected item size");
        return Err(to_py_err(
            py,
            &zarr_codec_shapes::CodecError::Unsupported(message),
        ));
    }
    Ok(data_type)
}

/// A numpy array viewed as native-endian, C-order element bytes.
///
/// Arrays that already are (the common case) are borrowed; others (big-endian, Fortran
/// order, strided views) are converted once by numpy itself.
pub struct ArrayInput<'py> {
    array: Bound<'py, PyUntypedArray>,
    data_type: DataType,
}

impl<'py> ArrayInput<'py> {
    /// View `obj` (a numpy array, or anything `numpy.asarray` accepts).
    pub fn new(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let numpy = PyModule::import(py, "numpy")?;
        let array = if let Ok(array) = obj.cast::<PyUntypedArray>() {
            array.clone()
        } else {
            crate::input::refuse_device_memory(obj)?;
            numpy
                .call_method1("asarray", (obj,))?
                .cast_into::<PyUntypedArray>()?
        };
        let dtype = array.dtype();
        let data_type = data_type_of(&dtype)?;
        let native = dtype.is_native_byteorder() != Some(false);
        let aligned = array.is_aligned();
        let array = if array.is_c_contiguous() && native && aligned {
            array
        } else {
            // `asarray(..., order="C")` keeps 0-d arrays 0-d (ascontiguousarray would not).
            let native_dtype = dtype.call_method1("newbyteorder", ("=",))?;
            let kwargs = [
                ("dtype", native_dtype),
                ("order", "C".into_pyobject(py)?.into_any()),
            ];
            numpy
                .call_method("asarray", (array,), Some(&kwargs.into_py_dict(py)?))?
                .cast_into::<PyUntypedArray>()?
        };
        Ok(Self { array, data_type })
    }

    /// The Zarr data type of the elements.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        self.array.shape()
    }

    /// The numpy array (native order, C-contiguous).
    pub fn array(&self) -> &Bound<'py, PyUntypedArray> {
        &self.array
    }

    /// The element bytes, valid while `self` lives (see [`crate::BytesInput::as_slice`] for
    /// the rule on concurrent mutation from Python).
    pub fn as_bytes(&self) -> &[u8] {
        let len = self.array.len_nbytes();
        if len == 0 {
            return &[];
        }
        // SAFETY: the array is C-contiguous, so its `len_nbytes()` bytes start at its data
        // pointer; `self.array` holds a reference that keeps the data alive for this borrow.
        unsafe {
            std::slice::from_raw_parts((*self.array.as_array_ptr()).fields.data.cast::<u8>(), len)
        }
    }
}

trait NBytes {
    fn len_nbytes(&self) -> usize;
}

impl NBytes for Bound<'_, PyUntypedArray> {
    fn len_nbytes(&self) -> usize {
        self.shape().iter().product::<usize>() * self.dtype().itemsize()
    }
}

/// The element bytes of a C-contiguous array, to write.
///
/// # Safety
///
/// The array must be C-contiguous and writeable, and the returned slice must be the only
/// reference to its memory while it lives (it lives no longer than the borrow of `array`,
/// which keeps the data alive).
unsafe fn writable_bytes<'a>(array: &'a mut Bound<'_, PyUntypedArray>) -> &'a mut [u8] {
    let len = array.len_nbytes();
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller guarantees a C-contiguous, writeable array, so its `len` bytes from
    // its data pointer may be written, and that nothing else references them meanwhile.
    unsafe { std::slice::from_raw_parts_mut((*array.as_array_ptr()).fields.data.cast::<u8>(), len) }
}

/// A fresh, C-ordered numpy array of `dtype` and `shape` for a codec to fill.
pub struct NewArray<'py> {
    array: Bound<'py, PyUntypedArray>,
}

/// Allocate an uninitialised array (`numpy.empty`) of `dtype` and `shape`.
pub fn new_array<'py>(
    dtype: &Bound<'py, PyArrayDescr>,
    shape: &[usize],
) -> PyResult<NewArray<'py>> {
    let py = dtype.py();
    let mut dims = shape
        .iter()
        .map(|&n| numpy::npyffi::npy_intp::try_from(n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("array too large"))?;
    let nd = std::ffi::c_int::try_from(dims.len())
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("too many dimensions"))?;
    // SAFETY: numpy's `PyArray_Empty` (C API, as `numpy.empty` is) with `nd` sizes at `dims`
    // and a descriptor reference it takes over (`into_ptr` gives one away); it returns a new
    // reference to a C-ordered array, or NULL with a Python error set.
    let raw = unsafe {
        numpy::npyffi::PY_ARRAY_API.PyArray_Empty(
            py,
            nd,
            dims.as_mut_ptr(),
            dtype.clone().into_ptr().cast(),
            0,
        )
    };
    // SAFETY: an owned reference, or NULL (then the error numpy set is fetched).
    let array = unsafe { Bound::from_owned_ptr_or_err(py, raw) }?.cast_into::<PyUntypedArray>()?;
    Ok(NewArray { array })
}

impl<'py> NewArray<'py> {
    /// The bytes to write; nothing else can see the array until [`NewArray::into_array`].
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: `numpy.empty` returned a new, C-contiguous, writable array that only `self`
        // references, so this is the sole access to its memory.
        unsafe { writable_bytes(&mut self.array) }
    }

    /// Hand the filled array to Python.
    pub fn into_array(self) -> Bound<'py, PyUntypedArray> {
        self.array
    }
}

/// A caller's numpy array to write into: C-contiguous, writable, aligned and in native byte
/// order, taken through numpy itself (so `ml_dtypes` types, which export no buffer, work).
pub struct ArrayOutput<'py> {
    array: Bound<'py, PyUntypedArray>,
    data_type: DataType,
}

impl<'py> ArrayOutput<'py> {
    /// Check `obj`; `OutputSizeError` when it is not a numpy array that can be written as is.
    pub fn new(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let refuse = |why: &str| {
            crate::errors::raise(
                py,
                crate::errors::Raised::OutputSize,
                format!("output array: {why}"),
            )
        };
        let Ok(array) = obj.cast::<PyUntypedArray>() else {
            crate::input::refuse_device_memory(obj)?;
            return Err(refuse("not a numpy array"));
        };
        let array = array.clone();
        let dtype = array.dtype();
        if !array.is_c_contiguous() {
            return Err(refuse("not C-contiguous"));
        }
        if !array.is_aligned() || dtype.is_native_byteorder() == Some(false) {
            return Err(refuse("not aligned, native-order data"));
        }
        // SAFETY: reading the flags of an array we hold a reference to (numpy's
        // `PyArray_ISWRITEABLE`, without building a `flags` object per call).
        let flags = unsafe { (*array.as_array_ptr()).fields.flags };
        if flags & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0 {
            return Err(refuse("read-only"));
        }
        let data_type = data_type_of(&dtype)?;
        Ok(Self { array, data_type })
    }

    /// The Zarr data type of the elements.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        self.array.shape()
    }

    /// Whether `bytes` shares memory with this array (then read them from a copy: writing
    /// while reading the same memory through two Rust references is not allowed).
    pub fn overlaps(&self, bytes: &[u8]) -> bool {
        // SAFETY: reading the data pointer of an array we hold a reference to.
        let start = unsafe { (*self.array.as_array_ptr()).fields.data } as usize;
        let end = start + self.array.len_nbytes();
        let other = bytes.as_ptr() as usize;
        !bytes.is_empty() && start < end && other < end && start < other + bytes.len()
    }

    /// The element bytes to write (see [`crate::BytesInput::as_slice`] for the rule on
    /// concurrent use from Python).
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: the array is C-contiguous and writeable (checked in `new`); `&mut self`
        // makes this the only Rust reference to its memory.
        unsafe { writable_bytes(&mut self.array) }
    }
}
