//! `zarr_codec_pcodec._pcodec`: the compiled half of the `zarr-codec-pcodec` wheel, over
//! `crates/zarr-codec-pcodec` (pco 1.1). Each call works with the GIL released.
//!
//! - `encode(json, zarr_format, array)`: an array of numbers as one pco file;
//! - `decode_into(data, out)`: a pco file's numbers into a caller's array of their type and
//!   count;
//! - `stored_type(data)`: the Zarr data type a pco file holds.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

use zarr_codec_pcodec::{PCodec, PcodecElements};
use zarr_codec_python::{BytesInput, IntoPyResult, PyBytesCodec, parse_codec_json, run};
use zarr_codec_shapes::DataType;

zarr_codec_python::array_bytes_functions!(PCodec, r#"{"id": "pcodec"}"#);

/// All the numbers of pco `data` as `(data type name, bytes)` (`None`: a file of none), as
/// numcodecs decodes without an output array.
#[pyfunction]
fn decode_all<'py>(data: &Bound<'py, PyAny>) -> PyResult<Option<(String, Bound<'py, PyBytes>)>> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let found = run(py, || PCodec::decode_all(bytes, None))?;
    Ok(found.map(|(data_type, bytes)| (data_type.to_string(), PyBytes::new(py, &bytes))))
}

/// The codec of metadata `json` over chunks of `data_type` (a Zarr data type name) as a
/// compiled bytes codec of their element bytes (this machine's order), for codec chains.
#[pyfunction]
fn element_codec(
    py: Python<'_>,
    json: &str,
    zarr_format: u8,
    data_type: &str,
) -> PyResult<PyBytesCodec> {
    let codec: PCodec = parse_codec_json(py, json, zarr_format)?;
    let data_type = DataType::from_name(data_type).into_py_result(py)?;
    let elements = PcodecElements::new(codec, data_type).into_py_result(py)?;
    PyBytesCodec::new(Arc::new(elements)).into_py_result(py)
}

/// How many numbers pco `data` says it holds (0: no hint), to size an output.
#[pyfunction]
fn count_hint(data: &Bound<'_, PyAny>) -> PyResult<usize> {
    let input = BytesInput::new(data)?;
    PCodec::count_hint(input.as_slice()).into_py_result(data.py())
}

/// The Zarr data type name of the numbers pco `data` holds (`None`: a file of none).
#[pyfunction]
fn stored_type(data: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let input = BytesInput::new(data)?;
    let found = PCodec::stored_type(input.as_slice()).into_py_result(data.py())?;
    Ok(found.map(|data_type| data_type.to_string()))
}

#[pymodule]
fn _pcodec(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("ENGINE", "pco 1.1.0")?;
    for function in [
        wrap_pyfunction!(encode, module)?,
        wrap_pyfunction!(decode_into, module)?,
        wrap_pyfunction!(stored_type, module)?,
        wrap_pyfunction!(decode_all, module)?,
        wrap_pyfunction!(element_codec, module)?,
        wrap_pyfunction!(count_hint, module)?,
    ] {
        module.add_function(function)?;
    }
    Ok(())
}
