//! `cut_selection`: zarr-python's basic selection of a whole array cut into per-chunk work in
//! one call (see [`zarr_codec_runtime::selection`]), in the forms `Plan.read` and the write
//! methods take, so a read or write of any size costs no Python work per chunk.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PySlice, PyTuple};
use zarr_codec_runtime::selection::{Axis, ChunkKeys, cut};
use zarr_codec_runtime::{Region, Span};
use zarr_codec_shapes::CodecError;

use zarr_codec_python::{run, to_py_err};

/// What [`cut_selection`] returns: keys, chunk selections, output selections, completeness.
type Cut<'py> = (
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Vec<bool>,
);

/// The chunks that `selection` (one `int` or `slice` with a positive step per dimension, as
/// zarr-python's `BasicIndexer` normalises it) of an array of `shape` in chunks of
/// `chunk_shape` touches, in C order: their keys (after `prefix`, with `encoding` "default" or
/// "v2" and `separator`), the part of each (a tuple of slices, and integers where the
/// selection has one), where it goes in the output (a tuple of slices; integer-selected
/// dimensions dropped), and whether it covers the chunk's part inside the array.
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // pyo3 extracts the shapes into owned vectors
#[pyo3(signature = (shape, chunk_shape, selection, prefix, encoding, separator))]
pub fn cut_selection<'py>(
    py: Python<'py>,
    shape: Vec<usize>,
    chunk_shape: Vec<usize>,
    selection: &Bound<'py, PyAny>,
    prefix: &str,
    encoding: &str,
    separator: &str,
) -> PyResult<Cut<'py>> {
    let configuration = |message: String| to_py_err(py, &CodecError::configuration(message));
    let keys = match (encoding, separator) {
        ("default", "/" | ".") => ChunkKeys::Default {
            separator: separator.chars().next().unwrap_or('/'),
        },
        ("v2", "/" | ".") => ChunkKeys::V2 {
            separator: separator.chars().next().unwrap_or('.'),
        },
        _ => {
            return Err(configuration(format!(
                "chunk keys {encoding:?} with separator {separator:?}"
            )));
        }
    };
    let items: Vec<Bound<'py, PyAny>> = selection.try_iter()?.collect::<PyResult<_>>()?;
    if items.len() != shape.len() {
        return Err(configuration(format!(
            "a selection of {} dimensions of an array of {}",
            items.len(),
            shape.len()
        )));
    }
    let axes = items
        .iter()
        .zip(&shape)
        .map(|(item, &len)| axis_of(py, item, len))
        .collect::<PyResult<Vec<Axis>>>()?;
    let parts = run(py, || cut(&shape, &chunk_shape, &axes))?;
    let keys_out = PyList::empty(py);
    let chunks = PyList::empty(py);
    let places = PyList::empty(py);
    let mut complete = Vec::with_capacity(parts.len());
    for part in &parts {
        keys_out.append(keys.key(prefix, &part.coords))?;
        chunks.append(chunk_selection(py, &part.chunk, &axes)?)?;
        let place = part
            .place
            .spans
            .iter()
            .map(|span| slice_of(py, *span))
            .collect::<PyResult<Vec<_>>>()?;
        places.append(PyTuple::new(py, place)?)?;
        complete.push(part.complete);
    }
    Ok((keys_out, chunks, places, complete))
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
