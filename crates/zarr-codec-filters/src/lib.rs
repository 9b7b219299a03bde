//! numcodecs' filters, for Zarr v2 (`{"id": "shuffle", ...}`) and Zarr v3 (zarr-python's
//! `numcodecs.shuffle`), byte for byte as numcodecs 0.17 writes them.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-filters`.
//!
//! | codec | numcodecs class | what |
//! |---|---|---|
//! | [`Shuffle`] | `Shuffle(elementsize=4)` | the bytes of each element position together (a byte transpose) |
//! | [`Delta`] | `Delta(dtype, astype=None)` | each element less the one before it |
//! | [`BitRound`] | `BitRound(keepbits)` | float mantissas rounded to `keepbits` bits |
//! | [`Quantize`] | `Quantize(digits, dtype, astype=None)` | floats rounded to about `digits` decimal digits |
//! | [`AsType`] | `AsType(encode_dtype, decode_dtype)` | numpy's `astype` each way |
//! | [`PackBits`] | `PackBits()` | booleans as bits, eight to a byte |
//!
//! Shuffle is a bytes-to-bytes codec; the others map arrays to arrays and give numpy's exact
//! values (its promotion, rounding and wrap-around; float16 through `f32`), NaN and
//! infinities included. numcodecs' `categorize` works on strings and lives with the
//! variable-length codecs.
//!
//! ```
//! use zarr_codec_filters::Shuffle;
//! use zarr_codec_shapes::UninitBytesCodec;
//!
//! let codec = Shuffle::new(2);
//! let encoded = codec.encode_bytes(&[1, 2, 3, 4, 5, 6])?;
//! assert_eq!(encoded, [1, 3, 5, 2, 4, 6]);
//! assert_eq!(codec.decode_bytes(&encoded, None)?, [1, 2, 3, 4, 5, 6]);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

mod arith;
mod astype;
mod bitround;
mod delta;
pub mod element_filter;
mod float16;
pub mod packbits;
mod quantize;
mod shuffle;

pub use astype::{ASTYPE_ID, ASTYPE_NAME, AsType, AsTypeConfig};
pub use bitround::{BITROUND_ID, BITROUND_NAME, BitRound, BitRoundConfig};
pub use delta::{DELTA_ID, DELTA_NAME, Delta, DeltaConfig};
pub use element_filter::ElementFilter;
pub use packbits::{PACKBITS_ID, PACKBITS_NAME, PackBits};
pub use quantize::{QUANTIZE_ID, QUANTIZE_NAME, Quantize, QuantizeConfig};
pub use shuffle::{SHUFFLE_ID, SHUFFLE_NAME, Shuffle, shuffle, unshuffle};
