//! pyo3 glue shared by every zarr-codecs wheel.
//!
//! Codec crates are pure Rust ([`zarr_codec_shapes`] traits over byte slices); this crate turns Python
//! objects into those slices and back without needless copies, releases the GIL around codec
//! work, and raises the exception classes that the pure-Python `zarr_codec_shapes` package defines.
//! The classes are imported from `zarr_codec_shapes.errors`, never re-created here: the same Rust
//! type compiled into two extension modules would become two unrelated Python classes.

mod array;
mod array_bytes;
mod batch;
mod bytes_codec;
mod config;
mod elementwise;
mod errors;
mod input;
pub mod kernel;
mod output;
mod run;

pub use array::{ArrayInput, ArrayOutput, NewArray, data_type_of, dtype_of, new_array};
pub use array_bytes::{decode_array_into, encode_array};
pub use batch::{checked_buffers, checked_outputs, parallel_map, thread_count};
pub use bytes_codec::{PyBytesCodec, add_bytes_codec};
pub use config::{canonical_of, parse_codec_json};
pub use elementwise::{
    ElementOp, Elementwise, PyArrayCodec, add_configuration_functions, codec_from_v3,
    transform_fill_json,
};
pub use errors::{IntoPyResult, to_py_err};
pub use input::BytesInput;
pub use kernel::{
    ForeignKernel, Target, array_kernel, bounded_decode_kernel, decode_kernel, encode_kernel,
};
pub use output::{
    BytesOutput, UninitBytes, bytes_from_vec, new_bytes_batch, new_bytes_with, numpy_from_vec,
};
pub use run::{GIL_RELEASE_MIN, run, run_sized};
