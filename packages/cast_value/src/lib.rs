//! `zarr_codec_cast_value._cast_value`: the compiled half of the `zarr-codec-cast-value` wheel.
//!
//! A [`Plan`] is one direction of a configured codec bound to the array's data type, built
//! once and reused for every chunk; its methods release the GIL while casting.

use numpy::{PyArrayDescr, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyTuple};
use zarr_codec::json::ZarrFormat;
use zarr_codec::{CodecError, CodecFromJson, DataType, FillValue, Result as CodecResult};
use zarr_codec_cast_value::{CastPlan, CastValue, Direction};
use zarr_codec_python::{
    ArrayInput, ArrayOutput, IntoPyResult, data_type_of, new_array, parallel_map, run,
    thread_count, to_py_err,
};

fn codec_from(configuration: &str) -> CodecResult<CastValue> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("cast_value: invalid JSON: {err}")))?;
    CastValue::from_json(&json, ZarrFormat::V3)
}

/// One direction of a `cast_value` codec for one array data type.
#[pyclass(frozen, module = "zarr_codec_cast_value._cast_value")]
struct Plan {
    inner: CastPlan,
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
            inner,
            target: target.clone().unbind(),
        })
    }

    /// Cast `array` (any numpy array of the source type, any layout or byte order) into a new
    /// C-ordered array of the target type and the same shape.
    fn apply<'py>(
        &self,
        py: Python<'py>,
        array: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyUntypedArray>> {
        let input = self.input(array)?;
        let mut output = new_array(self.target.bind(py), input.shape())?;
        let (source, target) = (input.as_bytes(), output.as_mut_bytes());
        run(py, || self.inner.apply(source, target))?;
        Ok(output.into_array())
    }

    /// Cast `array` into `out`: a writable, C-contiguous numpy array of the target type with
    /// as many elements.
    fn apply_into(
        &self,
        py: Python<'_>,
        array: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let input = self.input(array)?;
        let mut output = self.output(out)?;
        // Casting an array onto itself (or a view of it): read from a copy.
        let copy = output
            .overlaps(input.as_bytes())
            .then(|| input.as_bytes().to_vec());
        let source = copy.as_deref().unwrap_or(input.as_bytes());
        let target = output.as_mut_bytes();
        run(py, || self.inner.apply(source, target))
    }

    /// Cast every array of `arrays` in parallel (GIL released); the results in order.
    ///
    /// The results are views into one new array: a single large allocation (which numpy backs
    /// with huge pages) costs far fewer page faults than one per chunk, and faults taken by
    /// several threads at once contend in the kernel.
    #[pyo3(signature = (arrays, threads=None))]
    fn apply_batch<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = thread_count(py, threads, "cast_value")?;
        let inputs = arrays
            .try_iter()?
            .map(|array| self.input(&array?))
            .collect::<PyResult<Vec<_>>>()?;
        let counts: Vec<usize> = inputs
            .iter()
            .map(|input| input.shape().iter().product())
            .collect();
        let total: usize = counts.iter().sum();
        let mut output = new_array(self.target.bind(py), &[total])?;
        let size = self.inner.to().size();
        let mut rest = output.as_mut_bytes();
        let mut jobs: Vec<(&[u8], &mut [u8])> = Vec::with_capacity(inputs.len());
        for (input, &count) in inputs.iter().zip(&counts) {
            let (target, tail) = rest.split_at_mut(count * size);
            jobs.push((input.as_bytes(), target));
            rest = tail;
        }
        self.apply_all(py, &mut jobs, threads)?;
        drop(jobs);
        let output = output.into_array();
        let mut start = 0;
        let results = inputs.iter().zip(&counts).map(|(input, &count)| {
            let slice = PySlice::new(py, isize_of(start), isize_of(start + count), 1);
            start += count;
            output
                .get_item(slice)?
                .call_method1("reshape", (PyTuple::new(py, input.shape())?,))
        });
        PyList::new(py, results.collect::<PyResult<Vec<_>>>()?)
    }

    /// Cast every array of `arrays` into the matching array of `outs` (writable, C-contiguous,
    /// native-order arrays of the target type with as many elements), in parallel with the
    /// GIL released: the batch form of `apply_into`, for decoding into the slots of a caller's
    /// array.
    #[pyo3(signature = (arrays, outs, threads=None))]
    fn apply_batch_into(
        &self,
        py: Python<'_>,
        arrays: &Bound<'_, PyAny>,
        outs: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        let threads = thread_count(py, threads, "cast_value")?;
        let inputs = arrays
            .try_iter()?
            .map(|array| self.input(&array?))
            .collect::<PyResult<Vec<_>>>()?;
        let mut outputs = outs
            .try_iter()?
            .map(|out| self.output(&out?))
            .collect::<PyResult<Vec<_>>>()?;
        if inputs.len() != outputs.len() {
            let message = format!(
                "cast_value: {} arrays but {} outputs",
                inputs.len(),
                outputs.len()
            );
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        // Inputs that share memory with any output are read from copies.
        let copies: Vec<Option<Vec<u8>>> = inputs
            .iter()
            .map(|input| {
                let bytes = input.as_bytes();
                outputs
                    .iter()
                    .any(|output| output.overlaps(bytes))
                    .then(|| bytes.to_vec())
            })
            .collect();
        let mut jobs: Vec<(&[u8], &mut [u8])> = inputs
            .iter()
            .zip(&copies)
            .map(|(input, copy)| copy.as_deref().unwrap_or(input.as_bytes()))
            .zip(outputs.iter_mut().map(ArrayOutput::as_mut_bytes))
            .collect();
        self.apply_all(py, &mut jobs, threads)?;
        Ok(())
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
    /// Cast every `(source, target)` pair on up to `threads` threads, GIL released.
    fn apply_all(
        &self,
        py: Python<'_>,
        jobs: &mut [(&[u8], &mut [u8])],
        threads: usize,
    ) -> PyResult<()> {
        run(py, || {
            parallel_map(jobs, threads, |(source, target)| {
                self.inner.apply(source, target)
            })
            .into_iter()
            .collect::<CodecResult<Vec<()>>>()
        })?;
        Ok(())
    }

    /// A writable, C-contiguous, native-order numpy array of the target type.
    fn output<'py>(&self, out: &Bound<'py, PyAny>) -> PyResult<ArrayOutput<'py>> {
        let output = ArrayOutput::new(out)?;
        if output.data_type() != self.inner.to() {
            let message = format!(
                "cast_value: out must be a {} array, not {}",
                self.inner.to(),
                output.data_type()
            );
            return Err(to_py_err(out.py(), &CodecError::configuration(message)));
        }
        Ok(output)
    }

    fn input<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<ArrayInput<'py>> {
        let input = ArrayInput::new(array)?;
        if input.data_type() != self.inner.from() {
            let message = format!(
                "cast_value: expected a {} array, got {}",
                self.inner.from(),
                input.data_type()
            );
            return Err(to_py_err(array.py(), &CodecError::configuration(message)));
        }
        Ok(input)
    }
}

/// An element index as numpy takes it (array lengths always fit `isize`).
fn isize_of(index: usize) -> isize {
    isize::try_from(index).unwrap_or(isize::MAX)
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
    let result = (|| {
        let codec = codec_from(configuration)?;
        let data_type = DataType::from_name(data_type)?;
        let fill: serde_json::Value = serde_json::from_str(fill)
            .map_err(|err| CodecError::configuration(format!("invalid fill value JSON: {err}")))?;
        let fill = FillValue::from_json(&fill, data_type)?;
        Ok(codec.encoded_fill_value(&fill)?.to_json().to_string())
    })();
    result.into_py_result(py)
}

#[pymodule]
fn _cast_value(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Plan>()?;
    module.add_function(wrap_pyfunction!(check_configuration, module)?)?;
    module.add_function(wrap_pyfunction!(encoded_fill_value, module)?)?;
    Ok(())
}
