//! `zarr_codec_scale_offset._scale_offset`: the compiled half of the `zarr-codec-scale-offset`
//! wheel. A [`Plan`] is a configured codec (fused with a following `cast_value` or not) bound
//! to the array's data type; the array handling is `zarr_codec_python::Elementwise`.

use std::sync::Arc;

use numpy::{PyArrayDescr, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList};
use zarr_codec_cast_value::CastValue;
use zarr_codec_python::{Elementwise, IntoPyResult, data_type_of, to_py_err, transform_fill_json};
use zarr_codec_scale_offset::{FixedScaleOffset, ScaleOffset, ScaleOffsetCast};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{CodecError, CodecFromJson, DataType, Result as CodecResult};

fn codec_from(configuration: &str) -> CodecResult<ScaleOffset> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("scale_offset: invalid JSON: {err}")))?;
    ScaleOffset::from_json(&json, ZarrFormat::V3)
}

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
#[pyclass(frozen, module = "zarr_codec_scale_offset._scale_offset")]
struct Plan {
    inner: Arc<Transform>,
    /// The array's data type and numpy dtype.
    array: (DataType, Py<PyArrayDescr>),
    /// The encoded data type and numpy dtype (the array's, without a cast).
    encoded: (DataType, Py<PyArrayDescr>),
}

#[pymethods]
impl Plan {
    /// `configuration`: the codec's v3 JSON (a string); `dtype`: the array's numpy dtype;
    /// with `cast_value` (its v3 JSON) and `encoded_dtype`, the pair fused.
    #[new]
    #[pyo3(signature = (configuration, dtype, cast_value=None, encoded_dtype=None))]
    fn new(
        py: Python<'_>,
        configuration: &str,
        dtype: &Bound<'_, PyArrayDescr>,
        cast_value: Option<&str>,
        encoded_dtype: Option<&Bound<'_, PyArrayDescr>>,
    ) -> PyResult<Self> {
        let codec = codec_from(configuration).into_py_result(py)?;
        let data_type = data_type_of(dtype)?;
        let array = (data_type, dtype.clone().unbind());
        let Some(cast_value) = cast_value else {
            let affine = codec.bind(data_type).into_py_result(py)?;
            let encoded = (data_type, dtype.clone().unbind());
            return Ok(Self {
                inner: Arc::new(Transform::Alone(affine)),
                array,
                encoded,
            });
        };
        let cast = cast_from(cast_value).into_py_result(py)?;
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
        let encoded = (fused.encoded_type(), encoded_dtype.clone().unbind());
        Ok(Self {
            inner: Arc::new(Transform::Fused(Box::new(fused))),
            array,
            encoded,
        })
    }

    /// numcodecs' `fixedscaleoffset` from its v2 JSON (a string), for arrays of its `dtype`
    /// into its `astype` (both numpy dtypes, native order).
    #[staticmethod]
    fn legacy(
        py: Python<'_>,
        configuration: &str,
        dtype: &Bound<'_, PyArrayDescr>,
        encoded_dtype: &Bound<'_, PyArrayDescr>,
    ) -> PyResult<Self> {
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
        Ok(Self {
            inner: Arc::new(Transform::Legacy(Box::new(codec))),
            array: (data_type, dtype.clone().unbind()),
            encoded: (astype, encoded_dtype.clone().unbind()),
        })
    }

    /// Encode `array` (any layout or byte order) into a new array.
    fn encode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.encoder(array.py()).apply(array)
    }

    /// Decode `array` into a new array.
    fn decode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.decoder(array.py()).apply(array)
    }

    /// Encode into `out` (writable, C-contiguous, native order, of the encoded type).
    fn encode_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.encoder(array.py()).apply_into(array, out)
    }

    /// Decode into `out` (writable, C-contiguous, native order, of the array's type).
    fn decode_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.decoder(array.py()).apply_into(array, out)
    }

    /// Encode every array in parallel (GIL released); views of one new array, in order.
    #[pyo3(signature = (arrays, threads=None))]
    fn encode_batch<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.encoder(arrays.py()).apply_batch(arrays, threads)
    }

    /// Decode every array in parallel (GIL released); views of one new array, in order.
    #[pyo3(signature = (arrays, threads=None))]
    fn decode_batch<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.decoder(arrays.py()).apply_batch(arrays, threads)
    }

    /// Decoding as a chain kernel (`zarr_codec_python::kernel`): native-order element bytes
    /// of the encoded type into those of the array's type, as many elements.
    fn decode_kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let inner = Arc::clone(&self.inner);
        zarr_codec_python::array_kernel(py, move |input: &[u8], output: &mut [u8]| {
            inner.decode(input, output)
        })
    }

    /// Encoding as a chain kernel: native-order element bytes of the array's type into those
    /// of the encoded type, as many elements.
    fn encode_kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let inner = Arc::clone(&self.inner);
        zarr_codec_python::array_kernel(py, move |input: &[u8], output: &mut [u8]| {
            inner.encode(input, output)
        })
    }

    /// Decode every array into the matching array of `outs`, in parallel.
    #[pyo3(signature = (arrays, outs, threads=None))]
    fn decode_batch_into<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        outs: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        self.decoder(arrays.py())
            .apply_batch_into(arrays, outs, threads)
    }
}

impl Plan {
    fn encoder<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        Elementwise {
            codec: self.inner.name(),
            source: self.array.0,
            target: self.encoded.0,
            target_dtype: self.encoded.1.bind(py).clone(),
            op: |input: &[u8], output: &mut [u8]| self.inner.encode(input, output),
        }
    }

    fn decoder<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        Elementwise {
            codec: self.inner.name(),
            source: self.encoded.0,
            target: self.array.0,
            target_dtype: self.array.1.bind(py).clone(),
            op: |input: &[u8], output: &mut [u8]| self.inner.decode(input, output),
        }
    }
}

fn cast_from(configuration: &str) -> CodecResult<CastValue> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("cast_value: invalid JSON: {err}")))?;
    CastValue::from_json(&json, ZarrFormat::V3)
}

/// Check a codec's v3 JSON (a string); raises `ConfigurationError` when invalid.
#[pyfunction]
fn check_configuration(py: Python<'_>, configuration: &str) -> PyResult<()> {
    codec_from(configuration).into_py_result(py).map(|_| ())
}

/// The encoded array's fill value (v3 JSON, as a string) for an array of `data_type` whose
/// fill value is `fill` (JSON string).
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
fn _scale_offset(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Plan>()?;
    module.add_function(wrap_pyfunction!(check_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encoded_fill_value, module)?)?;
    Ok(())
}
