//! Decoding: every frame of the input, checked, into one buffer sized before decoding starts.
//!
//! All decoding is libzstd's single-pass mode, which writes straight into the output and
//! needs no window buffer, so a frame header asking for a huge window allocates nothing.
//! The output is sized from the frames themselves: their content sizes where they state
//! them, otherwise libzstd's block-by-block bound. A content size larger than the compressed
//! bytes could ever hold is a lie, refused before allocating.

use std::mem::MaybeUninit;

use zarr_codec_shapes::{CodecError, Result};
use zstd_safe::{DCtx, WriteBuf};

use crate::context::{Uninit, error, with_decompressor};

/// The most one compressed byte can decode to: a block of at most 128 KiB repeats one byte
/// (an RLE block) for a cost of four bytes, a 3-byte block header and the byte.
const MAX_RATIO: u64 = 128 * 1024 / 4;

/// Decompress every frame of `input` into a new `Vec`; `limit` caps the decoded size
/// ([`CodecError::OutputLimit`] beyond it, after at most `limit` bytes were allocated).
pub fn decode(input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
    let bound = max_decoded_size(input)?;
    let capacity = limit.map_or(bound, |limit| bound.min(limit));
    let mut out = Vec::new();
    out.try_reserve_exact(capacity)
        .map_err(|_| CodecError::OutputLimit { limit: capacity })?;
    let written = decompress(input, &mut out)?;
    // A bound from block counts can be far above the content of a streamed frame.
    if written < capacity / 2 {
        out.shrink_to_fit();
    }
    Ok(out)
}

/// Decompress every frame of `input` into `out`; returns the bytes written, or
/// [`CodecError::OutputLimit`] when the content does not fit.
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    decompress(input, out)
}

/// [`decode_into`] for memory not yet initialised: only the returned number of bytes at the
/// start of `out` are initialised afterwards.
pub fn decode_into_uninit(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let mut target = Uninit::new(out);
    decompress(input, &mut target)?;
    Ok(target.filled())
}

/// The exact decoded size when every frame states its content size (numcodecs' and
/// zarr-python's frames do), else `None`; an error for input that is not zstd frames.
pub fn decoded_size(input: &[u8]) -> Result<Option<usize>> {
    frames_present(input)?;
    match zstd_safe::find_decompressed_size(input) {
        Ok(Some(size)) => within_ratio(size, input.len()).map(Some),
        Ok(None) => Ok(None),
        Err(_) => Err(CodecError::corrupt(
            "zstd: not a sequence of zstd frames (bad magic number or truncated header)",
        )),
    }
}

/// The most bytes `input` can decode to: the sum of the frames' content sizes, or for a frame
/// without one, its block count times its largest block. Refuses sizes beyond what the
/// compressed bytes could hold.
pub fn max_decoded_size(input: &[u8]) -> Result<usize> {
    frames_present(input)?;
    let bound = zstd_safe::decompress_bound(input).map_err(|code| error(code, 0))?;
    within_ratio(bound, input.len())
}

fn frames_present(input: &[u8]) -> Result<()> {
    if input.is_empty() {
        return Err(CodecError::corrupt("zstd: empty input holds no frame"));
    }
    Ok(())
}

fn within_ratio(size: u64, compressed: usize) -> Result<usize> {
    let most = MAX_RATIO.saturating_mul(compressed as u64);
    if size > most {
        return Err(CodecError::corrupt(format!(
            "zstd: the frames claim {size} bytes of content, more than {compressed} \
             compressed bytes can hold"
        )));
    }
    usize::try_from(size).map_err(|_| CodecError::OutputLimit { limit: usize::MAX })
}

fn decompress<C: WriteBuf + ?Sized>(input: &[u8], out: &mut C) -> Result<usize> {
    frames_present(input)?;
    let limit = out.capacity();
    with_decompressor(|context: &mut DCtx<'static>| {
        context
            .decompress(out, input)
            .map_err(|code| error(code, limit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Level, encode};

    #[test]
    fn several_frames_decode_as_one() -> Result<()> {
        let data = b"zarr ".repeat(10_000);
        let frame = encode(&data, Level::DEFAULT, false)?;
        assert_eq!(decoded_size(&frame)?, Some(data.len()));
        assert_eq!(decode(&frame, None)?, data);
        let mut two = frame.clone();
        two.extend_from_slice(&frame);
        assert_eq!(decode(&two, None)?.len(), 2 * data.len());
        Ok(())
    }

    #[test]
    fn a_lying_content_size_allocates_nothing() {
        // Magic, a descriptor with an 8-byte content size and single segment, 2^60 bytes.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
        frame.extend_from_slice(&(1u64 << 60).to_le_bytes());
        frame.extend_from_slice(&[1, 0, 0]); // one last raw block of size 0
        assert!(decoded_size(&frame).is_err());
        assert!(decode(&frame, None).is_err());
    }
}
