//! The zarr-codecs chain runtime: whole Zarr codec chains run over batches of chunks, in
//! Rust, with no Python.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-runtime` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-runtime`).
//!
//! - [`Plan`]: one direction of a chain, planned once (its [`Step`]s, their output sizes,
//!   which step writes straight into the caller's memory), then run on any number of chunks,
//!   each through every step on one thread with per-thread scratch.
//! - [`Chain`]: a chain of codec objects (any implementation of the [`zarr_codec_shapes`]
//!   traits) bound to its chunks' spec, with both directions planned.
//! - [`Kernel`]: what a step runs; [`kernel::native`] wraps codec objects, and the Python
//!   bindings wrap codecs compiled into other extension modules.
//! - [`parallel_map`]: the one work-stealing pool every batch runs on, its helper threads
//!   parked between batches.
//! - [`read`] and [`mod@write`]: batches of chunks from and to memory or chunk files, decoded
//!   into their places in a caller's array (whole chunks straight into place, parts of chunks
//!   through scratch, missing chunks as the fill value) or encoded and written as zarr-python's
//!   `LocalStore` writes a file.
//! - [`Sharding`]: the `sharding_indexed` codec: batches of shards read (only the inner chunks
//!   a read needs, by byte range from files) and written, flattened to their inner chunks;
//!   [`ShardIndex`], its index, read and checked against its shard.
//! - [`selection::cut`]: a basic selection of a whole array on a regular grid, cut into each
//!   chunk's key, part and place in one call.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use zarr_codec_runtime::{Chain, Region, ReadItem, Source, read_batch};
//! use zarr_codec_shapes::{ChunkSpec, DataType, Endian};
//!
//! // A 4x4 uint8 array in 2x2 chunks, zstd-compressed.
//! let spec = ChunkSpec::with_default_fill_value(vec![2, 2], DataType::UInt8)?;
//! let zstd = zarr_codec_zstd::Zstd::new(zarr_codec_zstd::Level::new(3)?, false);
//! let chain = Chain::new(&[], Some(Endian::Little), &[Arc::new(zstd)], spec)?;
//! let stored: Vec<Vec<u8>> = (0..4u8)
//!     .map(|chunk| chain.encode(&[chunk; 4]))
//!     .collect::<Result<_, _>>()?;
//!
//! let mut array = vec![0u8; 16];
//! let items: Vec<ReadItem<'_>> = (0..4)
//!     .map(|chunk| ReadItem {
//!         source: Source::Bytes(&stored[chunk]),
//!         chunk: Region::whole(&[2, 2]),
//!         out: Region::block(&[2 * (chunk / 2), 2 * (chunk % 2)], &[2, 2]),
//!     })
//!     .collect();
//! let out = zarr_codec_runtime::OutArray::contiguous(&mut array, &[4, 4], 1)?;
//! read_batch(chain.decode_plan(), &[2, 2], &items, &out, &[0], 2)?;
//! assert_eq!(array, [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod chain;
pub mod files;
pub mod grid;
pub mod plan;
pub mod read;
pub mod region;
#[cfg(feature = "object-store")]
pub mod remote;
pub mod selection;
pub mod shard_index;
pub mod sharding;
pub mod step;
mod streaming;
pub mod write;

// The kernel, its target and the pool live in `zarr-codec-kernel` (shared with the codec
// bindings, which then need not rebuild when the runtime changes); their paths here stay.
#[cfg(feature = "object-store")]
use zarr_codec_kernel::workers;
pub use zarr_codec_kernel::{kernel, pool, target};

pub use chain::{ArrayStage, BytesStage, Chain, Stored, plan};
pub use files::ChunkError;
pub use grid::Grid;
pub use kernel::Kernel;
pub use plan::Plan;
pub use pool::{default_threads, parallel_map};
pub use read::{ReadItem, Source, read_batch};
pub use region::{InArray, Layout, OutArray, Region, Span};
pub use selection::{Axis, ChunkKeys, ChunkPart};
pub use shard_index::{IndexLocation, ShardIndex};
pub use sharding::{FetchedRead, Inner, InnerRead, ShardWrite, Sharding, WriteOrder};
pub use step::{Action, Output, Step};
pub use target::Target;
pub use write::{
    BufferWriteItem, EmptyRule, WriteItem, decode_batch_into, encode_batch, encode_files,
    write_buffers, write_files,
};
