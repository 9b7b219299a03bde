//! Batches of whole chunks: decoding into separate buffers ([`decode_batch_into`]), encoding
//! into buffers ([`encode_batch`]) and encoding into chunk files ([`encode_files`]), each
//! chunk through every step on one thread of the pool.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use zarr_codec_shapes::Result;

use crate::files::{ChunkError, ChunkResult, encode_file};
use crate::plan::Plan;
use crate::pool::parallel_map;
use crate::target::Target;

/// Decodes each `(stored, out)` pair, the stored bytes into all of `out` (each exactly the
/// plan's output size), on up to `threads` threads; the first error in chunk order.
pub fn decode_batch_into(
    plan: &Plan,
    jobs: &mut [(&[u8], &mut [u8])],
    threads: usize,
) -> Result<()> {
    parallel_map(jobs, threads, |(stored, out)| plan.run_exact(stored, out))
        .into_iter()
        .collect()
}

/// Encodes each `(chunk, target)` pair into the start of its target (at least
/// [`Plan::room`] of the chunk), on up to `threads` threads; the bytes written into each.
pub fn encode_batch(
    plan: &Plan,
    jobs: &mut [(&[u8], Target<'_>)],
    threads: usize,
) -> Result<Vec<usize>> {
    let mut jobs: Vec<(&[u8], Option<Target<'_>>)> = jobs
        .iter_mut()
        .map(|(chunk, target)| {
            (
                *chunk,
                Some(std::mem::replace(target, Target::Init(&mut []))),
            )
        })
        .collect();
    parallel_map(&mut jobs, threads, |(chunk, target)| match target.take() {
        Some(target) => plan.run(chunk, target),
        None => Ok(0),
    })
    .into_iter()
    .collect()
}

/// Encodes each `(chunk, path)` pair and writes it to its file (a temporary file beside it,
/// renamed over it; directories made first), on up to `threads` threads. The first error in
/// chunk order; the chunks written before it stay.
pub fn encode_files(plan: &Plan, jobs: &mut [(&[u8], &Path)], threads: usize) -> ChunkResult<()> {
    // Each directory once, before the chunks are written in parallel.
    let directories: HashSet<&Path> = jobs.iter().filter_map(|(_, path)| path.parent()).collect();
    for directory in directories {
        fs::create_dir_all(directory)
            .map_err(|err| ChunkError::Io(err, directory.to_path_buf()))?;
    }
    parallel_map(jobs, threads, |(chunk, path)| {
        encode_file(plan, chunk, path).map(|_| ())
    })
    .into_iter()
    .collect()
}
