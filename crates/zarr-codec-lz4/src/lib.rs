//! numcodecs' `lz4` codec: a bytes-to-bytes codec storing a chunk as a 4-byte little-endian
//! size followed by one LZ4 block, byte for byte as numcodecs 0.17 writes it.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-lz4`.
//!
//! - Zarr v2: `{"id": "lz4", "acceleration": 1}`; Zarr v3: zarr-python's
//!   `{"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}`. `acceleration` trades
//!   ratio for speed; 0 or less means 1, as numcodecs does.
//! - Engine: the LZ4 library 1.10.0 (`lz4-sys`, built from source), the release numcodecs 0.17
//!   builds, so encoding gives numcodecs' bytes.
//! - Decoding is bounded: the declared size is checked against the caller's limit before any
//!   memory is taken, `LZ4_decompress_safe` never writes past it, and a block that decodes to
//!   any other size is [`CodecError::Corrupt`]. numcodecs refuses a declared size of 0 (the
//!   chunk of an empty input, which it writes); this codec reads it.
//!
//! ```
//! use zarr_codec_lz4::Lz4;
//! use zarr_codec_shapes::UninitBytesCodec;
//!
//! let codec = Lz4::default();
//! let data = b"zarr zarr zarr zarr zarr zarr zarr zarr";
//! let encoded = codec.encode_bytes(data)?;
//! assert_eq!(&encoded[..4], &(data.len() as u32).to_le_bytes());
//! assert_eq!(codec.decode_bytes(&encoded, None)?, data);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

use std::ffi::{c_char, c_int};
use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::codec::within_limit;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

/// The codec's id in Zarr v2 metadata.
pub const LZ4_ID: &str = "lz4";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const LZ4_NAME: &str = "numcodecs.lz4";
/// The size header's length in bytes.
pub const HEADER_LEN: usize = 4;
/// The largest input one LZ4 block takes (`LZ4_MAX_INPUT_SIZE`).
pub const MAX_INPUT: usize = 0x7E00_0000;

/// The LZ4 library's version, as `major.minor.release`.
pub fn engine() -> String {
    // SAFETY: a pure function of the library, with no arguments.
    let number = unsafe { lz4_sys::LZ4_versionNumber() };
    format!(
        "LZ4 {}.{}.{}",
        number / 10_000,
        number / 100 % 100,
        number % 100
    )
}

/// numcodecs' `LZ4(acceleration=1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lz4 {
    acceleration: i32,
}

impl Default for Lz4 {
    fn default() -> Self {
        Self { acceleration: 1 }
    }
}

impl Lz4 {
    /// The codec at `acceleration` (kept as given; 0 or less compresses as 1).
    pub fn new(acceleration: i32) -> Self {
        Self { acceleration }
    }

    /// The acceleration as given.
    pub fn acceleration(&self) -> i32 {
        self.acceleration
    }
}

/// The configuration, both formats: `acceleration`, numcodecs' default 1, always written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Lz4Config {
    #[serde(default = "default_acceleration")]
    acceleration: i32,
}

fn default_acceleration() -> i32 {
    1
}

/// The most bytes `len` input bytes can encode to, header included.
pub fn max_encoded_len(len: usize) -> Option<usize> {
    if len > MAX_INPUT {
        return None;
    }
    let len = c_int::try_from(len).ok()?;
    // SAFETY: a pure function of its argument.
    let bound = unsafe { lz4_sys::LZ4_compressBound(len) };
    usize::try_from(bound).ok()?.checked_add(HEADER_LEN)
}

/// The size a chunk declares in its header.
pub fn declared_len(input: &[u8]) -> Result<usize> {
    let header: [u8; HEADER_LEN] = input
        .get(..HEADER_LEN)
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| {
            CodecError::corrupt(format!(
                "lz4: {} bytes cannot hold numcodecs' 4-byte size header",
                input.len()
            ))
        })?;
    let declared = u32::from_le_bytes(header) as usize;
    if declared > MAX_INPUT {
        return Err(CodecError::corrupt(format!(
            "lz4: the header declares {declared} bytes, more than one LZ4 block holds"
        )));
    }
    Ok(declared)
}

/// `input` compressed into `out` (header, then the block); the bytes written.
pub fn encode_into_uninit(
    input: &[u8],
    acceleration: i32,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    let size = c_int::try_from(input.len())
        .ok()
        .filter(|_| input.len() <= MAX_INPUT)
        .ok_or_else(|| {
            CodecError::out_of_range(format!(
                "lz4: a chunk of {} bytes is larger than one LZ4 block ({MAX_INPUT} bytes)",
                input.len()
            ))
        })?;
    let limit = out.len();
    let (header, body) = out
        .split_at_mut_checked(HEADER_LEN)
        .ok_or(CodecError::OutputLimit { limit })?;
    let room = c_int::try_from(body.len()).unwrap_or(c_int::MAX);
    // SAFETY: `input` is valid for reads of `size` bytes and `body` for writes of `room`
    // bytes; LZ4_compress_fast writes at most `room` bytes and returns 0 when they do not
    // suffice (its documented contract).
    let written = unsafe {
        lz4_sys::LZ4_compress_fast(
            input.as_ptr().cast::<c_char>(),
            body.as_mut_ptr().cast::<c_char>(),
            size,
            room,
            acceleration.max(1),
        )
    };
    let written = usize::try_from(written)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(CodecError::OutputLimit { limit })?;
    for (slot, byte) in header.iter_mut().zip(size.to_le_bytes()) {
        slot.write(byte);
    }
    Ok(HEADER_LEN + written)
}

/// `input` compressed, as numcodecs writes it.
pub fn encode(input: &[u8], acceleration: i32) -> Result<Vec<u8>> {
    let room = max_encoded_len(input.len()).ok_or_else(|| {
        CodecError::out_of_range(format!(
            "lz4: a chunk of {} bytes is larger than one LZ4 block ({MAX_INPUT} bytes)",
            input.len()
        ))
    })?;
    let mut out = Vec::with_capacity(room);
    let written = encode_into_uninit(input, acceleration, &mut out.spare_capacity_mut()[..room])?;
    // SAFETY: encode_into_uninit initialised the first `written` bytes of the spare capacity.
    unsafe { out.set_len(written) };
    Ok(out)
}

/// The chunk `input` decoded into `out` (at least its declared size); the bytes written.
pub fn decode_into_uninit(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let declared = declared_len(input)?;
    let limit = out.len();
    let target = out
        .get_mut(..declared)
        .ok_or(CodecError::OutputLimit { limit })?;
    let block = &input[HEADER_LEN..];
    let corrupt = || CodecError::corrupt("lz4: the block is damaged or truncated");
    let block_len = c_int::try_from(block.len()).map_err(|_| corrupt())?;
    let room = c_int::try_from(declared).map_err(|_| corrupt())?;
    // SAFETY: `block` is valid for reads of `block_len` bytes and `target` for writes of
    // `room` bytes; LZ4_decompress_safe reads at most `block_len` and writes at most `room`
    // bytes whatever the data, and returns a negative number on malformed input.
    let written = unsafe {
        lz4_sys::LZ4_decompress_safe(
            block.as_ptr().cast::<c_char>(),
            target.as_mut_ptr().cast::<c_char>(),
            block_len,
            room,
        )
    };
    let written = usize::try_from(written).map_err(|_| corrupt())?;
    if written != declared {
        return Err(CodecError::corrupt(format!(
            "lz4: the block decodes to {written} bytes, its header declares {declared}"
        )));
    }
    Ok(written)
}

/// The chunk `input` decoded, refused before any memory is taken when it declares more than
/// `limit` bytes.
pub fn decode(input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
    let declared = declared_len(input)?;
    if let Some(limit) = limit.filter(|&limit| declared > limit) {
        return Err(CodecError::OutputLimit { limit });
    }
    let mut out = Vec::new();
    out.try_reserve_exact(declared)
        .map_err(|_| CodecError::OutputLimit { limit: declared })?;
    let written = decode_into_uninit(input, &mut out.spare_capacity_mut()[..declared])?;
    // SAFETY: decode_into_uninit initialised the first `written` bytes of the spare capacity.
    unsafe { out.set_len(written) };
    within_limit(out, limit)
}

impl Codec for Lz4 {
    fn name(&self) -> &'static str {
        LZ4_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let config = Lz4Config {
            acceleration: self.acceleration,
        };
        match format {
            ZarrFormat::V3 => to_v3_json(LZ4_NAME, &config),
            ZarrFormat::V2 => to_v2_json(LZ4_ID, &config),
        }
    }
}

impl CodecFromJson for Lz4 {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let config: Lz4Config = match format {
            ZarrFormat::V3 => parse_v3_config(json, LZ4_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, LZ4_ID)?,
        };
        Ok(Self::new(config.acceleration))
    }
}

// SAFETY: LZ4 writes only bytes into the `MaybeUninit` memory it is given, and the header is
// written byte by byte.
unsafe impl UninitBytesCodec for Lz4 {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        encode(input, self.acceleration)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        decode(input, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        encode_into_uninit(input, self.acceleration, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        decode_into_uninit(input, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        max_encoded_len(decoded_len)
    }

    fn max_decoded_len(&self, encoded_len: usize) -> Option<usize> {
        // One LZ4 block expands at most 255 times (a run of one byte), and no block is
        // larger than MAX_INPUT.
        Some(encoded_len.saturating_mul(255).min(MAX_INPUT))
    }

    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        declared_len(input).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zarr_codec_shapes::ErrorKind;

    use super::*;

    #[test]
    fn round_trips_and_bounds_every_decode() -> Result<()> {
        let data: Vec<u8> = (0..100_000u32)
            .map(|i| (i * 7 / 300).to_le_bytes()[0])
            .collect();
        for acceleration in [-3, 0, 1, 9, 70_000] {
            let encoded = encode(&data, acceleration)?;
            assert_eq!(&encoded[..4], &100_000u32.to_le_bytes());
            assert!(encoded.len() < data.len() / 4);
            assert_eq!(decode(&encoded, None)?, data);
            assert_eq!(
                decode(&encoded, Some(99_999)).map_err(|e| e.kind()),
                Err(ErrorKind::OutputSize)
            );
        }
        assert_eq!(encode(&data, 0)?, encode(&data, 1)?);
        assert_eq!(decode(&encode(b"", 1)?, None)?, b"");
        Ok(())
    }

    #[test]
    fn damaged_chunks_are_corrupt() -> Result<()> {
        let data = b"numcodecs lz4 numcodecs lz4 numcodecs lz4".repeat(20);
        let encoded = encode(&data, 1)?;
        let mut wrong_size = encoded.clone();
        wrong_size[0] ^= 1;
        let mut huge = encoded.clone();
        huge[3] = 0xFF;
        let cases = [
            &b""[..],
            b"\x01\x00",
            &encoded[..encoded.len() - 1],
            &wrong_size,
            &huge,
        ];
        for case in cases {
            let kind = decode(case, None).map_err(|e| e.kind());
            assert_eq!(
                kind,
                Err(ErrorKind::Corrupt),
                "{:?}",
                &case[..case.len().min(8)]
            );
        }
        Ok(())
    }

    #[test]
    fn json_forms() -> Result<()> {
        let codec = Lz4::from_json(&json!({"id": "lz4"}), ZarrFormat::V2)?;
        assert_eq!(codec, Lz4::default());
        assert_eq!(
            codec.to_json(ZarrFormat::V2)?,
            json!({"id": "lz4", "acceleration": 1})
        );
        assert_eq!(
            codec.to_json(ZarrFormat::V3)?,
            json!({"name": "numcodecs.lz4", "configuration": {"acceleration": 1}})
        );
        let fast = Lz4::from_json(
            &json!({"name": "numcodecs.lz4", "configuration": {"acceleration": 8}}),
            ZarrFormat::V3,
        )?;
        assert_eq!(fast.acceleration(), 8);
        assert!(Lz4::from_json(&json!({"id": "lz4", "level": 1}), ZarrFormat::V2).is_err());
        assert!(
            Lz4::from_json(&json!({"id": "lz4", "acceleration": 1.5}), ZarrFormat::V2).is_err()
        );
        assert!(engine().starts_with("LZ4 1.10"));
        Ok(())
    }
}
