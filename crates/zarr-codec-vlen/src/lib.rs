//! numcodecs' variable-length codecs and base64, for Zarr v2 (`{"id": "vlen-utf8"}`) and
//! Zarr v3 (`vlen-utf8`, `vlen-bytes`, zarr-python's `numcodecs.vlen-array` and
//! `numcodecs.base64`), byte for byte as numcodecs 0.17 writes them. No Python.
//!
//! | codec | numcodecs class | what |
//! |---|---|---|
//! | [`VlenUtf8`] | `VLenUTF8()` | strings as UTF-8, each after its length |
//! | [`VlenBytes`] | `VLenBytes()` | byte strings, each after its length |
//! | [`VlenArray`] | `VLenArray(dtype)` | one-dimensional arrays of `dtype`, each after its length in bytes |
//! | [`Base64`] | `Base64()` | bytes as standard base64 text, as Python's `base64` module |
//! | [`json2`] | `JSON()` | an array's items as JSON text, as Python's `json` writes it |
//! | [`msgpack2`] | `MsgPack()` | an array's items in `MessagePack`, as the `msgpack` package packs them |
//! | [`Categorize`] | `Categorize(labels, dtype, astype)` | strings as the codes of their labels |
//!
//! The three vlen codecs share one layout ([`framing`]): a little-endian `u32` item count, then
//! each item's `u32` byte length and bytes. Decoding never trusts a count or length beyond what
//! the input holds, so corrupt input is an error, never a large allocation.
//!
//! ```
//! use zarr_codec_vlen::VlenUtf8;
//!
//! let encoded = VlenUtf8.encode(["zarr", "", "chunk ✓"])?;
//! assert_eq!(&encoded[..8], &[3, 0, 0, 0, 4, 0, 0, 0]);
//! assert_eq!(VlenUtf8.decode(&encoded)?, ["zarr", "", "chunk ✓"]);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

mod base64;
mod categorize;
pub mod framing;
pub mod json2;
pub mod msgpack2;
mod vlen;

pub use base64::{BASE64_ID, BASE64_NAME, Base64};
pub use categorize::{CATEGORIZE_ID, Categorize};
pub use vlen::{
    VLEN_ARRAY_ID, VLEN_ARRAY_NAME, VLEN_BYTES_ID, VLEN_UTF8_ID, VlenArray, VlenBytes, VlenUtf8,
};
