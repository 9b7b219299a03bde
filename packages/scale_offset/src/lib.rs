//! `zarr_codec_scale_offset._scale_offset`: the compiled half of the `zarr-codec-scale-offset`
//! wheel. `bind` (and `legacy`, numcodecs' fixedscaleoffset) gives a configured codec, fused with
//! a following `cast_value` or not, bound to an array's data type, as the glue's element-wise
//! binding (`zarr_codec_python::PyArrayCodec`), which does the rest.

use std::sync::Arc;

use numpy::PyArrayDescr;
use pyo3::prelude::*;
use zarr_codec_cast_value::CastValue;
use zarr_codec_python::{
    IntoPyResult, PyArrayCodec, add_configuration_functions, codec_from_v3, data_type_of, to_py_err,
};
use zarr_codec_scale_offset::{FixedScaleOffset, ScaleOffset, ScaleOffsetCast};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{CodecError, CodecFromJson, DataType, Result as CodecResult};

/// What a [`Plan`] runs: `scale_offset` alone, fused with the `cast_value` after it, or
/// numcodecs' `fixedscaleoffset`.
enum Transform {
    Alone(zarr_codec_scale_offset::Affine),
    Fused(Box<ScaleOffsetCast>),
    Legacy(Box<FixedScaleOffset>),
}

impl Transform {
    /// The codec named in errors.
    fn name(&self) -> &'static str {
        match self {
            Self::Alone(_) | Self::Fused(_) => "scale_offset",
            Self::Legacy(_) => "fixedscaleoffset",
        }
    }

    fn encode(&self, input: &[u8], output: &mut [u8]) -> CodecResult<()> {
        match self {
            Self::Alone(affine) => affine.encode(input, output),
            Self::Fused(fused) => fused.encode(input, output),
            Self::Legacy(legacy) => legacy.encode_elements(input, output),
        }
    }

    fn decode(&self, input: &[u8], output: &mut [u8]) -> CodecResult<()> {
        match self {
            Self::Alone(affine) => affine.decode(input, output),
            Self::Fused(fused) => fused.decode(input, output),
            Self::Legacy(legacy) => legacy.decode_elements(input, output),
        }
    }
}

/// A `scale_offset` codec, optionally followed by `cast_value` (run fused, in one pass),
/// bound to one array data type.
impl Transform {
    /// The binding of this transformation between arrays of `decoded` and `encoded`.
    fn bound(
        self,
        decoded: (DataType, Bound<'_, PyArrayDescr>),
        encoded: (DataType, Bound<'_, PyArrayDescr>),
    ) -> PyArrayCodec {
        let name = self.name();
        let forth = Arc::new(self);
        let back = Arc::clone(&forth);
        PyArrayCodec::new(
            name,
            Arc::new(move |input: &[u8], output: &mut [u8]| forth.encode(input, output)),
            Arc::new(move |input: &[u8], output: &mut [u8]| back.decode(input, output)),
            decoded,
            encoded,
        )
    }
}

/// The codec of v3 JSON `configuration` (a string) bound to arrays of numpy type `dtype`; with a
/// following `cast_value` (its JSON) and the encoded dtype, the two fused into one pass. The
/// glue's element-wise binding does the rest.
#[pyfunction]
#[pyo3(signature = (configuration, dtype, cast_value=None, encoded_dtype=None))]
fn bind(
    py: Python<'_>,
    configuration: &str,
    dtype: &Bound<'_, PyArrayDescr>,
    cast_value: Option<&str>,
    encoded_dtype: Option<&Bound<'_, PyArrayDescr>>,
) -> PyResult<PyArrayCodec> {
    let codec: ScaleOffset = codec_from_v3("scale_offset", configuration).into_py_result(py)?;
    let data_type = data_type_of(dtype)?;
    let decoded = (data_type, dtype.clone());
    let Some(cast_value) = cast_value else {
        let affine = codec.bind(data_type).into_py_result(py)?;
        return Ok(Transform::Alone(affine).bound(decoded, (data_type, dtype.clone())));
    };
    let cast: CastValue = codec_from_v3("cast_value", cast_value).into_py_result(py)?;
    let fused = ScaleOffsetCast::new(&codec, &cast, data_type).into_py_result(py)?;
    let encoded_dtype = encoded_dtype.ok_or_else(|| {
        to_py_err(
            py,
            &CodecError::configuration("scale_offset: fusing needs encoded_dtype"),
        )
    })?;
    if data_type_of(encoded_dtype)? != fused.encoded_type() {
        let message = format!("cast_value casts to {}", fused.encoded_type());
        return Err(to_py_err(py, &CodecError::configuration(message)));
    }
    let encoded = (fused.encoded_type(), encoded_dtype.clone());
    Ok(Transform::Fused(Box::new(fused)).bound(decoded, encoded))
}

/// numcodecs' `fixedscaleoffset` from its v2 JSON (a string), from `dtype` (its `dtype`) into
/// `encoded_dtype` (its `astype`), both native order.
#[pyfunction]
fn legacy(
    py: Python<'_>,
    configuration: &str,
    dtype: &Bound<'_, PyArrayDescr>,
    encoded_dtype: &Bound<'_, PyArrayDescr>,
) -> PyResult<PyArrayCodec> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("fixedscaleoffset: {err}")))
        .into_py_result(py)?;
    let codec = FixedScaleOffset::from_json(&json, ZarrFormat::V2).into_py_result(py)?;
    let (data_type, astype) = (data_type_of(dtype)?, data_type_of(encoded_dtype)?);
    if (data_type, astype) != (codec.data_type(), codec.encoded_type()) {
        let message = format!(
            "fixedscaleoffset: dtypes {data_type} and {astype} given for {} and {}",
            codec.data_type(),
            codec.encoded_type()
        );
        return Err(to_py_err(py, &CodecError::configuration(message)));
    }
    let (decoded, encoded) = ((data_type, dtype.clone()), (astype, encoded_dtype.clone()));
    Ok(Transform::Legacy(Box::new(codec)).bound(decoded, encoded))
}

#[pymodule]
fn _scale_offset(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(bind, module)?)?;
    module.add_function(wrap_pyfunction!(legacy, module)?)?;
    add_configuration_functions(module, "scale_offset", ScaleOffset::encoded_fill_value)
}
