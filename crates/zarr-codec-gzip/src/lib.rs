//! The Zarr `gzip` codec: a bytes-to-bytes codec writing RFC 1952 gzip streams; and
//! numcodecs' `zlib` ([`Zlib`]: RFC 1950 streams, a common Zarr v2 compressor) on the same
//! deflate core.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-gzip` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-gzip`).
//!
//! - Spec (v3): <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/gzip/>; v2 metadata is
//!   numcodecs' `{"id": "gzip", "level": N}` (level defaults to 1 there, as in numcodecs).
//! - Engine: libdeflate, built from source, for whole-buffer compression and decompression.
//! - Encoding is reproducible: the header carries no name and mtime 0, so the same input and
//!   level always give the same bytes (numcodecs writes the current time instead).
//! - Decoding accepts what Python's `gzip` module accepts (several members, optional header
//!   fields, zero padding), checks every member's CRC-32 and size, and never writes past the
//!   caller's buffer or size limit. Every failure is a [`zarr_codec_shapes::CodecError`].
//!
//! ```
//! use zarr_codec_gzip::{Gzip, Level};
//! use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType};
//!
//! let codec = Gzip::new(Level::new(5)?);
//! let data = b"zarr zarr zarr zarr zarr zarr".repeat(100);
//! // The chunk the bytes come from (the traits' one call shape; the free functions need none).
//! let spec = ChunkSpec::with_default_fill_value(vec![data.len()], DataType::UInt8)?;
//! let encoded = codec.encode(&data, &spec)?;
//! assert!(encoded.len() < data.len());
//! assert_eq!(codec.decode(&encoded, &spec)?, data);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

mod decode;
mod engine;
mod header;
mod zlib;

use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::codec::as_uninit_mut;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

use crate::engine::Container;

pub use decode::{decode, decode_into, decode_into_uninit, decoded_size_hint};
pub use zlib::{
    ZLIB_ID, ZLIB_NAME, Zlib, zlib_decode, zlib_decode_into, zlib_decode_into_uninit, zlib_encode,
    zlib_encode_into, zlib_encode_into_uninit, zlib_max_encoded_size,
};

/// The codec's name in Zarr v3 metadata and its id in Zarr v2 metadata.
pub const NAME: &str = "gzip";

/// A compression level, 0 (stored, no compression) to 9 (smallest output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct Level(u8);

impl Level {
    /// The level, or a configuration error outside 0..=9.
    pub fn new(level: u32) -> Result<Self> {
        u8::try_from(level)
            .ok()
            .filter(|&l| l <= 9)
            .map(Self)
            .ok_or_else(|| {
                CodecError::configuration(format!("gzip: level must be 0 to 9, got {level}"))
            })
    }

    /// The level as a number.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u32> for Level {
    type Error = CodecError;
    fn try_from(level: u32) -> Result<Self> {
        Self::new(level)
    }
}

impl From<Level> for u32 {
    fn from(level: Level) -> u32 {
        level.0.into()
    }
}

/// The v3 configuration: `{"level": N}`, level required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GzipConfig {
    /// The compression level.
    pub level: Level,
}

/// The v2 configuration (numcodecs `GZip`): level optional, defaulting to 1; -1 is zlib's
/// default level, 6, which numcodecs hands on to zlib.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GzipConfigV2 {
    #[serde(default = "numcodecs_default_level")]
    level: i64,
}

fn numcodecs_default_level() -> i64 {
    1
}

/// zlib's level -1.
const ZLIB_DEFAULT_LEVEL: u32 = 6;

impl GzipConfigV2 {
    fn level(self) -> Result<Level> {
        numcodecs_level(self.level, NAME)
    }
}

/// A level as numcodecs' `GZip` and `Zlib` take it: 0 to 9, or -1 for zlib's default (6).
pub(crate) fn numcodecs_level(level: i64, codec: &str) -> Result<Level> {
    match level {
        -1 => Level::new(ZLIB_DEFAULT_LEVEL),
        level => u32::try_from(level)
            .map_err(|_| {
                CodecError::configuration(format!("{codec}: level must be 0 to 9, got {level}"))
            })
            .and_then(Level::new),
    }
}

/// The gzip codec at one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gzip {
    level: Level,
}

impl Gzip {
    /// A codec compressing at `level`.
    pub fn new(level: Level) -> Self {
        Self { level }
    }

    /// The compression level.
    pub fn level(&self) -> Level {
        self.level
    }
}

/// Compress `input` into one gzip member at `level`.
pub fn encode(input: &[u8], level: Level) -> Result<Vec<u8>> {
    Container::Gzip.encode(input, level)
}

/// Compress `input` into `out`; [`CodecError::OutputLimit`] if it does not fit (a buffer of
/// [`max_encoded_size`] bytes always does).
pub fn encode_into(input: &[u8], level: Level, out: &mut [u8]) -> Result<usize> {
    // SAFETY: viewing initialised bytes as `MaybeUninit` is sound as long as only initialised
    // values are written through the view, and libdeflate only writes bytes.
    let view = unsafe { as_uninit_mut(out) };
    encode_into_uninit(input, level, view)
}

/// [`encode_into`] for memory not yet initialised (a new `bytes` object, say): only the
/// returned number of bytes at the start of `out` are initialised afterwards.
pub fn encode_into_uninit(
    input: &[u8],
    level: Level,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    Container::Gzip.encode_into_uninit(input, level, out)
}

/// The largest gzip stream `len` input bytes can become at `level`.
pub fn max_encoded_size(len: usize, level: Level) -> Result<usize> {
    Container::Gzip.bound(level, len)
}

impl Codec for Gzip {
    fn name(&self) -> &'static str {
        NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let config = GzipConfig { level: self.level };
        match format {
            ZarrFormat::V3 => to_v3_json(NAME, &config),
            ZarrFormat::V2 => to_v2_json(NAME, &config),
        }
    }
}

impl CodecFromJson for Gzip {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let level = match format {
            ZarrFormat::V3 => parse_v3_config::<GzipConfig>(json, NAME)?.level,
            ZarrFormat::V2 => parse_v2_config::<GzipConfigV2>(json, NAME)?.level()?,
        };
        Ok(Self::new(level))
    }
}

// SAFETY: libdeflate writes only bytes into the `MaybeUninit` memory it is given.
unsafe impl UninitBytesCodec for Gzip {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        encode(input, self.level)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        decode(input, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        encode_into_uninit(input, self.level, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        decode_into_uninit(input, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        max_encoded_size(decoded_len, self.level).ok()
    }

    /// ISIZE of the last member: right for the single-member streams every writer of Zarr
    /// chunks produces (several members or trailing padding prove it wrong).
    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        Ok(decoded_size_hint(input))
    }
}
