//! `zarr_codec_cast_value._cast_value`: the compiled half of the `zarr-codec-cast-value` wheel.
//!
//! `bind` gives a configured codec bound to an array's data type (both casts planned once), as
//! the glue's element-wise binding (`zarr_codec_python::PyArrayCodec`), which does the rest.

use std::sync::Arc;

use numpy::PyArrayDescr;
use pyo3::prelude::*;
use zarr_codec_cast_value::{CastValue, Direction};
use zarr_codec_python::{
    IntoPyResult, PyArrayCodec, add_configuration_functions, codec_from_v3, data_type_of, to_py_err,
};
use zarr_codec_shapes::CodecError;

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
    let codec: CastValue = codec_from_v3("cast_value", configuration).into_py_result(py)?;
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

#[pymodule]
fn _cast_value(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(bind, module)?)?;
    add_configuration_functions(module, "cast_value", CastValue::encoded_fill_value)
}
