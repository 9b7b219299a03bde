//! `zarr_codec_zfpy._zfpy`: the compiled half of the `zarr-codec-zfpy` wheel, over
//! `crates/zarr-codec-zfpy` (zfp 1.0.1). Each call works with the GIL released.
//!
//! - `encode(json, zarr_format, array)`: an array of one to four dimensions as one zfp stream
//!   with its full header;
//! - `decode_into(data, out)`: a stream into a caller's array of its type and shape;
//! - `decode_any(data, limit)`: a whole stream, as numcodecs decodes without an output array;
//! - `element_codec(json, zarr_format, data_type, shape)`: the codec as a compiled bytes codec
//!   of a chunk's element bytes, for codec chains.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zarr_codec_python::{BytesInput, IntoPyResult, PyBytesCodec, parse_codec_json, run};
use zarr_codec_shapes::DataType;
use zarr_codec_zfpy::{Zfpy, ZfpyElements};

zarr_codec_python::array_bytes_functions!(Zfpy, r#"{"id": "zfpy"}"#);

/// A whole stream: `(data type name, shape, bytes)`, refused beyond `limit` bytes.
#[pyfunction]
#[pyo3(signature = (data, limit=None))]
fn decode_any<'py>(
    data: &Bound<'py, PyAny>,
    limit: Option<usize>,
) -> PyResult<(String, Vec<usize>, Bound<'py, PyBytes>)> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let (data_type, shape, values) = run(py, || Zfpy::decode_any(bytes, limit))?;
    Ok((data_type.to_string(), shape, PyBytes::new(py, &values)))
}

/// The Zarr data type name and shape (C order) a stream's full header states.
#[pyfunction]
fn header(data: &Bound<'_, PyAny>) -> PyResult<(String, Vec<usize>)> {
    let input = BytesInput::new(data)?;
    let (data_type, shape) = Zfpy::header(input.as_slice()).into_py_result(data.py())?;
    Ok((data_type.to_string(), shape))
}

/// The codec of metadata `json` over chunks of `data_type` (a Zarr data type name) and `shape`
/// as a compiled bytes codec of their element bytes (this machine's order).
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // pyo3 extracts the list into a Vec
fn element_codec(
    py: Python<'_>,
    json: &str,
    zarr_format: u8,
    data_type: &str,
    shape: Vec<usize>, // pyo3 takes a list as a Vec
) -> PyResult<PyBytesCodec> {
    let codec: Zfpy = parse_codec_json(py, json, zarr_format)?;
    let data_type = DataType::from_name(data_type).into_py_result(py)?;
    let elements = ZfpyElements::new(codec, data_type, &shape).into_py_result(py)?;
    PyBytesCodec::new(Arc::new(elements)).into_py_result(py)
}

#[pymodule]
fn _zfpy(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("ENGINE", "zfp 1.0.1")?;
    for function in [
        wrap_pyfunction!(encode, module)?,
        wrap_pyfunction!(decode_into, module)?,
        wrap_pyfunction!(decode_any, module)?,
        wrap_pyfunction!(element_codec, module)?,
        wrap_pyfunction!(header, module)?,
    ] {
        module.add_function(function)?;
    }
    Ok(())
}
