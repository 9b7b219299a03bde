//! `ChunkGrid.cut` (and `cut_selection`): zarr-python's basic selection of a whole array cut
//! into per-chunk work in one call (see [`zarr_codec_runtime::selection`]), kept in Rust as a [`PyCut`] that a
//! `Runner`'s reads and writes take as it is: a read or write of any size costs no Python work
//! per chunk, and its selection is checked once.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PySlice, PyTuple};
use zarr_codec_runtime::selection::{Axis, ChunkKeys, ChunkPart, cut};
use zarr_codec_runtime::{Region, Span};
use zarr_codec_shapes::CodecError;

use zarr_codec_python::{run, to_py_err};

/// A basic selection of a whole array cut into the chunks it touches, kept in Rust: the reads
/// and writes of a `Runner` (and `Remote`) take it as it is, with no per-chunk Python objects.
/// Python sees its keys (to fetch chunks from a store's own memory) and, for tests and
/// debugging, the parts as zarr-python writes them (`as_lists`).
#[pyclass(frozen, module = "zarr_codec_runtime._runtime", name = "Cut")]
pub struct PyCut {
    /// The chunks touched, in C order: each one's part, place and completeness.
    pub(crate) parts: Vec<ChunkPart>,
    /// Each chunk's key, after the prefix (a file's path, for a local store).
    pub(crate) keys: Vec<String>,
    /// The dimensions an integer selects (dropped from the output).
    pub(crate) dropped: Vec<bool>,
    /// Every chunk's shape.
    pub(crate) chunk_shape: Vec<usize>,
    /// The shape of what the selection selects (integer-selected dimensions dropped).
    pub(crate) shape: Vec<usize>,
    /// The selection, per dimension (to write the parts as zarr-python does).
    axes: Vec<Axis>,
}

#[pymethods]
impl PyCut {
    /// How many chunks the selection touches.
    fn __len__(&self) -> usize {
        self.parts.len()
    }

    /// Each chunk's key (after the prefix), in C order.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.keys.clone()
    }

    /// Whether each part is all of its chunk inside the array (zarr-python's "complete
    /// chunk": a write need not read the old one).
    #[getter]
    fn complete(&self) -> Vec<bool> {
        self.parts.iter().map(|part| part.complete).collect()
    }

    /// Whether each part is all of its chunk, the part of an edge chunk outside the array
    /// included (a shard can be written without reading it only then).
    #[getter]
    fn covered(&self) -> Vec<bool> {
        self.parts
            .iter()
            .map(|part| part.chunk.is_whole(&self.chunk_shape))
            .collect()
    }

    /// The shape of what the selection selects.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.shape.clone()
    }

    /// The chunks at `indices` (each below the cut's length), in that order.
    fn take(&self, py: Python<'_>, indices: Vec<usize>) -> PyResult<Self> {
        let (mut parts, mut keys) = (Vec::with_capacity(indices.len()), Vec::new());
        for index in indices {
            let (Some(part), Some(key)) = (self.parts.get(index), self.keys.get(index)) else {
                let message = format!("chunk {index} of a cut of {}", self.parts.len());
                return Err(to_py_err(py, &CodecError::configuration(message)));
            };
            parts.push(part.clone());
            keys.push(key.clone());
        }
        Ok(Self {
            parts,
            keys,
            dropped: self.dropped.clone(),
            chunk_shape: self.chunk_shape.clone(),
            shape: self.shape.clone(),
            axes: self.axes.clone(),
        })
    }

    /// The chunks `start` to `stop` (a batch of a larger cut).
    fn part(&self, start: usize, stop: usize) -> Self {
        let stop = stop.min(self.parts.len());
        let start = start.min(stop);
        Self {
            parts: self.parts[start..stop].to_vec(),
            keys: self.keys[start..stop].to_vec(),
            dropped: self.dropped.clone(),
            chunk_shape: self.chunk_shape.clone(),
            shape: self.shape.clone(),
            axes: self.axes.clone(),
        }
    }

    /// The cut as zarr-python's indexers give it: keys, each chunk's part (slices, and
    /// integers where the selection has one), its place in the output (slices), and
    /// completeness.
    fn as_lists<'py>(&self, py: Python<'py>) -> PyResult<Lists<'py>> {
        let chunks = PyList::empty(py);
        let places = PyList::empty(py);
        for part in &self.parts {
            chunks.append(chunk_selection(py, &part.chunk, &self.axes)?)?;
            let place = part
                .place
                .spans
                .iter()
                .map(|span| slice_of(py, *span))
                .collect::<PyResult<Vec<_>>>()?;
            places.append(PyTuple::new(py, place)?)?;
        }
        Ok((self.keys(), chunks, places, self.complete()))
    }
}

/// What [`PyCut::as_lists`] returns: keys, chunk selections, output selections, completeness.
type Lists<'py> = (
    Vec<String>,
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Vec<bool>,
);

/// An array's regular chunk grid and chunk keys: what every selection of the array is cut
/// against. A `Runner`'s reads and writes take `(grid, selection)` in place of a [`PyCut`] and
/// cut it themselves, so a whole read or write of local files or a remote store is one call.
#[pyclass(frozen, module = "zarr_codec_runtime._runtime", name = "ChunkGrid")]
pub struct PyChunkGrid {
    shape: Vec<usize>,
    chunk_shape: Vec<usize>,
    prefix: String,
    keys: ChunkKeys,
}

#[pymethods]
impl PyChunkGrid {
    /// The grid of an array of `shape` in chunks of `chunk_shape`, whose chunk keys come after
    /// `prefix`, with `encoding` "default" or "v2" and `separator` "/" or ".".
    #[new]
    fn new(
        py: Python<'_>,
        shape: Vec<usize>,
        chunk_shape: Vec<usize>,
        prefix: String,
        encoding: &str,
        separator: &str,
    ) -> PyResult<Self> {
        let keys = match (encoding, separator) {
            ("default", "/" | ".") => ChunkKeys::Default {
                separator: separator.chars().next().unwrap_or('/'),
            },
            ("v2", "/" | ".") => ChunkKeys::V2 {
                separator: separator.chars().next().unwrap_or('.'),
            },
            _ => {
                let message = format!("chunk keys {encoding:?} with separator {separator:?}");
                return Err(to_py_err(py, &CodecError::configuration(message)));
            }
        };
        Ok(Self {
            shape,
            chunk_shape,
            prefix,
            keys,
        })
    }

    /// The chunks that `selection` (one `int` or `slice` with a positive step per dimension,
    /// as zarr-python's `BasicIndexer` normalises it) touches, in C order, with their keys: a
    /// [`PyCut`], cut in one call.
    fn cut(&self, py: Python<'_>, selection: &Bound<'_, PyAny>) -> PyResult<PyCut> {
        let (shape, chunk_shape) = (&self.shape, &self.chunk_shape);
        let items: Vec<Bound<'_, PyAny>> = selection.try_iter()?.collect::<PyResult<_>>()?;
        if items.len() != shape.len() {
            let message = format!(
                "a selection of {} dimensions of an array of {}",
                items.len(),
                shape.len()
            );
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let axes = items
            .iter()
            .zip(shape)
            .map(|(item, &len)| axis_of(py, item, len))
            .collect::<PyResult<Vec<Axis>>>()?;
        let parts = run(py, || cut(shape, chunk_shape, &axes))?;
        let keys = parts
            .iter()
            .map(|part| self.keys.key(&self.prefix, &part.coords))
            .collect();
        let dropped = axes
            .iter()
            .map(|axis| matches!(axis, Axis::Index(_)))
            .collect();
        let selected = axes
            .iter()
            .filter_map(|axis| match axis {
                Axis::Span(span) => Some(span.count),
                Axis::Index(_) => None,
            })
            .collect();
        Ok(PyCut {
            parts,
            keys,
            dropped,
            chunk_shape: chunk_shape.clone(),
            shape: selected,
            axes,
        })
    }
}

/// `selections` as a read or write takes it: a `(ChunkGrid, selection)` pair cut now (into a
/// [`PyCut`]), anything else as it is.
pub(crate) fn cut_now<'py>(selections: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(pair) = selections.cast::<PyTuple>()
        && pair.len() == 2
        && let Ok(grid) = pair.get_item(0)?.cast::<PyChunkGrid>()
    {
        let cut = grid.get().cut(selections.py(), &pair.get_item(1)?)?;
        return Ok(Bound::new(selections.py(), cut)?.into_any());
    }
    Ok(selections.clone())
}

/// Whether each part of a [`PyCut`] is all of its chunk within the array (a shard read so is
/// fetched whole); `None` for selections of another kind.
pub(crate) fn complete_of(selections: &Bound<'_, PyAny>) -> Option<Vec<bool>> {
    let cut = selections.cast::<PyCut>().ok()?;
    Some(cut.get().parts.iter().map(|part| part.complete).collect())
}

/// [`PyChunkGrid::cut`] of a grid made for one selection: the chunks of an array of `shape`
/// in chunks of `chunk_shape` that `selection` touches, keys after `prefix` with `encoding`
/// and `separator`.
#[pyfunction]
#[pyo3(signature = (shape, chunk_shape, selection, prefix, encoding, separator))]
pub fn cut_selection(
    py: Python<'_>,
    shape: Vec<usize>,
    chunk_shape: Vec<usize>,
    selection: &Bound<'_, PyAny>,
    prefix: String,
    encoding: &str,
    separator: &str,
) -> PyResult<PyCut> {
    PyChunkGrid::new(py, shape, chunk_shape, prefix, encoding, separator)?.cut(py, selection)
}

/// One dimension of a selection: an integer (negative ones count from the end, as numpy's) or
/// a slice with a positive step.
fn axis_of(py: Python<'_>, item: &Bound<'_, PyAny>, len: usize) -> PyResult<Axis> {
    let configuration = |message: String| to_py_err(py, &CodecError::configuration(message));
    let signed =
        isize::try_from(len).map_err(|_| configuration(format!("a dimension of {len}")))?;
    if let Ok(slice) = item.cast::<PySlice>() {
        let indices = slice.indices(signed)?;
        let (Ok(start), Ok(step)) = (
            usize::try_from(indices.start),
            usize::try_from(indices.step),
        ) else {
            return Err(configuration(format!("{item}: only positive steps")));
        };
        return Ok(Axis::Span(Span {
            start,
            step,
            count: indices.slicelength,
        }));
    }
    if item.is_instance_of::<PyBool>() {
        return Err(configuration(format!("{item} is not an index")));
    }
    let index: isize = item.extract()?;
    let index = if index < 0 { index + signed } else { index };
    usize::try_from(index)
        .ok()
        .filter(|&index| index < len)
        .map(Axis::Index)
        .ok_or_else(|| configuration(format!("index {item} outside a dimension of {len}")))
}

/// A chunk's part as zarr-python writes it: an integer where the selection has one, a slice
/// elsewhere.
fn chunk_selection<'py>(
    py: Python<'py>,
    chunk: &Region,
    axes: &[Axis],
) -> PyResult<Bound<'py, PyTuple>> {
    let items = chunk
        .spans
        .iter()
        .zip(axes)
        .map(|(span, axis)| match axis {
            Axis::Index(_) => Ok(span.start.into_pyobject(py)?.into_any()),
            Axis::Span(_) => Ok(slice_of(py, *span)?.into_any()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// `slice(start, stop, step)` holding exactly `span`'s indices.
fn slice_of(py: Python<'_>, span: Span) -> PyResult<Bound<'_, PySlice>> {
    let configuration = || to_py_err(py, &CodecError::configuration("a span beyond isize"));
    let stop = span
        .count
        .checked_sub(1)
        .and_then(|last| last.checked_mul(span.step))
        .map_or(Some(span.start), |reach| {
            span.start.checked_add(reach)?.checked_add(1)
        })
        .ok_or_else(configuration)?;
    let signed = |value: usize| isize::try_from(value).map_err(|_| configuration());
    Ok(PySlice::new(
        py,
        signed(span.start)?,
        signed(stop)?,
        signed(span.step)?,
    ))
}
