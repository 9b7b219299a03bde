//! zarr-codecs' codecs inside [zarrs](https://docs.rs/zarrs), the Rust Zarr library.
//!
//! Add it next to zarrs (`cargo add zarrs zarr-codec-zarrs`; no Python involved) and:
//!
//! - **`scale_offset` and `cast_value`**, which zarrs lacks, are codecs of every zarrs array
//!   at once: this crate registers them as compile-time plugins. Arrays written by
//!   zarr-python with `[scale_offset, cast_value, bytes, ...]` open with `Array::open`.
//! - **gzip, blosc, zstd, crc32c and numcodecs' fixedscaleoffset** replace zarrs' own after
//!   one call, [`register()`] (zarrs' run-time registry, which it consults before its built-in
//!   codecs), for Zarr v3 and v2 arrays; [`unregister()`] gives zarrs its own back. Our
//!   fixedscaleoffset computes exactly what numcodecs does (zarrs' own rounds its parameters
//!   to `f32` and casts through `f32`).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use zarrs::{array::Array, filesystem::FilesystemStore};
//!
//! zarr_codec_zarrs::register(); // gzip, blosc, zstd, crc32c, fixedscaleoffset: ours from here on
//! let store = Arc::new(FilesystemStore::new("data.zarr")?);
//! let array = Array::open(store, "/temperature")?; // [scale_offset, cast_value, bytes, zstd]
//! let values: Vec<f32> = array.retrieve_array_subset(&array.subset_all())?;
//! # Ok(()) }
//! ```
//!
//! Each codec type ([`GzipCodec`], [`ScaleOffsetCodec`], ...) wraps the codec of the crate
//! that implements it, so an array can also be built with them directly
//! (`ArrayBuilder::bytes_to_bytes_codecs`, `array_to_array_codecs`). Configurations are read
//! and written through the codec crates' own JSON (the one place they are validated), and
//! their errors keep their kind and message in zarrs' errors.

#[macro_use]
mod wrapper;
mod array_codecs;
mod bytes_codecs;
mod convert;
mod registration;

pub use array_codecs::{CastValueCodec, FixedScaleOffsetCodec, ScaleOffsetCodec};
pub use bytes_codecs::{BloscCodec, Crc32cCodec, GzipCodec, ZstdCodec};
pub use registration::{REPLACED, is_registered, register, unregister};
