//! numpy's variable-width `StringDType` arrays (numpy >= 2.0) read and filled in place, through
//! numpy's `NpyString` C API: strings go between numcodecs' vlen-utf8 layout and the array's
//! own storage with no Python `str` made for any of them (a `str` per item is what costs most
//! in numcodecs' decoder, then zarr-python's conversion to `StringDType` costs as much again).
//!
//! The API is reached through numpy's C-API table (the `_ARRAY_API` capsule every numpy
//! extension imports), at the slots numpy's headers fix for it: they never move within a
//! major version, and numpy reports its C feature version, checked before any slot is read.

use std::ffi::{c_char, c_int, c_uint, c_void};

use numpy::npyffi::flags::NPY_ARRAY_WRITEABLE;
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyCapsule;

/// numpy 2.0's C feature version (`NPY_2_0_API_VERSION`): the first with `NpyString`.
const NPY_2_0_API_VERSION: c_uint = 0x12;
/// Slots of numpy's C-API table (numpy's `__multiarray_api.h`).
const GET_FEATURE_VERSION: usize = 211;
const STRING_LOAD: usize = 313;
const STRING_PACK: usize = 314;
const ACQUIRE_ALLOCATOR: usize = 316;
const RELEASE_ALLOCATOR: usize = 318;
/// The size of one packed string (`npy_packed_static_string`), `StringDType`'s item size.
const PACKED_SIZE: usize = 2 * std::mem::size_of::<usize>();

/// numpy's `npy_static_string`: a read-only view of one string's UTF-8 bytes.
#[repr(C)]
struct StaticString {
    size: usize,
    buf: *const c_char,
}

type FeatureVersion = unsafe extern "C" fn() -> c_uint;
type Load = unsafe extern "C" fn(*mut c_void, *const c_void, *mut StaticString) -> c_int;
type Pack = unsafe extern "C" fn(*mut c_void, *mut c_void, *const c_char, usize) -> c_int;
type Acquire = unsafe extern "C" fn(*const c_void) -> *mut c_void;
type Release = unsafe extern "C" fn(*mut c_void);

/// The `NpyString` functions of the numpy this process runs.
struct Api {
    load: Load,
    pack: Pack,
    acquire: Acquire,
    release: Release,
}

static API: PyOnceLock<Api> = PyOnceLock::new();

fn api(py: Python<'_>) -> PyResult<&'static Api> {
    API.get_or_try_init(py, || {
        let capsule = py
            .import("numpy._core._multiarray_umath")?
            .getattr("_ARRAY_API")?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let table = capsule
            .pointer_checked(None)?
            .as_ptr()
            .cast::<*const c_void>();
        // SAFETY: `_ARRAY_API` is numpy's C-API table, an array of function pointers that
        // numpy keeps alive for the life of the process; slot 211 has held
        // `PyArray_GetNDArrayCFeatureVersion` since numpy 1.4, with this signature.
        let version = unsafe {
            let slot = *table.add(GET_FEATURE_VERSION);
            std::mem::transmute::<*const c_void, FeatureVersion>(slot)()
        };
        if version < NPY_2_0_API_VERSION {
            return Err(PyTypeError::new_err(
                "StringDType arrays need numpy 2.0 or later",
            ));
        }
        // SAFETY: numpy reports C feature version 2.0 or later, whose table holds the
        // NpyString functions at these slots with these signatures (numpy's headers).
        unsafe {
            let slot = |index: usize| *table.add(index);
            Ok(Api {
                load: std::mem::transmute::<*const c_void, Load>(slot(STRING_LOAD)),
                pack: std::mem::transmute::<*const c_void, Pack>(slot(STRING_PACK)),
                acquire: std::mem::transmute::<*const c_void, Acquire>(slot(ACQUIRE_ALLOCATOR)),
                release: std::mem::transmute::<*const c_void, Release>(slot(RELEASE_ALLOCATOR)),
            })
        }
    })
}

/// A C-contiguous `StringDType` array's packed strings and its descriptor, checked.
struct Strings {
    data: *mut u8,
    len: usize,
    descr: *const c_void,
}

fn strings(array: &Bound<'_, PyUntypedArray>, writing: bool) -> PyResult<Strings> {
    let dtype = array.dtype();
    if dtype.kind() != b'T' || dtype.itemsize() != PACKED_SIZE {
        return Err(PyTypeError::new_err(format!(
            "a numpy StringDType array is needed, got dtype {dtype}"
        )));
    }
    if !array.is_c_contiguous() {
        return Err(PyValueError::new_err("the array must be C-contiguous"));
    }
    let raw = array.as_array_ptr();
    // SAFETY: `raw` is the live array object `array` holds; its fields are read, not kept.
    let (data, flags, descr) =
        unsafe { ((*raw).fields.data, (*raw).fields.flags, (*raw).fields.descr) };
    if writing && flags & NPY_ARRAY_WRITEABLE == 0 {
        return Err(PyValueError::new_err("the array is read-only"));
    }
    Ok(Strings {
        data: data.cast(),
        len: array.len(),
        descr: descr.cast_const().cast(),
    })
}

/// The array's allocator, held (numpy's lock on it) until dropped.
struct Allocator<'a> {
    api: &'a Api,
    raw: *mut c_void,
}

impl<'a> Allocator<'a> {
    fn acquire(api: &'a Api, descr: *const c_void) -> Self {
        // SAFETY: `descr` is a StringDType descriptor (checked by `strings`), alive while the
        // array that holds it is, which outlives this guard.
        let raw = unsafe { (api.acquire)(descr) };
        Self { api, raw }
    }
}

impl Drop for Allocator<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` was acquired by `acquire` and is released once.
        unsafe { (self.api.release)(self.raw) }
    }
}

/// Each item of `items` packed into the matching string of `array` (as many as it holds).
pub fn fill<'s>(
    array: &Bound<'_, PyUntypedArray>,
    items: impl ExactSizeIterator<Item = &'s str>,
) -> PyResult<()> {
    let api = api(array.py())?;
    let target = strings(array, true)?;
    if items.len() != target.len {
        return Err(PyValueError::new_err(format!(
            "{} strings for an array of {}",
            items.len(),
            target.len
        )));
    }
    let allocator = Allocator::acquire(api, target.descr);
    for (index, item) in items.enumerate() {
        // SAFETY: `index < len`, and the array's buffer holds `len` packed strings of
        // PACKED_SIZE bytes (C-contiguous, writable, checked), which the allocator is held
        // for; `item` is valid for `item.len()` bytes, which `pack` copies.
        let packed = unsafe {
            (api.pack)(
                allocator.raw,
                target.data.add(index * PACKED_SIZE).cast(),
                item.as_ptr().cast(),
                item.len(),
            )
        };
        if packed != 0 {
            return Err(PyValueError::new_err("numpy could not store a string"));
        }
    }
    Ok(())
}

/// `visit` called with each string of `array` in order (a missing value as empty, as numcodecs
/// stores `None`); the strings are numpy's own bytes, valid only during the call.
pub fn each(
    array: &Bound<'_, PyUntypedArray>,
    mut visit: impl FnMut(&[u8]) -> PyResult<()>,
) -> PyResult<()> {
    let api = api(array.py())?;
    let source = strings(array, false)?;
    let allocator = Allocator::acquire(api, source.descr);
    for index in 0..source.len {
        let mut view = StaticString {
            size: 0,
            buf: std::ptr::null(),
        };
        // SAFETY: as in `fill`, the packed string at `index` is inside the array's buffer, and
        // the allocator is held while `view` is read.
        let loaded = unsafe {
            (api.load)(
                allocator.raw,
                source.data.add(index * PACKED_SIZE).cast_const().cast(),
                &raw mut view,
            )
        };
        match loaded {
            0 if view.size > 0 => {
                // SAFETY: numpy's view of a loaded string: `size` bytes at `buf`, unchanged
                // while the allocator is held.
                visit(unsafe { std::slice::from_raw_parts(view.buf.cast::<u8>(), view.size) })?;
            }
            0 | 1 => visit(&[])?, // empty, or missing (a null)
            _ => return Err(PyValueError::new_err("numpy could not read a string")),
        }
    }
    Ok(())
}
