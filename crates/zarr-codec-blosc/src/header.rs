//! The 16-byte c-blosc 1.x frame header, and the structural checks made before any
//! allocation or call into C.
//!
//! Layout (little-endian): version, compressor-format version, flags, typesize, then nbytes,
//! blocksize and cbytes as 32-bit integers; unless the frame is a plain copy, a table of
//! 32-bit block start offsets follows. c-blosc and numcodecs have crashed or over-read on
//! lying headers (numcodecs #228, c-blosc #229, #405), so nothing here trusts the header.

use zarr_codec_shapes::{CodecError, Result};

use crate::Compressor;

/// Header length, and the overhead c-blosc may add to the input size.
pub const HEADER_LEN: usize = 16;
/// The frame format versions c-blosc2 writes (`BLOSC2_VERSION_FORMAT_ALPHA` to its latest).
const BLOSC2_VERSIONS: std::ops::RangeInclusive<u8> = 3..=5;

/// The only c-blosc 1.x frame format version (c-blosc 1.21 refuses every other).
const FORMAT_VERSION: u8 = 2;
/// c-blosc's limit on a block (`BLOSC_MAX_BLOCKSIZE`), the largest a frame it writes can have.
pub(crate) const MAX_BLOCKSIZE: usize = (i32::MAX as usize - MAX_TYPESIZE * 4) / 3;
/// c-blosc 1.x keeps sizes in signed 32-bit integers.
pub const MAX_NBYTES: usize = i32::MAX as usize - HEADER_LEN;

/// Flag bits: byte shuffle, plain copy, bit shuffle, blocks not split into per-byte streams.
pub(crate) const FLAG_SHUFFLE: u8 = 0x01;
pub(crate) const FLAG_MEMCPYED: u8 = 0x02;
pub(crate) const FLAG_BITSHUFFLE: u8 = 0x04;
pub(crate) const FLAG_DONT_SPLIT: u8 = 0x10;
/// c-blosc 1.21's limits (blosc.c, blosc.h): the smallest buffer it compresses rather than
/// copies, the widest element it splits into per-byte streams, the widest element it shuffles.
pub(crate) const MIN_BUFFERSIZE: usize = 128;
pub(crate) const MAX_SPLITS: usize = 16;
pub(crate) const MAX_TYPESIZE: usize = 255;
/// Reserved in c-blosc 1.x (its decoder rejects frames with it set).
const FLAG_RESERVED: u8 = 0x08;

/// The internal compressors, by the code c-blosc stores in the top 3 flag bits.
const COMPRESSOR_FORMATS: [&str; 5] = ["blosclz", "lz4", "snappy", "zlib", "zstd"];

/// The most a compressed frame of `compressor` blocks can expand, as a ratio to its size,
/// with room to spare over each format's real limit: LZ formats (blosclz, lz4, snappy) add at
/// most 255 bytes of match per length byte (c-blosc reaches 250:1 on zeros); deflate's limit is
/// 1032:1; zstd's run-length blocks reach 32768:1 (4 bytes per 128 KiB). A claim beyond it is
/// a lie, refused before the output is allocated.
fn max_expansion(compressor: &str) -> usize {
    match compressor {
        "zstd" => 1 << 16,
        "zlib" => 1 << 11,
        _ => 1 << 9,
    }
}

/// What a validated header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    /// Decoded size.
    pub nbytes: usize,
    /// Size of the frame, header included (the input may be longer).
    pub cbytes: usize,
    /// Element size used for shuffling.
    pub typesize: usize,
    /// Block size.
    pub blocksize: usize,
    /// The compressor format of the blocks ("lz4" also covers lz4hc).
    pub compressor: &'static str,
    /// Whether the blocks are plain copies.
    pub memcpyed: bool,
    /// Byte shuffle applied.
    pub shuffle: bool,
    /// Bit shuffle applied.
    pub bitshuffle: bool,
}

impl FrameInfo {
    /// [`CodecError::OutputSize`] unless `len` is the decoded size: both decoders write
    /// exactly that much.
    pub(crate) fn check_output(&self, len: usize) -> Result<()> {
        if len != self.nbytes {
            return Err(CodecError::OutputSize {
                expected: self.nbytes,
                actual: len,
            });
        }
        Ok(())
    }
}

/// A corrupt-input error, named for the codec.
pub(crate) fn corrupt(message: impl std::fmt::Display) -> CodecError {
    CodecError::corrupt(format!("blosc: {message}"))
}

fn read_u32(input: &[u8], at: usize) -> Option<u32> {
    let bytes = input.get(at..at + 4)?;
    Some(u32::from_le_bytes(<[u8; 4]>::try_from(bytes).ok()?))
}

/// A size field: c-blosc reads them as signed 32-bit integers, so the top bit must be clear.
fn read_size(input: &[u8], at: usize, what: &str) -> Result<usize> {
    let value = read_u32(input, at).ok_or_else(|| corrupt("frame shorter than its header"))?;
    i32::try_from(value)
        .ok()
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| corrupt(format!("{what} {value} is negative as c-blosc reads it")))
}

/// Validate the header and block table of the frame at the start of `input`.
pub fn validate(input: &[u8]) -> Result<FrameInfo> {
    let header = input.get(..HEADER_LEN).ok_or_else(|| {
        corrupt(format!(
            "{} bytes is shorter than the 16-byte header",
            input.len()
        ))
    })?;
    let (version, flags, typesize) = (header[0], header[2], usize::from(header[3]));
    if BLOSC2_VERSIONS.contains(&version) {
        return Err(CodecError::unsupported(format!(
            "blosc: frame format version {version} is blosc2's; this codec reads c-blosc 1.x \
             frames (version 2), the format Zarr's blosc codec and numcodecs write"
        )));
    }
    if version != FORMAT_VERSION {
        // Neither c-blosc 1.x's nor blosc2's: not a blosc frame at all (random bytes, or a
        // chunk of another codec), which is damage, not a format we lack.
        return Err(corrupt(format!(
            "unknown frame format version {version}: neither a c-blosc 1.x frame (version \
             {FORMAT_VERSION}) nor a blosc2 one (versions 3 to 5)"
        )));
    }
    if flags & FLAG_RESERVED != 0 {
        return Err(corrupt(format!(
            "reserved flag bit set (flags {flags:#04x})"
        )));
    }
    let nbytes = read_size(input, 4, "nbytes")?;
    let blocksize = read_size(input, 8, "blocksize")?;
    let cbytes = read_size(input, 12, "cbytes")?;
    if cbytes < HEADER_LEN || cbytes > input.len() {
        return Err(corrupt(format!(
            "frame claims {cbytes} bytes but {} are present",
            input.len()
        )));
    }
    let compressor = COMPRESSOR_FORMATS
        .get(usize::from(flags >> 5))
        .copied()
        .ok_or_else(|| corrupt(format!("unknown compressor code {}", flags >> 5)))?;
    let info = FrameInfo {
        nbytes,
        cbytes,
        typesize,
        blocksize,
        compressor,
        memcpyed: flags & FLAG_MEMCPYED != 0,
        shuffle: flags & FLAG_SHUFFLE != 0,
        bitshuffle: flags & FLAG_BITSHUFFLE != 0,
    };
    if nbytes == 0 {
        // An empty frame is just the header: anything more is a header that lies.
        if cbytes != HEADER_LEN {
            return Err(corrupt(format!(
                "an empty frame must be 16 bytes, not {cbytes}"
            )));
        }
        return Ok(info);
    }
    if typesize == 0 {
        return Err(corrupt("typesize 0"));
    }
    if blocksize == 0 || blocksize > MAX_BLOCKSIZE || blocksize > nbytes {
        return Err(corrupt(format!("blocksize {blocksize} for {nbytes} bytes")));
    }
    if info.memcpyed {
        if cbytes != nbytes + HEADER_LEN {
            return Err(corrupt(format!(
                "an uncompressed frame of {nbytes} bytes must be {} bytes, not {cbytes}",
                nbytes + HEADER_LEN
            )));
        }
        return Ok(info);
    }
    let expansion = max_expansion(compressor);
    if nbytes / expansion > cbytes {
        return Err(corrupt(format!(
            "a {cbytes}-byte frame cannot decode to {nbytes} bytes: {compressor} expands at \
             most {expansion}:1"
        )));
    }
    validate_block_table(input, &info)?;
    Ok(info)
}

/// Every block must start inside the frame, after the table, with room for a length word.
fn validate_block_table(input: &[u8], info: &FrameInfo) -> Result<()> {
    let nblocks = info.nbytes.div_ceil(info.blocksize);
    let table_end = nblocks
        .checked_mul(4)
        .and_then(|n| n.checked_add(HEADER_LEN))
        .filter(|&end| end <= info.cbytes)
        .ok_or_else(|| {
            corrupt(format!(
                "{} bytes cannot hold the start table of {nblocks} blocks",
                info.cbytes
            ))
        })?;
    for block in 0..nblocks {
        let start = read_u32(input, HEADER_LEN + 4 * block)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| corrupt("block table truncated"))?;
        if start < table_end || start + 4 > info.cbytes {
            return Err(corrupt(format!(
                "block {block} starts at {start}, outside {table_end}..{}",
                info.cbytes
            )));
        }
    }
    Ok(())
}

/// c-blosc 1.21's base block size (blosc.c's `L1`).
const L1: usize = 32 * 1024;

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
