//! Compression with this crate's AVX2 shuffles in place of c-blosc's SSE2 ones, producing the
//! very frame c-blosc would.
//!
//! c-blosc 1.x shuffles each block on its own and then compresses the shuffled bytes; nothing
//! else in the frame depends on the shuffle but two flag bits. So each block is shuffled here
//! (into a per-thread scratch buffer), c-blosc compresses the result with `noshuffle`, and the
//! flags are set afterwards. A frame c-blosc stored as a plain copy gets the original bytes
//! back. The work goes in cache-sized segments of blocks (see [`compress_preshuffled`]). The
//! block size this relies on is c-blosc's own choice, computed by [`c_blosc_blocksize`] and
//! checked against each segment's header: on any disagreement the chunk is compressed again by
//! c-blosc's own shuffle.

use std::cell::RefCell;
use std::mem::MaybeUninit;

use zarr_codec_shapes::Result;

use crate::header::{
    FLAG_BITSHUFFLE, FLAG_MEMCPYED, FLAG_SHUFFLE, MAX_NBYTES, MIN_BUFFERSIZE, c_blosc_blocksize,
};
use crate::{HEADER_LEN, Params, Shuffle, ffi, shuffle};

/// The bytes of input shuffled and handed to c-blosc at a time: well within a core's L2.
pub(crate) const SEGMENT: usize = 512 << 10;
/// Scratch kept per thread between calls only up to this size (larger blocks allocate).
const KEEP_SCRATCH: usize = 16 << 20;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Compress as `ffi::compress` does, shuffling here where a kernel covers the typesize.
pub(crate) fn compress(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    params: &Params,
) -> Result<usize> {
    let typesize = params.c_typesize();
    let applies = match params.shuffle {
        Shuffle::NoShuffle => false,
        Shuffle::Shuffle => typesize > 1,
        Shuffle::BitShuffle => true,
    } && params.clevel > 0
        && params.threads == 1
        && input.len() >= MIN_BUFFERSIZE
        && input.len() <= MAX_NBYTES
        && out.len() >= input.len() + HEADER_LEN
        && shuffle::has_kernel(typesize);
    if !applies {
        return ffi::compress(input, out, params);
    }
    ffi::check_room(input.len(), params)?;
    // c-blosc never needs more room than a plain copy, and reads its room as an `int`.
    let out = &mut out[..input.len() + HEADER_LEN];
    match compress_preshuffled(input, out, params, typesize)? {
        Some(written) => Ok(written),
        None => ffi::compress(input, out, params),
    }
}

/// The frame through this crate's shuffles; `None` (with `out` to be overwritten) where
/// c-blosc's block size is not the one computed, so its own shuffle must run.
///
/// The chunk goes to c-blosc a segment of whole blocks at a time (about [`SEGMENT`] bytes), so
/// each shuffled segment is still in cache when c-blosc compresses it, as with its own
/// shuffle. Each segment is compressed into `out` where its blocks belong in the whole frame,
/// with the rest of `out` as its room: c-blosc compresses blocks independently and each of
/// its "does it still fit" decisions compares the bytes written so far plus the block with the
/// room left, which are the same numbers for the segment as for the whole chunk. So every
/// block comes out as in one call, and a segment that does not fit means the whole frame
/// would have been a plain copy. The segment's own header and block table, written just
/// before its blocks, are read and then overwritten with what was there.
fn compress_preshuffled(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    params: &Params,
    typesize: usize,
) -> Result<Option<usize>> {
    let blocksize = c_blosc_blocksize(
        params.cname,
        params.clevel,
        typesize,
        input.len(),
        params.blocksize,
    );
    let nblocks = input.len().div_ceil(blocksize);
    let unshuffled = Params {
        shuffle: Shuffle::NoShuffle,
        ..*params
    };
    let mut starts: Vec<u32> = Vec::with_capacity(nblocks);
    // The first segment's version, flags and typesize bytes: the whole frame's too.
    let mut prefix = [0u8; 4];
    let mut end = HEADER_LEN + 4 * nblocks; // where the next segment's blocks go
    let mut saved = Vec::new();
    // The longest segment, and a block of scratch for the bit shuffle.
    let longest = segments(input.len(), blocksize)
        .map(|(first, last)| (last * blocksize).min(input.len()) - first * blocksize)
        .max()
        .unwrap_or(0);
    let outcome = with_scratch(longest + blocksize, |scratch| -> Result<Outcome> {
        for (first_block, end_block) in segments(input.len(), blocksize) {
            let from = first_block * blocksize;
            let to = (end_block * blocksize).min(input.len());
            let (shuffled, tmp) = scratch.split_at_mut(to - from);
            for (block, target) in input[from..to]
                .chunks(blocksize)
                .zip(shuffled.chunks_mut(blocksize))
            {
                match params.shuffle {
                    Shuffle::Shuffle => shuffle::shuffle(typesize, block, target),
                    _ => shuffle::bitshuffle(typesize, block, target, tmp),
                }
            }
            let head = HEADER_LEN + 4 * (end_block - first_block);
            let at = end - head;
            saved.clear();
            saved.extend_from_slice(&out[at..end]);
            let written = ffi::compress_within(shuffled, &mut out[at..], &unshuffled)?;
            if written < head {
                // No room left for this segment's blocks: the whole frame is a plain copy. (The
                // first segment always has room for its own plain copy, which gives the header.)
                return Ok(if first_block == 0 {
                    Outcome::Mismatch
                } else {
                    Outcome::PlainCopy
                });
            }
            // SAFETY: c-blosc initialised the first `written` bytes from `at`.
            let frame = unsafe { &*(std::ptr::from_ref(&out[at..at + written]) as *const [u8]) };
            if read_u32(frame, 8) != Some(blocksize) {
                return Ok(Outcome::Mismatch);
            }
            if first_block == 0 {
                prefix.copy_from_slice(&frame[..4]);
            }
            if frame[2] & FLAG_MEMCPYED != 0 {
                return Ok(Outcome::PlainCopy); // a block did not fit
            }
            for block in 0..end_block - first_block {
                let start = read_u32(frame, HEADER_LEN + 4 * block).unwrap_or(0);
                // Offsets in the segment's frame, which starts `at` bytes into the chunk's.
                starts.push(u32::try_from(start + at).unwrap_or(u32::MAX));
            }
            out[at..end].copy_from_slice(&saved);
            end = at + written;
        }
        Ok(Outcome::Frame)
    })?;
    let frame_len = match outcome {
        Outcome::Mismatch => return Ok(None),
        Outcome::Frame => end,
        Outcome::PlainCopy => {
            // c-blosc's plain copy: the header, then the input as it is.
            prefix[2] |= FLAG_MEMCPYED;
            starts.clear();
            shuffle::copy_bytes(&mut out[HEADER_LEN..], input);
            HEADER_LEN + input.len()
        }
    };
    prefix[2] |= match params.shuffle {
        Shuffle::Shuffle => FLAG_SHUFFLE,
        _ => FLAG_BITSHUFFLE,
    };
    let mut header = [0u8; HEADER_LEN];
    header[..4].copy_from_slice(&prefix);
    for (at, value) in [(4, input.len()), (8, blocksize), (12, frame_len)] {
        let value = u32::try_from(value).unwrap_or(u32::MAX);
        header[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
    shuffle::copy_bytes(out, &header);
    for (block, start) in starts.iter().enumerate() {
        shuffle::copy_bytes(&mut out[HEADER_LEN + 4 * block..], &start.to_le_bytes());
    }
    Ok(Some(frame_len))
}

/// The segments of a chunk of `nbytes` bytes in blocks of `blocksize`, as ranges of blocks: runs
/// of whole blocks about [`SEGMENT`] long, the last taking what is left once fewer than two
/// runs' worth remain. So every segment holds at least one run of whole blocks (for c-blosc,
/// a buffer that gets the same block size as the whole chunk, and never less than a block).
pub(crate) fn segments(nbytes: usize, blocksize: usize) -> impl Iterator<Item = (usize, usize)> {
    let nblocks = nbytes.div_ceil(blocksize);
    let full_blocks = nbytes / blocksize;
    let per_segment = (SEGMENT / blocksize).max(1);
    let mut first = 0;
    std::iter::from_fn(move || {
        if first >= nblocks {
            return None;
        }
        let end = if full_blocks - first < 2 * per_segment {
            nblocks
        } else {
            first + per_segment
        };
        let segment = (first, end);
        first = end;
        Some(segment)
    })
}

/// How the segments went.
enum Outcome {
    /// Every block compressed: the frame ends where the last segment did.
    Frame,
    /// c-blosc would have stored the chunk as a plain copy.
    PlainCopy,
    /// c-blosc chose another block size than computed.
    Mismatch,
}

fn read_u32(frame: &[u8], at: usize) -> Option<usize> {
    let bytes = frame.get(at..at + 4)?;
    usize::try_from(u32::from_le_bytes(bytes.try_into().ok()?)).ok()
}

/// Run `f` on at least `len` bytes of this thread's scratch (a fresh buffer if it is in use
/// or `len` is too large to keep between calls).
pub(crate) fn with_scratch<T>(len: usize, f: impl FnOnce(&mut [u8]) -> T) -> T {
    SCRATCH.with(|cell| {
        let mut kept = cell.try_borrow_mut();
        let mut fresh;
        let scratch = match kept.as_deref_mut() {
            Ok(kept) if len <= KEEP_SCRATCH => kept,
            _ => {
                // Zeroed by the allocator: pages a lying frame never gets to are never touched.
                fresh = vec![0; len];
                &mut fresh
            }
        };
        if scratch.len() < len {
            scratch.resize(len, 0);
        }
        f(&mut scratch[..len])
    })
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // test data: truncation intended
pub(crate) mod tests {
    use super::*;
    use crate::Compressor;

    pub(crate) const COMPRESSORS: [Compressor; 5] = [
        Compressor::BloscLz,
        Compressor::Lz4,
        Compressor::Lz4Hc,
        Compressor::Zlib,
        Compressor::Zstd,
    ];

    /// Data of a few kinds: smooth little-endian integers (compressible once shuffled),
    /// noise (stored as a plain copy) and a mix (noise in some blocks only).
    pub(crate) fn data(kind: usize, len: usize) -> Vec<u8> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ len as u64;
        let mut noise = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        };
        (0..len)
            .map(|i| match kind {
                0 => ((i / 4) as u32 / 3).to_le_bytes()[i % 4],
                1 => noise(),
                _ if (i / 20_000) % 3 == 1 => noise(),
                _ => (i / 64) as u8,
            })
            .collect()
    }

    /// The frame c-blosc makes shuffling itself, and ours where our shuffles apply.
    fn compress_both(input: &[u8], params: &Params) -> (Vec<u8>, Option<Vec<u8>>) {
        let mut theirs = vec![MaybeUninit::new(0u8); input.len() + HEADER_LEN];
        let mut ours = theirs.clone();
        let written = ffi::compress(input, &mut theirs, params).expect("compresses");
        let typesize = params.c_typesize();
        let kernel = shuffle::has_kernel(typesize)
            && input.len() >= MIN_BUFFERSIZE
            && (params.shuffle == Shuffle::BitShuffle || typesize > 1);
        let ours = kernel.then(|| {
            let n = compress_preshuffled(input, &mut ours, params, typesize)
                .expect("compresses")
                .expect("c-blosc chose the block size computed");
            init(&ours[..n])
        });
        (init(&theirs[..written]), ours)
    }

    fn init(bytes: &[MaybeUninit<u8>]) -> Vec<u8> {
        // SAFETY: callers pass only what c-blosc wrote.
        bytes.iter().map(|b| unsafe { b.assume_init() }).collect()
    }

    #[test]
    fn frames_are_byte_identical_to_c_blosc_shuffling_itself() {
        let mut checked = 0;
        for len in [0, 127, 128, 129, 1000, 4099, 65_536, 300_007] {
            for kind in 0..3 {
                let input = data(kind, len);
                for typesize in [1, 2, 3, 4, 8, 16, 300] {
                    for shuffle in [Shuffle::Shuffle, Shuffle::BitShuffle] {
                        for (c, cname) in COMPRESSORS.into_iter().enumerate() {
                            // Levels and forced block sizes spread over the cases.
                            let clevel = [1, 5, 9, 3, 7][(c + typesize + kind) % 5];
                            let blocksize = [0, 0, 100, 4096, 70_001][(c + len) % 5];
                            let params = Params {
                                cname,
                                clevel,
                                shuffle,
                                typesize,
                                blocksize,
                                threads: 1,
                            };
                            let (theirs, ours) = compress_both(&input, &params);
                            if let Some(ours) = ours {
                                assert!(
                                    ours == theirs,
                                    "{params:?} on {len} bytes of kind {kind}: frames differ"
                                );
                                checked += 1;
                            }
                            // The public path gives the same frame whichever way it goes.
                            let mut out = vec![MaybeUninit::new(0u8); len + HEADER_LEN];
                            let n = compress(&input, &mut out, &params).expect("compresses");
                            assert!(init(&out[..n]) == theirs, "{params:?}: public path");
                        }
                    }
                }
            }
        }
        // Six lengths of at least 128 bytes; per compressor, typesizes 2, 4 and 8 both ways
        // and 1 and 300 (treated as 1) bit-shuffled: 3, 16 and byte-shuffled 1 have no kernel.
        if shuffle::has_kernel(4) {
            assert_eq!(checked, 6 * 3 * 8 * 5);
        }
    }

    /// Chunks of many segments: compressible (kind 0), noise (kinds 1 and 3: the room runs
    /// out in a later segment, as the first always fits) and noise in stripes (kind 2).
    #[test]
    fn segmented_frames_are_byte_identical_to_one_call() {
        let mut kinds_seen = [0usize; 2];
        for len in [1_700_003] {
            for kind in 0..4 {
                let mut input = data(kind.min(2), len);
                if kind == 3 {
                    // Noise after a few zeros: too few to pay for the block table, so the
                    // room runs out only in the last segment.
                    input = data(1, len);
                    input[..40].fill(0);
                }
                for cname in [Compressor::BloscLz, Compressor::Lz4, Compressor::Zstd] {
                    for typesize in [2, 4, 8] {
                        for shuffle in [Shuffle::Shuffle, Shuffle::BitShuffle] {
                            for blocksize in [0, 16_384, 100_000] {
                                let params = Params {
                                    cname,
                                    clevel: if cname == Compressor::Zstd { 1 } else { 5 },
                                    shuffle,
                                    typesize,
                                    blocksize,
                                    threads: 1,
                                };
                                let (theirs, ours) = compress_both(&input, &params);
                                assert!(
                                    ours.as_ref() == Some(&theirs),
                                    "{params:?} on {len} bytes of kind {kind}: frames differ"
                                );
                                kinds_seen[usize::from(theirs[2] & FLAG_MEMCPYED != 0)] += 1;
                            }
                        }
                    }
                }
            }
        }
        // Both compressed frames and plain copies were compared.
        assert!(kinds_seen[0] > 50 && kinds_seen[1] > 25, "{kinds_seen:?}");
    }

    #[test]
    fn block_size_is_c_bloscs_choice() {
        for cname in COMPRESSORS {
            for clevel in 0..=9 {
                for typesize in [1, 2, 4, 8, 17, 255] {
                    for nbytes in [1, 100, 32_767, 32_768, 100_000, 1_200_000] {
                        for forced in [0, 200, 65_537] {
                            let input = vec![7u8; nbytes];
                            let params = Params {
                                cname,
                                clevel,
                                shuffle: Shuffle::NoShuffle,
                                typesize,
                                blocksize: forced,
                                threads: 1,
                            };
                            let mut out = vec![MaybeUninit::new(0u8); nbytes + 16];
                            let written =
                                ffi::compress(&input, &mut out, &params).expect("compresses");
                            assert!(written >= 16);
                            // SAFETY: c-blosc wrote the header.
                            let header: Vec<u8> = out[8..12]
                                .iter()
                                .map(|b| unsafe { b.assume_init() })
                                .collect();
                            let theirs =
                                u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
                            assert_eq!(
                                c_blosc_blocksize(cname, clevel, typesize, nbytes, forced),
                                theirs as usize,
                                "{cname:?} clevel {clevel} typesize {typesize} nbytes {nbytes} forced {forced}"
                            );
                        }
                    }
                }
            }
        }
    }
}
