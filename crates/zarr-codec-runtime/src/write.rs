//! Batches of chunks: whole chunks decoded into separate buffers ([`decode_batch_into`]),
//! encoded into buffers ([`encode_batch`]) or into chunk files ([`encode_files`]), and
//! writes of parts of an array into chunk files ([`write_files`]: gathered from the caller's
//! array, merged with the old chunk where only part of it changes), each chunk through every
//! step on one thread of the pool.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;

use zarr_codec_shapes::{CodecError, Result};

use crate::files::{
    ChunkError, ChunkResult, Staged, make_directories, remove_chunk, stage_encoded, with_chunk_file,
};
use crate::plan::{Plan, grow};
use crate::pool::parallel_map;
use crate::region::{InArray, Layout, Region, copy_region, fill_with};
use crate::target::Target;

/// Decodes each `(stored, out)` pair, the stored bytes into all of `out` (each exactly the
/// plan's output size), on up to `threads` threads; the first error in chunk order.
pub fn decode_batch_into(
    plan: &Plan,
    jobs: &mut [(&[u8], &mut [u8])],
    threads: usize,
) -> Result<()> {
    parallel_map(jobs, threads, |(stored, out)| plan.run_exact(stored, out))
        .into_iter()
        .collect()
}

/// Encodes each `(chunk, target)` pair into the start of its target (at least
/// [`Plan::room`] of the chunk), on up to `threads` threads; the bytes written into each.
pub fn encode_batch(
    plan: &Plan,
    jobs: &mut [(&[u8], Target<'_>)],
    threads: usize,
) -> Result<Vec<usize>> {
    let mut jobs: Vec<(&[u8], Option<Target<'_>>)> = jobs
        .iter_mut()
        .map(|(chunk, target)| {
            (
                *chunk,
                Some(std::mem::replace(target, Target::Init(&mut []))),
            )
        })
        .collect();
    parallel_map(&mut jobs, threads, |(chunk, target)| match target.take() {
        Some(target) => plan.run(chunk, target),
        None => Ok(0),
    })
    .into_iter()
    .collect()
}

/// Encodes each `(chunk, path)` pair and writes it to its file (a temporary file beside it,
/// renamed over it; directories made first), on up to `threads` threads. Every chunk is
/// encoded and written to its temporary file before any is renamed into place: on an error
/// (the first in chunk order) no chunk has changed.
pub fn encode_files(plan: &Plan, jobs: &mut [(&[u8], &Path)], threads: usize) -> ChunkResult<()> {
    // Each directory once, before the chunks are written in parallel.
    make_directories(jobs.iter().map(|(_, path)| *path))?;
    let staged: Vec<Staged> = parallel_map(jobs, threads, |(chunk, path)| {
        stage_encoded(plan, chunk, path)
    })
    .into_iter()
    .collect::<ChunkResult<_>>()?;
    staged.into_iter().try_for_each(Staged::commit)
}

/// One chunk of a write: its file, the part of it written, and where the values for that part
/// are in the caller's array.
#[derive(Debug, Clone)]
pub struct WriteItem<'a> {
    /// The chunk's file.
    pub path: &'a Path,
    /// The part of the chunk written (within the chunk's shape).
    pub chunk: Region,
    /// Where its values are in the caller's array (as many elements per dimension).
    pub values: Region,
}

/// Which chunks are not stored: those whose every element is the fill value, as zarr-python
/// decides (its `write_empty_chunks=False`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptyRule {
    /// Every chunk is stored.
    Never,
    /// A chunk whose every element has the fill value's bytes.
    SameBytes,
    /// A chunk of IEEE floats of the element size whose every element is a NaN (any NaN: the
    /// fill value is one).
    AllNan,
}

impl EmptyRule {
    /// Whether `chunk` (elements of `fill.len()` bytes) is not to be stored.
    fn is_empty(self, chunk: &[u8], fill: &[u8]) -> bool {
        match self {
            Self::Never => false,
            Self::SameBytes => chunk
                .chunks_exact(fill.len())
                .all(|element| element == fill),
            Self::AllNan => match fill.len() {
                2 => all_nan::<2>(chunk, 0x7c00, 0x03ff),
                4 => all_nan::<4>(chunk, 0x7f80_0000, 0x007f_ffff),
                8 => all_nan::<8>(chunk, 0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
                _ => false,
            },
        }
    }
}

/// Whether every native-order IEEE float of `N` bytes in `chunk` is a NaN (all exponent bits
/// set, some mantissa bit set).
fn all_nan<const N: usize>(chunk: &[u8], exponent: u64, mantissa: u64) -> bool {
    chunk.chunks_exact(N).all(|element| {
        let mut bytes = [0u8; 8];
        if cfg!(target_endian = "little") {
            bytes[..N].copy_from_slice(element);
        } else {
            bytes[8 - N..].copy_from_slice(element);
        }
        let bits = if cfg!(target_endian = "little") {
            u64::from_le_bytes(bytes)
        } else {
            u64::from_be_bytes(bytes)
        };
        bits & exponent == exponent && bits & mantissa != 0
    })
}

thread_local! {
    /// A whole chunk being put together: old contents and new values.
    static MERGED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Writes a batch of chunk files in one call: each chunk's part from `values`, merged with the
/// chunk's old contents when only part of it is written (its file read and decoded with
/// `decode`, or the fill value where there is none), then encoded with `encode` and written as
/// a temporary file renamed over the old one; a chunk that `empty` says is not to be stored has
/// its file removed instead. On up to `threads` threads; for each chunk, whether it is stored.
///
/// Everything is checked before anything is written: the regions within their arrays and of
/// equal counts, `fill` one element, no chunk twice, and every old chunk that is merged read
/// and decoded (a damaged one fails the write with no file changed).
#[allow(clippy::too_many_arguments)]
pub fn write_files(
    encode: &Plan,
    decode: &Plan,
    chunk_shape: &[usize],
    items: &[WriteItem<'_>],
    values: &InArray<'_>,
    fill: &[u8],
    empty: EmptyRule,
    threads: usize,
) -> ChunkResult<Vec<bool>> {
    let (chunk, decoded_len) = checked_write(decode, chunk_shape, values, fill)?;
    for write in items {
        check_part(chunk_shape, values, &write.chunk, &write.values)?;
    }
    let paths: HashSet<&Path> = items.iter().map(|write| write.path).collect();
    if paths.len() != items.len() {
        return Err(CodecError::configuration("write: a chunk twice in one batch").into());
    }
    // Every old chunk the write merges is read and decoded before the first file is
    // written: a damaged or unreadable one fails the write with every chunk as it was.
    let olds = old_chunks(decode, chunk_shape, decoded_len, items, threads)?;
    make_directories(paths.iter().copied())?;
    let mut jobs: Vec<(&WriteItem<'_>, &Old)> = items.iter().zip(&olds).collect();
    // Every chunk encoded into its staged file first, then all put in place: a chunk that
    // fails to encode (a value out of its type's range) leaves every chunk as it was.
    let changes: Vec<Change> = parallel_map(&mut jobs, threads, |(write, old)| {
        let old = |merged: &mut [u8]| old.merge_into(decode, write.path, merged);
        let part = (&write.chunk, &write.values);
        with_merged(&chunk, decoded_len, part, values, fill, old, |data| {
            stage(encode, data, write.path, fill, empty)
        })
    })
    .into_iter()
    .collect::<ChunkResult<_>>()?;
    changes.into_iter().map(Change::apply).collect()
}

/// Decoded old chunks a write holds at most (beyond it, each is decoded to check it, then
/// again when merged, so that a write of any size holds a chunk per thread).
const HELD_OLD_BYTES: usize = 256 << 20;

/// What a chunk of a write is merged with.
enum Old {
    /// Nothing: the chunk is written whole.
    Unused,
    /// No stored chunk: the fill value.
    Missing,
    /// The stored chunk, decoded.
    Decoded(Vec<u8>),
    /// The stored chunk, decoded once to check it: decoded again when merged.
    Checked,
}

impl Old {
    /// Writes the old chunk into `merged`; whether there was one.
    fn merge_into(&self, decode: &Plan, path: &Path, merged: &mut [u8]) -> ChunkResult<bool> {
        match self {
            Self::Unused | Self::Missing => Ok(false),
            Self::Decoded(old) => {
                merged.copy_from_slice(old);
                Ok(true)
            }
            Self::Checked => decode_file(decode, path, merged),
        }
    }
}

/// The chunk file at `path` decoded into `out`; whether there is one.
fn decode_file(decode: &Plan, path: &Path, out: &mut [u8]) -> ChunkResult<bool> {
    let found = with_chunk_file(path, decode.input_len(), |old| {
        decode.run_exact(old, out).map_err(ChunkError::Codec)
    })?;
    Ok(found.is_some())
}

/// Each item's [`Old`]: every chunk only part of which is written, read and decoded now.
fn old_chunks(
    decode: &Plan,
    chunk_shape: &[usize],
    decoded_len: usize,
    items: &[WriteItem<'_>],
    threads: usize,
) -> ChunkResult<Vec<Old>> {
    let merged = items
        .iter()
        .filter(|write| !write.chunk.is_whole(chunk_shape))
        .count();
    let hold = merged.saturating_mul(decoded_len) <= HELD_OLD_BYTES;
    let mut jobs: Vec<&WriteItem<'_>> = items.iter().collect();
    parallel_map(&mut jobs, threads, |write| {
        if write.chunk.is_whole(chunk_shape) {
            return Ok(Old::Unused);
        }
        if !hold {
            return MERGED.with_borrow_mut(|scratch| {
                grow(scratch, decoded_len)?;
                let found = decode_file(decode, write.path, &mut scratch[..decoded_len])?;
                Ok(if found { Old::Checked } else { Old::Missing })
            });
        }
        let mut old = Vec::new();
        old.try_reserve_exact(decoded_len)
            .map_err(|_| CodecError::OutputLimit { limit: decoded_len })?;
        old.resize(decoded_len, 0);
        let found = decode_file(decode, write.path, &mut old)?;
        Ok(if found {
            Old::Decoded(old)
        } else {
            Old::Missing
        })
    })
    .into_iter()
    .collect()
}

/// `then` on the whole chunk a write makes: the values of `part.1` in the caller's array
/// placed at `part.0` of the chunk, over its old contents (`old` writes them into the chunk
/// and says whether there were any; the fill value where not) when that is not all of it.
/// Straight from the caller's memory when the values are a whole chunk, in order.
fn with_merged<R>(
    chunk: &Layout,
    decoded_len: usize,
    (part, place): (&Region, &Region),
    values: &InArray<'_>,
    fill: &[u8],
    old: impl FnOnce(&mut [u8]) -> ChunkResult<bool>,
    then: impl FnOnce(&[u8]) -> ChunkResult<R>,
) -> ChunkResult<R> {
    let whole = part.is_whole(chunk.shape());
    // SAFETY: `place` was checked within the values by the batch (`check_part`).
    if whole && let Some(data) = unsafe { values.contiguous_part(place) } {
        return then(data);
    }
    MERGED.with_borrow_mut(|merged| {
        grow(merged, decoded_len)?;
        let merged = &mut merged[..decoded_len];
        if !whole && !old(merged)? {
            fill_with(merged, fill);
        }
        // SAFETY: both regions were checked within their arrays by the batch; `merged` is
        // this thread's own scratch, holding the whole chunk.
        unsafe {
            copy_region(values.source(), place, (merged.as_mut_ptr(), chunk), part);
        }
        then(merged)
    })
}

/// One chunk of a write whose chunks live in memory: its old stored bytes (`None`: there are
/// none), the part of it written, where its values are, and where its new stored bytes go.
pub struct BufferWriteItem<'a> {
    /// The chunk's stored bytes before the write, if any.
    pub old: Option<&'a [u8]>,
    /// The part of the chunk written (within the chunk's shape).
    pub chunk: Region,
    /// Where its values are in the caller's array (as many elements per dimension).
    pub values: Region,
    /// Room for the new stored bytes: at least the encoding plan's
    /// [`room`](Plan::room) for a whole chunk.
    pub target: Target<'a>,
}

/// [`write_files`] for chunks kept in memory (any store but files): each chunk's part from
/// `values`, merged with its old stored bytes (decoded with `decode`) when only part of it is
/// written, encoded with `encode` into its target. For each chunk, the stored length, or
/// `None` for a chunk that `empty` says is not to be stored (its key deleted).
#[allow(clippy::too_many_arguments)]
pub fn write_buffers(
    encode: &Plan,
    decode: &Plan,
    chunk_shape: &[usize],
    items: &mut [BufferWriteItem<'_>],
    values: &InArray<'_>,
    fill: &[u8],
    empty: EmptyRule,
    threads: usize,
) -> Result<Vec<Option<usize>>> {
    let (chunk, decoded_len) = checked_write(decode, chunk_shape, values, fill)?;
    for write in items.iter() {
        check_part(chunk_shape, values, &write.chunk, &write.values)?;
    }
    let mut jobs: Vec<(&BufferWriteItem<'_>, Option<Target<'_>>)> = Vec::new();
    for write in items.iter_mut() {
        let target = std::mem::replace(&mut write.target, Target::Init(&mut []));
        jobs.push((&*write, Some(target)));
    }
    parallel_map(&mut jobs, threads, |(write, target)| {
        let old = |merged: &mut [u8]| match write.old {
            Some(old) => decode
                .run_exact(old, merged)
                .map(|()| true)
                .map_err(ChunkError::Codec),
            None => Ok(false),
        };
        let part = (&write.chunk, &write.values);
        with_merged(&chunk, decoded_len, part, values, fill, old, |data| {
            if empty.is_empty(data, fill) {
                return Ok(None);
            }
            let Some(target) = target.take() else {
                return Ok(None);
            };
            Ok(Some(encode.run(data, target)?))
        })
    })
    .into_iter()
    .map(|result| {
        result.map_err(|err| match err {
            ChunkError::Codec(err) => err,
            ChunkError::Io(err, path) => CodecError::Corrupt(format!("{}: {err}", path.display())),
        })
    })
    .collect()
}

/// The layout and size of a write's whole chunks, after checking `fill` (one element) and the
/// decoding plan's output against them.
fn checked_write(
    decode: &Plan,
    chunk_shape: &[usize],
    values: &InArray<'_>,
    fill: &[u8],
) -> Result<(Layout, usize)> {
    let item = values.layout().item();
    let chunk = Layout::c_order(chunk_shape, item)?;
    let decoded_len = chunk_shape
        .iter()
        .product::<usize>()
        .checked_mul(item)
        .ok_or_else(|| CodecError::configuration("a chunk larger than memory"))?;
    if fill.len() != item || decode.output_len().is_some_and(|len| len != decoded_len) {
        return Err(CodecError::configuration(format!(
            "write: chunks of {chunk_shape:?} elements of {item} bytes, a fill value of {} \
             bytes, a chain decoding {:?} bytes",
            fill.len(),
            decode.output_len()
        )));
    }
    Ok((chunk, decoded_len))
}

/// Checks one chunk's part and the place of its values: within their arrays, equal counts.
fn check_part(
    chunk_shape: &[usize],
    values: &InArray<'_>,
    part: &Region,
    place: &Region,
) -> Result<()> {
    part.check_within(chunk_shape, "write: the part of a chunk")?;
    place.check_within(values.layout().shape(), "write: the values")?;
    part.check_same_counts(place, "write", "chunk")
}

/// What a write does to one chunk (or shard) once every chunk of it is encoded.
pub(crate) enum Change<'a> {
    /// Its new content, staged.
    Put(Staged),
    /// Removed: every element is the fill value (and empty chunks are not stored).
    Remove(&'a Path),
}

impl Change<'_> {
    /// The change made; whether the chunk is stored.
    pub(crate) fn apply(self) -> ChunkResult<bool> {
        match self {
            Self::Put(staged) => staged.commit().map(|()| true),
            Self::Remove(path) => remove_chunk(path).map(|()| false),
        }
    }
}

/// `chunk` (whole, decoded) encoded into a file staged for `path`, or its removal where
/// `empty` says it is not stored.
fn stage<'a>(
    encode: &Plan,
    chunk: &[u8],
    path: &'a Path,
    fill: &[u8],
    empty: EmptyRule,
) -> ChunkResult<Change<'a>> {
    if empty.is_empty(chunk, fill) {
        return Ok(Change::Remove(path));
    }
    stage_encoded(encode, chunk, path).map(Change::Put)
}
