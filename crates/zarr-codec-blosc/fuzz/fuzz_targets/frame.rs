//! Structure-aware and differential: real frames of every compressor, shuffle, typesize and
//! block size, with fuzzer-chosen edits to the header and block offsets, truncations and junk.
//! This crate's frame decoder (one thread) and c-blosc's own decoder (what the frame takes
//! with two threads) must agree: the same bytes when both decode, and neither may crash.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use zarr_codec_blosc::{Blosc, Compressor, Shuffle, decode_into_threads, encode};

#[derive(Arbitrary, Debug)]
struct Frame {
    data: Vec<u8>,
    /// Repeat `data` this many times (compressible input, several blocks).
    repeat: u8,
    cname: u8,
    clevel: u8,
    shuffle: u8,
    typesize: u8,
    /// In 256-byte steps, 0: automatic.
    blocksize: u8,
    /// (position in the header and block table, new byte).
    edits: Vec<(u8, u8)>,
    cut: Option<u16>,
    junk: Vec<u8>,
}

const CNAMES: [Compressor; 5] = [
    Compressor::BloscLz,
    Compressor::Lz4,
    Compressor::Lz4Hc,
    Compressor::Zlib,
    Compressor::Zstd,
];
const SHUFFLES: [Shuffle; 3] = [Shuffle::NoShuffle, Shuffle::Shuffle, Shuffle::BitShuffle];

fuzz_target!(|frame: Frame| {
    let input = frame.data.repeat(usize::from(frame.repeat % 8) + 1);
    let Ok(codec) = Blosc::new(
        CNAMES[usize::from(frame.cname) % CNAMES.len()],
        // Up to 6: the frame layout is the same at every level, and higher zstd levels are
        // slow enough to starve the fuzzer.
        frame.clevel % 7,
        Some(SHUFFLES[usize::from(frame.shuffle) % SHUFFLES.len()]),
        Some(usize::from(frame.typesize).max(1)),
        usize::from(frame.blocksize) * 256,
    ) else {
        return;
    };
    let Ok(mut bytes) = encode(&input, &codec.params(1, 1)) else {
        return;
    };
    // Edits land in the 16-byte header and the block-start table after it.
    let span = bytes.len().min(16 + 4 * 64);
    for &(at, value) in &frame.edits {
        if span > 0 {
            bytes[usize::from(at) % span] = value;
        }
    }
    if let Some(cut) = frame.cut {
        bytes.truncate(usize::from(cut) % (bytes.len() + 1));
    }
    bytes.extend_from_slice(&frame.junk);

    let size = input.len() + 64;
    let mut ours = vec![0u8; size];
    let mut theirs = vec![0u8; size];
    let by_this_crate = decode_into_threads(&bytes, &mut ours, 1);
    let by_c_blosc = decode_into_threads(&bytes, &mut theirs, 2);
    if let (Ok(a), Ok(b)) = (&by_this_crate, &by_c_blosc) {
        assert_eq!(a, b, "decoded sizes differ");
        assert!(ours[..*a] == theirs[..*b], "decoded bytes differ");
    }
    if frame.edits.is_empty() && frame.cut.is_none() && frame.junk.is_empty() {
        assert_eq!(by_this_crate.as_ref().ok(), Some(&input.len()));
        assert!(ours[..input.len()] == input[..]);
    }
});
