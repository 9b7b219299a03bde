//! The one binding of every bytes-to-bytes codec: [`PyBytesCodec`], driven by the
//! [`BytesToBytesCodec`] trait, and [`add_bytes_codec`], which registers a codec type's
//! constructor in a wheel's module.
//!
//! A codec wheel's `lib.rs` is then its registration: `add_bytes_codec::<Zstd>(module,
//! c"zstd")` gives Python `_zstd.zstd(json, zarr_format)`, a compiled codec with one-chunk
//! calls, batches on the shared pool and chain kernels, every one with the GIL released and
//! writing straight into the objects Python gets where the codec's trait methods allow.

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCFunction, PyCapsule, PyList, PyTuple};
use zarr_codec_shapes::{
    BytesToBytesCodec, ChunkSpec, CodecError, CodecFromJson, DataType, ErrorKind, Result,
};

use crate::batch::{checked_buffers, decode_batch_claimed, parallel_map, thread_count};
use crate::config::{canonical_of, parse_codec_json};
use crate::input::BytesInput;
use crate::kernel::{Target, bounded_decode_kernel, decode_kernel, encode_kernel};
use crate::output::{BytesOutput, UninitBytes, new_bytes_batch, new_bytes_with};
use crate::{run, to_py_err};

/// The trait's `encode_into` or `decode_into`, on the codec a binding holds.
type IntoMethod =
    fn(&(dyn BytesToBytesCodec + 'static), &[u8], &mut [u8], &ChunkSpec) -> Result<usize>;

/// A compiled bytes-to-bytes codec, as its wheel's Python class holds it: `encode`,
/// `decode` and their `_into`, `_batch` and kernel forms.
#[pyclass(frozen, name = "BytesCodec", module = "zarr_codec_python")]
pub struct PyBytesCodec {
    codec: Arc<dyn BytesToBytesCodec>,
    /// What the trait methods are told of the decoded chunk: bytes codecs ignore it, and a
    /// Python call states no chunk.
    spec: ChunkSpec,
}

impl PyBytesCodec {
    /// The binding of `codec`.
    pub fn new(codec: Arc<dyn BytesToBytesCodec>) -> Result<Self> {
        let spec = ChunkSpec::with_default_fill_value(vec![0], DataType::UInt8)?;
        Ok(Self { codec, spec })
    }

    /// The codec bound.
    pub fn codec(&self) -> &Arc<dyn BytesToBytesCodec> {
        &self.codec
    }

    /// `data` encoded or decoded (`work`: the trait's `encode_into` or `decode_into`) into the
    /// writable buffer `out`, the GIL released; the bytes written.
    fn through_buffer(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        work: IntoMethod,
    ) -> PyResult<usize> {
        let mut output = BytesOutput::new(out)?;
        let input = BytesInput::new(data)?.apart_from(&output);
        let target = output.as_mut_slice();
        run(py, || {
            work(&*self.codec, input.as_slice(), target, &self.spec)
        })
    }

    /// One chunk decoded into a new `bytes` object: straight into it when the stream states
    /// its size (within `limit`), else through the codec's bounded decode (one copy more).
    fn decode_one<'py>(
        &self,
        py: Python<'py>,
        input: &[u8],
        limit: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (codec, spec) = (&self.codec, &self.spec);
        let hint = codec
            .decoded_size_hint(input)
            .map_err(|err| to_py_err(py, &err))?;
        if let Some(size) = hint.filter(|&size| limit.is_none_or(|limit| size <= limit)) {
            let filled = new_bytes_with(py, size, |target| fill(&**codec, input, target, spec))?;
            if let Some(object) = filled {
                return Ok(object);
            }
        }
        let decoded = run(py, || codec.decode_limited(input, limit, spec))?;
        Ok(PyBytes::new(py, &decoded))
    }
}

/// Decodes `input` into exactly `target`, as its size hint said: whether that filled it (a
/// wrong hint, too small or too large, is `false`, not an error).
fn fill(
    codec: &dyn BytesToBytesCodec,
    input: &[u8],
    target: &mut [MaybeUninit<u8>],
    spec: &ChunkSpec,
) -> Result<bool> {
    match codec.decode_into_uninit(input, target, spec) {
        Ok(written) => Ok(written == target.len()),
        Err(err) if err.kind() == ErrorKind::OutputSize => Ok(false),
        Err(err) => Err(err),
    }
}

#[pymethods]
impl PyBytesCodec {
    /// The codec's Zarr v3 name.
    #[getter]
    fn name(&self) -> &'static str {
        self.codec.name()
    }

    /// The canonical configuration in Zarr format `zarr_format` (JSON text): the v3
    /// `configuration` object, or the v2 object without its `id`.
    fn configuration(&self, py: Python<'_>, zarr_format: u8) -> PyResult<String> {
        canonical_of(py, &*self.codec, zarr_format)
    }

    /// Encode `data` (any buffer) into a new `bytes` object, written once, in place.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let input = BytesInput::new(data)?;
        let (codec, spec, source) = (&self.codec, &self.spec, input.as_slice());
        let Some(bound) = codec.max_encoded_size(source.len()) else {
            let encoded = run(py, || codec.encode(source, spec))?;
            return Ok(PyBytes::new(py, &encoded));
        };
        let mut output = UninitBytes::new(py, bound)?;
        let target = output.storage();
        let written = run(py, || codec.encode_into_uninit(source, target, spec))?;
        // SAFETY: the codec initialised the `written` bytes at the start of the storage.
        unsafe { output.assume_init_prefix(written) }
    }

    /// Encode `data` into the writable buffer `out`; the bytes written.
    fn encode_into(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        self.through_buffer(py, data, out, <dyn BytesToBytesCodec>::encode_into)
    }

    /// Decode `data` into a new `bytes` object; `limit` caps the decoded size.
    #[pyo3(signature = (data, limit=None))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        limit: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let input = BytesInput::new(data)?;
        self.decode_one(py, input.as_slice(), limit)
    }

    /// Decode `data` into the writable buffer `out`; the bytes written.
    fn decode_into(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        self.through_buffer(py, data, out, <dyn BytesToBytesCodec>::decode_into)
    }

    /// The most bytes `size` bytes can encode to, `None` when the codec states no bound.
    fn max_encoded_size(&self, size: usize) -> Option<usize> {
        self.codec.max_encoded_size(size)
    }

    /// The size `data` states it decodes to, `None` when it states none.
    fn decoded_size(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        let input = BytesInput::new(data)?;
        self.codec
            .decoded_size_hint(input.as_slice())
            .map_err(|err| to_py_err(py, &err))
    }

    /// Encode every chunk on the shared pool, the GIL released, each into its own new
    /// `bytes` object.
    #[pyo3(signature = (chunks, threads=None))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        chunks: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = thread_count(py, threads, self.codec.name())?;
        let inputs = BytesInput::all(chunks)?;
        let (codec, spec) = (&self.codec, &self.spec);
        let bounds: Option<Vec<usize>> = inputs
            .iter()
            .map(|input| codec.max_encoded_size(input.len()))
            .collect();
        let Some(bounds) = bounds else {
            let mut slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
            let encoded = run(py, || {
                parallel_map(&mut slices, threads, |input| codec.encode(input, spec))
                    .into_iter()
                    .collect::<Result<Vec<_>>>()
            })?;
            return PyList::new(py, encoded.iter().map(|chunk| PyBytes::new(py, chunk)));
        };
        let slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
        new_bytes_batch(py, &slices, &bounds, |jobs| {
            parallel_map(jobs, threads, |(input, target)| {
                codec.encode_into_uninit(input, target, spec)
            })
            .into_iter()
            .collect()
        })
    }

    /// Decode every chunk on the shared pool, the GIL released, each straight into the
    /// `bytes` object returned for it when its stream states its size; `limit` caps each.
    #[pyo3(signature = (chunks, limit=None, threads=None))]
    fn decode_batch<'py>(
        &self,
        py: Python<'py>,
        chunks: &Bound<'py, PyAny>,
        limit: Option<usize>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = thread_count(py, threads, self.codec.name())?;
        let (codec, spec) = (&*self.codec, &self.spec);
        decode_batch_claimed(
            py,
            chunks,
            threads,
            |input| {
                let hint = codec.decoded_size_hint(input)?;
                Ok(hint.filter(|&size| limit.is_none_or(|limit| size <= limit)))
            },
            |input, target| fill(codec, input, target, spec),
            |input| codec.decode_limited(input, limit, spec),
        )
    }

    /// Decode each chunk into the matching writable buffer of `outs` on the shared pool, the
    /// GIL released; the bytes written into each. The outputs may not overlap each other or
    /// any chunk.
    #[pyo3(signature = (chunks, outs, threads=None))]
    fn decode_batch_into(
        &self,
        py: Python<'_>,
        chunks: &Bound<'_, PyAny>,
        outs: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Vec<usize>> {
        let name = self.codec.name();
        let threads = thread_count(py, threads, name)?;
        let (inputs, mut outputs) = checked_buffers(py, chunks, outs, name)?;
        let mut jobs: Vec<(&[u8], &mut [u8])> = inputs
            .iter()
            .map(BytesInput::as_slice)
            .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
            .collect();
        let (codec, spec) = (&self.codec, &self.spec);
        run(py, || {
            parallel_map(&mut jobs, threads, |(input, output)| {
                codec.decode_into(input, output, spec)
            })
            .into_iter()
            .collect()
        })
    }

    /// Decoding as a chain kernel (a capsule the runtime runs, chunk after chunk, in Rust).
    fn decode_kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let (codec, spec) = (Arc::clone(&self.codec), self.spec.clone());
        let decode = move |input: &[u8], output: &mut [u8]| codec.decode_into(input, output, &spec);
        match self.codec.max_decoded_size(0) {
            // A format that bounds its own output (a checksum) may run outside a compressor.
            Some(_) => {
                let codec = Arc::clone(&self.codec);
                bounded_decode_kernel(py, decode, move |len| {
                    codec.max_decoded_size(len).unwrap_or(len)
                })
            }
            None => decode_kernel(py, decode),
        }
    }

    /// Encoding as a chain kernel; a configuration error for a codec that states no bound on
    /// its output (the runtime must know the room a step needs).
    fn encode_kernel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        if self.codec.max_encoded_size(0).is_none() {
            let message = format!("{}: no bound on the encoded size", self.codec.name());
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let (codec, spec) = (Arc::clone(&self.codec), self.spec.clone());
        let bound = Arc::clone(&self.codec);
        encode_kernel(
            py,
            move |input: &[u8], target: Target<'_>| {
                // SAFETY: codecs write only initialised bytes through `encode_into_uninit`.
                let out = unsafe { target.into_uninit() };
                codec.encode_into_uninit(input, out, &spec)
            },
            move |len| bound.max_encoded_size(len).unwrap_or(usize::MAX),
        )
    }
}

/// Registers codec type `C` in `module`: the [`PyBytesCodec`] class, and `name(json,
/// zarr_format)`, which parses the codec's JSON metadata (text; the v3 `{"name",
/// "configuration"}` or the v2 `{"id", ...}` form) with `C`'s configuration type, the one
/// place it is validated, and returns its binding.
pub fn add_bytes_codec<C>(module: &Bound<'_, PyModule>, name: &'static CStr) -> PyResult<()>
where
    C: BytesToBytesCodec + CodecFromJson + 'static,
{
    module.add_class::<PyBytesCodec>()?;
    let constructor = PyCFunction::new_closure(
        module.py(),
        Some(name),
        Some(c"The compiled codec of JSON metadata (text) in Zarr format 2 or 3."),
        |args: &Bound<'_, PyTuple>, _kwargs| -> PyResult<Py<PyBytesCodec>> {
            let (json, zarr_format): (String, u8) = args.extract()?;
            let py = args.py();
            let codec: C = parse_codec_json(py, &json, zarr_format)?;
            let binding = PyBytesCodec::new(Arc::new(codec)).map_err(|err| to_py_err(py, &err))?;
            Py::new(py, binding)
        },
    )?;
    module.add(name.to_str().unwrap_or("codec"), constructor)
}
