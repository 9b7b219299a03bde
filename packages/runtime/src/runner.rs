//! [`PyRunner`], Python's `zarr_codec_runtime.Runner`: the one runner of a chain's reads and
//! writes, plain or sharded (`sharding_indexed`), with the argument handling written once.
//!
//! A runner is made once per chain and holds what every call would otherwise pass again: the
//! planned chain (or the shards of one), the chunks' shape, their numpy data type, the fill
//! value's bytes and the rule for chunks left all fill value. A call that the runtime does
//! not take (an array of another data type, a selection of another kind, no empty-chunk rule
//! for the data type) answers `None` with nothing done; this is the one place that decides.

use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zarr_codec_runtime::{
    BufferWriteItem, EmptyRule, FetchedRead, IndexLocation, Inner, Plan, ShardWrite, Sharding,
    Target, WriteOrder,
};
use zarr_codec_shapes::CodecError;

use crate::runtime::{
    PyPlan, chunk_region, in_array, olds_of, out_array, read_with, resolve, run_chunks,
    write_files_with,
};
use crate::selection::cut_now;
use zarr_codec_python::{BytesInput, UninitBytes, numpy_from_vec, run, thread_count, to_py_err};

/// A shard fetched in parts, as Python gave it: its index (if any) and inner chunks.
type Fetched = (Option<BytesInput>, Vec<(usize, BytesInput)>);

/// What a runner runs.
pub(crate) enum Runs {
    /// Chunks of `shape` through a planned chain.
    Chain {
        decode: Plan,
        encode: Plan,
        shape: Vec<usize>,
    },
    /// Shards of inner chunks.
    Sharded(Box<Sharding>),
}

/// A chain's reads and writes: Python's `zarr_codec_runtime.Runner`.
#[pyclass(frozen, module = "zarr_codec_runtime._runtime", name = "Runner")]
pub struct PyRunner {
    pub(crate) runs: Runs,
    /// One element of the fill value, native byte order.
    pub(crate) fill: Vec<u8>,
    /// The numpy data type of every array read into or written from.
    dtype: Py<PyArrayDescr>,
    /// Which chunks a write leaves out unless told to write empty chunks; `None` where the
    /// runtime has no such rule for the data type (then writes are zarr-python's).
    empty: Option<EmptyRule>,
}

/// A Python name of one of the runtime's choices, or a configuration error.
fn choice<T: Copy>(py: Python<'_>, what: &str, name: &str, choices: &[(&str, T)]) -> PyResult<T> {
    choices
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| *value)
        .ok_or_else(|| {
            let message = format!("runner: no {what} {name:?}");
            to_py_err(py, &CodecError::configuration(message))
        })
}

/// The empty-chunk rule named `name` ("same-bytes", "all-nan"), `None` for `None`.
fn empty_rule_of(py: Python<'_>, name: Option<&str>) -> PyResult<Option<EmptyRule>> {
    name.map(|name| {
        choice(
            py,
            "empty-chunk rule",
            name,
            &[
                ("never", EmptyRule::Never),
                ("same-bytes", EmptyRule::SameBytes),
                ("all-nan", EmptyRule::AllNan),
            ],
        )
    })
    .transpose()
}

impl PyRunner {
    /// The shape of every chunk (every shard, for a sharded chain).
    pub(crate) fn chunk_shape(&self) -> &[usize] {
        match &self.runs {
            Runs::Chain { shape, .. } => shape,
            Runs::Sharded(sharding) => sharding.shard_shape(),
        }
    }

    /// Whether the runtime takes `array`: a numpy array of the runner's data type.
    pub(crate) fn takes(&self, py: Python<'_>, array: &Bound<'_, PyAny>) -> bool {
        array
            .cast::<PyUntypedArray>()
            .is_ok_and(|array| array.dtype().is_equiv_to(self.dtype.bind(py)))
    }

    /// The rule of a write, when the runtime takes it.
    fn rule(&self, write_empty_chunks: bool) -> Option<EmptyRule> {
        if write_empty_chunks {
            Some(EmptyRule::Never)
        } else {
            self.empty
        }
    }

    /// The sharding, or a configuration error naming `what` for a plain chain.
    fn sharding(&self, py: Python<'_>, what: &str) -> PyResult<&Sharding> {
        match &self.runs {
            Runs::Sharded(sharding) => Ok(sharding),
            Runs::Chain { .. } => {
                let message = format!("runner: {what} is for sharded chains");
                Err(to_py_err(py, &CodecError::configuration(message)))
            }
        }
    }
}

#[pymethods]
impl PyRunner {
    /// The runner of a plain chain: chunks of `shape` decoded by `decode`, encoded by
    /// `encode`, of numpy type `dtype`, `fill` one element of the fill value, `empty` the rule
    /// for chunks left all fill value ("same-bytes", "all-nan"; `None`: the runtime has none).
    #[staticmethod]
    #[pyo3(signature = (decode, encode, shape, dtype, fill, empty))]
    fn chain(
        py: Python<'_>,
        decode: &PyPlan,
        encode: &PyPlan,
        shape: Vec<usize>,
        dtype: Bound<'_, PyArrayDescr>,
        fill: Vec<u8>,
        empty: Option<&str>,
    ) -> PyResult<Self> {
        Ok(Self {
            runs: Runs::Chain {
                decode: decode.plan.clone(),
                encode: encode.plan.clone(),
                shape,
            },
            fill,
            dtype: dtype.unbind(),
            empty: empty_rule_of(py, empty)?,
        })
    }

    /// The runner of shards of `shard_shape` whose inner chunks `inner` (a runner) runs, the
    /// index coded by `index` (a `(decode, encode)` pair of plans) at `index_location`
    /// ("start" or "end"), inner chunks laid out in `write_order` ("morton",
    /// "lexicographic", "colexicographic", "unordered"); the data type, fill value and rule
    /// are `inner`'s.
    #[staticmethod]
    #[allow(clippy::needless_pass_by_value)] // pyo3 extracts owned vectors
    fn sharded(
        py: Python<'_>,
        shard_shape: Vec<usize>,
        inner: &Self,
        index: (PyRef<'_, PyPlan>, PyRef<'_, PyPlan>),
        index_location: &str,
        write_order: &str,
    ) -> PyResult<Self> {
        let inner_shape = inner.chunk_shape().to_vec();
        let runs = match &inner.runs {
            Runs::Sharded(sharding) => Inner::Sharded(sharding.clone()),
            Runs::Chain { decode, encode, .. } => Inner::Chain {
                decode: decode.clone(),
                encode: encode.clone(),
            },
        };
        let location = choice(
            py,
            "index location",
            index_location,
            &[("start", IndexLocation::Start), ("end", IndexLocation::End)],
        )?;
        let order = choice(
            py,
            "write order",
            write_order,
            &[
                ("morton", WriteOrder::Morton),
                ("lexicographic", WriteOrder::Lexicographic),
                ("unordered", WriteOrder::Lexicographic),
                ("colexicographic", WriteOrder::Colexicographic),
            ],
        )?;
        let (index_decode, index_encode) = index;
        let sharding = Sharding::new(
            &shard_shape,
            &inner_shape,
            runs,
            (index_decode.plan.clone(), index_encode.plan.clone()),
            location,
            order,
        )
        .map_err(|err| to_py_err(py, &err))?;
        Ok(Self {
            runs: Runs::Sharded(Box::new(sharding)),
            fill: inner.fill.clone(),
            dtype: inner.dtype.clone_ref(py),
            empty: inner.empty,
        })
    }

    /// The shape of every chunk (every shard, for a sharded chain).
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.chunk_shape().to_vec()
    }

    /// Whether the chain is `sharding_indexed`.
    #[getter]
    fn is_sharded(&self) -> bool {
        matches!(self.runs, Runs::Sharded(_))
    }

    /// The stored size of a shard's index (sharded chains).
    #[getter]
    fn index_len(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.sharding(py, "index_len")?.index_len())
    }

    /// A read of a batch in one call: chunk `i` (bytes, a file's path, or `None` for a missing
    /// chunk) decoded, its part put at its place in `out`, missing chunks as the fill value;
    /// of a shard, only the inner chunks its part needs (by byte range from a file).
    /// `selections` is a `Cut` (whose keys name the chunk files when `sources` is `None`) or a
    /// pair of lists as zarr-python's batches give them: each chunk's part (a tuple of slices
    /// and integers; an integer drops its dimension from the output) and its place in `out`
    /// (slices). Whether each chunk was there, or `None`, with nothing done, where the runtime
    /// does not take `out` or a selection.
    #[pyo3(signature = (sources, selections, out, threads=None))]
    fn read(
        &self,
        py: Python<'_>,
        sources: &Bound<'_, PyAny>,
        selections: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<bool>>> {
        let selections = &cut_now(selections)?;
        if !self.takes(py, out) {
            return Ok(None);
        }
        let threads = thread_count(py, threads, "read")?;
        let (fill, shape) = (&self.fill, self.chunk_shape());
        read_with(
            py,
            sources,
            selections,
            out,
            shape,
            |items, array| match &self.runs {
                Runs::Chain { decode, .. } => {
                    zarr_codec_runtime::read_batch(decode, shape, items, array, fill, threads)
                }
                Runs::Sharded(sharding) => sharding.read(items, array, fill, threads),
            },
        )
    }

    /// A write of a batch of chunk files in one call (`paths`: `None` for a `Cut`'s keys;
    /// `selections` as for `read`, places in `values`): each file gets the values at its place
    /// in `values` at its part, merged with its old
    /// contents (the fill value where there is no file) when that is not the whole chunk; a
    /// chunk left all fill value has its file removed unless `write_empty_chunks`. Whether
    /// each chunk is stored, or `None`, with nothing done, where the runtime does not take
    /// `values`, a selection or the data type's empty chunks.
    #[pyo3(signature = (paths, selections, values, write_empty_chunks=false, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn write_files(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        selections: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        write_empty_chunks: bool,
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<bool>>> {
        let selections = &cut_now(selections)?;
        let Some(empty) = self
            .rule(write_empty_chunks)
            .filter(|_| self.takes(py, values))
        else {
            return Ok(None);
        };
        let threads = thread_count(py, threads, "write")?;
        let (fill, shape) = (&self.fill, self.chunk_shape());
        write_files_with(
            py,
            paths,
            selections,
            values,
            shape,
            |items, array| match &self.runs {
                Runs::Chain { decode, encode, .. } => zarr_codec_runtime::write_files(
                    encode, decode, shape, items, array, fill, empty, threads,
                ),
                Runs::Sharded(sharding) => sharding.write_files(items, array, fill, empty, threads),
            },
        )
    }

    /// A write of a batch of chunks kept in memory (any store but local files) in one call:
    /// chunk `i` gets the values at its place in `values` at its part (`selections` as for
    /// `write_files`), merged with its old stored bytes `olds[i]` (`None`: the fill
    /// value) when that is not the whole chunk. Each chunk's new stored bytes (`bytes`, or for
    /// a shard a `uint8` array that owns them), or `None` for a chunk not stored (its key
    /// deleted); `None` for the list, with nothing done, where `write_files` would return it.
    #[pyo3(signature = (olds, selections, values, write_empty_chunks=false, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn write_buffers<'py>(
        &self,
        py: Python<'py>,
        olds: &Bound<'py, PyAny>,
        selections: &Bound<'py, PyAny>,
        values: &Bound<'py, PyAny>,
        write_empty_chunks: bool,
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<Option<Bound<'py, PyAny>>>>> {
        let selections = &cut_now(selections)?;
        let Some(empty) = self
            .rule(write_empty_chunks)
            .filter(|_| self.takes(py, values))
        else {
            return Ok(None);
        };
        let threads = thread_count(py, threads, "write")?;
        let (fill, shape) = (&self.fill, self.chunk_shape());
        let Some((view, placed)) = resolve(values, false, selections, shape)? else {
            return Ok(None);
        };
        let olds = olds_of(olds)?;
        if olds.len() != placed.regions.len() {
            let message = "write: old chunks and selections differ in number";
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let array = in_array(py, values, &view, &placed)?;
        let regions = olds.iter().zip(placed.regions);
        let stored: Vec<Option<Bound<'py, PyAny>>> = match &self.runs {
            Runs::Sharded(sharding) => {
                let writes: Vec<ShardWrite<'_>> = regions
                    .map(|(old, (chunk, values))| ShardWrite {
                        old: old.as_ref().map(BytesInput::as_slice),
                        chunk,
                        values,
                    })
                    .collect();
                let shards = run(py, || {
                    sharding.write_buffers(&writes, &array, fill, empty, threads)
                })?;
                shards
                    .into_iter()
                    .map(|shard| shard.map(|shard| numpy_from_vec(py, shard).into_any()))
                    .collect()
            }
            Runs::Chain { decode, encode, .. } => {
                let decoded_len = shape
                    .iter()
                    .product::<usize>()
                    .checked_mul(view.item)
                    .ok_or_else(|| {
                        to_py_err(py, &CodecError::configuration("a chunk larger than memory"))
                    })?;
                let room = encode
                    .room(decoded_len)
                    .map_err(|err| to_py_err(py, &err))?;
                let mut outputs = (0..olds.len())
                    .map(|_| UninitBytes::new(py, room))
                    .collect::<PyResult<Vec<_>>>()?;
                let mut items: Vec<BufferWriteItem<'_>> = regions
                    .zip(outputs.iter_mut())
                    .map(|((old, (chunk, values)), output)| BufferWriteItem {
                        old: old.as_ref().map(BytesInput::as_slice),
                        chunk,
                        values,
                        target: Target::Uninit(output.storage()),
                    })
                    .collect();
                let written = run(py, || {
                    zarr_codec_runtime::write_buffers(
                        encode, decode, shape, &mut items, &array, fill, empty, threads,
                    )
                })?;
                drop(items);
                outputs
                    .into_iter()
                    .zip(written)
                    .map(|(output, written)| match written {
                        // SAFETY: the encoding succeeded and initialised the first `written`
                        // bytes of this object's storage, at most its room.
                        Some(written) => unsafe { output.assume_init_prefix(written) }
                            .map(|bytes: Bound<'py, PyBytes>| Some(bytes.into_any())),
                        None => Ok(None),
                    })
                    .collect::<PyResult<_>>()?
            }
        };
        Ok(Some(stored))
    }

    /// For a shard read from a store by byte ranges: the stored inner chunks that
    /// `chunk_selection` (a tuple of slices and integers) of a shard needs, as `(inner chunk,
    /// start, stop)` byte ranges of the shard, from the shard's encoded `index` alone; `None`
    /// for a selection of another kind.
    fn needed(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        chunk_selection: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Vec<(usize, usize, usize)>>> {
        let sharding = self.sharding(py, "needed")?;
        let Some((part, _)) = chunk_region(chunk_selection, sharding.shard_shape())? else {
            return Ok(None);
        };
        let index = BytesInput::new(index)?;
        let needed = sharding
            .needed(index.as_slice(), &part)
            .map_err(|err| to_py_err(py, &err))?;
        Ok(Some(
            needed
                .into_iter()
                .map(|(chunk, range)| (chunk, range.start, range.end))
                .collect(),
        ))
    }

    /// A read of a batch of shards fetched in parts (see `needed`): `fetched[i]` is shard
    /// `i`'s encoded index (`None`: no shard) and the `(inner chunk, bytes)` pairs fetched;
    /// otherwise as `read`.
    #[pyo3(signature = (fetched, selections, out, threads=None))]
    fn read_fetched(
        &self,
        py: Python<'_>,
        fetched: &Bound<'_, PyAny>,
        selections: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<bool>>> {
        let selections = &cut_now(selections)?;
        let sharding = self.sharding(py, "read_fetched")?;
        if !self.takes(py, out) {
            return Ok(None);
        }
        let threads = thread_count(py, threads, "read")?;
        let shape = sharding.shard_shape();
        let Some((view, placed)) = resolve(out, true, selections, shape)? else {
            return Ok(None);
        };
        let mut shards: Vec<Fetched> = Vec::new();
        for shard in fetched.try_iter()? {
            let (index, chunks): (Bound<'_, PyAny>, Vec<(usize, Bound<'_, PyAny>)>) =
                shard?.extract()?;
            let index = if index.is_none() {
                None
            } else {
                Some(BytesInput::new(&index)?)
            };
            let chunks = chunks
                .iter()
                .map(|(chunk, data)| Ok((*chunk, BytesInput::new(data)?)))
                .collect::<PyResult<_>>()?;
            shards.push((index, chunks));
        }
        if shards.len() != placed.regions.len() {
            let message = "read: shards and selections differ in number";
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let array = out_array(py, &view, &placed)?;
        let items: Vec<FetchedRead<'_>> = shards
            .iter()
            .zip(placed.regions)
            .map(|((index, chunks), (chunk, out))| FetchedRead {
                index: index.as_ref().map(BytesInput::as_slice),
                chunks: chunks
                    .iter()
                    .map(|(inner, data)| (*inner, data.as_slice()))
                    .collect(),
                chunk,
                out,
            })
            .collect();
        let fill = &self.fill;
        run_chunks(py, || sharding.read_fetched(&items, &array, fill, threads)).map(Some)
    }
}
