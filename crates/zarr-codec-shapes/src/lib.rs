//! The Rust API of zarr-codecs: what every Zarr codec crate builds on.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-shapes` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-shapes`).
//!
//! - [`BytesToBytesCodec`], [`ArrayToArrayCodec`] and [`ArrayToBytesCodec`]: the three
//!   codec kinds of the [Zarr v3 core specification](https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html#codecs),
//!   object safe, `Send + Sync`, with `*_into` methods that write into a buffer the caller
//!   owns. All share the supertrait [`Codec`] (name and JSON metadata).
//! - [`DataType`], [`FillValue`] and [`ChunkSpec`]: the Zarr data types (core and the
//!   registered extensions), fill values with their JSON forms, and what an array codec
//!   knows about a chunk.
//! - [`float_format`]: the binary float formats (`float16`, `bfloat16`, the `float8`,
//!   `float6` and `float4` families) and correctly rounded conversion from `f64`.
//! - [`json`]: v2 (`{"id": ...}`) and v3 (`{"name": ..., "configuration": ...}`) codec
//!   metadata, read into and written from serde configuration structs.
//! - [`CodecError`]: the one error type, with an [`ErrorKind`] per variant.
//!
//! This crate has no Python in it (its only dependencies are `serde` and `serde_json`); the
//! Python bindings live in `zarr-codec-python`.
//!
//! # Example
//!
//! A codec with a configuration, implemented and used through the JSON helpers:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use zarr_codec_shapes::json::{parse_v2_config, parse_v3_config, to_v2_json, to_v3_json};
//! use zarr_codec_shapes::{
//!     BytesToBytesCodec, ChunkSpec, Codec, CodecError, DataType, ErrorKind, Result, ZarrFormat,
//! };
//!
//! /// Configuration of the (made-up) `identity` codec.
//! #[derive(Debug, Default, Serialize, Deserialize)]
//! #[serde(deny_unknown_fields)]
//! struct IdentityConfig {
//!     #[serde(default)]
//!     note: String,
//! }
//!
//! /// A codec that leaves the bytes as they are.
//! struct Identity(IdentityConfig);
//!
//! impl Codec for Identity {
//!     fn name(&self) -> &'static str {
//!         "identity"
//!     }
//!
//!     fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
//!         match format {
//!             ZarrFormat::V3 => to_v3_json(self.name(), &self.0),
//!             ZarrFormat::V2 => to_v2_json(self.name(), &self.0),
//!         }
//!     }
//! }
//!
//! impl BytesToBytesCodec for Identity {
//!     fn encode(&self, input: &[u8], _spec: &ChunkSpec) -> Result<Vec<u8>> {
//!         Ok(input.to_vec())
//!     }
//!
//!     fn decode(&self, input: &[u8], _spec: &ChunkSpec) -> Result<Vec<u8>> {
//!         Ok(input.to_vec())
//!     }
//!
//!     fn max_encoded_size(&self, decoded_len: usize) -> Option<usize> {
//!         Some(decoded_len)
//!     }
//! }
//!
//! # fn main() -> Result<()> {
//! let json = serde_json::json!({"name": "identity", "configuration": {"note": "hi"}});
//! let codec = Identity(parse_v3_config(&json, "identity")?);
//! assert_eq!(codec.to_json(ZarrFormat::V3)?, json);
//! assert_eq!(
//!     codec.to_json(ZarrFormat::V2)?,
//!     serde_json::json!({"id": "identity", "note": "hi"})
//! );
//!
//! // Every codec kind takes the chunk's spec (bytes codecs may ignore it).
//! let spec = ChunkSpec::with_default_fill_value(vec![5], DataType::UInt8)?;
//! let mut out = [0u8; 8];
//! let written = codec.decode_into(&codec.encode(b"chunk", &spec)?, &mut out, &spec)?;
//! assert_eq!(&out[..written], b"chunk");
//!
//! // Unknown keys and other codecs' metadata are configuration errors.
//! let bad = serde_json::json!({"id": "identity", "note": "x", "level": 1});
//! let error = parse_v2_config::<IdentityConfig>(&bad, "identity").unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::Configuration);
//! assert!(error.to_string().contains("level"));
//! assert!(matches!(
//!     parse_v3_config::<IdentityConfig>(&serde_json::json!("gzip"), "identity"),
//!     Err(CodecError::Configuration(_))
//! ));
//! # Ok(())
//! # }
//! ```

pub mod capability;
pub mod chunk_spec;
pub mod codec;
pub mod data_type;
pub mod element;
pub mod error;
pub mod fill_value;
pub mod float_format;
pub mod fuzzing;
pub mod json;
pub mod sink;

pub use capability::{PartialDecodeCapability, RecommendedConcurrency};
pub use chunk_spec::ChunkSpec;
pub use codec::{
    ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, Codec, CodecFromJson, UninitBytesCodec,
};
pub use data_type::{DataType, DataTypeKind, Endian};
pub use error::{CodecError, ErrorKind, Result};
pub use fill_value::FillValue;
pub use float_format::{
    FloatEncoding, FloatFormat, bits_to_f64, f64_to_bits_rounded, i128_to_bits_rounded,
};
pub use json::{V2CodecJson, V3CodecJson, ZarrFormat};
