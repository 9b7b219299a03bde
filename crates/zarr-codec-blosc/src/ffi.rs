//! Calls into c-blosc 1.x: only its context functions, which keep no global state (safe from
//! many threads at once and after `fork`), each with a per-call internal thread count.

use std::ffi::{CStr, c_int, c_void};
use std::mem::MaybeUninit;

use blosc_src as sys;
use zarr_codec_shapes::{CodecError, Result};

use crate::header::{FrameInfo, HEADER_LEN, MAX_NBYTES, corrupt};
use crate::{Compressor, Shuffle};

/// Compress `input` into `out` (at least `input.len() + 16` bytes); returns the frame size.
pub(crate) fn compress(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    params: &crate::Params,
) -> Result<usize> {
    if input.len() > MAX_NBYTES {
        return Err(CodecError::out_of_range(format!(
            "blosc: {} bytes is more than c-blosc 1.x can compress at once ({MAX_NBYTES})",
            input.len()
        )));
    }
    if out.len() < input.len() + HEADER_LEN {
        return Err(CodecError::OutputLimit { limit: out.len() });
    }
    check_room(input.len(), params)?;
    // c-blosc never needs more room than a plain copy, and reads its room as an `int`.
    let out = &mut out[..input.len() + HEADER_LEN];
    let written = compress_within(input, out, params)?;
    if written < HEADER_LEN {
        return Err(failed(written));
    }
    Ok(written)
}

/// c-blosc 1.x adds a block's size to the bytes written so far in 32-bit arithmetic when it
/// checks that the block still fits; near 2 GiB that sum wraps and the check passes where it
/// should not (a write past the output). Chunks that close to the limit are refused.
pub(crate) fn check_room(len: usize, params: &crate::Params) -> Result<()> {
    let typesize = params.c_typesize();
    let blocksize = crate::header::c_blosc_blocksize(
        params.cname,
        params.clevel,
        typesize,
        len,
        params.blocksize,
    );
    // Room, plus a block, plus a stream's length word, all within an `int`.
    let largest = (i32::MAX as usize).saturating_sub(2 * HEADER_LEN + blocksize);
    if len > largest {
        return Err(CodecError::out_of_range(format!(
            "blosc: {len} bytes in blocks of {blocksize} is more than c-blosc 1.x can compress \
             at once (at most {largest})"
        )));
    }
    Ok(())
}

/// c-blosc's answer for compressing `input` (at most [`MAX_NBYTES`]) into `out`, which may be
/// smaller than `input` but must hold the header and one 4-byte block start per block of
/// `params.blocksize`-or-larger blocks: the frame size, or 0 where c-blosc found no room for
/// the frame, nor for a plain copy.
pub(crate) fn compress_within(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    params: &crate::Params,
) -> Result<usize> {
    debug_assert!(input.len() <= MAX_NBYTES);
    let shuffle = match params.shuffle {
        Shuffle::NoShuffle => 0,
        Shuffle::Shuffle => 1,
        Shuffle::BitShuffle => 2,
    };
    let name = params.cname.c_name();
    // SAFETY: `input` is valid for `input.len()` bytes and `out` for `out.len()`; c-blosc
    // bounds every write by `out.len()` (compressors get the room left, plain copies are made
    // only where they fit) once the header and block table fit, which callers ensure; `name`
    // is a NUL-terminated static string; the context call allocates its own state and keeps
    // none after returning.
    let written = unsafe {
        sys::blosc_compress_ctx(
            c_int::from(params.clevel),
            shuffle,
            params.typesize,
            input.len(),
            input.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            name.as_ptr(),
            params.blocksize,
            params.threads,
        )
    };
    usize::try_from(written).map_err(|_| failed(written))
}

fn failed(code: impl std::fmt::Display) -> CodecError {
    corrupt(format!("c-blosc failed to compress ({code})"))
}

/// Decompress a frame already checked by `header::validate` into `out` (exactly `nbytes`).
pub(crate) fn decompress(
    input: &[u8],
    info: &FrameInfo,
    out: &mut [MaybeUninit<u8>],
    threads: c_int,
) -> Result<()> {
    if !Compressor::format_available(info.compressor) {
        return Err(CodecError::unsupported(format!(
            "blosc: the frame uses {}, which this build of c-blosc does not include",
            info.compressor
        )));
    }
    info.check_output(out.len())?;
    // SAFETY: `validate` checked that the frame's claimed size is within `input`, that its
    // block table points inside the frame, and that `out` holds exactly `nbytes`; c-blosc
    // 1.21 bounds every read by the claimed size and never writes past `destsize`.
    let written = unsafe {
        sys::blosc_decompress_ctx(
            input.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            threads,
        )
    };
    if usize::try_from(written).ok() == Some(info.nbytes) {
        Ok(())
    } else {
        Err(corrupt(format!(
            "corrupt compressed data ({} frame, c-blosc returned {written})",
            info.compressor
        )))
    }
}

/// The c-blosc version string, e.g. "1.21.6".
pub fn version() -> String {
    // SAFETY: c-blosc returns a pointer to a static NUL-terminated string.
    unsafe { CStr::from_ptr(sys::blosc_get_version_string()) }
        .to_string_lossy()
        .into_owned()
}

/// Whether this build of c-blosc includes `cname`.
pub(crate) fn has_compressor(cname: &CStr) -> bool {
    // SAFETY: `cname` is NUL-terminated; null out-pointers ask for nothing to be allocated.
    unsafe {
        sys::blosc_get_complib_info(cname.as_ptr(), std::ptr::null_mut(), std::ptr::null_mut()) >= 0
    }
}
