//! The gzip member header and trailer (RFC 1952, section 2.3), parsed as Python's `gzip`
//! module does: the optional FEXTRA, FNAME, FCOMMENT and FHCRC fields are skipped, the header
//! CRC is not checked and reserved flag bits are ignored (zlib is stricter on both; numcodecs
//! and zarr-python decode with Python's module, so data they accept must decode here too).

use zarr_codec_shapes::{CodecError, Result};

pub(crate) const MAGIC: [u8; 2] = [0x1f, 0x8b];
const METHOD_DEFLATE: u8 = 8;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
/// CRC-32 and ISIZE, four little-endian bytes each.
pub(crate) const TRAILER_LEN: usize = 8;

fn truncated() -> CodecError {
    CodecError::corrupt("gzip: stream ends inside a member header")
}

/// The length of the member header at the start of `input`.
pub(crate) fn header_len(input: &[u8]) -> Result<usize> {
    let fixed = input.get(..10).ok_or_else(truncated)?;
    if fixed[..2] != MAGIC {
        return Err(CodecError::corrupt(format!(
            "gzip: not a gzip member (starts with {:02x} {:02x}, expected 1f 8b)",
            fixed[0], fixed[1]
        )));
    }
    if fixed[2] != METHOD_DEFLATE {
        return Err(CodecError::corrupt(format!(
            "gzip: unknown compression method {} (only 8, deflate, exists)",
            fixed[2]
        )));
    }
    let flags = fixed[3];
    let mut pos = 10;
    if flags & FEXTRA != 0 {
        let len_bytes = input.get(pos..pos + 2).ok_or_else(truncated)?;
        pos += 2 + usize::from(u16::from_le_bytes([len_bytes[0], len_bytes[1]]));
    }
    for field in [FNAME, FCOMMENT] {
        if flags & field != 0 {
            let rest = input.get(pos..).ok_or_else(truncated)?;
            let end = rest.iter().position(|&b| b == 0).ok_or_else(truncated)?;
            pos += end + 1;
        }
    }
    if flags & FHCRC != 0 {
        pos += 2;
    }
    if pos > input.len() {
        return Err(truncated());
    }
    Ok(pos)
}

/// The CRC-32 and ISIZE stored in a member trailer at the start of `input`.
pub(crate) fn trailer(input: &[u8]) -> Result<(u32, u32)> {
    match input.get(..TRAILER_LEN) {
        Some(&[c0, c1, c2, c3, s0, s1, s2, s3]) => Ok((
            u32::from_le_bytes([c0, c1, c2, c3]),
            u32::from_le_bytes([s0, s1, s2, s3]),
        )),
        _ => Err(CodecError::corrupt(
            "gzip: stream ends inside a member trailer",
        )),
    }
}
