//! The Zarr `zstd` codec: a bytes-to-bytes codec writing Zstandard (RFC 8878) frames.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-zstd` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-zstd`).
//!
//! - Spec (v3): <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/zstd/>:
//!   `{"level": -131072..=22, "checksum": bool}`, level 0 meaning libzstd's default. v2
//!   metadata is numcodecs' `{"id": "zstd", "level": N, "checksum": bool}`, both optional
//!   (level 0 and no checksum by default, as in numcodecs).
//! - Engine: libzstd 1.5.6, built from source and linked statically (`zstd-safe`/`zstd-sys`),
//!   the release numcodecs bundles, so frames are byte for byte numcodecs' own.
//! - Decoding accepts what numcodecs and the `zstandard` package write: one frame or several,
//!   frames with or without a content size (streaming writers), skippable frames, and
//!   checksums, which are verified. Output is bounded: by the caller's buffer in
//!   [`decode_into`], by an optional limit in [`decode`], and always by what the compressed
//!   bytes can hold, so a frame that lies about its size fails before anything large is
//!   allocated. Every failure is a [`zarr_codec_shapes::CodecError`].
//!
//! ```
//! use zarr_codec_zstd::{Level, Zstd};
//! use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType};
//!
//! let codec = Zstd::new(Level::new(3)?, true);
//! let data = b"zarr zarr zarr zarr zarr zarr".repeat(100);
//! let spec = ChunkSpec::with_default_fill_value(vec![data.len()], DataType::UInt8)?;
//! let encoded = codec.encode(&data, &spec)?;
//! assert!(encoded.len() < data.len());
//! assert_eq!(codec.decode(&encoded, &spec)?, data);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

mod config;
mod context;
mod decode;
mod encode;

use std::mem::MaybeUninit;

use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

pub use config::{Level, ZstdConfig, ZstdConfigV2};
pub use decode::{decode, decode_into, decode_into_uninit, decoded_size, max_decoded_size};
pub use encode::{encode, encode_into, encode_into_uninit, max_encoded_size};

/// The codec's name in Zarr v3 metadata and its id in Zarr v2 metadata.
pub const NAME: &str = "zstd";

/// The libzstd version linked in, as `"1.5.6"`.
pub fn engine_version() -> &'static str {
    zstd_safe::version_string()
}

/// The zstd codec at one level, with or without a checksum in each frame it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zstd {
    level: Level,
    checksum: bool,
}

impl Zstd {
    /// A codec compressing at `level`, storing a content checksum in each frame if
    /// `checksum` (decoding verifies a stored checksum either way).
    pub fn new(level: Level, checksum: bool) -> Self {
        Self { level, checksum }
    }

    /// The compression level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Whether encoding stores a checksum.
    pub fn checksum(&self) -> bool {
        self.checksum
    }
}

impl Codec for Zstd {
    fn name(&self) -> &'static str {
        NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(
                NAME,
                &ZstdConfig {
                    level: self.level,
                    checksum: self.checksum,
                },
            ),
            ZarrFormat::V2 => to_v2_json(
                NAME,
                &ZstdConfigV2 {
                    level: self.level.get().into(),
                    checksum: self.checksum,
                },
            ),
        }
    }
}

impl CodecFromJson for Zstd {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        match format {
            ZarrFormat::V3 => {
                let config = parse_v3_config::<ZstdConfig>(json, NAME)?;
                Ok(Self::new(config.level, config.checksum))
            }
            ZarrFormat::V2 => {
                let config = parse_v2_config::<ZstdConfigV2>(json, NAME)?;
                Ok(Self::new(Level::clamped(config.level), config.checksum))
            }
        }
    }
}

// SAFETY: libzstd writes only bytes into the `MaybeUninit` memory it is given.
unsafe impl UninitBytesCodec for Zstd {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        encode(input, self.level, self.checksum)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        decode(input, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        encode_into_uninit(input, self.level, self.checksum, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        decode_into_uninit(input, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(max_encoded_size(decoded_len))
    }

    /// The content size every frame states (numcodecs' and zarr-python's frames do).
    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        decoded_size(input)
    }
}

/// A configuration error for a value outside what the codec accepts.
fn invalid(message: impl Into<String>) -> CodecError {
    CodecError::configuration(format!("zstd: {}", message.into()))
}
