//! What the chain runtime and every codec binding share, and nothing else: [`Kernel`], one
//! direction of one codec as a chain step runs it, the [`Target`] it writes into, and
//! [`parallel_map`], the one work-stealing pool every batch runs on.
//!
//! It is its own crate so that the runtime (`zarr-codec-runtime`) and the Python glue every
//! codec wheel is built with (`zarr-codec-python`) meet here: a change to the runtime
//! rebuilds the runtime alone, not every codec.
//!
//! ```
//! use zarr_codec_kernel::{Kernel, Target, parallel_map};
//!
//! /// A kernel that doubles every byte.
//! struct Double;
//!
//! impl Kernel for Double {
//!     fn run(&self, input: &[u8], output: Target<'_>) -> zarr_codec_shapes::Result<usize> {
//!         let output = output.into_init();
//!         for (to, from) in output.iter_mut().zip(input) {
//!             *to = from.wrapping_mul(2);
//!         }
//!         Ok(input.len())
//!     }
//! }
//!
//! let mut chunks = vec![vec![1u8, 2, 3], vec![4, 5]];
//! let doubled = parallel_map(&mut chunks, 2, |chunk| {
//!     let mut out = vec![0; chunk.len()];
//!     Double.run(chunk, Target::Init(&mut out)).map(|_| out)
//! });
//! assert_eq!(doubled[1].as_deref().ok(), Some(&[8u8, 10][..]));
//! ```

pub mod kernel;
pub mod pool;
pub mod target;
pub mod workers;

pub use kernel::Kernel;
pub use pool::{default_threads, parallel_map};
pub use target::Target;
