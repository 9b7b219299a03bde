//! `zarr_codec_cast_value._cast_value`: the compiled half of the `zarr-codec-cast-value` wheel.
//!
//! `bind` gives a configured codec bound to an array's data type (both casts planned once), as
//! the glue's element-wise binding (`zarr_codec_python::PyArrayCodec`), which does the rest.

use std::sync::Arc;

use numpy::PyArrayDescr;
use pyo3::prelude::*;
use zarr_codec_cast_value::{CastValue, Direction};
use zarr_codec_python::{IntoPyResult, PyArrayCodec, data_type_of, to_py_err, transform_fill_json};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{CodecError, CodecFromJson, Result as CodecResult};

fn codec_from(configuration: &str) -> CodecResult<CastValue> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("cast_value: invalid JSON: {err}")))?;
    CastValue::from_json(&json, ZarrFormat::V3)
}

/// The codec of v3 JSON `configuration` (a string) bound to arrays of numpy type `dtype`, as the
/// glue's element-wise binding: encoding casts them to the codec's `data_type` (`encoded_dtype`,
/// its numpy type), decoding casts back.
#[pyfunction]
fn bind(
    py: Python<'_>,
    configuration: &str,
    dtype: &Bound<'_, PyArrayDescr>,
    encoded_dtype: &Bound<'_, PyArrayDescr>,
) -> PyResult<PyArrayCodec> {
    let codec = codec_from(configuration).into_py_result(py)?;
    let (array_type, codec_type) = (data_type_of(dtype)?, data_type_of(encoded_dtype)?);
    if codec_type != codec.data_type() {
        let message = format!(
            "cast_value: the codec's data_type is {}, not {codec_type}",
            codec.data_type()
        );
        return Err(to_py_err(py, &CodecError::configuration(message)));
    }
    let encode = Arc::new(
        codec
            .plan(array_type, Direction::Encode)
            .into_py_result(py)?,
    );
    let decode = Arc::new(
        codec
            .plan(array_type, Direction::Decode)
            .into_py_result(py)?,
    );
    Ok(PyArrayCodec::new(
        "cast_value",
        Arc::new(move |input: &[u8], output: &mut [u8]| encode.apply(input, output)),
        Arc::new(move |input: &[u8], output: &mut [u8]| decode.apply(input, output)),
        (array_type, dtype.clone()),
        (codec_type, encoded_dtype.clone()),
    ))
}

/// Check a codec's v3 JSON (a string); raises `ConfigurationError` when invalid.
#[pyfunction]
fn check_configuration(py: Python<'_>, configuration: &str) -> PyResult<()> {
    codec_from(configuration).into_py_result(py).map(|_| ())
}

/// The encoded array's fill value (v3 JSON, as a string) for an array of `data_type` whose
/// fill value is `fill` (JSON string); `ConfigurationError` when it cannot round-trip.
#[pyfunction]
fn encoded_fill_value(
    py: Python<'_>,
    configuration: &str,
    data_type: &str,
    fill: &str,
) -> PyResult<String> {
    transform_fill_json(data_type, fill, |fill| {
        codec_from(configuration)?.encoded_fill_value(fill)
    })
    .into_py_result(py)
}

#[pymodule]
fn _cast_value(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(bind, module)?)?;
    module.add_function(wrap_pyfunction!(check_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encoded_fill_value, module)?)?;
    Ok(())
}
