//! Reading a batch of chunks into their places in the caller's array: [`read_batch`].
//!
//! Each chunk is fetched (from memory or its file), decoded and placed by one thread of the
//! pool. A whole chunk whose place is one contiguous run of the output decodes straight into
//! it (a chunk stored as is is read from its file straight into it); any other decodes into
//! the thread's scratch and the needed part is copied into place. A missing chunk (no bytes,
//! no file) is its fill value.

use std::cell::RefCell;
use std::path::Path;

use zarr_codec_shapes::CodecError;

use crate::files::{
    ChunkError, ChunkResult, Outcome, read_stored_into, read_stored_range, with_chunk_file,
};
use crate::plan::{Plan, grow};
use crate::pool::parallel_map;
use crate::region::{Layout, OutArray, Region, any_overlap, copy_region};

/// Where a chunk's stored bytes are.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// In memory.
    Bytes(&'a [u8]),
    /// In a file (no file: the chunk is missing).
    File(&'a Path),
    /// Nowhere: the chunk is its fill value.
    Missing,
}

/// One chunk of a read: where it is, the part of it needed, and where that goes.
#[derive(Debug, Clone)]
pub struct ReadItem<'a> {
    /// The chunk's stored bytes.
    pub source: Source<'a>,
    /// The part of the decoded chunk needed (within the chunk's shape).
    pub chunk: Region,
    /// Where it goes in the output (as many elements per dimension).
    pub out: Region,
}

/// Scratch kept by a thread between chunks beyond this is freed after the chunk.
const KEPT_DECODED: usize = 64 << 20;

thread_local! {
    /// A whole decoded chunk, when only part of it is needed.
    static DECODED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Decodes every chunk of `items` with `plan` (whose output is a whole chunk of
/// `chunk_shape`) into its place in `out`, on up to `threads` threads; for each chunk,
/// whether it was there (a missing chunk's place is set to `fill`, one element's bytes).
///
/// Everything is checked before anything is written: the regions within their arrays and of
/// equal counts, `fill` one element. Places that may share elements are written on one thread,
/// in order, so the last chunk's elements win, as numpy's assignment would have it.
pub fn read_batch(
    plan: &Plan,
    chunk_shape: &[usize],
    items: &[ReadItem<'_>],
    out: &OutArray<'_>,
    fill: &[u8],
    threads: usize,
) -> ChunkResult<Vec<bool>> {
    read_batch_at(plan, chunk_shape, items, out, fill, threads).map_err(|(_, err)| err)
}

/// [`read_batch`], its error with the position in `items` of the chunk that failed (`None`
/// for a batch refused as a whole: a chain that does not fit the chunks, a bad place).
pub(crate) fn read_batch_at(
    plan: &Plan,
    chunk_shape: &[usize],
    items: &[ReadItem<'_>],
    out: &OutArray<'_>,
    fill: &[u8],
    threads: usize,
) -> Result<Vec<bool>, (Option<usize>, ChunkError)> {
    let whole = |err: ChunkError| (None, err);
    let item = out.item();
    let elements: usize = chunk_shape.iter().product();
    let decoded_len = elements
        .checked_mul(item)
        .ok_or_else(|| whole(CodecError::configuration("a chunk larger than memory").into()))?;
    if plan.output_len().is_some_and(|len| len != decoded_len) || fill.len() != item {
        return Err(whole(
            CodecError::configuration(format!(
                "read: the chain decodes {:?} bytes, chunks of {chunk_shape:?} elements of \
                 {item} bytes are {decoded_len}, the fill value is {} bytes",
                plan.output_len(),
                fill.len()
            ))
            .into(),
        ));
    }
    let check = |read: &ReadItem<'_>| -> zarr_codec_shapes::Result<()> {
        read.chunk
            .check_within(chunk_shape, "read: the part of a chunk")?;
        read.out
            .check_within(out.shape(), "read: the place in the output")?;
        read.chunk.check_same_counts(&read.out, "read", "chunk")
    };
    for read in items {
        check(read).map_err(|err| whole(err.into()))?;
    }
    let places: Vec<&Region> = items.iter().map(|read| &read.out).collect();
    let threads = if any_overlap(&places) { 1 } else { threads };
    let chunk_layout = Layout::c_order(chunk_shape, item).map_err(|err| whole(err.into()))?;
    let mut jobs: Vec<&ReadItem<'_>> = items.iter().collect();
    parallel_map(&mut jobs, threads, |read| {
        // SAFETY: the places were checked within `out` above, and places written on several
        // threads were checked disjoint.
        unsafe { read_one(plan, &chunk_layout, decoded_len, read, out, fill) }
    })
    .into_iter()
    .enumerate()
    .map(|(position, found)| found.map_err(|err| (Some(position), err)))
    .collect()
}

/// One chunk of [`read_batch`].
///
/// # Safety
/// `read.out` lies within `out`, and no other thread writes its elements meanwhile.
unsafe fn read_one(
    plan: &Plan,
    chunk: &Layout,
    decoded_len: usize,
    read: &ReadItem<'_>,
    out: &OutArray<'_>,
    fill: &[u8],
) -> ChunkResult<bool> {
    let whole = read.chunk.is_whole(chunk.shape());
    let slot = if whole {
        // SAFETY: the caller's contract.
        unsafe { out.contiguous_part(&read.out) }
    } else {
        None
    };
    let present = match (read.source, slot) {
        (Source::Missing, _) => false,
        (Source::Bytes(data), Some(slot)) => {
            plan.run_exact(data, slot)?;
            true
        }
        (Source::File(path), Some(slot)) if plan.is_identity() => {
            read_stored_into(path, slot)? == Outcome::Done
        }
        (Source::File(path), Some(slot)) => with_chunk_file(path, plan.input_len(), |data| {
            plan.run_exact(data, slot).map_err(ChunkError::Codec)
        })?
        .is_some(),
        (Source::Bytes(data), None) if plan.is_identity() => {
            // Stored as is: the part is copied from the stored bytes, nothing decoded whole.
            if data.len() != decoded_len {
                return Err(CodecError::Corrupt(format!(
                    "bytes: a chunk of {} bytes, {decoded_len} expected",
                    data.len()
                ))
                .into());
            }
            // SAFETY: `data` holds the whole chunk (checked just above), the part lies within
            // it and the place within `out` (checked by `read_batch`); the caller keeps other
            // threads off the place.
            unsafe { copy_region((data.as_ptr(), chunk), &read.chunk, out.target(), &read.out) };
            true
        }
        (Source::Bytes(data), None) => {
            // SAFETY: the caller's contract.
            unsafe { decode_and_place(plan, chunk, decoded_len, data, read, out) }?;
            true
        }
        (Source::File(path), None) if plan.is_identity() => {
            // SAFETY: the caller's contract.
            unsafe { read_stored_part(chunk, decoded_len, path, read, out) }?
        }
        (Source::File(path), None) => with_chunk_file(path, plan.input_len(), |data| {
            // SAFETY: the caller's contract.
            unsafe { decode_and_place(plan, chunk, decoded_len, data, read, out) }
                .map_err(ChunkError::Codec)
        })?
        .is_some(),
    };
    if !present {
        // SAFETY: the caller's contract.
        unsafe { out.fill(&read.out, fill) };
    }
    Ok(present)
}

/// The part `read.chunk` of a chunk stored as is in file `path`: only the bytes from its first
/// element to its last read (a small read of a large chunk reads little), then copied into
/// place; whether the file was there.
///
/// # Safety
/// As [`read_one`].
unsafe fn read_stored_part(
    chunk: &Layout,
    decoded_len: usize,
    path: &Path,
    read: &ReadItem<'_>,
    out: &OutArray<'_>,
) -> ChunkResult<bool> {
    let Some(range) = chunk.byte_range(&read.chunk) else {
        return Ok(true); // no element: nothing to read
    };
    // SAFETY: the caller's contract; the part's bytes are in the scratch once `Done`.
    unsafe {
        place_from_scratch(chunk, decoded_len, read, out, |decoded| {
            Ok(read_stored_range(path, decoded_len, range, decoded)? == Outcome::Done)
        })
    }
}

/// `data` decoded whole into this thread's scratch, and the part `read.chunk` copied into
/// place.
///
/// # Safety
/// As [`read_one`].
unsafe fn decode_and_place(
    plan: &Plan,
    chunk: &Layout,
    decoded_len: usize,
    data: &[u8],
    read: &ReadItem<'_>,
    out: &OutArray<'_>,
) -> zarr_codec_shapes::Result<()> {
    // SAFETY: the caller's contract; the chunk is in the scratch once decoded.
    unsafe {
        place_from_scratch(chunk, decoded_len, read, out, |decoded| {
            plan.run_exact(data, &mut decoded[..decoded_len])
                .map(|()| true)
        })
    }
    .map(|_| ())
}

/// This thread's scratch, grown to `decoded_len` bytes, filled by `fill`; when `fill` says
/// the chunk is there, the part `read.chunk` copied into place. A scratch grown past
/// [`KEPT_DECODED`] is let go. What `fill` said.
///
/// # Safety
/// As [`read_one`]; `fill` says true only when the scratch holds the bytes of the part.
unsafe fn place_from_scratch<E: From<CodecError>>(
    chunk: &Layout,
    decoded_len: usize,
    read: &ReadItem<'_>,
    out: &OutArray<'_>,
    fill: impl FnOnce(&mut Vec<u8>) -> Result<bool, E>,
) -> Result<bool, E> {
    DECODED.with_borrow_mut(|decoded| {
        grow(decoded, decoded_len)?;
        let result = fill(decoded);
        if let Ok(true) = result {
            // SAFETY: the part lies within the chunk in the scratch (`fill`'s word) and the
            // place within `out` (checked by `read_batch`), the scratch is this thread's own,
            // and the caller keeps other threads off the place.
            unsafe {
                copy_region(
                    (decoded.as_ptr(), chunk),
                    &read.chunk,
                    out.target(),
                    &read.out,
                );
            }
        }
        if decoded.capacity() > KEPT_DECODED {
            *decoded = Vec::new();
        }
        result
    })
}
