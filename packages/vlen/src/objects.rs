//! Python objects to and from the data models of `zarr_codec_vlen::json2` (as Python's `json`
//! module maps them: `None`, `bool`, `int`, `float`, `str`, lists and tuples, dicts, and their
//! subclasses, as its encoder takes them) and `zarr_codec_vlen::msgpack2` (as the `msgpack`
//! package maps them: `bytes` too).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};
use zarr_codec_python::BytesInput;
use zarr_codec_vlen::json2::{Key, MAX_DEPTH, Value};
use zarr_codec_vlen::msgpack2;

/// `object` as a JSON value; `TypeError` for what Python's encoder cannot write (with
/// `skip_keys`, dict items of other key types are left out, as Python's `skipkeys`).
pub fn to_value(object: &Bound<'_, PyAny>, skip_keys: bool, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("Circular reference detected"));
    }
    if let Ok(text) = object.cast::<PyString>() {
        return Ok(Value::Str(text.to_str()?.to_owned()));
    }
    if object.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = object.cast_exact::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if let Ok(number) = object.cast::<PyInt>() {
        return Ok(match number.extract::<i64>() {
            Ok(small) => Value::Int(small),
            Err(_) => Value::BigInt(int_digits(number)?),
        });
    }
    if let Ok(number) = object.cast::<PyFloat>() {
        return Ok(Value::Float(number.value()));
    }
    if object.cast::<PyList>().is_ok() || object.cast::<PyTuple>().is_ok() {
        return object
            .try_iter()?
            .map(|item| to_value(&item?, skip_keys, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::List);
    }
    if let Ok(dict) = object.cast::<PyDict>() {
        let mut items = Vec::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let Some(key) = to_key(&key)? else {
                if skip_keys {
                    continue;
                }
                return Err(PyTypeError::new_err(format!(
                    "keys must be str, int, float, bool or None, not {}",
                    key.get_type().name()?
                )));
            };
            items.push((key, to_value(&item, skip_keys, depth + 1)?));
        }
        return Ok(Value::Dict(items));
    }
    Err(PyTypeError::new_err(format!(
        "Object of type {} is not JSON serializable",
        object.get_type().name()?
    )))
}

fn int_digits(number: &Bound<'_, PyInt>) -> PyResult<String> {
    // `int.__repr__`, as Python's encoder writes an int (a subclass's own repr aside).
    let repr = number.py().get_type::<PyInt>().getattr("__repr__")?;
    repr.call1((number,))?.extract()
}

fn to_key(key: &Bound<'_, PyAny>) -> PyResult<Option<Key>> {
    Ok(Some(if let Ok(text) = key.cast::<PyString>() {
        Key::Str(text.to_str()?.to_owned())
    } else if let Ok(number) = key.cast::<PyFloat>() {
        Key::Float(number.value())
    } else if let Ok(flag) = key.cast_exact::<PyBool>() {
        Key::Bool(flag.is_true())
    } else if let Ok(number) = key.cast::<PyInt>() {
        Key::Int(int_digits(number)?)
    } else if key.is_none() {
        Key::Null
    } else {
        return Ok(None);
    }))
}

/// A JSON value as the Python objects Python's `json` module reads it into.
pub fn to_object<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Int(number) => number.into_pyobject(py)?.into_any(),
        Value::BigInt(digits) => py.get_type::<PyInt>().call1((digits.as_str(),))?,
        Value::Float(number) => PyFloat::new(py, *number).into_any(),
        Value::Str(text) => PyString::new(py, text).into_any(),
        Value::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_object(py, item)?)?;
            }
            list.into_any()
        }
        Value::Dict(items) => {
            let dict = PyDict::new(py);
            for (key, item) in items {
                let key = match key {
                    Key::Str(text) => PyString::new(py, text).into_any(),
                    other => PyString::new(py, &format!("{other:?}")).into_any(),
                };
                dict.set_item(key, to_object(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// `object` as a `MessagePack` value, as msgpack's packer takes it; `TypeError` for what it
/// cannot pack, `OverflowError` for an integer outside 64 bits.
pub fn to_msgpack(object: &Bound<'_, PyAny>, depth: usize) -> PyResult<msgpack2::Value> {
    use msgpack2::Value as M;
    if depth > msgpack2::MAX_DEPTH {
        return Err(PyValueError::new_err("recursion limit exceeded."));
    }
    if object.is_none() {
        return Ok(M::Nil);
    }
    if let Ok(flag) = object.cast_exact::<PyBool>() {
        return Ok(M::Bool(flag.is_true()));
    }
    if let Ok(number) = object.cast::<PyInt>() {
        if let Ok(signed) = number.extract::<i64>() {
            return Ok(M::Int(signed));
        }
        return number
            .extract::<u64>()
            .map(M::UInt)
            .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("Integer value out of range"));
    }
    if let Ok(number) = object.cast::<PyFloat>() {
        return Ok(M::F64(number.value()));
    }
    if object.cast::<PyBytes>().is_ok() || object.cast::<PyByteArray>().is_ok() {
        return Ok(M::Bin(BytesInput::new(object)?.as_slice().to_vec()));
    }
    if let Ok(text) = object.cast::<PyString>() {
        return Ok(M::Str(text.to_str()?.as_bytes().to_vec()));
    }
    if let Ok(dict) = object.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            pairs.push((to_msgpack(&key, depth + 1)?, to_msgpack(&item, depth + 1)?));
        }
        return Ok(M::Map(pairs));
    }
    if object.cast::<PyList>().is_ok() || object.cast::<PyTuple>().is_ok() {
        return object
            .try_iter()?
            .map(|item| to_msgpack(&item?, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(M::Array);
    }
    if object.cast::<PyMemoryView>().is_ok() {
        return Ok(M::Bin(BytesInput::new(object)?.as_slice().to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "can not serialize {:?} object",
        object.get_type().name()?.to_string()
    )))
}

/// A `MessagePack` value as msgpack's `unpackb(raw=raw)` gives it; strings that are not UTF-8
/// are corrupt input (where `raw` is false).
pub fn from_msgpack<'py>(
    py: Python<'py>,
    value: &msgpack2::Value,
    raw: bool,
) -> PyResult<Bound<'py, PyAny>> {
    use msgpack2::Value as M;
    Ok(match value {
        M::Nil => py.None().into_bound(py),
        M::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        M::Int(number) => number.into_pyobject(py)?.into_any(),
        M::UInt(number) => number.into_pyobject(py)?.into_any(),
        M::F32(number) => PyFloat::new(py, f64::from(*number)).into_any(),
        M::F64(number) => PyFloat::new(py, *number).into_any(),
        M::Str(bytes) if raw => PyBytes::new(py, bytes).into_any(),
        M::Str(bytes) => {
            let text = std::str::from_utf8(bytes).map_err(|error| {
                zarr_codec_python::to_py_err(
                    py,
                    &zarr_codec_shapes::CodecError::Corrupt(format!(
                        "msgpack2: a string that is not UTF-8: {error}"
                    )),
                )
            })?;
            PyString::new(py, text).into_any()
        }
        M::Bin(bytes) => PyBytes::new(py, bytes).into_any(),
        M::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(from_msgpack(py, item, raw)?)?;
            }
            list.into_any()
        }
        M::Map(pairs) => {
            let dict = PyDict::new(py);
            for (key, item) in pairs {
                dict.set_item(from_msgpack(py, key, raw)?, from_msgpack(py, item, raw)?)?;
            }
            dict.into_any()
        }
    })
}
