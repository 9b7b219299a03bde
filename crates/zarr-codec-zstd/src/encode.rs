//! Encoding: one frame per chunk, with its content size, as numcodecs writes it.

use std::mem::MaybeUninit;

use zarr_codec_shapes::{CodecError, Result};
use zstd_safe::{CCtx, CParameter, WriteBuf};

use crate::Level;
use crate::context::{Uninit, error, with_compressor};

/// Compress `input` into one zstd frame at `level`, with a content checksum if `checksum`.
pub fn encode(input: &[u8], level: Level, checksum: bool) -> Result<Vec<u8>> {
    let bound = max_encoded_size(input.len());
    let mut out = Vec::new();
    out.try_reserve_exact(bound)
        .map_err(|_| CodecError::OutputLimit { limit: bound })?;
    compress(input, level, checksum, &mut out)?;
    Ok(out)
}

/// Compress `input` into `out`; [`CodecError::OutputLimit`] if it does not fit (a buffer of
/// [`max_encoded_size`] bytes always does).
pub fn encode_into(input: &[u8], level: Level, checksum: bool, out: &mut [u8]) -> Result<usize> {
    compress(input, level, checksum, out)
}

/// [`encode_into`] for memory not yet initialised: only the returned number of bytes at the
/// start of `out` are initialised afterwards.
pub fn encode_into_uninit(
    input: &[u8],
    level: Level,
    checksum: bool,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    let mut target = Uninit::new(out);
    compress(input, level, checksum, &mut target)?;
    Ok(target.filled())
}

/// The largest frame `len` input bytes can become (libzstd's `ZSTD_compressBound`).
pub fn max_encoded_size(len: usize) -> usize {
    zstd_safe::compress_bound(len)
}

fn compress<C: WriteBuf + ?Sized>(
    input: &[u8],
    level: Level,
    checksum: bool,
    out: &mut C,
) -> Result<usize> {
    let limit = out.capacity();
    with_compressor(|context: &mut CCtx<'static>| {
        // Parameters persist in a context: set both on every call.
        context
            .set_parameter(CParameter::CompressionLevel(level.get()))
            .map_err(|code| error(code, limit))?;
        context
            .set_parameter(CParameter::ChecksumFlag(checksum))
            .map_err(|code| error(code, limit))?;
        context
            .compress2(out, input)
            .map_err(|code| error(code, limit))
    })
}
