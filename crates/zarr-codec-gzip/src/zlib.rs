//! numcodecs' `zlib` codec: zlib streams (RFC 1950) over the same libdeflate core as gzip.
//!
//! Zarr v2 metadata is numcodecs' `{"id": "zlib", "level": N}` (level 1 by default, -1 for
//! zlib's default, 6), a common compressor of v2 arrays; zarr-python names it
//! `numcodecs.zlib` in Zarr v3 metadata. Decoding accepts what numcodecs' `Zlib` (Python's
//! `zlib.decompress`) accepts: one stream, no preset dictionary, its Adler-32 checked, bytes
//! after the stream ignored. Encoding is libdeflate's: other bytes than zlib's, decoded the
//! same by every reader.

use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::codec::as_uninit_mut;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecFromJson, Result, UninitBytesCodec};

use crate::engine::Container;
use crate::{Level, numcodecs_level};

/// The codec's id in Zarr v2 metadata.
pub const ZLIB_ID: &str = "zlib";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const ZLIB_NAME: &str = "numcodecs.zlib";

/// The configuration (numcodecs `Zlib`): level optional, defaulting to 1; -1 is zlib's
/// default level, 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ZlibConfigIn {
    #[serde(default = "numcodecs_default_level")]
    level: i64,
}

fn numcodecs_default_level() -> i64 {
    1
}

/// The configuration as written: the level, always.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct ZlibConfigOut {
    level: Level,
}

impl ZlibConfigIn {
    fn level(self) -> Result<Level> {
        numcodecs_level(self.level, ZLIB_ID)
    }
}

/// The zlib codec at one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zlib {
    level: Level,
}

impl Zlib {
    /// A codec compressing at `level`.
    pub fn new(level: Level) -> Self {
        Self { level }
    }

    /// The compression level.
    pub fn level(&self) -> Level {
        self.level
    }
}

/// Compress `input` into one zlib stream at `level`.
pub fn zlib_encode(input: &[u8], level: Level) -> Result<Vec<u8>> {
    Container::Zlib.encode(input, level)
}

/// [`zlib_encode`] into `out`, which need not be initialised; [`CodecError::OutputLimit`](zarr_codec_shapes::CodecError::OutputLimit) if
/// it does not fit (a buffer of [`zlib_max_encoded_size`] bytes always does).
pub fn zlib_encode_into_uninit(
    input: &[u8],
    level: Level,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    Container::Zlib.encode_into_uninit(input, level, out)
}

/// [`zlib_encode`] into `out`.
pub fn zlib_encode_into(input: &[u8], level: Level, out: &mut [u8]) -> Result<usize> {
    // SAFETY: viewing initialised bytes as `MaybeUninit` is sound as long as only initialised
    // values are written through the view, and libdeflate only writes bytes.
    let view = unsafe { as_uninit_mut(out) };
    zlib_encode_into_uninit(input, level, view)
}

/// The largest zlib stream `len` input bytes can become at `level`.
pub fn zlib_max_encoded_size(len: usize, level: Level) -> Result<usize> {
    Container::Zlib.bound(level, len)
}

/// Decode a zlib stream, allocating at most `limit` bytes of output (`None`: no limit beyond
/// what deflate can express).
pub fn zlib_decode(input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
    Container::Zlib.decode(input, limit)
}

/// Decode a zlib stream into `out`, which need not be initialised; returns the decoded
/// length. Output that would not fit is [`CodecError::OutputLimit`](zarr_codec_shapes::CodecError::OutputLimit).
pub fn zlib_decode_into_uninit(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    Container::Zlib.decode_into_uninit(input, out)
}

/// [`zlib_decode_into_uninit`] into initialised memory.
pub fn zlib_decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    // SAFETY: viewing initialised bytes as `MaybeUninit` is sound as long as only initialised
    // values are written through the view, and libdeflate only writes bytes.
    let out = unsafe { as_uninit_mut(out) };
    zlib_decode_into_uninit(input, out)
}

impl Codec for Zlib {
    fn name(&self) -> &'static str {
        ZLIB_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let config = ZlibConfigOut { level: self.level };
        match format {
            ZarrFormat::V3 => to_v3_json(ZLIB_NAME, &config),
            ZarrFormat::V2 => to_v2_json(ZLIB_ID, &config),
        }
    }
}

impl CodecFromJson for Zlib {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let config = match format {
            ZarrFormat::V3 => parse_v3_config::<ZlibConfigIn>(json, ZLIB_NAME)?,
            ZarrFormat::V2 => parse_v2_config::<ZlibConfigIn>(json, ZLIB_ID)?,
        };
        Ok(Self::new(config.level()?))
    }
}

// SAFETY: libdeflate writes only bytes into the `MaybeUninit` memory it is given.
unsafe impl UninitBytesCodec for Zlib {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        zlib_encode(input, self.level)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        zlib_decode(input, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        zlib_encode_into_uninit(input, self.level, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        zlib_decode_into_uninit(input, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        zlib_max_encoded_size(decoded_len, self.level).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Python's `zlib.compress(b"")` and `zlib.compress(b"abc", 1)` write.
    const EMPTY: &[u8] = b"x\x9c\x03\x00\x00\x00\x00\x01";
    const ABC_LEVEL_1: &[u8] = b"x\x01KLJ\x06\x00\x02M\x01'";

    #[test]
    fn decodes_what_zlib_writes() -> Result<()> {
        assert_eq!(zlib_decode(EMPTY, None)?, b"");
        assert_eq!(zlib_decode(ABC_LEVEL_1, None)?, b"abc");
        let mut out = [0u8; 3];
        assert_eq!(zlib_decode_into(ABC_LEVEL_1, &mut out)?, 3);
        assert_eq!(&out, b"abc");
        // Bytes after the stream are ignored, as zlib.decompress ignores them.
        let mut padded = ABC_LEVEL_1.to_vec();
        padded.extend_from_slice(b"junk");
        assert_eq!(zlib_decode(&padded, None)?, b"abc");
        Ok(())
    }

    #[test]
    fn round_trips_at_every_level() -> Result<()> {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for level in 0..=9 {
            let level = Level::new(level)?;
            let encoded = zlib_encode(&data, level)?;
            assert_eq!(zlib_decode(&encoded, None)?, data);
            assert!(encoded.len() <= zlib_max_encoded_size(data.len(), level)?);
        }
        Ok(())
    }

    #[test]
    fn broken_streams_are_corrupt_errors() {
        let mut bad_adler = ABC_LEVEL_1.to_vec();
        let last = bad_adler.len() - 1;
        bad_adler[last] ^= 1;
        let cases: [&[u8]; 6] = [
            b"",
            b"x",
            b"\x78\x9d\x03\x00",                   // header check fails
            b"\x7a\x9c\x03\x00",                   // not deflate
            &ABC_LEVEL_1[..ABC_LEVEL_1.len() - 2], // Adler-32 cut short
            &bad_adler,
        ];
        for case in cases {
            let error = zlib_decode(case, None).expect_err("refused");
            assert_eq!(
                error.kind(),
                zarr_codec_shapes::ErrorKind::Corrupt,
                "{case:?}"
            );
        }
        let mut small = [0u8; 2];
        let error = zlib_decode_into(ABC_LEVEL_1, &mut small).expect_err("too small");
        assert_eq!(error.kind(), zarr_codec_shapes::ErrorKind::OutputSize);
    }

    #[test]
    fn json_in_both_formats() -> Result<()> {
        let v2 = serde_json::json!({"id": "zlib", "level": -1});
        let codec = Zlib::from_json(&v2, ZarrFormat::V2)?;
        assert_eq!(codec.level().get(), 6);
        assert_eq!(
            codec.to_json(ZarrFormat::V2)?,
            serde_json::json!({"id": "zlib", "level": 6})
        );
        let default = Zlib::from_json(&serde_json::json!({"id": "zlib"}), ZarrFormat::V2)?;
        assert_eq!(default.level().get(), 1);
        let v3 = serde_json::json!({"name": "numcodecs.zlib", "configuration": {"level": 9}});
        assert_eq!(
            Zlib::from_json(&v3, ZarrFormat::V3)?.to_json(ZarrFormat::V3)?,
            v3
        );
        let bad = serde_json::json!({"id": "zlib", "level": 10});
        assert!(Zlib::from_json(&bad, ZarrFormat::V2).is_err());
        Ok(())
    }
}
