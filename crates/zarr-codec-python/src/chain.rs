//! Whole codec chains run in Rust: each chunk of a batch goes through every decoding step of
//! its chain (bytes -> bytes codecs, the `bytes` codec, array -> array codecs) on one thread,
//! the steps' intermediate results in that thread's scratch buffers (reused, so in cache and
//! with no page faults), the last step writing into the caller's output. The steps are
//! [kernels](crate::kernel) of any of our wheels; the GIL is released for the whole batch.

use std::cell::RefCell;

use pyo3::prelude::*;
use pyo3::types::PyInt;
use zarr_codec::{CodecError, Result as CodecResult};

use crate::batch::checked_buffers;
use crate::kernel::{KernelRef, kernel_of};
use crate::{BytesInput, BytesOutput, parallel_map, run, thread_count, to_py_err};

/// One decoding step of a chain.
enum Step<'a> {
    /// A codec's kernel, writing exactly `output_len` bytes.
    Kernel {
        name: String,
        kernel: KernelRef<'a>,
        output_len: usize,
    },
    /// The `bytes` codec of elements of `size` bytes stored in the other byte order.
    Swap { size: usize },
}

impl Step<'_> {
    fn output_len(&self, input_len: usize) -> usize {
        match self {
            Self::Kernel { output_len, .. } => *output_len,
            Self::Swap { .. } => input_len,
        }
    }

    /// `input` into all of `output`.
    fn run(&self, input: &[u8], output: &mut [u8]) -> CodecResult<()> {
        match self {
            Self::Kernel { name, kernel, .. } => {
                let written = kernel.decode(input, output)?;
                if written != output.len() {
                    return Err(CodecError::Corrupt(format!(
                        "{name}: the chunk decodes to {written} bytes, {} expected",
                        output.len()
                    )));
                }
                Ok(())
            }
            Self::Swap { size } => {
                if !input.len().is_multiple_of(*size) {
                    return Err(CodecError::Corrupt(format!(
                        "bytes: the chunk's {} bytes are not whole elements of {size} bytes",
                        input.len()
                    )));
                }
                for (from, to) in input
                    .chunks_exact(*size)
                    .zip(output.chunks_exact_mut(*size))
                {
                    to.iter_mut()
                        .zip(from.iter().rev())
                        .for_each(|(to, from)| *to = *from);
                }
                Ok(())
            }
        }
    }
}

/// Scratch kept by a thread between chunks beyond this is freed after the chunk.
const KEPT_SCRATCH: usize = 64 << 20;

thread_local! {
    /// Two buffers, the steps' results in turn.
    static SCRATCH: RefCell<[Vec<u8>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

/// Where a step reads from.
#[derive(Clone, Copy)]
enum Source {
    Chunk,
    Scratch(usize),
}

/// `chunk` through every step, the last one into `out`.
fn decode_one(steps: &[Step<'_>], chunk: &[u8], out: &mut [u8]) -> CodecResult<()> {
    SCRATCH.with_borrow_mut(|scratch| {
        let mut source = Source::Chunk;
        let mut length = chunk.len();
        for (index, step) in steps.iter().enumerate() {
            let output_len = step.output_len(length);
            let last = index + 1 == steps.len();
            let target = match source {
                Source::Chunk => 0,
                Source::Scratch(used) => 1 - used,
            };
            let [first, second] = &mut *scratch;
            let (read, write) = if target == 0 {
                (&*second, first)
            } else {
                (&*first, second)
            };
            let input = match source {
                Source::Chunk => chunk,
                Source::Scratch(_) => &read[..length],
            };
            if last {
                if output_len != out.len() {
                    return Err(CodecError::OutputSize {
                        expected: output_len,
                        actual: out.len(),
                    });
                }
                step.run(input, out)?;
            } else {
                if write.len() < output_len {
                    write.resize(output_len, 0);
                }
                step.run(input, &mut write[..output_len])?;
            }
            source = Source::Scratch(target);
            length = output_len;
        }
        for buffer in scratch.iter_mut() {
            if buffer.capacity() > KEPT_SCRATCH {
                *buffer = Vec::new();
            }
        }
        Ok(())
    })
}

/// A step as Python describes it: `(name, kernel capsule, output bytes)` for a codec, or
/// `("bytes", element size, 0)` for the `bytes` codec swapping byte order.
type Described<'py> = (String, Bound<'py, PyAny>, usize);

/// The steps of `described` (whose capsules they borrow).
fn steps_of<'a>(py: Python<'_>, described: &'a [Described<'_>]) -> PyResult<Vec<Step<'a>>> {
    let configuration = |message: String| to_py_err(py, &CodecError::configuration(message));
    let mut steps = Vec::with_capacity(described.len());
    for (name, kernel, output_len) in described {
        let step = if kernel.is_instance_of::<PyInt>() {
            let size: usize = kernel.extract()?;
            if size == 0 {
                return Err(configuration("bytes: an element size of 0".into()));
            }
            Step::Swap { size }
        } else {
            Step::Kernel {
                name: name.clone(),
                kernel: kernel_of(kernel)?,
                output_len: *output_len,
            }
        };
        steps.push(step);
    }
    if steps.is_empty() {
        return Err(configuration("a chain needs at least one step".into()));
    }
    Ok(steps)
}

/// Decode each of `chunks` through the chain's `steps` into the matching writable buffer of
/// `outs` (each exactly the decoded chunk's size), in parallel with the GIL released.
///
/// `steps` are in decoding order; see [`steps_of`]. Outputs must not overlap one another or
/// any chunk; nothing is decoded unless every buffer passes the checks.
#[pyfunction]
#[pyo3(signature = (steps, chunks, outs, threads=None))]
pub fn decode_chain_batch_into(
    py: Python<'_>,
    steps: &Bound<'_, PyAny>,
    chunks: &Bound<'_, PyAny>,
    outs: &Bound<'_, PyAny>,
    threads: Option<i64>,
) -> PyResult<()> {
    let threads = thread_count(py, threads, "chain")?;
    let described = steps
        .try_iter()?
        .map(|step| step?.extract::<Described<'_>>())
        .collect::<PyResult<Vec<_>>>()?;
    let steps = steps_of(py, &described)?;
    let (inputs, mut outputs) = checked_buffers(py, chunks, outs, "chain")?;
    let mut jobs: Vec<(&[u8], &mut [u8])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
        .collect();
    let steps = &steps;
    run(py, || {
        parallel_map(&mut jobs, threads, |(chunk, out)| {
            decode_one(steps, chunk, out)
        })
        .into_iter()
        .collect()
    })
}
