//! The `sharding_indexed` codec's Python face: [`PySharded`], Python's
//! `zarr_codec_runtime.Sharded`, a [`Sharding`] built from planned chains and run on batches
//! of shards with the same arguments as a plan's reads and writes.

use numpy::PyArray1;
use pyo3::prelude::*;
use zarr_codec_runtime::{FetchedRead, IndexLocation, Inner, ShardWrite, Sharding, WriteOrder};
use zarr_codec_shapes::CodecError;

use crate::runtime::{
    PyPlan, chunk_region, empty_rule, in_array, olds_of, out_array, read_with, resolve, run_chunks,
    write_files_with,
};
use zarr_codec_python::{BytesInput, numpy_from_vec, run, thread_count, to_py_err};

/// A shard fetched in parts, as Python gave it: its index (if any) and inner chunks.
type Fetched = (Option<BytesInput>, Vec<(usize, BytesInput)>);

/// A shard written: its bytes, or `None` when it is not stored.
type Shard<'py> = Option<Bound<'py, PyArray1<u8>>>;

/// Shards of inner chunks, planned: Python's `zarr_codec_runtime.Sharded`.
#[pyclass(frozen, module = "zarr_codec_runtime._runtime", name = "Sharded")]
pub struct PySharded {
    sharding: Sharding,
}

/// A Python name of one of the runtime's choices, or a configuration error.
fn choice<T: Copy>(py: Python<'_>, what: &str, name: &str, choices: &[(&str, T)]) -> PyResult<T> {
    choices
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| *value)
        .ok_or_else(|| {
            let message = format!("sharding_indexed: no {what} {name:?}");
            to_py_err(py, &CodecError::configuration(message))
        })
}

impl PySharded {
    /// The planned sharding this object runs.
    pub(crate) fn sharding(&self) -> &Sharding {
        &self.sharding
    }
}

#[pymethods]
impl PySharded {
    /// Shards of `shard_shape` in inner chunks of `inner_shape`, encoded by `inner` (a
    /// `(decode, encode)` pair of plans, or another `Sharded`), the index coded by
    /// `index_plans` (decode, encode) at `index_location` ("start" or "end"), inner chunks laid
    /// out in `write_order` ("morton", "lexicographic", "colexicographic", "unordered").
    #[new]
    #[allow(clippy::needless_pass_by_value)] // pyo3 extracts owned vectors
    fn new(
        py: Python<'_>,
        shard_shape: Vec<usize>,
        inner_shape: Vec<usize>,
        inner: &Bound<'_, PyAny>,
        index_plans: (PyRef<'_, PyPlan>, PyRef<'_, PyPlan>),
        index_location: &str,
        write_order: &str,
    ) -> PyResult<Self> {
        let inner = if let Ok(sharded) = inner.cast::<Self>() {
            Inner::Sharded(Box::new(sharded.get().sharding.clone()))
        } else {
            let (decode, encode): (PyRef<'_, PyPlan>, PyRef<'_, PyPlan>) = inner.extract()?;
            Inner::Chain {
                decode: decode.plan.clone(),
                encode: encode.plan.clone(),
            }
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
        let (index_decode, index_encode) = index_plans;
        let sharding = Sharding::new(
            &shard_shape,
            &inner_shape,
            inner,
            (index_decode.plan.clone(), index_encode.plan.clone()),
            location,
            order,
        )
        .map_err(|err| to_py_err(py, &err))?;
        Ok(Self { sharding })
    }

    /// The shape of every shard.
    #[getter]
    fn shard_shape(&self) -> Vec<usize> {
        self.sharding.shard_shape().to_vec()
    }

    /// The stored size of a shard's index.
    #[getter]
    fn index_len(&self) -> usize {
        self.sharding.index_len()
    }

    /// A read of a batch of shards in one call, as `Plan.read` reads chunks: only the inner
    /// chunks each selection needs are read from shard files.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (sources, chunk_selections, out_selections, out, fill, threads=None))]
    fn read(
        &self,
        py: Python<'_>,
        sources: &Bound<'_, PyAny>,
        chunk_selections: &Bound<'_, PyAny>,
        out_selections: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        fill: &[u8],
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<bool>>> {
        let threads = thread_count(py, threads, "sharding")?;
        let sharding = &self.sharding;
        let selections = (chunk_selections, out_selections);
        read_with(
            py,
            sources,
            selections,
            out,
            sharding.shard_shape(),
            |items, array| sharding.read(items, array, fill, threads),
        )
    }

    /// For a store read by byte ranges: the stored inner chunks that `chunk_selection` (a
    /// tuple of slices and integers) of a shard needs, as `(inner chunk, start, stop)` byte
    /// ranges of the shard, from the shard's encoded `index` alone; `None` for a selection of
    /// another kind.
    fn needed(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        chunk_selection: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Vec<(usize, usize, usize)>>> {
        let Some((part, _)) = chunk_region(chunk_selection, self.sharding.shard_shape())? else {
            return Ok(None);
        };
        let index = BytesInput::new(index)?;
        let needed = self
            .sharding
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
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (fetched, chunk_selections, out_selections, out, fill, threads=None))]
    fn read_fetched(
        &self,
        py: Python<'_>,
        fetched: &Bound<'_, PyAny>,
        chunk_selections: &Bound<'_, PyAny>,
        out_selections: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        fill: &[u8],
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<bool>>> {
        let threads = thread_count(py, threads, "sharding")?;
        let shape = self.sharding.shard_shape();
        let Some((view, placed)) = resolve(out, true, chunk_selections, out_selections, shape)?
        else {
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
        let sharding = &self.sharding;
        run_chunks(py, || sharding.read_fetched(&items, &array, fill, threads)).map(Some)
    }

    /// A write of a batch of shard files in one call, as `Plan.write_files` writes chunks.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (paths, chunk_selections, value_selections, values, fill, empty, threads=None))]
    fn write_files(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        chunk_selections: &Bound<'_, PyAny>,
        value_selections: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        fill: &[u8],
        empty: &str,
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<bool>>> {
        let threads = thread_count(py, threads, "sharding")?;
        let empty = empty_rule(py, empty)?;
        let sharding = &self.sharding;
        let selections = (chunk_selections, value_selections);
        write_files_with(
            py,
            paths,
            selections,
            values,
            sharding.shard_shape(),
            |items, array| sharding.write_files(items, array, fill, empty, threads),
        )
    }

    /// A write of a batch of shards kept in memory in one call, as `Plan.write_buffers`
    /// writes chunks: each shard's new bytes (a `uint8` array that owns them), or `None` for a
    /// shard with no inner chunk left (its key deleted).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (olds, chunk_selections, value_selections, values, fill, empty, threads=None))]
    fn write_buffers<'py>(
        &self,
        py: Python<'py>,
        olds: &Bound<'py, PyAny>,
        chunk_selections: &Bound<'py, PyAny>,
        value_selections: &Bound<'py, PyAny>,
        values: &Bound<'py, PyAny>,
        fill: &[u8],
        empty: &str,
        threads: Option<i64>,
    ) -> PyResult<Option<Vec<Shard<'py>>>> {
        let threads = thread_count(py, threads, "sharding")?;
        let empty = empty_rule(py, empty)?;
        let shape = self.sharding.shard_shape();
        let Some((view, placed)) =
            resolve(values, false, chunk_selections, value_selections, shape)?
        else {
            return Ok(None);
        };
        let olds = olds_of(olds)?;
        if olds.len() != placed.regions.len() {
            let message = "write: old shards and selections differ in number";
            return Err(to_py_err(py, &CodecError::configuration(message)));
        }
        let array = in_array(py, values, &view, &placed)?;
        let writes: Vec<ShardWrite<'_>> = olds
            .iter()
            .zip(placed.regions)
            .map(|(old, (chunk, values))| ShardWrite {
                old: old.as_ref().map(BytesInput::as_slice),
                chunk,
                values,
            })
            .collect();
        let sharding = &self.sharding;
        let shards = run(py, || {
            sharding.write_buffers(&writes, &array, fill, empty, threads)
        })?;
        Ok(Some(
            shards
                .into_iter()
                .map(|shard| shard.map(|shard| numpy_from_vec(py, shard)))
                .collect(),
        ))
    }
}
