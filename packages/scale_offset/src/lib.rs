//! `zarr_codec_scale_offset._scale_offset`: the compiled half of the `zarr-codec-scale-offset`
//! wheel. An [`Affine`] is a configured codec bound to the array's data type; the array
//! handling is `zarr_codec_python::Elementwise`.

use numpy::{PyArrayDescr, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::PyList;
use zarr_codec::json::ZarrFormat;
use zarr_codec::{CodecError, CodecFromJson, Result as CodecResult};
use zarr_codec_cast_value::CastValue;
use zarr_codec_python::{Elementwise, IntoPyResult, data_type_of, to_py_err, transform_fill_json};
use zarr_codec_scale_offset::{ScaleOffset, ScaleOffsetCast};

fn codec_from(configuration: &str) -> CodecResult<ScaleOffset> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("scale_offset: invalid JSON: {err}")))?;
    ScaleOffset::from_json(&json, ZarrFormat::V3)
}

/// A `scale_offset` codec bound to one array data type.
#[pyclass(frozen, module = "zarr_codec_scale_offset._scale_offset")]
struct Affine {
    inner: zarr_codec_scale_offset::Affine,
    dtype: Py<PyArrayDescr>,
}

#[pymethods]
impl Affine {
    /// `configuration`: the codec's v3 JSON (a string); `dtype`: the array's numpy dtype.
    #[new]
    fn new(py: Python<'_>, configuration: &str, dtype: &Bound<'_, PyArrayDescr>) -> PyResult<Self> {
        let codec = codec_from(configuration).into_py_result(py)?;
        let inner = codec.bind(data_type_of(dtype)?).into_py_result(py)?;
        Ok(Self {
            inner,
            dtype: dtype.clone().unbind(),
        })
    }

    /// `(x - offset) * scale` of `array` (any layout or byte order) into a new array.
    fn encode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.encoder(array.py()).apply(array)
    }

    /// `x / scale + offset` of `array` into a new array.
    fn decode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.decoder(array.py()).apply(array)
    }

    /// Encode into `out` (writable, C-contiguous, native order, same type and size).
    fn encode_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.encoder(array.py()).apply_into(array, out)
    }

    /// Decode into `out` (writable, C-contiguous, native order, same type and size).
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

impl Affine {
    fn encoder<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        self.elementwise(py, |input, output| self.inner.encode(input, output))
    }

    fn decoder<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        self.elementwise(py, |input, output| self.inner.decode(input, output))
    }

    fn elementwise<'py, F>(&self, py: Python<'py>, op: F) -> Elementwise<'py, F>
    where
        F: Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync,
    {
        let data_type = self.inner.data_type();
        Elementwise {
            codec: "scale_offset",
            source: data_type,
            target: data_type,
            target_dtype: self.dtype.bind(py).clone(),
            op,
        }
    }
}

/// `scale_offset` followed by `cast_value`, run as one pass, bound to the array's data type.
#[pyclass(frozen, module = "zarr_codec_scale_offset._scale_offset")]
struct Fused {
    inner: ScaleOffsetCast,
    dtype: Py<PyArrayDescr>,
    encoded_dtype: Py<PyArrayDescr>,
}

#[pymethods]
impl Fused {
    /// The two codecs' v3 JSON (strings), the array's numpy dtype and the encoded one.
    #[new]
    fn new(
        py: Python<'_>,
        scale_offset: &str,
        cast_value: &str,
        dtype: &Bound<'_, PyArrayDescr>,
        encoded_dtype: &Bound<'_, PyArrayDescr>,
    ) -> PyResult<Self> {
        let result = (|| {
            let first = codec_from(scale_offset)?;
            let json: serde_json::Value = serde_json::from_str(cast_value).map_err(|err| {
                CodecError::configuration(format!("cast_value: invalid JSON: {err}"))
            })?;
            let second = CastValue::from_json(&json, ZarrFormat::V3)?;
            Ok((first, second))
        })();
        let (first, second) = result.into_py_result(py)?;
        let inner =
            ScaleOffsetCast::new(&first, &second, data_type_of(dtype)?).into_py_result(py)?;
        if data_type_of(encoded_dtype)? != inner.encoded_type() {
            let message = format!("cast_value casts to {}", inner.encoded_type());
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        Ok(Self {
            inner,
            dtype: dtype.clone().unbind(),
            encoded_dtype: encoded_dtype.clone().unbind(),
        })
    }

    /// Both codecs' encoding of `array` into a new array of the encoded type.
    fn encode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.encoder(array.py()).apply(array)
    }

    /// Both codecs' decoding of `array` into a new array of the array's type.
    fn decode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.decoder(array.py()).apply(array)
    }

    /// Decode into `out` (writable, C-contiguous, native order, the array's type).
    fn decode_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.decoder(array.py()).apply_into(array, out)
    }

    /// Encode every array in parallel; views of one new array, in order.
    #[pyo3(signature = (arrays, threads=None))]
    fn encode_batch<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.encoder(arrays.py()).apply_batch(arrays, threads)
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

impl Fused {
    fn encoder<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        Elementwise {
            codec: "scale_offset + cast_value",
            source: self.inner.data_type(),
            target: self.inner.encoded_type(),
            target_dtype: self.encoded_dtype.bind(py).clone(),
            op: |input: &[u8], output: &mut [u8]| self.inner.encode(input, output),
        }
    }

    fn decoder<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        Elementwise {
            codec: "scale_offset + cast_value",
            source: self.inner.encoded_type(),
            target: self.inner.data_type(),
            target_dtype: self.dtype.bind(py).clone(),
            op: |input: &[u8], output: &mut [u8]| self.inner.decode(input, output),
        }
    }
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
    module.add_class::<Affine>()?;
    module.add_class::<Fused>()?;
    module.add_function(wrap_pyfunction!(check_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encoded_fill_value, module)?)?;
    Ok(())
}
