//! Python objects to and from the data models of `zarr_codec_vlen::json2` (as Python's `json`
//! module maps them: `None`, `bool`, `int`, `float`, `str`, lists and tuples, dicts, and their
//! subclasses, as its encoder takes them) and `zarr_codec_vlen::msgpack2` (as the `msgpack`
//! package maps them: `bytes` too).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};
use zarr_codec_python::{BytesInput, IntoPyResult};
use zarr_codec_shapes::CodecError;
use zarr_codec_vlen::json2::{self, Key, MAX_DEPTH};
use zarr_codec_vlen::msgpack2;

/// `object` written as Python's encoder writes it, walked straight into `writer`;
/// `TypeError` for what Python's encoder cannot write (with `skip_keys`, dict items of other
/// key types are left out).
pub fn write_object(
    object: &Bound<'_, PyAny>,
    writer: &mut json2::Writer<'_>,
    skip_keys: bool,
    depth: usize,
) -> PyResult<()> {
    let py = object.py();
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("Circular reference detected"));
    }
    if let Ok(text) = object.cast::<PyString>() {
        writer.str(text.to_str()?);
    } else if object.is_none() {
        writer.null();
    } else if let Ok(flag) = object.cast_exact::<PyBool>() {
        writer.bool(flag.is_true());
    } else if let Ok(number) = object.cast::<PyInt>() {
        match number.extract::<i64>() {
            Ok(small) => writer.int(small),
            Err(_) => writer.digits(&int_digits(number)?),
        }
    } else if let Ok(number) = object.cast::<PyFloat>() {
        writer.float(number.value()).into_py_result(py)?;
    } else if let Ok(list) = object.cast::<PyList>() {
        write_items(list.iter(), list.len(), writer, skip_keys, depth)?;
    } else if let Ok(tuple) = object.cast::<PyTuple>() {
        write_items(tuple.iter(), tuple.len(), writer, skip_keys, depth)?;
    } else if let Ok(dict) = object.cast::<PyDict>() {
        let mut keyed = Vec::with_capacity(dict.len());
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
            keyed.push((
                json2::key_text(&key, writer.style()).into_py_result(py)?,
                key,
                item,
            ));
        }
        json2::order_keys(&mut keyed, writer.style()).into_py_result(py)?;
        if keyed.is_empty() {
            writer.empty_dict();
            return Ok(());
        }
        writer.open_dict();
        for (index, (text, _, item)) in keyed.iter().enumerate() {
            writer.item(index, depth);
            writer.key(text);
            write_object(item, writer, skip_keys, depth + 1)?;
        }
        writer.close_dict(depth);
    } else {
        return Err(PyTypeError::new_err(format!(
            "Object of type {} is not JSON serializable",
            object.get_type().name()?
        )));
    }
    Ok(())
}

fn write_items<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    writer: &mut json2::Writer<'_>,
    skip_keys: bool,
    depth: usize,
) -> PyResult<()> {
    if len == 0 {
        writer.empty_list();
        return Ok(());
    }
    writer.open_list();
    for (index, item) in items.enumerate() {
        writer.item(index, depth);
        write_object(&item, writer, skip_keys, depth + 1)?;
    }
    writer.close_list(depth);
    Ok(())
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

/// What the JSON reader reads, made into the Python objects Python's `json` module makes.
pub struct JsonObjects<'py>(pub Python<'py>);

/// A Python error in making an object, as the codec error the readers pass on.
fn making(error: &PyErr) -> CodecError {
    CodecError::Unsupported(format!("vlen: a Python object could not be made: {error}"))
}

impl<'py> json2::Build for JsonObjects<'py> {
    type Out = Bound<'py, PyAny>;
    fn null(&mut self) -> Result<Self::Out, CodecError> {
        Ok(self.0.None().into_bound(self.0))
    }
    fn bool(&mut self, flag: bool) -> Result<Self::Out, CodecError> {
        Ok(PyBool::new(self.0, flag).to_owned().into_any())
    }
    fn int(&mut self, number: i64) -> Result<Self::Out, CodecError> {
        Ok(number
            .into_pyobject(self.0)
            .map_or_else(|never| match never {}, Bound::into_any))
    }
    fn big_int(&mut self, digits: &str) -> Result<Self::Out, CodecError> {
        self.0
            .get_type::<PyInt>()
            .call1((digits,))
            .map_err(|e| making(&e))
    }
    fn float(&mut self, number: f64) -> Result<Self::Out, CodecError> {
        Ok(PyFloat::new(self.0, number).into_any())
    }
    fn str(&mut self, text: &str) -> Result<Self::Out, CodecError> {
        Ok(PyString::new(self.0, text).into_any())
    }
    fn list(&mut self, items: Vec<Self::Out>) -> Result<Self::Out, CodecError> {
        PyList::new(self.0, items)
            .map(Bound::into_any)
            .map_err(|e| making(&e))
    }
    fn dict(&mut self, items: Vec<(String, Self::Out)>) -> Result<Self::Out, CodecError> {
        let dict = PyDict::new(self.0);
        for (key, item) in items {
            dict.set_item(key, item).map_err(|e| making(&e))?;
        }
        Ok(dict.into_any())
    }
}

/// `object` packed as msgpack's packer packs it, walked straight into `packer`; `TypeError`
/// for what it cannot pack, `OverflowError` for an integer outside 64 bits.
pub fn pack_object(
    object: &Bound<'_, PyAny>,
    packer: &mut msgpack2::Packer,
    depth: usize,
) -> PyResult<()> {
    let py = object.py();
    if depth > msgpack2::MAX_DEPTH {
        return Err(PyValueError::new_err("recursion limit exceeded."));
    }
    if object.is_none() {
        packer.nil();
    } else if let Ok(flag) = object.cast_exact::<PyBool>() {
        packer.bool(flag.is_true());
    } else if let Ok(text) = object.cast::<PyString>() {
        packer.str(text.to_str()?.as_bytes()).into_py_result(py)?;
    } else if let Ok(number) = object.cast::<PyFloat>() {
        packer.f64(number.value()).into_py_result(py)?;
    } else if let Ok(number) = object.cast::<PyInt>() {
        if let Ok(signed) = number.extract::<i64>() {
            packer.int(signed);
        } else {
            let unsigned = number.extract::<u64>().map_err(|_| {
                pyo3::exceptions::PyOverflowError::new_err("Integer value out of range")
            })?;
            packer.uint(unsigned);
        }
    } else if let Ok(bytes) = object.cast::<PyBytes>() {
        packer.bin(bytes.as_bytes()).into_py_result(py)?;
    } else if object.cast::<PyByteArray>().is_ok() || object.cast::<PyMemoryView>().is_ok() {
        packer
            .bin(BytesInput::new(object)?.as_slice())
            .into_py_result(py)?;
    } else if let Ok(dict) = object.cast::<PyDict>() {
        packer.map(dict.len()).into_py_result(py)?;
        for (key, item) in dict.iter() {
            pack_object(&key, packer, depth + 1)?;
            pack_object(&item, packer, depth + 1)?;
        }
    } else if let Ok(list) = object.cast::<PyList>() {
        packer.array(list.len()).into_py_result(py)?;
        for item in list.iter() {
            pack_object(&item, packer, depth + 1)?;
        }
    } else if let Ok(tuple) = object.cast::<PyTuple>() {
        packer.array(tuple.len()).into_py_result(py)?;
        for item in tuple.iter() {
            pack_object(&item, packer, depth + 1)?;
        }
    } else {
        return Err(PyTypeError::new_err(format!(
            "can not serialize {:?} object",
            object.get_type().name()?.to_string()
        )));
    }
    Ok(())
}

/// What the msgpack reader reads, made into the Python objects msgpack's `unpackb(raw=raw)`
/// makes; a string that is not UTF-8 (where `raw` is false) is corrupt input.
pub struct MsgpackObjects<'py> {
    /// The interpreter.
    pub py: Python<'py>,
    /// Strings as `bytes` (msgpack's `raw=True`).
    pub raw: bool,
}

impl<'py> msgpack2::Build for MsgpackObjects<'py> {
    type Out = Bound<'py, PyAny>;
    fn nil(&mut self) -> Result<Self::Out, CodecError> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn bool(&mut self, flag: bool) -> Result<Self::Out, CodecError> {
        Ok(PyBool::new(self.py, flag).to_owned().into_any())
    }
    fn int(&mut self, number: i64) -> Result<Self::Out, CodecError> {
        Ok(number
            .into_pyobject(self.py)
            .map_or_else(|never| match never {}, Bound::into_any))
    }
    fn uint(&mut self, number: u64) -> Result<Self::Out, CodecError> {
        Ok(number
            .into_pyobject(self.py)
            .map_or_else(|never| match never {}, Bound::into_any))
    }
    fn float(&mut self, number: f64) -> Result<Self::Out, CodecError> {
        Ok(PyFloat::new(self.py, number).into_any())
    }
    fn str(&mut self, bytes: &[u8]) -> Result<Self::Out, CodecError> {
        if self.raw {
            return Ok(PyBytes::new(self.py, bytes).into_any());
        }
        let text = std::str::from_utf8(bytes).map_err(|error| {
            CodecError::Corrupt(format!("msgpack2: a string that is not UTF-8: {error}"))
        })?;
        Ok(PyString::new(self.py, text).into_any())
    }
    fn bin(&mut self, bytes: &[u8]) -> Result<Self::Out, CodecError> {
        Ok(PyBytes::new(self.py, bytes).into_any())
    }
    fn array(&mut self, items: Vec<Self::Out>) -> Result<Self::Out, CodecError> {
        PyList::new(self.py, items)
            .map(Bound::into_any)
            .map_err(|e| making(&e))
    }
    fn map(&mut self, pairs: Vec<(Self::Out, Self::Out)>) -> Result<Self::Out, CodecError> {
        let dict = PyDict::new(self.py);
        for (key, item) in pairs {
            dict.set_item(key, item).map_err(|e| making(&e))?;
        }
        Ok(dict.into_any())
    }
}
