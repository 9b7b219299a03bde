//! `zarr_codec_vlen._vlen`: the compiled half of the `zarr-codec-vlen` wheel.
//!
//! - `base64(json, zarr_format)`: the glue's generic bytes-codec binding;
//! - `encode_utf8`, `decode_utf8`, `encode_bytes`, `decode_bytes`: numcodecs' vlen layout
//!   between object arrays (of `str` or `bytes`) and bytes;
//! - `decode_utf8_into`, `encode_utf8_strings`: the same layout straight into and out of
//!   numpy `StringDType` arrays (see `string_dtype`).

mod objects;
mod string_dtype;

use numpy::{PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use rustc_hash::{FxBuildHasher, FxHashMap};
use zarr_codec_python::{BytesInput, IntoPyResult};
use zarr_codec_vlen::{VlenBytes, VlenUtf8, framing};

/// Whether numcodecs stores `item` as an empty string: `None`, or (`zero`) anything equal to
/// 0 (an object whose comparison has no truth value, an array of several elements, is not).
fn missing(item: &Bound<'_, PyAny>, zero: bool) -> bool {
    if item.is_none() {
        return true;
    }
    // str and bytes never equal 0: no Python comparison for the items arrays hold.
    if !zero || item.is_exact_instance_of::<PyBytes>() || item.is_exact_instance_of::<PyString>() {
        return false;
    }
    item.eq(0).unwrap_or(false)
}

/// The strings of `values` (an iterable of `str`; `None` and 0 are stored as empty strings,
/// as numcodecs stores them) in numcodecs' vlen-utf8 layout.
#[pyfunction]
fn encode_utf8<'py>(values: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let py = values.py();
    let items: Vec<Bound<'py, PyAny>> = values.try_iter()?.collect::<PyResult<_>>()?;
    let mut strings = Vec::with_capacity(items.len());
    for item in &items {
        if missing(item, true) {
            strings.push("");
        } else {
            strings.push(item.cast::<PyString>()?.to_str()?);
        }
    }
    let encoded = VlenUtf8
        .encode(strings.iter().copied())
        .into_py_result(py)?;
    Ok(PyBytes::new(py, &encoded))
}

/// One item's bytes, as held.
enum Source<'a> {
    Empty,
    Bytes(&'a [u8]),
    Buffer(BytesInput),
}

impl Source<'_> {
    fn as_slice(&self) -> &[u8] {
        match self {
            Self::Empty => &[],
            Self::Bytes(bytes) => bytes,
            Self::Buffer(buffer) => buffer.as_slice(),
        }
    }
}

/// The byte strings of `values` (an iterable of objects with the buffer protocol; `None`, and
/// with `zero` anything equal to 0, stored as empty) in numcodecs' vlen-bytes layout.
#[pyfunction]
#[pyo3(signature = (values, zero=true))]
fn encode_bytes<'py>(values: &Bound<'py, PyAny>, zero: bool) -> PyResult<Bound<'py, PyBytes>> {
    let py = values.py();
    let items: Vec<Bound<'py, PyAny>> = values.try_iter()?.collect::<PyResult<_>>()?;
    // `bytes` items (what object arrays hold) are read in place; other buffers through the
    // buffer protocol.
    let mut inputs = Vec::with_capacity(items.len());
    for item in &items {
        inputs.push(if missing(item, zero) {
            Source::Empty
        } else if let Ok(bytes) = item.cast_exact::<PyBytes>() {
            Source::Bytes(bytes.as_bytes())
        } else {
            Source::Buffer(BytesInput::new(item)?)
        });
    }
    let slices: Vec<&[u8]> = inputs.iter().map(Source::as_slice).collect();
    let encoded = VlenBytes
        .encode(slices.iter().copied())
        .into_py_result(py)?;
    Ok(PyBytes::new(py, &encoded))
}

/// The strings of vlen-utf8 `data` as a new object array; `CorruptInputError` for truncated
/// data or an item that is not UTF-8.
#[pyfunction]
fn decode_utf8<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let items = zarr_codec_vlen::framing::decode(input.as_slice()).into_py_result(py)?;
    let mut shared = Shared::new(items.len());
    object_array(py, items.len(), |index| {
        let item = items[index];
        shared.get_or_make(py, item, || Ok(utf8_str(py, item, index)?.unbind()))
    })
}

/// A numpy object array of `count` items, item `i` made by `make(i)` and written straight
/// into numpy's memory: numpy owns every item from the start and frees them on its own fast
/// path (a `Vec` handed to numpy would free them through Rust, one thread-local check each).
/// On an error the items made so far stay in the array, which is dropped.
fn object_array(
    py: Python<'_>,
    count: usize,
    mut make: impl FnMut(usize) -> PyResult<Py<PyAny>>,
) -> PyResult<Bound<'_, PyArray1<Py<PyAny>>>> {
    // SAFETY: numpy fills a new object array with null pointers, which it drops safely; each
    // slot below is written once, over its null, with a new reference.
    let array = unsafe { PyArray1::<Py<PyAny>>::new(py, [count], false) };
    let slots = array.data();
    for index in 0..count {
        let object = make(index)?;
        // SAFETY: `index < count`, the array's length, and the array is C-contiguous (new);
        // the slot holds a null pointer, so nothing is overwritten without its drop.
        unsafe { slots.add(index).write(object) };
    }
    Ok(array)
}

/// Equal short items decoded into one shared `str` (as pyarrow's `to_pandas` deduplicates
/// strings): string arrays are mostly labels that repeat, and a hash lookup costs less than
/// decoding and making a string. `str` is immutable, so sharing is invisible to the array's
/// user. Where the first items show few repeats, it stops looking and makes each one; chunks
/// of fewer than [`Shared::FEWEST`] items never look (measured: the lookups cost more there).
struct Shared<'a> {
    made: FxHashMap<&'a [u8], Py<PyAny>>,
    looked: usize,
    found: usize,
    off: bool,
}

impl<'a> Shared<'a> {
    /// Items longer than this are made each time: long strings rarely repeat.
    const LONGEST: usize = 32;
    /// Items looked up before deciding whether looking pays.
    const TRIAL: usize = 1024;
    /// Chunks of fewer items make every string.
    const FEWEST: usize = 2048;
    /// The most strings kept for sharing (memory stays bounded on unique data).
    const MOST: usize = 1 << 16;

    /// Sharing among `count` items.
    fn new(count: usize) -> Self {
        Self {
            made: if count < Self::FEWEST {
                FxHashMap::default()
            } else {
                FxHashMap::with_capacity_and_hasher(Self::TRIAL, FxBuildHasher)
            },
            looked: 0,
            found: 0,
            off: count < Self::FEWEST,
        }
    }

    /// The object of `item`: one made before for equal bytes, or `make`'s.
    fn get_or_make(
        &mut self,
        py: Python<'_>,
        item: &'a [u8],
        make: impl FnOnce() -> PyResult<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if self.off || item.len() > Self::LONGEST {
            return make();
        }
        self.looked += 1;
        if let Some(made) = self.made.get(item) {
            self.found += 1;
            return Ok(made.clone_ref(py));
        }
        let object = make()?;
        if self.looked == Self::TRIAL && self.found * 8 < self.looked {
            // Fewer than one in eight repeats: making every string is cheaper.
            self.off = true;
            self.made = FxHashMap::default();
        } else if self.made.len() < Self::MOST {
            self.made.insert(item, object.clone_ref(py));
        }
        Ok(object)
    }
}

/// One item as a `str`, UTF-8 checked once, by Python's own decoder (its ASCII fast path);
/// `CorruptInputError` naming the item when it is not UTF-8.
fn utf8_str<'py>(py: Python<'py>, item: &[u8], index: usize) -> PyResult<Bound<'py, PyAny>> {
    let len = pyo3::ffi::Py_ssize_t::try_from(item.len())
        .map_err(|_| PyValueError::new_err("vlen-utf8: an item too long for a str"))?;
    // SAFETY: `item` is valid for reads of `len` bytes; PyUnicode_DecodeUTF8 copies them into
    // a new object (or returns NULL with an exception set), holding the GIL as `py` proves.
    let raw =
        unsafe { pyo3::ffi::PyUnicode_DecodeUTF8(item.as_ptr().cast(), len, c"strict".as_ptr()) };
    if raw.is_null() {
        let error = zarr_codec_shapes::CodecError::corrupt(format!(
            "vlen-utf8: item {index} is not UTF-8: {}",
            PyErr::take(py).map_or_else(String::new, |err| err.to_string())
        ));
        return Err(zarr_codec_python::to_py_err(py, &error));
    }
    // SAFETY: a new, owned reference returned by the call above.
    Ok(unsafe { Bound::from_owned_ptr(py, raw) })
}

/// The byte strings of vlen-bytes `data` as a new object array.
#[pyfunction]
fn decode_bytes<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let items = VlenBytes.decode(input.as_slice()).into_py_result(py)?;
    let mut shared = Shared::new(items.len());
    object_array(py, items.len(), |index| {
        let item = items[index];
        shared.get_or_make(py, item, || Ok(PyBytes::new(py, item).into_any().unbind()))
    })
}

/// The strings of vlen-utf8 `data` packed into `out`, a C-contiguous writable numpy
/// `StringDType` array of as many items; `CorruptInputError` for truncated data or an item
/// that is not UTF-8 (then `out` is left as it was).
#[pyfunction]
fn decode_utf8_into(data: &Bound<'_, PyAny>, out: &Bound<'_, PyUntypedArray>) -> PyResult<()> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let strings = VlenUtf8.decode(input.as_slice()).into_py_result(py)?;
    string_dtype::fill(out, strings.into_iter())
}

/// The strings of `values`, a C-contiguous numpy `StringDType` array (a missing value stored
/// as empty, as numcodecs stores `None`), in numcodecs' vlen-utf8 layout.
#[pyfunction]
fn encode_utf8_strings<'py>(values: &Bound<'py, PyUntypedArray>) -> PyResult<Bound<'py, PyBytes>> {
    let py = values.py();
    let mut writer = framing::Writer::new(values.len()).into_py_result(py)?;
    string_dtype::each(values, |item| writer.push(item).into_py_result(py))?;
    let encoded = writer.finish().into_py_result(py)?;
    Ok(PyBytes::new(py, &encoded))
}

/// `items` as JSON text, as Python's `json.JSONEncoder` with these options writes it
/// (numcodecs' `JSON` codec); `TypeError` for objects it cannot write.
#[pyfunction]
#[pyo3(signature = (items, ensure_ascii, allow_nan, sort_keys, indent, separators, skip_keys))]
#[allow(clippy::fn_params_excessive_bools)]
fn json2_encode(
    items: &Bound<'_, PyAny>,
    ensure_ascii: bool,
    allow_nan: bool,
    sort_keys: bool,
    indent: Option<String>,
    separators: (String, String),
    skip_keys: bool,
) -> PyResult<String> {
    let style = zarr_codec_vlen::json2::Style {
        ensure_ascii,
        allow_nan,
        sort_keys,
        indent,
        separators,
    };
    let mut writer = zarr_codec_vlen::json2::Writer::new(&style);
    objects::write_object(items, &mut writer, skip_keys, 0)?;
    Ok(writer.finish())
}

/// The Python objects of JSON `text`, as `json.loads(text, strict=strict)` reads them;
/// `CorruptInputError` for text that is not JSON.
#[pyfunction]
fn json2_decode<'py>(py: Python<'py>, text: &str, strict: bool) -> PyResult<Bound<'py, PyAny>> {
    zarr_codec_vlen::json2::read_with(text, strict, &mut objects::JsonObjects(py))
        .into_py_result(py)
}

/// `items` packed as msgpack's `packb(items, use_bin_type=..., use_single_float=...)`.
#[pyfunction]
fn msgpack2_encode<'py>(
    items: &Bound<'py, PyAny>,
    use_bin_type: bool,
    use_single_float: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut packer = zarr_codec_vlen::msgpack2::Packer::new(zarr_codec_vlen::msgpack2::Packing {
        use_bin_type,
        use_single_float,
    });
    objects::pack_object(items, &mut packer, 0)?;
    Ok(PyBytes::new(items.py(), &packer.finish()))
}

/// The Python objects of msgpack `data`, as msgpack's `unpackb(data, raw=raw)` reads them;
/// `CorruptInputError` for data that is not one whole value.
#[pyfunction]
fn msgpack2_decode<'py>(data: &Bound<'py, PyAny>, raw: bool) -> PyResult<Bound<'py, PyAny>> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let mut builder = objects::MsgpackObjects { py, raw };
    zarr_codec_vlen::msgpack2::unpack_with(input.as_slice(), &mut builder).into_py_result(py)
}

/// numcodecs' `Categorize` labels, for the codes of strings (see
/// `zarr_codec_vlen::Categorize`).
#[pyclass(frozen, module = "zarr_codec_vlen._vlen")]
struct Categorizer(zarr_codec_vlen::Categorize);

#[pymethods]
impl Categorizer {
    #[new]
    fn new(labels: Vec<String>) -> Self {
        Self(zarr_codec_vlen::Categorize::new(labels))
    }

    /// Each item's code (`1 +` its label's position, 0 for none) as `uint64`: `items` an
    /// iterable of objects (`str` items matched, anything else 0), or with `width` a `uint32`
    /// array of numpy `U` items of `width` code points each.
    #[pyo3(signature = (items, width=None))]
    fn codes<'py>(
        &self,
        items: &Bound<'py, PyAny>,
        width: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let py = items.py();
        let Some(width) = width else {
            let mut codes = Vec::new();
            for item in items.try_iter()? {
                let item = item?;
                let text = item.cast::<PyString>().ok().and_then(|s| s.to_str().ok());
                codes.push(self.0.code(text));
            }
            return Ok(PyArray1::from_vec(py, codes));
        };
        let chars = items.cast::<PyArray1<u32>>()?.readonly();
        let chars = chars.as_slice()?;
        let count = chars.len().checked_div(width).unwrap_or(0);
        let mut codes = vec![0u64; count];
        self.0
            .encode_chars(chars, width, &mut codes)
            .into_py_result(py)?;
        Ok(PyArray1::from_vec(py, codes))
    }
}

/// The item count vlen `data` declares (checked against its length).
#[pyfunction]
fn item_count(data: &Bound<'_, PyAny>) -> PyResult<usize> {
    let input = BytesInput::new(data)?;
    zarr_codec_vlen::framing::count(input.as_slice()).into_py_result(data.py())
}

#[pymodule]
fn _vlen(module: &Bound<'_, PyModule>) -> PyResult<()> {
    for function in [
        wrap_pyfunction!(encode_utf8, module)?,
        wrap_pyfunction!(decode_utf8, module)?,
        wrap_pyfunction!(encode_bytes, module)?,
        wrap_pyfunction!(decode_bytes, module)?,
        wrap_pyfunction!(item_count, module)?,
        wrap_pyfunction!(decode_utf8_into, module)?,
        wrap_pyfunction!(encode_utf8_strings, module)?,
        wrap_pyfunction!(json2_encode, module)?,
        wrap_pyfunction!(json2_decode, module)?,
        wrap_pyfunction!(msgpack2_encode, module)?,
        wrap_pyfunction!(msgpack2_decode, module)?,
    ] {
        module.add_function(function)?;
    }
    module.add_class::<Categorizer>()?;
    zarr_codec_python::add_bytes_codec::<zarr_codec_vlen::Base64>(module, c"base64")
}
