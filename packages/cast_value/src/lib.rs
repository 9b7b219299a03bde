//! `zarr_codec_cast_value._cast_value`: the compiled half of the `zarr-codec-cast-value` wheel.
//!
//! A [`Plan`] is one direction of a configured codec bound to the array's data type, built
//! once and reused for every chunk; the array handling is `zarr_codec_python::Elementwise`.

use std::sync::Arc;

use numpy::{PyArrayDescr, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList};
use zarr_codec_cast_value::{CastPlan, CastValue, Direction};
use zarr_codec_python::{Elementwise, IntoPyResult, data_type_of, to_py_err, transform_fill_json};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{CodecError, CodecFromJson, Result as CodecResult};

fn codec_from(configuration: &str) -> CodecResult<CastValue> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("cast_value: invalid JSON: {err}")))?;
    CastValue::from_json(&json, ZarrFormat::V3)
}

/// One direction of a `cast_value` codec for one array data type.
#[pyclass(frozen, module = "zarr_codec_cast_value._cast_value")]
struct Plan {
    inner: Arc<CastPlan>,
    target: Py<PyArrayDescr>,
}

#[pymethods]
impl Plan {
    /// `configuration`: the codec's v3 JSON (a string); `source`/`target`: the numpy dtypes
    /// cast from and to; `direction`: `"encode"` (source is the array's type) or `"decode"`.
    #[new]
    fn new(
        py: Python<'_>,
        configuration: &str,
        source: &Bound<'_, PyArrayDescr>,
        target: &Bound<'_, PyArrayDescr>,
        direction: &str,
    ) -> PyResult<Self> {
        let codec = codec_from(configuration).into_py_result(py)?;
        let (from, to) = (data_type_of(source)?, data_type_of(target)?);
        let (direction, array_type, codec_type) = match direction {
            "encode" => (Direction::Encode, from, to),
            "decode" => (Direction::Decode, to, from),
            other => {
                let message =
                    format!("cast_value: direction must be encode or decode, not {other:?}");
                return Err(to_py_err(py, &CodecError::configuration(message)));
            }
        };
        if codec_type != codec.data_type() {
            let message = format!(
                "cast_value: the codec's data_type is {}, not {codec_type}",
                codec.data_type()
            );
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let inner = codec.plan(array_type, direction).into_py_result(py)?;
        Ok(Self {
            inner: Arc::new(inner),
            target: target.clone().unbind(),
        })
    }

    /// Cast `array` (any numpy array of the source type, any layout or byte order) into a new
    /// C-ordered array of the target type and the same shape.
    fn apply<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.elementwise(array.py()).apply(array)
    }

    /// Cast `array` into `out`: a writable, C-contiguous numpy array of the target type with
    /// as many elements.
    fn apply_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.elementwise(array.py()).apply_into(array, out)
    }

    /// Cast every array of `arrays` in parallel (GIL released); the results in order, as views
    /// of one new array.
    #[pyo3(signature = (arrays, threads=None))]
    fn apply_batch<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.elementwise(arrays.py()).apply_batch(arrays, threads)
    }

    /// Cast every array of `arrays` into the matching array of `outs` in parallel.
    #[pyo3(signature = (arrays, outs, threads=None))]
    fn apply_batch_into<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        outs: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        self.elementwise(arrays.py())
            .apply_batch_into(arrays, outs, threads)
    }

    /// The cast as a chain kernel (`zarr_codec_python::kernel`): native-order element bytes of
    /// the source type into those of the target type, as many elements.
    fn kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let inner = Arc::clone(&self.inner);
        zarr_codec_python::array_kernel(py, move |input: &[u8], output: &mut [u8]| {
            inner.apply(input, output)
        })
    }

    /// The source data type's name.
    #[getter]
    fn source(&self) -> &'static str {
        self.inner.from().name()
    }

    /// The target data type's name.
    #[getter]
    fn target(&self) -> &'static str {
        self.inner.to().name()
    }
}

impl Plan {
    fn elementwise<'py>(
        &self,
        py: Python<'py>,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        Elementwise {
            codec: "cast_value",
            source: self.inner.from(),
            target: self.inner.to(),
            target_dtype: self.target.bind(py).clone(),
            op: |input: &[u8], output: &mut [u8]| self.inner.apply(input, output),
        }
    }
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
    module.add_class::<Plan>()?;
    module.add_function(wrap_pyfunction!(check_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encoded_fill_value, module)?)?;
    Ok(())
}
