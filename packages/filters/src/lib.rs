//! `zarr_codec_filters._filters`: the compiled half of the `zarr-codec-filters` wheel.
//!
//! - `shuffle(json, zarr_format)`: the glue's generic bytes-codec binding.
//! - `bind(json, dtype)`: delta, bitround, quantize or astype (their v2 JSON) bound to arrays
//!   of numpy type `dtype`, as the glue's element-wise array binding (one chunk, into the
//!   caller's array, batches, chain kernels, the GIL released).
//! - `pack_bits`, `unpack_bits` and their kernels: packbits, whose chunks change length.

use std::sync::Arc;

use numpy::PyArrayDescr;
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use zarr_codec_filters::packbits::{pack, packed_len, unpack, unpacked_len};
use zarr_codec_filters::{AsType, BitRound, Delta, ElementFilter, Quantize};
use zarr_codec_python::{
    ArrayInput, IntoPyResult, PyArrayCodec, array_kernel, data_type_of, dtype_of, new_array, run,
};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{CodecError, DataType, Result as CodecResult};

/// One element filter bound to arrays of `dtype`, as the glue's element-wise binding.
fn bound<F>(filter: F, dtype: &Bound<'_, PyArrayDescr>) -> PyResult<PyArrayCodec>
where
    F: ElementFilter + Send + Sync + 'static,
{
    let py = dtype.py();
    let data_type = data_type_of(dtype)?;
    let encoded = filter.encoded_type(data_type).into_py_result(py)?;
    let encoded_dtype = PyArrayDescr::new(py, encoded.name())?;
    let forth = Arc::new(filter);
    let back = Arc::clone(&forth);
    Ok(PyArrayCodec::new(
        F::ID,
        Arc::new(move |input: &[u8], output: &mut [u8]| {
            forth.encode_elements(data_type, input, output)
        }),
        Arc::new(move |input: &[u8], output: &mut [u8]| {
            back.decode_elements(data_type, input, output)
        }),
        (data_type, dtype.clone()),
        (encoded, encoded_dtype),
    ))
}

/// The filter of v2 JSON `configuration` (a string: delta, bitround, quantize or astype)
/// bound to arrays of numpy type `dtype`.
#[pyfunction]
fn bind(
    py: Python<'_>,
    configuration: &str,
    dtype: &Bound<'_, PyArrayDescr>,
) -> PyResult<PyArrayCodec> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("invalid filter JSON: {err}")))
        .into_py_result(py)?;
    let id = json.get("id").and_then(serde_json::Value::as_str);
    let format = ZarrFormat::V2;
    match id {
        Some(Delta::ID) => bound(element_filter::<Delta>(&json, format, py)?, dtype),
        Some(BitRound::ID) => bound(element_filter::<BitRound>(&json, format, py)?, dtype),
        Some(Quantize::ID) => bound(element_filter::<Quantize>(&json, format, py)?, dtype),
        Some(AsType::ID) => bound(element_filter::<AsType>(&json, format, py)?, dtype),
        _ => Err(CodecError::configuration(format!(
            "not an element filter: {configuration}"
        )))
        .into_py_result(py),
    }
}

fn element_filter<F: ElementFilter>(
    json: &serde_json::Value,
    format: ZarrFormat,
    py: Python<'_>,
) -> PyResult<F> {
    zarr_codec_filters::element_filter::from_json(json, format).into_py_result(py)
}

/// numcodecs' packbits: `array` (booleans, any shape, flattened in C order) packed into a
/// new `uint8` array of `1 + ceil(n / 8)` bytes.
#[pyfunction]
fn pack_bits<'py>(array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = array.py();
    let input = ArrayInput::new(array)?;
    if input.data_type() != DataType::Bool {
        let message = format!("packbits: expected a bool array, got {}", input.data_type());
        return Err(CodecError::unsupported(message)).into_py_result(py);
    }
    let dtype = dtype_of(py, DataType::UInt8)?;
    let mut output = new_array(&dtype, &[packed_len(input.as_bytes().len())])?;
    let (source, target) = (input.as_bytes(), output.as_mut_bytes());
    run(py, || pack(source, target))?;
    Ok(output.into_array())
}

/// `array` (packed bytes, the padding byte first) unpacked into a new bool array.
#[pyfunction]
fn unpack_bits<'py>(array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = array.py();
    let input = ArrayInput::new(array)?;
    let bytes = input.as_bytes();
    let count = unpacked_len(bytes).into_py_result(py)?;
    let dtype = dtype_of(py, DataType::Bool)?;
    let mut output = new_array(&dtype, &[count])?;
    let target = output.as_mut_bytes();
    run(py, || unpack(bytes, target))?;
    Ok(output.into_array())
}

/// Packing as a chain kernel (the runtime sizes the output from the resolved spec).
#[pyfunction]
fn pack_bits_kernel(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
    array_kernel(py, |input: &[u8], output: &mut [u8]| -> CodecResult<()> {
        pack(input, output)
    })
}

/// Unpacking as a chain kernel.
#[pyfunction]
fn unpack_bits_kernel(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
    array_kernel(py, |input: &[u8], output: &mut [u8]| -> CodecResult<()> {
        unpack(input, output)
    })
}

#[pymodule]
fn _filters(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(bind, module)?)?;
    for function in [
        wrap_pyfunction!(pack_bits, module)?,
        wrap_pyfunction!(unpack_bits, module)?,
        wrap_pyfunction!(pack_bits_kernel, module)?,
        wrap_pyfunction!(unpack_bits_kernel, module)?,
    ] {
        module.add_function(function)?;
    }
    zarr_codec_python::add_bytes_codec::<zarr_codec_filters::Shuffle>(module, c"shuffle")
}
