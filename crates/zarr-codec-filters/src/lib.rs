//! numcodecs' filters, for Zarr v2 (`{"id": "shuffle", ...}`) and Zarr v3 (zarr-python's
//! `numcodecs.shuffle`), byte for byte as numcodecs 0.17 writes them.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-filters`.
//!
//! | codec | numcodecs class | what |
//! |---|---|---|
//! | [`Shuffle`] | `Shuffle(elementsize=4)` | the bytes of each element position together (a byte transpose) |
//!
//! The rest of numcodecs' filters (delta, bitround, quantize, astype, packbits, categorize)
//! are to join this crate.
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

mod shuffle;

pub use shuffle::{SHUFFLE_ID, SHUFFLE_NAME, Shuffle, shuffle, unshuffle};
