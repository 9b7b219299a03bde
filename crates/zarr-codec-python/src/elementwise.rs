//! Element-wise array codecs (casts, scale and offset) over numpy arrays: one chunk into a new
//! array or the caller's, and batches in parallel, the GIL released while working.
//!
//! A codec supplies `op(input, output)` over native-endian element bytes of its source and
//! target data types; everything about arrays (layouts, byte order, `ml_dtypes` types, outputs
//! that share memory with inputs, one allocation per batch) is handled here once.
//! [`PyArrayCodec`] is the binding every such codec's wheel hands Python: both directions of a
//! codec bound to an array's data type.

use std::sync::Arc;

use numpy::{PyArrayDescr, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyCapsule, PyList, PySlice, PyTuple};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{CodecError, CodecFromJson, DataType, FillValue, Result as CodecResult};

use crate::kernel::array_kernel;
use crate::{
    ArrayInput, ArrayOutput, new_array, parallel_map, run, run_sized, thread_count, to_py_err,
};

/// An element-wise operation from arrays of `source` to arrays of `target` (`target_dtype`).
pub struct Elementwise<'py, F> {
    /// The codec's name, for messages.
    pub codec: &'static str,
    /// The input data type.
    pub source: DataType,
    /// The output data type.
    pub target: DataType,
    /// The output numpy dtype.
    pub target_dtype: Bound<'py, PyArrayDescr>,
    /// The work: every element of the input bytes into the output bytes (same count).
    pub op: F,
}

impl<'py, F> Elementwise<'py, F>
where
    F: Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync,
{
    /// `array` (any layout or byte order) into a new C-ordered array of the same shape.
    pub fn apply(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        let py = array.py();
        let input = self.input(array)?;
        let mut output = new_array(&self.target_dtype, input.shape())?;
        let (source, target) = (input.as_bytes(), output.as_mut_bytes());
        let op = &self.op; // (self holds Python objects: only the op crosses threads)
        run_sized(py, source.len(), || op(source, target))?;
        Ok(output.into_array())
    }

    /// `array` into `out`: a writable, C-contiguous, native-order array of the target type
    /// with as many elements (read from a copy when the two share memory).
    pub fn apply_into(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        let py = array.py();
        let input = self.input(array)?;
        let mut output = self.output(out)?;
        let copy = output
            .overlaps(input.as_bytes())
            .then(|| input.as_bytes().to_vec());
        let source = copy.as_deref().unwrap_or(input.as_bytes());
        let target = output.as_mut_bytes();
        let op = &self.op;
        run_sized(py, source.len(), || op(source, target))
    }

    /// Every array of `arrays` in parallel; the results in order, as views of one new array
    /// (one large allocation costs far fewer page faults than one per chunk, and faults taken
    /// by several threads at once contend in the kernel).
    pub fn apply_batch(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = arrays.py();
        let threads = thread_count(py, threads, self.codec)?;
        let inputs = self.inputs(arrays)?;
        let counts: Vec<usize> = inputs
            .iter()
            .map(|input| input.shape().iter().product())
            .collect();
        let mut output = new_array(&self.target_dtype, &[counts.iter().sum()])?;
        let size = self.target.size();
        let mut rest = output.as_mut_bytes();
        let mut jobs: Vec<(&[u8], &mut [u8])> = Vec::with_capacity(inputs.len());
        for (input, &count) in inputs.iter().zip(&counts) {
            let (target, tail) = rest.split_at_mut(count * size);
            jobs.push((input.as_bytes(), target));
            rest = tail;
        }
        self.run_all(py, &mut jobs, threads)?;
        drop(jobs);
        let output = output.into_array();
        let mut start = 0;
        let results = inputs.iter().zip(&counts).map(|(input, &count)| {
            let end = start + count;
            let slice = PySlice::new(py, isize_of(start), isize_of(end), 1);
            start = end;
            output
                .get_item(slice)?
                .call_method1("reshape", (PyTuple::new(py, input.shape())?,))
        });
        PyList::new(py, results.collect::<PyResult<Vec<_>>>()?)
    }

    /// Every array of `arrays` into the matching array of `outs` (as for
    /// [`Elementwise::apply_into`]), in parallel: for chunks decoded into their slots of a
    /// caller's array.
    pub fn apply_batch_into(
        &self,
        arrays: &Bound<'py, PyAny>,
        outs: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        let py = arrays.py();
        let threads = thread_count(py, threads, self.codec)?;
        let inputs = self.inputs(arrays)?;
        let mut outputs = outs
            .try_iter()?
            .map(|out| self.output(&out?))
            .collect::<PyResult<Vec<_>>>()?;
        if inputs.len() != outputs.len() {
            let message = format!(
                "{}: {} arrays but {} outputs",
                self.codec,
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
        self.run_all(py, &mut jobs, threads)
    }

    fn run_all(
        &self,
        py: Python<'_>,
        jobs: &mut [(&[u8], &mut [u8])],
        threads: usize,
    ) -> PyResult<()> {
        let op = &self.op;
        run(py, || {
            parallel_map(jobs, threads, |(source, target)| op(source, target))
                .into_iter()
                .collect::<CodecResult<Vec<()>>>()
        })?;
        Ok(())
    }

    fn inputs(&self, arrays: &Bound<'py, PyAny>) -> PyResult<Vec<ArrayInput<'py>>> {
        arrays
            .try_iter()?
            .map(|array| self.input(&array?))
            .collect()
    }

    /// A numpy view of `array` in native order and C layout, of the source type.
    fn input(&self, array: &Bound<'py, PyAny>) -> PyResult<ArrayInput<'py>> {
        let input = ArrayInput::new(array)?;
        if input.data_type() != self.source {
            let message = format!(
                "{}: expected a {} array, got {}",
                self.codec,
                self.source,
                input.data_type()
            );
            return Err(to_py_err(array.py(), &CodecError::configuration(message)));
        }
        Ok(input)
    }

    /// A writable, C-contiguous, native-order numpy array of the target type.
    fn output(&self, out: &Bound<'py, PyAny>) -> PyResult<ArrayOutput<'py>> {
        let output = ArrayOutput::new(out)?;
        if output.data_type() != self.target {
            let message = format!(
                "{}: out must be a {} array, not {}",
                self.codec,
                self.target,
                output.data_type()
            );
            return Err(to_py_err(out.py(), &CodecError::configuration(message)));
        }
        Ok(output)
    }
}

/// An element index as numpy takes it (array lengths always fit `isize`).
fn isize_of(index: usize) -> isize {
    isize::try_from(index).unwrap_or(isize::MAX)
}

/// A fill value given as v3 JSON text for `data_type`, passed through `transform` (an array
/// codec's fill-value rule), as v3 JSON text: what the wheels' `encoded_fill_value` return.
pub fn transform_fill_json(
    data_type: &str,
    fill: &str,
    transform: impl FnOnce(&FillValue) -> CodecResult<FillValue>,
) -> CodecResult<String> {
    let data_type = DataType::from_name(data_type)?;
    let fill: serde_json::Value = serde_json::from_str(fill)
        .map_err(|err| CodecError::configuration(format!("invalid fill value JSON: {err}")))?;
    let fill = FillValue::from_json(&fill, data_type)?;
    Ok(transform(&fill)?.to_json().to_string())
}

/// The codec `C` of v3 JSON text `configuration`; invalid JSON is a configuration error
/// naming the codec `name`.
pub fn codec_from_v3<C: CodecFromJson>(name: &str, configuration: &str) -> CodecResult<C> {
    let json: serde_json::Value = serde_json::from_str(configuration)
        .map_err(|err| CodecError::configuration(format!("{name}: invalid JSON: {err}")))?;
    C::from_json(&json, ZarrFormat::V3)
}

/// Registers the configuration functions of the element-wise codec `C` (`name` in errors) in
/// its wheel's module, both taking v3 JSON text `configuration` first:
/// `check_configuration(configuration)`, and `encoded_fill_value(configuration, data_type,
/// fill)`, the fill value `encoded_fill` gives for arrays of `data_type` filled with `fill`.
pub fn add_configuration_functions<C: CodecFromJson + 'static>(
    module: &Bound<'_, PyModule>,
    name: &'static str,
    encoded_fill: fn(&C, &FillValue) -> CodecResult<FillValue>,
) -> PyResult<()> {
    let check = PyCFunction::new_closure(
        module.py(),
        Some(c"check_configuration"),
        Some(c"Check a codec's v3 JSON (a string); raises `ConfigurationError` when invalid."),
        move |args: &Bound<'_, PyTuple>, _kwargs| -> PyResult<()> {
            let (configuration,): (String,) = args.extract()?;
            codec_from_v3::<C>(name, &configuration)
                .map(|_| ())
                .map_err(|err| to_py_err(args.py(), &err))
        },
    )?;
    module.add("check_configuration", check)?;
    let fill = PyCFunction::new_closure(
        module.py(),
        Some(c"encoded_fill_value"),
        Some(
            c"The encoded array's fill value (v3 JSON, as a string) for an array of `data_type` \
              whose fill value is `fill` (JSON string); `ConfigurationError` when it has none.",
        ),
        move |args: &Bound<'_, PyTuple>, _kwargs| -> PyResult<String> {
            let (configuration, data_type, fill): (String, String, String) = args.extract()?;
            transform_fill_json(&data_type, &fill, |fill| {
                encoded_fill(&codec_from_v3(name, &configuration)?, fill)
            })
            .map_err(|err| to_py_err(args.py(), &err))
        },
    )?;
    module.add("encoded_fill_value", fill)
}

/// One element-wise operation: every element of the input bytes into the output bytes.
pub type ElementOp = dyn Fn(&[u8], &mut [u8]) -> CodecResult<()> + Send + Sync;

/// One direction of a [`PyArrayCodec`]: its operation and the data types it goes between.
struct Direction {
    op: Arc<ElementOp>,
    source: DataType,
    target: DataType,
    target_dtype: Py<PyArrayDescr>,
}

impl Direction {
    fn elementwise<'py>(
        &self,
        py: Python<'py>,
        codec: &'static str,
    ) -> Elementwise<'py, impl Fn(&[u8], &mut [u8]) -> CodecResult<()> + Sync + '_> {
        Elementwise {
            codec,
            source: self.source,
            target: self.target,
            target_dtype: self.target_dtype.bind(py).clone(),
            op: |input: &[u8], output: &mut [u8]| (self.op)(input, output),
        }
    }

    fn kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let op = Arc::clone(&self.op);
        array_kernel(py, move |input: &[u8], output: &mut [u8]| op(input, output))
    }
}

/// The one binding of every element-wise array-to-array codec (casts, scale and offset, and
/// any codec that maps each element on its own), bound to an array's data type: both
/// directions over numpy arrays (one chunk, into the caller's array, batches on the shared
/// pool) and as chain kernels. A wheel makes one with [`PyArrayCodec::new`] from its codec's
/// two operations; everything about arrays is [`Elementwise`]'s.
#[pyclass(frozen, name = "ArrayCodec", module = "zarr_codec_python")]
pub struct PyArrayCodec {
    name: &'static str,
    encode: Direction,
    decode: Direction,
}

impl PyArrayCodec {
    /// Codec `name` between arrays of `decoded` and of `encoded` (each a data type and its
    /// numpy dtype): `encode` from the first to the second, `decode` back.
    pub fn new(
        name: &'static str,
        encode: Arc<ElementOp>,
        decode: Arc<ElementOp>,
        decoded: (DataType, Bound<'_, PyArrayDescr>),
        encoded: (DataType, Bound<'_, PyArrayDescr>),
    ) -> Self {
        Self {
            name,
            encode: Direction {
                op: encode,
                source: decoded.0,
                target: encoded.0,
                target_dtype: encoded.1.unbind(),
            },
            decode: Direction {
                op: decode,
                source: encoded.0,
                target: decoded.0,
                target_dtype: decoded.1.unbind(),
            },
        }
    }
}

#[pymethods]
impl PyArrayCodec {
    /// The decoded data type's name.
    #[getter]
    fn decoded(&self) -> &'static str {
        self.decode.target.name()
    }

    /// The encoded data type's name.
    #[getter]
    fn encoded(&self) -> &'static str {
        self.encode.target.name()
    }

    /// `array` (any layout or byte order) encoded into a new C-ordered array.
    fn encode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.encode.elementwise(array.py(), self.name).apply(array)
    }

    /// `array` decoded into a new C-ordered array.
    fn decode<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
        self.decode.elementwise(array.py(), self.name).apply(array)
    }

    /// `array` encoded into `out` (writable, C-contiguous, native order, as many elements).
    fn encode_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.encode
            .elementwise(array.py(), self.name)
            .apply_into(array, out)
    }

    /// `array` decoded into `out`.
    fn decode_into<'py>(&self, array: &Bound<'py, PyAny>, out: &Bound<'py, PyAny>) -> PyResult<()> {
        self.decode
            .elementwise(array.py(), self.name)
            .apply_into(array, out)
    }

    /// Every array encoded in parallel (GIL released), as views of one new array.
    #[pyo3(signature = (arrays, threads=None))]
    fn encode_batch<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.encode
            .elementwise(arrays.py(), self.name)
            .apply_batch(arrays, threads)
    }

    /// Every array decoded in parallel (GIL released), as views of one new array.
    #[pyo3(signature = (arrays, threads=None))]
    fn decode_batch<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.decode
            .elementwise(arrays.py(), self.name)
            .apply_batch(arrays, threads)
    }

    /// Every array encoded into the matching array of `outs`, in parallel.
    #[pyo3(signature = (arrays, outs, threads=None))]
    fn encode_batch_into<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        outs: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        self.encode
            .elementwise(arrays.py(), self.name)
            .apply_batch_into(arrays, outs, threads)
    }

    /// Every array decoded into the matching array of `outs`, in parallel.
    #[pyo3(signature = (arrays, outs, threads=None))]
    fn decode_batch_into<'py>(
        &self,
        arrays: &Bound<'py, PyAny>,
        outs: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        self.decode
            .elementwise(arrays.py(), self.name)
            .apply_batch_into(arrays, outs, threads)
    }

    /// Encoding as a chain kernel (native-order element bytes in, as many out).
    fn encode_kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        self.encode.kernel(py)
    }

    /// Decoding as a chain kernel.
    fn decode_kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        self.decode.kernel(py)
    }
}
