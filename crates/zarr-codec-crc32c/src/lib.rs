//! The Zarr `crc32c` codec: a bytes-to-bytes codec that appends a CRC-32C checksum.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-crc32c` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-crc32c`).
//!
//! - Spec (v3): <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/crc32c/>:
//!   no configuration; the output is the input followed by the CRC-32C (RFC 3720) of the
//!   input as a little-endian `u32`. It guards every shard index in zarr-python's default
//!   sharded layout.
//! - Zarr v2: numcodecs' `CRC32C`, `{"id": "crc32c"}` with an optional `"location"`, `"end"`
//!   (its default, the v3 layout) or `"start"` (the checksum before the data).
//! - Engine: the `crc-fast` crate, which folds the data with carry-less multiplication
//!   (PCLMULQDQ, AVX-512 VPCLMULQDQ, Arm PMULL) together with the CPU's CRC-32C instruction,
//!   as run-time detection finds them, and a table-driven fallback elsewhere
//!   ([`engine`] names the one in use).
//! - Decoding checks the checksum; a mismatch is [`CodecError::Corrupt`] naming both values.
//!
//! ```
//! use zarr_codec_crc32c::{Crc32c, checksum};
//! use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType};
//!
//! let codec = Crc32c::default();
//! let spec = ChunkSpec::with_default_fill_value(vec![9], DataType::UInt8)?;
//! let encoded = codec.encode(b"123456789", &spec)?;
//! assert_eq!(&encoded[9..], &0xE306_9283_u32.to_le_bytes()); // RFC 3720's check value
//! assert_eq!(checksum(b"123456789"), 0xE306_9283);
//! assert_eq!(codec.decode(&encoded, &spec)?, b"123456789");
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

use std::mem::MaybeUninit;

use crc_fast::{CrcAlgorithm, Digest};
use serde::{Deserialize, Serialize};
use zarr_codec_shapes::codec::{as_uninit_mut, within_limit};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

/// The codec's name in Zarr v3 metadata and its id in Zarr v2 metadata.
pub const NAME: &str = "crc32c";

/// The size of the stored checksum in bytes.
pub const CHECKSUM_LEN: usize = 4;

/// The CRC-32C (Castagnoli, RFC 3720) of `data`.
pub fn checksum(data: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(data)
}

/// The CRC-32C of the bytes whose CRC-32C is `crc` followed by `data`.
pub fn checksum_append(crc: u32, data: &[u8]) -> u32 {
    // The running state is the finished value with the final inversion undone.
    let mut digest = Digest::new_with_init_state(CrcAlgorithm::Crc32Iscsi, u64::from(!crc));
    digest.update(data);
    // The result is a CRC-32: its high half is always zero.
    let [low @ .., _, _, _, _] = digest.finalize().to_le_bytes();
    u32::from_le_bytes(low)
}

/// The implementation run-time detection chose on this CPU, as `crc-fast` names it.
pub fn engine() -> String {
    crc_fast::get_calculator_target(CrcAlgorithm::Crc32Iscsi)
}

/// Where the checksum goes relative to the data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// After the data: the Zarr v3 codec, and numcodecs' default.
    #[default]
    End,
    /// Before the data (numcodecs' `location="start"`; Zarr v2 only).
    Start,
}

/// The crc32c codec.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Crc32c {
    location: Location,
}

impl Crc32c {
    /// A codec storing the checksum at `location`.
    pub fn new(location: Location) -> Self {
        Self { location }
    }

    /// Where the checksum is stored.
    pub fn location(&self) -> Location {
        self.location
    }
}

/// The v3 configuration: none (`{"name": "crc32c"}`, or an empty `configuration`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Crc32cConfig {}

/// The v2 configuration: numcodecs writes `"location"` only when it was passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Crc32cConfigV2 {
    #[serde(default, skip_serializing_if = "is_end")]
    location: Location,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_end(location: &Location) -> bool {
    *location == Location::End
}

/// Split `input` into its data and its stored checksum.
fn split(input: &[u8], location: Location) -> Result<(&[u8], u32)> {
    if input.len() < CHECKSUM_LEN {
        return Err(CodecError::corrupt(format!(
            "crc32c: {} bytes cannot hold a 4-byte checksum",
            input.len()
        )));
    }
    let (data, stored) = match location {
        Location::End => {
            let (data, stored) = input.split_at(input.len() - CHECKSUM_LEN);
            (data, stored)
        }
        Location::Start => {
            let (stored, data) = input.split_at(CHECKSUM_LEN);
            (data, stored)
        }
    };
    let mut word = [0u8; CHECKSUM_LEN];
    word.copy_from_slice(stored);
    Ok((data, u32::from_le_bytes(word)))
}

/// The data of `input` after checking its checksum.
pub fn verify(input: &[u8], location: Location) -> Result<&[u8]> {
    let (data, stored) = split(input, location)?;
    let computed = checksum(data);
    if computed != stored {
        return Err(CodecError::corrupt(format!(
            "crc32c: checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): \
             the data is damaged"
        )));
    }
    Ok(data)
}

/// `input` with its checksum at `location`.
pub fn encode(input: &[u8], location: Location) -> Vec<u8> {
    let crc = checksum(input).to_le_bytes();
    let mut out = Vec::with_capacity(input.len() + CHECKSUM_LEN);
    match location {
        Location::End => {
            out.extend_from_slice(input);
            out.extend_from_slice(&crc);
        }
        Location::Start => {
            out.extend_from_slice(&crc);
            out.extend_from_slice(input);
        }
    }
    out
}

/// [`encode`] into `out` (at least `input.len() + 4` bytes); returns the bytes written.
pub fn encode_into(input: &[u8], location: Location, out: &mut [u8]) -> Result<usize> {
    // SAFETY: viewing initialised bytes as `MaybeUninit` is sound when only initialised
    // values are written through the view, as `encode_into_uninit` does.
    let view = unsafe { as_uninit_mut(out) };
    encode_into_uninit(input, location, view)
}

/// [`encode_into`] for memory not yet initialised: the first returned bytes are initialised.
pub fn encode_into_uninit(
    input: &[u8],
    location: Location,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    let total = input.len() + CHECKSUM_LEN;
    let limit = out.len();
    let out = out
        .get_mut(..total)
        .ok_or(CodecError::OutputLimit { limit })?;
    let crc = checksum(input).to_le_bytes();
    let (data, stored) = match location {
        Location::End => out.split_at_mut(input.len()),
        Location::Start => {
            let (stored, data) = out.split_at_mut(CHECKSUM_LEN);
            (data, stored)
        }
    };
    write_bytes(data, input);
    write_bytes(stored, &crc);
    Ok(total)
}

/// The data of `input`, checked, as a new `Vec`.
pub fn decode(input: &[u8], location: Location) -> Result<Vec<u8>> {
    verify(input, location).map(<[u8]>::to_vec)
}

/// The data of `input`, checked, copied into `out`; returns its length.
pub fn decode_into(input: &[u8], location: Location, out: &mut [u8]) -> Result<usize> {
    let data = verify(input, location)?;
    let limit = out.len();
    out.get_mut(..data.len())
        .ok_or(CodecError::OutputLimit { limit })?
        .copy_from_slice(data);
    Ok(data.len())
}

/// [`decode_into`] for memory not yet initialised.
pub fn decode_into_uninit(
    input: &[u8],
    location: Location,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    let data = verify(input, location)?;
    let limit = out.len();
    let target = out
        .get_mut(..data.len())
        .ok_or(CodecError::OutputLimit { limit })?;
    write_bytes(target, data);
    Ok(data.len())
}

/// Copies `source` to the start of `target` (callers pass equal lengths).
fn write_bytes(target: &mut [MaybeUninit<u8>], source: &[u8]) {
    let len = source.len().min(target.len());
    // SAFETY: both ranges hold `len` bytes; they cannot overlap, since `target` is borrowed
    // mutably while `source` is borrowed shared; any byte is a valid `MaybeUninit<u8>`.
    unsafe {
        std::ptr::copy_nonoverlapping(source.as_ptr(), target.as_mut_ptr().cast::<u8>(), len);
    }
}

impl Codec for Crc32c {
    fn name(&self) -> &'static str {
        NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        match (format, self.location) {
            (ZarrFormat::V3, Location::End) => to_v3_json(NAME, &()),
            (ZarrFormat::V3, Location::Start) => Err(CodecError::unsupported(
                "crc32c: Zarr v3 stores the checksum at the end; location \"start\" is v2 only",
            )),
            (ZarrFormat::V2, location) => to_v2_json(NAME, &Crc32cConfigV2 { location }),
        }
    }
}

impl CodecFromJson for Crc32c {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        match format {
            ZarrFormat::V3 => {
                parse_v3_config::<Crc32cConfig>(json, NAME)?;
                Ok(Self::default())
            }
            ZarrFormat::V2 => {
                let config = parse_v2_config::<Crc32cConfigV2>(json, NAME)?;
                Ok(Self::new(config.location))
            }
        }
    }
}

// SAFETY: the copies write only bytes into the `MaybeUninit` memory they are given.
unsafe impl UninitBytesCodec for Crc32c {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        Ok(encode(input, self.location))
    }

    /// The data is checked in full before anything is copied: a limit saves nothing.
    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        within_limit(decode(input, self.location)?, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        encode_into_uninit(input, self.location, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        decode_into_uninit(input, self.location, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(CHECKSUM_LEN)
    }

    fn max_decoded_len(&self, encoded_len: usize) -> Option<usize> {
        Some(encoded_len.saturating_sub(CHECKSUM_LEN))
    }

    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        split(input, self.location).map(|(data, _)| Some(data.len()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn check_values() {
        // RFC 3720 B.4 test vectors.
        assert_eq!(checksum(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(checksum(&[0xFFu8; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(checksum(&ascending), 0x46DD_794E);
        assert_eq!(checksum(b""), 0);
        assert_eq!(checksum_append(checksum(b"1234"), b"56789"), 0xE306_9283);
        assert_eq!(checksum_append(0, b"123456789"), 0xE306_9283);
        assert_eq!(checksum_append(checksum(b"abc"), b""), checksum(b"abc"));
        // Every length around the vector widths and the folding thresholds.
        let data: Vec<u8> = (0..5000u32)
            .map(|i| (i * 131 % 251).to_le_bytes()[0])
            .collect();
        for len in (0..600).chain([1023, 1024, 1025, 4095, 4096, 4097, 5000]) {
            assert_eq!(
                checksum(&data[..len]),
                bitwise(&data[..len]),
                "length {len}"
            );
        }
    }

    /// The CRC-32C bit by bit, straight from its definition (reflected polynomial 0x82F63B78).
    fn bitwise(data: &[u8]) -> u32 {
        let mut crc = u32::MAX;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82F6_3B78
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn both_locations_roundtrip_and_detect_damage() -> Result<()> {
        for location in [Location::End, Location::Start] {
            let encoded = encode(b"zarr chunk", location);
            assert_eq!(decode(&encoded, location)?, b"zarr chunk");
            let mut out = [0u8; 14];
            assert_eq!(encode_into(b"zarr chunk", location, &mut out)?, 14);
            assert_eq!(out.as_slice(), encoded.as_slice());
            for i in 0..encoded.len() {
                let mut damaged = encoded.clone();
                damaged[i] ^= 0x10;
                assert_eq!(
                    decode(&damaged, location).map_err(|e| e.kind()),
                    Err(zarr_codec_shapes::ErrorKind::Corrupt)
                );
            }
        }
        assert!(decode(b"abc", Location::End).is_err());
        assert_eq!(decode(&encode(b"", Location::End), Location::End)?, b"");
        let mut small = [0u8; 13];
        assert!(encode_into(b"zarr chunk", Location::End, &mut small).is_err());
        assert!(
            decode_into(
                &encode(b"zarr chunk", Location::End),
                Location::End,
                &mut small[..9]
            )
            .is_err()
        );
        Ok(())
    }

    #[test]
    fn json_forms() -> Result<()> {
        let codec = Crc32c::from_json(&json!({"name": "crc32c"}), ZarrFormat::V3)?;
        assert_eq!(codec.to_json(ZarrFormat::V3)?, json!({"name": "crc32c"}));
        assert_eq!(
            Crc32c::from_json(
                &json!({"name": "crc32c", "configuration": {}}),
                ZarrFormat::V3
            )?,
            codec
        );
        assert!(
            Crc32c::from_json(
                &json!({"name": "crc32c", "configuration": {"x": 1}}),
                ZarrFormat::V3
            )
            .is_err()
        );
        assert_eq!(codec.to_json(ZarrFormat::V2)?, json!({"id": "crc32c"}));
        let start = Crc32c::from_json(
            &json!({"id": "crc32c", "location": "start"}),
            ZarrFormat::V2,
        )?;
        assert_eq!(start.location(), Location::Start);
        assert_eq!(
            start.to_json(ZarrFormat::V2)?,
            json!({"id": "crc32c", "location": "start"})
        );
        assert!(start.to_json(ZarrFormat::V3).is_err());
        assert!(
            Crc32c::from_json(
                &json!({"id": "crc32c", "location": "middle"}),
                ZarrFormat::V2
            )
            .is_err()
        );
        Ok(())
    }
}
