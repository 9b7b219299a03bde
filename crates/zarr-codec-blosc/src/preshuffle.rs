//! Compression with this crate's AVX2 shuffles in place of c-blosc's SSE2 ones, producing the
//! very frame c-blosc would.
//!
//! c-blosc 1.x shuffles each block on its own and then compresses the shuffled bytes; nothing
//! else in the frame depends on the shuffle but two flag bits. So each block is shuffled here
//! (into a per-thread scratch buffer), c-blosc compresses the result with `noshuffle`, and the
//! flags are set afterwards. A frame c-blosc stored as a plain copy gets the original bytes
//! back. The block size this relies on is c-blosc's own choice, computed by
//! [`c_blosc_blocksize`] and checked against the frame's header: on any disagreement the chunk
//! is compressed again by c-blosc's own shuffle.

use std::cell::RefCell;
use std::mem::MaybeUninit;

use zarr_codec::Result;

use crate::{Compressor, Params, Shuffle, ffi, shuffle};

/// c-blosc 1.21's constants (blosc.c, blosc.h).
const MIN_BUFFERSIZE: usize = 128;
const MAX_SPLITS: usize = 16;
const L1: usize = 32 * 1024;
const MAX_TYPESIZE: usize = 255;
const MAX_BLOCKSIZE: usize = (i32::MAX as usize - MAX_TYPESIZE * 4) / 3;
const FLAG_SHUFFLE: u8 = 0x01;
const FLAG_MEMCPYED: u8 = 0x02;
const FLAG_BITSHUFFLE: u8 = 0x04;

/// Scratch kept per thread between calls only up to this size (larger chunks allocate).
const KEEP_SCRATCH: usize = 64 << 20;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Compress as `ffi::compress` does, shuffling here where a kernel covers the typesize.
pub(crate) fn compress(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    params: &Params,
) -> Result<usize> {
    // c-blosc treats elements above 255 bytes as single bytes.
    let typesize = if params.typesize > MAX_TYPESIZE {
        1
    } else {
        params.typesize
    };
    let applies = match params.shuffle {
        Shuffle::NoShuffle => false,
        Shuffle::Shuffle => typesize > 1,
        Shuffle::BitShuffle => true,
    } && params.clevel > 0
        && params.threads == 1
        && input.len() >= MIN_BUFFERSIZE
        && shuffle::has_kernel(typesize);
    if !applies {
        return ffi::compress(input, out, params);
    }
    match compress_preshuffled(input, out, params, typesize)? {
        Some(written) => Ok(written),
        None => ffi::compress(input, out, params),
    }
}

/// The frame through this crate's shuffles; `None` (with `out` to be overwritten) where
/// c-blosc's block size is not the one computed, so its own shuffle must run.
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
    let written = SCRATCH.with(|cell| {
        // A kept buffer avoids page faults on every chunk; a chunk too large to keep, or a
        // nested call, gets its own.
        let mut kept = cell.try_borrow_mut();
        let mut fresh = Vec::new();
        let needed = input.len() + blocksize;
        let scratch = match kept.as_deref_mut() {
            Ok(kept) if needed <= KEEP_SCRATCH => kept,
            _ => &mut fresh,
        };
        if scratch.len() < needed {
            scratch.resize(needed, 0);
        }
        let (shuffled, tmp) = scratch.split_at_mut(input.len());
        for (block, target) in input.chunks(blocksize).zip(shuffled.chunks_mut(blocksize)) {
            match params.shuffle {
                Shuffle::Shuffle => shuffle::shuffle(typesize, block, target),
                _ => shuffle::bitshuffle(typesize, block, target, tmp),
            }
        }
        let unshuffled = Params {
            shuffle: Shuffle::NoShuffle,
            ..*params
        };
        ffi::compress(shuffled, out, &unshuffled)
    })?;
    // SAFETY: c-blosc initialised the first `written` bytes (at least the 16-byte header).
    let frame = unsafe { &mut *(std::ptr::from_mut(&mut out[..written]) as *mut [u8]) };
    let frame_blocksize = u32::from_le_bytes([frame[8], frame[9], frame[10], frame[11]]);
    if usize::try_from(frame_blocksize).ok() != Some(blocksize) {
        return Ok(None);
    }
    frame[2] |= match params.shuffle {
        Shuffle::Shuffle => FLAG_SHUFFLE,
        _ => FLAG_BITSHUFFLE,
    };
    if frame[2] & FLAG_MEMCPYED != 0 {
        // A plain copy holds the original bytes, not the shuffled ones.
        frame[crate::HEADER_LEN..].copy_from_slice(input);
    }
    Ok(Some(written))
}

/// The block size c-blosc 1.21 chooses (`compute_blocksize` in blosc.c, with its default
/// forward-compatible split mode).
pub(crate) fn c_blosc_blocksize(
    cname: Compressor,
    clevel: u8,
    typesize: usize,
    nbytes: usize,
    forced: usize,
) -> usize {
    if nbytes < typesize {
        return 1;
    }
    // Compressors meant for large blocks ("HCR" in c-blosc) get twice the size.
    let hcr = matches!(
        cname,
        Compressor::Lz4Hc | Compressor::Zlib | Compressor::Zstd
    );
    let mut blocksize = nbytes;
    if forced != 0 {
        blocksize = forced.clamp(MIN_BUFFERSIZE, MAX_BLOCKSIZE);
    } else if nbytes >= L1 {
        blocksize = if hcr { 2 * L1 } else { L1 };
        blocksize = match clevel {
            0 => blocksize / 4,
            1 => blocksize / 2,
            2 => blocksize,
            3 => blocksize * 2,
            4 | 5 => blocksize * 4,
            9 if hcr => blocksize * 16,
            _ => blocksize * 8,
        };
    }
    let splits = cname != Compressor::Zstd
        && typesize <= MAX_SPLITS
        && blocksize / typesize >= MIN_BUFFERSIZE;
    if clevel > 0 && splits {
        blocksize = (blocksize.min(1 << 18) * typesize).clamp(1 << 16, 1 << 20);
    }
    blocksize = blocksize.min(nbytes);
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    blocksize
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // test data: truncation intended
mod tests {
    use super::*;

    const COMPRESSORS: [Compressor; 5] = [
        Compressor::BloscLz,
        Compressor::Lz4,
        Compressor::Lz4Hc,
        Compressor::Zlib,
        Compressor::Zstd,
    ];

    /// Data of a few kinds: smooth little-endian integers (compressible once shuffled),
    /// noise (stored as a plain copy) and a mix (noise in some blocks only).
    fn data(kind: usize, len: usize) -> Vec<u8> {
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
        let mut theirs = vec![MaybeUninit::new(0u8); input.len() + crate::HEADER_LEN];
        let mut ours = theirs.clone();
        let written = ffi::compress(input, &mut theirs, params).expect("compresses");
        let typesize = if params.typesize > MAX_TYPESIZE {
            1
        } else {
            params.typesize
        };
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
                            let mut out = vec![MaybeUninit::new(0u8); len + crate::HEADER_LEN];
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
