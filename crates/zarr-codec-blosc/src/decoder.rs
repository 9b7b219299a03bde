//! The c-blosc 1.x frame decoder, in Rust.
//!
//! c-blosc's `blosc_d` walks a frame's blocks and their split streams, decompresses each
//! stream into a scratch block and unshuffles that into the output. This does the same with
//! every offset and length checked here, each stream's decompressor (LZ4, blosclz, zlib, zstd:
//! the very libraries c-blosc calls) given exact bounds, and this crate's AVX2 unshuffles,
//! straight from a per-thread scratch block (still in cache) into the output. So a decode
//! needs no allocation and no pass of c-blosc's SSE2 unshuffle; frames are read exactly as
//! c-blosc reads them (the differential tests decode every kind of frame both ways).
//!
//! c-blosc's own decoder remains for c-blosc threads inside one chunk and for shuffled frames
//! of typesizes without a kernel here.

use std::ffi::{c_char, c_int, c_void};
use std::mem::MaybeUninit;

use zarr_codec_shapes::Result;

use crate::header::{FLAG_DONT_SPLIT, FrameInfo, MAX_SPLITS, MIN_BUFFERSIZE, corrupt};
use crate::preshuffle::with_scratch;
use crate::{HEADER_LEN, shuffle};

/// The one compressor-format version c-blosc 1.x writes (and reads) for every compressor.
const COMPRESSOR_FORMAT_VERSION: u8 = 1;

unsafe extern "C" {
    /// c-blosc's own LZ77 decompressor, from the c-blosc library `blosc-src` builds.
    fn blosclz_decompress(
        input: *const c_void,
        length: c_int,
        output: *mut c_void,
        maxout: c_int,
    ) -> c_int;
}

/// Whether [`decompress`] reads this (validated) frame; c-blosc does otherwise. A plain copy
/// (the memcpy flag) is always read here: it needs no compressor, so it decodes whatever
/// compressor its header names (numcodecs returns its bytes even where that one is missing),
/// and no threads.
pub(crate) fn covers(info: &FrameInfo, threads: c_int) -> bool {
    info.nbytes > 0
        && (info.memcpyed
            || (threads == 1
                && matches!(info.compressor, "blosclz" | "lz4" | "zlib" | "zstd")
                && (!shuffled(info) || shuffle::has_kernel(info.typesize))))
}

/// c-blosc unshuffles a byte-shuffled frame only for elements of more than one byte, and a
/// bit-shuffled one always (block by block, where the block holds an element).
fn shuffled(info: &FrameInfo) -> bool {
    (info.shuffle && info.typesize > 1) || info.bitshuffle
}

/// Decode a frame `header::validate` accepted, and [`covers`], into `out` (exactly `nbytes`).
pub(crate) fn decompress(
    input: &[u8],
    info: &FrameInfo,
    out: &mut [MaybeUninit<u8>],
) -> Result<()> {
    info.check_output(out.len())?;
    let frame = &input[..info.cbytes];
    if info.memcpyed {
        // `validate` checked that a plain copy is exactly the header and `nbytes` bytes.
        shuffle::copy_bytes(out, &frame[HEADER_LEN..]);
        return Ok(());
    }
    if frame[1] != COMPRESSOR_FORMAT_VERSION {
        return Err(corrupt(format!(
            "{} format version {} (c-blosc 1.x writes {COMPRESSOR_FORMAT_VERSION})",
            info.compressor, frame[1]
        )));
    }
    let blocksize = info.blocksize;
    let typesize = info.typesize;
    let dont_split = frame[2] & FLAG_DONT_SPLIT != 0;
    let byte_shuffled = info.shuffle && typesize > 1;
    let nblocks = info.nbytes.div_ceil(blocksize);
    let leftover = info.nbytes % blocksize;
    // A block to decode into before unshuffling, and another for the bit unshuffle.
    let scratch_len = match (byte_shuffled, info.bitshuffle) {
        (true, _) => blocksize,
        (false, true) => 2 * blocksize,
        (false, false) => 0,
    };
    with_scratch(scratch_len, |scratch| {
        let (block_scratch, bit_scratch) = scratch.split_at_mut(scratch_len.min(blocksize));
        for (block, place) in out.chunks_mut(blocksize).enumerate() {
            let size = place.len();
            let leftover_block = block == nblocks - 1 && leftover > 0;
            let splits = if !dont_split
                && typesize <= MAX_SPLITS
                && blocksize / typesize >= MIN_BUFFERSIZE
                && !leftover_block
            {
                typesize
            } else {
                1
            };
            let unshuffle = byte_shuffled || (info.bitshuffle && size >= typesize);
            let start = read_u32(frame, HEADER_LEN + 4 * block)?;
            if unshuffle {
                let decoded = &mut block_scratch[..size];
                // SAFETY: viewing initialised bytes as `MaybeUninit` is sound; only bytes are
                // written through the view.
                let view = unsafe { &mut *(std::ptr::from_mut(decoded) as *mut [MaybeUninit<u8>]) };
                decode_block(frame, info.compressor, start, splits, view)?;
                if byte_shuffled {
                    shuffle::unshuffle(typesize, &block_scratch[..size], place);
                } else {
                    shuffle::bitunshuffle(typesize, &block_scratch[..size], place, bit_scratch);
                }
            } else {
                decode_block(frame, info.compressor, start, splits, place)?;
            }
        }
        Ok(())
    })
}

/// Decode the `splits` streams of one block, starting at byte `start` of the frame, into
/// `place` (the block's size).
fn decode_block(
    frame: &[u8],
    compressor: &str,
    start: usize,
    splits: usize,
    place: &mut [MaybeUninit<u8>],
) -> Result<()> {
    let stream_len = place.len() / splits;
    if stream_len * splits != place.len() {
        return Err(corrupt(format!(
            "a block of {} bytes cannot split into {splits} streams",
            place.len()
        )));
    }
    let mut at = start;
    for target in place.chunks_exact_mut(stream_len) {
        let length = read_u32(frame, at)?;
        at += 4;
        let data = frame
            .get(at..)
            .and_then(|rest| rest.get(..length))
            .ok_or_else(|| {
                corrupt(format!(
                    "a stream of {length} bytes at {at} overruns the frame"
                ))
            })?;
        at += length;
        if length == stream_len {
            shuffle::copy_bytes(target, data); // stored as it is
            continue;
        }
        let written = decompress_stream(compressor, data, target);
        if written != Some(stream_len) {
            return Err(corrupt(format!(
                "corrupt {compressor} stream at {}: it does not decode to {stream_len} bytes",
                at - length
            )));
        }
    }
    Ok(())
}

/// Decompress one stream into `target`; the bytes written, or `None` on any failure.
fn decompress_stream(
    compressor: &str,
    data: &[u8],
    target: &mut [MaybeUninit<u8>],
) -> Option<usize> {
    let (source, size) = (data.as_ptr(), data.len());
    let (dest, room) = (target.as_mut_ptr().cast::<u8>(), target.len());
    let size_int = c_int::try_from(size).ok()?;
    let room_int = c_int::try_from(room).ok()?;
    // SAFETY: `source` is valid for reads of `size` bytes and `dest` for writes of `room`
    // bytes; each library reads at most `size` and writes at most `room` bytes, whatever the
    // data (their documented contracts, which c-blosc relies on too).
    let written = unsafe {
        match compressor {
            "lz4" => usize::try_from(lz4_sys::LZ4_decompress_safe(
                source.cast::<c_char>(),
                dest.cast::<c_char>(),
                size_int,
                room_int,
            ))
            .ok()?,
            "blosclz" => usize::try_from(blosclz_decompress(
                source.cast::<c_void>(),
                size_int,
                dest.cast::<c_void>(),
                room_int,
            ))
            .ok()?,
            "zstd" => {
                let n = zstd_sys::ZSTD_decompress(
                    dest.cast::<c_void>(),
                    room,
                    source.cast::<c_void>(),
                    size,
                );
                if zstd_sys::ZSTD_isError(n) != 0 {
                    return None;
                }
                n
            }
            "zlib" => {
                let mut len = libz_sys::uLongf::try_from(room).ok()?;
                let status = libz_sys::uncompress(
                    dest,
                    &raw mut len,
                    source,
                    libz_sys::uLong::try_from(size).ok()?,
                );
                if status != libz_sys::Z_OK {
                    return None;
                }
                usize::try_from(len).ok()?
            }
            _ => return None,
        }
    };
    (written <= room).then_some(written)
}

fn read_u32(frame: &[u8], at: usize) -> Result<usize> {
    frame
        .get(at..at.saturating_add(4))
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(|b| u32::from_le_bytes(b) as usize)
        .ok_or_else(|| corrupt(format!("a stream length at {at} overruns the frame")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preshuffle::tests::{COMPRESSORS, data};
    use crate::{Compressor, Params, Shuffle, ffi};

    /// A frame as c-blosc writes it, shuffling itself.
    fn c_blosc_frame(input: &[u8], params: &Params) -> Vec<u8> {
        let mut out = vec![MaybeUninit::new(0u8); input.len() + HEADER_LEN];
        let n = ffi::compress(input, &mut out, params).expect("compresses");
        init(&out[..n])
    }

    fn init(bytes: &[MaybeUninit<u8>]) -> Vec<u8> {
        // SAFETY: callers pass only bytes that were written.
        bytes.iter().map(|b| unsafe { b.assume_init() }).collect()
    }

    /// A decode's output, `None` for a failure.
    type Decoded = Option<Vec<u8>>;

    /// The frame decoded by this decoder and by c-blosc's (`None` if not a frame it covers).
    fn both(frame: &[u8]) -> Option<(Decoded, Decoded)> {
        let info = crate::frame_info(frame).ok()?;
        if !covers(&info, 1) {
            return None;
        }
        let mut ours = vec![MaybeUninit::new(0u8); info.nbytes];
        let mut theirs = ours.clone();
        let ours = decompress(frame, &info, &mut ours)
            .ok()
            .map(|()| init(&ours));
        let theirs = ffi::decompress(frame, &info, &mut theirs, 1)
            .ok()
            .map(|()| init(&theirs));
        Some((ours, theirs))
    }

    #[test]
    fn decodes_every_kind_of_frame_as_c_blosc_does() {
        let mut covered = [0usize; 3]; // plain copies, unshuffled, shuffled
        for len in [1, 100, 128, 1000, 65_548, 1_700_003] {
            for kind in 0..3 {
                let input = data(kind, len);
                for (c, cname) in COMPRESSORS.into_iter().enumerate() {
                    for shuffle in [Shuffle::NoShuffle, Shuffle::Shuffle, Shuffle::BitShuffle] {
                        for typesize in [1, 2, 3, 4, 8, 16] {
                            let slow = !matches!(cname, Compressor::BloscLz | Compressor::Lz4);
                            if slow && len > 100_000 {
                                continue; // many blocks: the fast compressors suffice
                            }
                            let clevel = [0, 1, 5, 9][(c + typesize + kind) % 4];
                            let params = Params {
                                cname,
                                clevel,
                                shuffle,
                                typesize,
                                blocksize: [0, 0, 4096, 70_001][(c + len) % 4],
                                threads: 1,
                            };
                            let frame = c_blosc_frame(&input, &params);
                            let Some((ours, theirs)) = both(&frame) else {
                                continue;
                            };
                            assert!(theirs.as_deref() == Some(&input[..]));
                            assert!(ours == theirs, "{params:?} on {len} bytes of kind {kind}");
                            let info = crate::frame_info(&frame).expect("valid");
                            let k = if info.memcpyed {
                                0
                            } else {
                                1 + usize::from(shuffled(&info))
                            };
                            covered[k] += 1;
                        }
                    }
                }
            }
        }
        assert!(covered.iter().all(|&n| n > 100), "{covered:?}");
    }

    /// Damaged frames (each byte of the header, block table and stream lengths, and bytes
    /// through the data, set to 0, to 0xFF and flipped; truncated block tables) fail or decode
    /// exactly as with c-blosc's decoder: both call the same decompressors on the same bytes.
    #[test]
    fn damaged_frames_fail_or_decode_as_c_blosc_does() {
        let input = data(2, 120_000);
        let mut compared = 0;
        for cname in COMPRESSORS {
            for shuffle in [Shuffle::NoShuffle, Shuffle::Shuffle, Shuffle::BitShuffle] {
                let params = Params {
                    cname,
                    clevel: 3,
                    shuffle,
                    typesize: 4,
                    blocksize: 16_384,
                    threads: 1,
                };
                let frame = c_blosc_frame(&input, &params);
                let positions = (0..64).chain((64..frame.len()).step_by(1999));
                for at in positions {
                    for value in [0, 0xFF, frame[at] ^ 0x5A] {
                        let mut damaged = frame.clone();
                        damaged[at] = value;
                        if let Some((ours, theirs)) = both(&damaged) {
                            assert!(ours == theirs, "{params:?}: byte {at} set to {value:#x}");
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 500, "{compared} damaged frames compared");
    }
}
