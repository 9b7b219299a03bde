//! The runtime's Python face: a planned chain direction ([`PyPlan`], Python's
//! `zarr_codec_runtime.Plan`) and the conversions between Python's batches and
//! [`zarr_codec_runtime`]'s. Only the `zarr-codec-runtime` wheel adds the class to its module,
//! so the runners exist once, whichever wheels made the kernels.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyString, PyTuple};

use zarr_codec_runtime::{
    ArrayStage, BytesStage, ChunkError, InArray, Kernel, OutArray, Plan, ReadItem, Region, Source,
    Span, Stored, Target, WriteItem,
};
use zarr_codec_shapes::{CodecError, Endian};

use crate::selection::PyCut;

use zarr_codec_python::kernel::ForeignKernel;
use zarr_codec_python::{
    BytesInput, BytesOutput, checked_buffers, checked_outputs, new_bytes_batch, run, thread_count,
    to_py_err,
};

/// An array codec as Python describes it: `(name, encode kernel, decode kernel, decoded
/// bytes, encoded bytes)`; for `transpose`, `("transpose", (shape, order, element size), ...)`.
type ArrayDescribed<'py> = (String, Bound<'py, PyAny>, Bound<'py, PyAny>, usize, usize);

/// Both directions of a chain, planned by the runtime's one planner
/// ([`zarr_codec_runtime::plan`]) from what Python knows of its codecs: the array codecs'
/// kernels and sizes (`(name, encode kernel, decode kernel, decoded bytes, encoded bytes)`,
/// or `("transpose", (shape, order, element size), None, ...)`), the `bytes` codec's `endian`
/// ("little", "big" or `None`) for the `stored` elements (`(bytes, swap size, data type
/// name)`), and the bytes codecs' kernels (`(name, encode kernel, decode kernel)`), for chunks
/// of `decoded_len` bytes. Returns `(decode, encode)`.
#[pyfunction]
pub fn plan_chain(
    py: Python<'_>,
    array: Vec<ArrayDescribed<'_>>,
    endian: Option<&str>,
    stored: (usize, usize, String),
    bytes: Vec<(String, Bound<'_, PyAny>, Bound<'_, PyAny>)>,
    decoded_len: usize,
) -> PyResult<(PyPlan, PyPlan)> {
    let kernel = |capsule: &Bound<'_, PyAny>| -> PyResult<Arc<dyn Kernel>> {
        Ok(Arc::new(ForeignKernel::new(capsule)?))
    };
    let mut stages = Vec::with_capacity(array.len());
    for (name, encode, decode, decoded_len, encoded_len) in array {
        let transposed = (name == "transpose")
            .then(|| encode.extract::<(Vec<usize>, Vec<usize>, usize)>().ok())
            .flatten();
        stages.push(match transposed {
            Some((shape, order, item)) => ArrayStage::Transpose { shape, order, item },
            None => ArrayStage::Kernels {
                encode: kernel(&encode)?,
                decode: kernel(&decode)?,
                name,
                decoded_len,
                encoded_len,
            },
        });
    }
    let bytes = bytes
        .into_iter()
        .map(|(name, encode, decode)| {
            Ok(BytesStage {
                name,
                encode: kernel(&encode)?,
                decode: kernel(&decode)?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let endian = match endian {
        None => None,
        Some("little") => Some(Endian::Little),
        Some("big") => Some(Endian::Big),
        Some(other) => {
            let message = format!("bytes: endian must be \"little\" or \"big\", got {other:?}");
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
    };
    let (len, swap_size, data_type) = stored;
    let stored = Stored {
        len,
        swap_size,
        data_type: &data_type,
    };
    let (decode, encode) = zarr_codec_runtime::plan(stages, endian, &stored, bytes, decoded_len)
        .map_err(|err| to_py_err(py, &err))?;
    Ok((PyPlan { plan: decode }, PyPlan { plan: encode }))
}

/// A chunk's error as Python's: a codec's as its `zarr_codec_shapes` exception, a file's as
/// `OSError(errno, message, path)` (Python picks the subclass from the errno).
pub fn chunk_error_to_py(py: Python<'_>, err: &ChunkError) -> PyErr {
    match err {
        ChunkError::Codec(err) => to_py_err(py, err),
        ChunkError::Io(err, path) => {
            let path = path.to_string_lossy().into_owned();
            match err.raw_os_error() {
                Some(code) => PyOSError::new_err((code, err.to_string(), path)),
                None => PyOSError::new_err(format!("{err}: {path}")),
            }
        }
    }
}

/// Chunk work run with the GIL released, its error raised as Python's.
pub(crate) fn run_chunks<T: Send>(
    py: Python<'_>,
    work: impl Send + FnOnce() -> Result<T, ChunkError>,
) -> PyResult<T> {
    let mut failure = None;
    let result = run(py, || match work() {
        Ok(value) => Ok(Some(value)),
        Err(ChunkError::Codec(err)) => Err(err),
        Err(err) => {
            failure = Some(err);
            Ok(None)
        }
    })?;
    match (result, failure) {
        (Some(value), _) => Ok(value),
        (None, Some(err)) => Err(chunk_error_to_py(py, &err)),
        (None, None) => Err(to_py_err(py, &CodecError::configuration("no result"))),
    }
}

/// One direction of a chain, planned once: Python's `zarr_codec_runtime.Plan`.
#[pyclass(frozen, module = "zarr_codec_runtime._runtime", name = "Plan")]
pub struct PyPlan {
    pub(crate) plan: Plan,
}

#[pymethods]
impl PyPlan {
    /// The number of steps.
    fn __len__(&self) -> usize {
        self.plan.steps().len()
    }

    /// The size every input must have, when fixed.
    #[getter]
    fn input_len(&self) -> Option<usize> {
        self.plan.input_len()
    }

    /// The size of every output, when fixed.
    #[getter]
    fn output_len(&self) -> Option<usize> {
        self.plan.output_len()
    }

    /// Each chunk through the plan into the matching buffer of `outs` (each exactly the
    /// output size), in parallel with the GIL released.
    #[pyo3(signature = (chunks, outs, threads=None))]
    fn run_into(
        &self,
        py: Python<'_>,
        chunks: &Bound<'_, PyAny>,
        outs: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        let threads = thread_count(py, threads, "chain")?;
        let (inputs, mut outputs) = checked_buffers(py, chunks, outs, "chain")?;
        let mut jobs: Vec<(&[u8], &mut [u8])> = inputs
            .iter()
            .map(BytesInput::as_slice)
            .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
            .collect();
        let plan = &self.plan;
        run(py, || {
            zarr_codec_runtime::decode_batch_into(plan, &mut jobs, threads)
        })
    }

    /// Each chunk through the plan into a new `bytes` object, in parallel with the GIL
    /// released; the last step writes straight into the object.
    #[pyo3(signature = (chunks, threads=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        chunks: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = thread_count(py, threads, "chain")?;
        let inputs = BytesInput::all(chunks)?;
        let rooms = inputs
            .iter()
            .map(|input| self.plan.room(input.len()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| to_py_err(py, &err))?;
        let slices: Vec<&[u8]> = inputs.iter().map(BytesInput::as_slice).collect();
        let plan = &self.plan;
        new_bytes_batch(py, &slices, &rooms, |jobs| {
            let mut targets: Vec<(&[u8], Target<'_>)> = jobs
                .iter_mut()
                .map(|(input, storage)| (*input, Target::Uninit(storage)))
                .collect();
            zarr_codec_runtime::encode_batch(plan, &mut targets, threads)
        })
    }

    /// Each chunk encoded and written to the matching file of `paths` (a temporary file
    /// renamed over it, directories made first), in parallel with the GIL released.
    #[pyo3(signature = (chunks, paths, threads=None))]
    fn run_to_files(
        &self,
        py: Python<'_>,
        chunks: &Bound<'_, PyAny>,
        paths: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<()> {
        let threads = thread_count(py, threads, "chain")?;
        let paths = paths_of(paths)?;
        let inputs = BytesInput::all(chunks)?;
        if inputs.len() != paths.len() {
            let message = format!("chain: {} chunks but {} paths", inputs.len(), paths.len());
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let mut jobs: Vec<(&[u8], &Path)> = inputs
            .iter()
            .map(BytesInput::as_slice)
            .zip(paths.iter().map(PathBuf::as_path))
            .collect();
        let plan = &self.plan;
        run_chunks(py, || {
            zarr_codec_runtime::encode_files(plan, &mut jobs, threads)
        })
    }

    /// Each chunk file of `paths` through the plan into the matching buffer of `outs`; for
    /// each, whether its file was there (a missing one leaves its buffer untouched).
    #[pyo3(signature = (paths, outs, threads=None))]
    fn run_files_into(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        outs: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Vec<bool>> {
        let threads = thread_count(py, threads, "chain")?;
        let paths = paths_of(paths)?;
        let mut outputs = checked_outputs(py, outs, paths.len(), "chain")?;
        let mut jobs: Vec<(&Path, &mut [u8])> = paths
            .iter()
            .map(PathBuf::as_path)
            .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
            .collect();
        let plan = &self.plan;
        run_chunks(py, || {
            zarr_codec_runtime::pool::parallel_map(&mut jobs, threads, |(path, out)| {
                zarr_codec_runtime::files::decode_file(plan, path, out)
                    .map(|outcome| outcome == zarr_codec_runtime::files::Outcome::Done)
            })
            .into_iter()
            .collect()
        })
    }
}

/// The keys of `selections` when it is a [`PyCut`] and `given` is `None` (a cut of a local
/// store names its chunk files), else `given`'s items.
pub(crate) fn named<'py>(
    given: &Bound<'py, PyAny>,
    selections: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    match selections.cast::<PyCut>() {
        Ok(cut) if given.is_none() => cut
            .get()
            .keys
            .iter()
            .map(|key| Ok(PyString::new(given.py(), key).into_any()))
            .collect(),
        _ => given.try_iter()?.collect(),
    }
}

/// A batch read's arguments as the runtime takes them (see `Runner.read`), run by `run` with
/// the GIL released; `None`, with nothing done, when a selection or `out` is of another kind.
pub(crate) fn read_with(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    selections: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    chunk_shape: &[usize],
    run: impl Send + FnOnce(&[ReadItem<'_>], &OutArray<'_>) -> Result<Vec<bool>, ChunkError>,
) -> PyResult<Option<Vec<bool>>> {
    let Some((view, placed)) = resolve(out, true, selections, chunk_shape)? else {
        return Ok(None);
    };
    let sources = named(sources, selections)?;
    if sources.len() != placed.regions.len() {
        let message = "read: sources and selections differ in number";
        return Err(to_py_err(py, &CodecError::configuration(message)));
    }
    let inputs: Vec<Option<SourceInput>> = sources
        .iter()
        .map(SourceInput::of)
        .collect::<PyResult<_>>()?;
    let array = out_array(py, &view, &placed)?;
    let items: Vec<ReadItem<'_>> = inputs
        .iter()
        .zip(placed.regions)
        .map(|(input, (chunk, out))| ReadItem {
            source: input.as_ref().map_or(Source::Missing, SourceInput::source),
            chunk,
            out,
        })
        .collect();
    run_chunks(py, || run(&items, &array)).map(Some)
}

/// The output of a read, `view` of a writable numpy array, seen as `placed` sees it.
pub(crate) fn out_array<'a>(
    py: Python<'_>,
    view: &'a ArrayView,
    placed: &Placement,
) -> PyResult<OutArray<'a>> {
    // SAFETY: `view` describes a live, writable numpy array (checked by `ArrayView::of`)
    // that the caller keeps alive while the result lives; numpy's layout keeps every element
    // in its memory.
    unsafe {
        OutArray::from_raw(
            view.memory,
            view.len,
            view.offset,
            &placed.shape,
            &placed.strides,
            view.item,
        )
    }
    .map_err(|err| to_py_err(py, &err))
}

/// A batch write of chunk files, its arguments as the runtime takes them (see
/// `Plan.write_files`), run by `run` with the GIL released; `None`, with nothing done, when a
/// selection or `values` is of another kind.
pub(crate) fn write_files_with(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    selections: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    chunk_shape: &[usize],
    run: impl Send + FnOnce(&[WriteItem<'_>], &InArray<'_>) -> Result<Vec<bool>, ChunkError>,
) -> PyResult<Option<Vec<bool>>> {
    let Some((view, placed)) = resolve(values, false, selections, chunk_shape)? else {
        return Ok(None);
    };
    let paths = named(paths, selections)?
        .iter()
        .map(PyAnyMethods::extract)
        .collect::<PyResult<Vec<PathBuf>>>()?;
    if paths.len() != placed.regions.len() {
        let message = "write: paths and selections differ in number";
        return Err(to_py_err(py, &CodecError::configuration(message)));
    }
    let array = in_array(py, values, &view, &placed)?;
    let items: Vec<WriteItem<'_>> = paths
        .iter()
        .zip(placed.regions)
        .map(|(path, (chunk, values))| WriteItem {
            path,
            chunk,
            values,
        })
        .collect();
    run_chunks(py, || run(&items, &array)).map(Some)
}

/// The old stored bytes of a batch write kept in memory (`None` each where there are none).
pub(crate) fn olds_of(olds: &Bound<'_, PyAny>) -> PyResult<Vec<Option<BytesInput>>> {
    olds.try_iter()?
        .map(|old| {
            let old = old?;
            if old.is_none() {
                Ok(None)
            } else {
                BytesInput::new(&old).map(Some)
            }
        })
        .collect()
}

/// A chunk's stored bytes as Python gave them.
enum SourceInput {
    Bytes(BytesInput),
    File(PathBuf),
}

impl SourceInput {
    /// `None` for Python's `None` (a missing chunk).
    fn of(source: &Bound<'_, PyAny>) -> PyResult<Option<Self>> {
        if source.is_none() {
            Ok(None)
        } else if source.is_instance_of::<PyString>() {
            Ok(Some(Self::File(source.extract()?)))
        } else {
            Ok(Some(Self::Bytes(BytesInput::new(source)?)))
        }
    }

    fn source(&self) -> Source<'_> {
        match self {
            Self::Bytes(bytes) => Source::Bytes(bytes.as_slice()),
            Self::File(path) => Source::File(path),
        }
    }
}

/// A numpy array's layout: where its memory is and how its elements lie in it.
pub(crate) struct ArrayView {
    memory: *mut u8,
    len: usize,
    offset: usize,
    shape: Vec<usize>,
    strides: Vec<isize>,
    pub(crate) item: usize,
}

impl ArrayView {
    /// The layout of `array`; `None` when it is read-only and `writable` is asked for.
    fn of(array: &Bound<'_, PyUntypedArray>, writable: bool) -> Option<Self> {
        let raw = array.as_array_ptr();
        // SAFETY: `raw` is a live numpy array (`array` holds it).
        let (flags, data) = unsafe { ((*raw).fields.flags, (*raw).fields.data.cast::<u8>()) };
        if writable && flags & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0 {
            return None;
        }
        let shape = array.shape().to_vec();
        let strides = array.strides().to_vec();
        let item = array.dtype().itemsize();
        // The lowest and highest byte any element occupies, relative to the first element.
        let (mut low, mut high) = (0isize, 0isize);
        if !shape.contains(&0) {
            for (&len, &stride) in shape.iter().zip(&strides) {
                let reach = stride * isize::try_from(len - 1).unwrap_or(0);
                if reach < 0 {
                    low += reach;
                } else {
                    high += reach;
                }
            }
        }
        let offset = low.unsigned_abs();
        let len = usize::try_from(high - low).unwrap_or(0) + item;
        Some(Self {
            // SAFETY: numpy's elements all lie within `low..high + item` of the first.
            memory: unsafe { data.offset(low) },
            len,
            offset,
            shape,
            strides,
            item,
        })
    }
}

/// A numpy array `array` (writable when asked) and a batch's basic selections resolved
/// against it and chunks of `chunk_shape`; `None` for anything else.
pub(crate) fn resolve(
    array: &Bound<'_, PyAny>,
    writable: bool,
    selections: &Bound<'_, PyAny>,
    chunk_shape: &[usize],
) -> PyResult<Option<(ArrayView, Placement)>> {
    let Ok(array) = array.cast::<PyUntypedArray>() else {
        return Ok(None);
    };
    let Some(view) = ArrayView::of(array, writable) else {
        return Ok(None);
    };
    let placed = if let Ok(cut) = selections.cast::<PyCut>() {
        Placement::of_cut(cut.get(), chunk_shape, &view)
    } else {
        let (chunk_selections, array_selections): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
            selections.extract()?;
        Placement::of(&chunk_selections, &array_selections, chunk_shape, &view)?
    };
    Ok(placed.map(|placed| (view, placed)))
}

/// The values of a write, `view` of the numpy array `values`, seen as `placed` sees them.
pub(crate) fn in_array<'a>(
    py: Python<'_>,
    _values: &'a Bound<'_, PyAny>, // the array `view` describes, borrowed while the result lives
    view: &ArrayView,
    placed: &Placement,
) -> PyResult<InArray<'a>> {
    // SAFETY: `view` describes a live numpy array that `values` keeps alive for 'a; numpy's
    // layout keeps every element in its memory. Python code could write to it meanwhile only
    // by racing its own call, as with any buffer handed to a codec.
    unsafe {
        InArray::from_raw(
            view.memory.cast_const(),
            view.len,
            view.offset,
            &placed.shape,
            &placed.strides,
            view.item,
        )
    }
    .map_err(|err| to_py_err(py, &err))
}

/// A batch's selections resolved: each chunk's part and its place in the caller's array, and
/// that array's shape and strides seen with the chunks' dimensions (a dimension an integer
/// selects has one element there).
pub(crate) struct Placement {
    pub(crate) regions: Vec<(Region, Region)>,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

impl Placement {
    /// From zarr-python's basic selections (tuples of slices and integers into chunks of
    /// `chunk_shape`, of slices into the array `view`); `None` for any other kind.
    fn of(
        chunk_selections: &Bound<'_, PyAny>,
        array_selections: &Bound<'_, PyAny>,
        chunk_shape: &[usize],
        view: &ArrayView,
    ) -> PyResult<Option<Self>> {
        let chunk_selections: Vec<Bound<'_, PyAny>> =
            chunk_selections.try_iter()?.collect::<PyResult<_>>()?;
        let array_selections: Vec<Bound<'_, PyAny>> =
            array_selections.try_iter()?.collect::<PyResult<_>>()?;
        if chunk_selections.len() != array_selections.len() {
            return Ok(None);
        }
        // Integer-selected dimensions of the chunks, the same for every chunk of a batch.
        let mut dropped: Option<Vec<bool>> = None;
        let mut regions = Vec::with_capacity(chunk_selections.len());
        for (chunk_selection, array_selection) in chunk_selections.iter().zip(&array_selections) {
            let Some((chunk, ints)) = chunk_region(chunk_selection, chunk_shape)? else {
                return Ok(None);
            };
            if dropped.get_or_insert_with(|| ints.clone()) != &ints {
                return Ok(None);
            }
            let Some(place) = out_region(array_selection, &view.shape)? else {
                return Ok(None);
            };
            regions.push((chunk, place));
        }
        let dropped = dropped.unwrap_or_else(|| vec![false; chunk_shape.len()]);
        Ok(Self::widened(regions, &dropped, view))
    }

    /// From a [`PyCut`] of chunks of `chunk_shape` into the array `view` (of the shape the
    /// cut selects); `None` for a cut of other chunks or an array of another shape.
    fn of_cut(cut: &PyCut, chunk_shape: &[usize], view: &ArrayView) -> Option<Self> {
        if cut.chunk_shape != chunk_shape || cut.shape != view.shape {
            return None;
        }
        let regions = cut
            .parts
            .iter()
            .map(|part| (part.chunk.clone(), part.place.clone()))
            .collect();
        Self::widened(regions, &cut.dropped, view)
    }

    /// `regions` (parts of chunks, and places in `view`'s own dimensions) with `view` and the
    /// places seen with the chunks' dimensions: a `dropped` dimension (an integer selects it)
    /// has one element there. `None` when the dimensions disagree.
    fn widened(regions: Vec<(Region, Region)>, dropped: &[bool], view: &ArrayView) -> Option<Self> {
        if dropped.iter().filter(|&&d| !d).count() != view.shape.len() {
            return None;
        }
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        let mut kept = view.shape.iter().zip(&view.strides);
        for &is_dropped in dropped {
            if is_dropped {
                shape.push(1);
                strides.push(0);
            } else if let Some((&len, &stride)) = kept.next() {
                shape.push(len);
                strides.push(stride);
            }
        }
        let regions = regions
            .into_iter()
            .map(|(chunk, place)| (chunk, widen(&place, dropped)))
            .collect();
        Some(Self {
            regions,
            shape,
            strides,
        })
    }
}

/// `span`'s start, step and count along a dimension of `len`, for a Python slice.
fn slice_span(slice: &Bound<'_, PySlice>, len: usize) -> PyResult<Option<Span>> {
    let Ok(length) = isize::try_from(len) else {
        return Ok(None);
    };
    let indices = slice.indices(length)?;
    let (Ok(start), Ok(step)) = (
        usize::try_from(indices.start),
        usize::try_from(indices.step),
    ) else {
        return Ok(None); // a negative step
    };
    Ok(Some(Span {
        start,
        step,
        count: indices.slicelength,
    }))
}

/// A chunk's selection (a tuple of slices and integers) as a region of a chunk of `shape`,
/// and which dimensions integers select; `None` for any other kind of selection.
pub(crate) fn chunk_region(
    selection: &Bound<'_, PyAny>,
    shape: &[usize],
) -> PyResult<Option<(Region, Vec<bool>)>> {
    let Ok(selection) = selection.cast::<PyTuple>() else {
        return Ok(None);
    };
    if selection.len() != shape.len() {
        return Ok(None);
    }
    let mut spans = Vec::with_capacity(shape.len());
    let mut ints = Vec::with_capacity(shape.len());
    for (item, &len) in selection.iter().zip(shape) {
        if let Ok(slice) = item.cast::<PySlice>() {
            let Some(span) = slice_span(slice, len)? else {
                return Ok(None);
            };
            spans.push(span);
            ints.push(false);
        } else if let Ok(index) = item.extract::<usize>() {
            if item.is_instance_of::<pyo3::types::PyBool>() || index >= len {
                return Ok(None);
            }
            spans.push(Span::run(index, 1));
            ints.push(true);
        } else {
            return Ok(None);
        }
    }
    Ok(Some((Region { spans }, ints)))
}

/// An output selection (a tuple of slices) as a region of an array of `shape`.
fn out_region(selection: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<Option<Region>> {
    let Ok(selection) = selection.cast::<PyTuple>() else {
        return Ok(None);
    };
    if selection.len() != shape.len() {
        return Ok(None);
    }
    let mut spans = Vec::with_capacity(shape.len());
    for (item, &len) in selection.iter().zip(shape) {
        let Ok(slice) = item.cast::<PySlice>() else {
            return Ok(None);
        };
        let Some(span) = slice_span(slice, len)? else {
            return Ok(None);
        };
        spans.push(span);
    }
    Ok(Some(Region { spans }))
}

/// `place`, a region of the output, with a one-element dimension where `dropped` says.
fn widen(place: &Region, dropped: &[bool]) -> Region {
    let mut kept = place.spans.iter();
    Region {
        spans: dropped
            .iter()
            .map(|&is_dropped| {
                if is_dropped {
                    Span::run(0, 1)
                } else {
                    kept.next().copied().unwrap_or(Span::run(0, 0))
                }
            })
            .collect(),
    }
}

/// The paths of `paths`, an iterable of `str` or `os.PathLike`.
fn paths_of(paths: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    paths.try_iter()?.map(|path| path?.extract()).collect()
}
