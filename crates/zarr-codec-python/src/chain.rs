//! Whole codec chains run in Rust: each chunk of a batch goes through every step of its
//! chain, decoding or encoding (bytes -> bytes codecs, the `bytes` codec, array -> array codecs) on one thread,
//! the steps' intermediate results in that thread's scratch buffers (reused, so in cache and
//! with no page faults), the last step writing into the caller's output. The steps are
//! [kernels](crate::kernel) of any of our wheels; the GIL is released for the whole batch.

use std::cell::RefCell;

use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList};
use zarr_codec_shapes::{CodecError, Result as CodecResult};

use crate::batch::checked_buffers;
use crate::kernel::{KernelRef, Target, kernel_of};
use crate::{BytesInput, BytesOutput, UninitBytes, parallel_map, run, thread_count, to_py_err};

/// One step of a chain, in the direction it runs.
pub(crate) enum Step<'a> {
    /// A codec's kernel, writing exactly `output_len` bytes, or (`None`) at most its own bound
    /// (a compressor).
    Kernel {
        name: String,
        kernel: KernelRef<'a>,
        output_len: Option<usize>,
    },
    /// The `bytes` codec of elements of `size` bytes stored in the other byte order.
    Swap { size: usize },
}

impl Step<'_> {
    /// The room the step needs for `input_len` input bytes.
    pub(crate) fn room(&self, input_len: usize) -> CodecResult<usize> {
        match self {
            Self::Kernel {
                name,
                kernel,
                output_len,
            } => match output_len {
                Some(len) => Ok(*len),
                None => kernel.max_output_len(input_len).ok_or_else(|| {
                    CodecError::configuration(format!("{name}: the kernel states no output bound"))
                }),
            },
            Self::Swap { .. } => Ok(input_len),
        }
    }

    /// `input` into `output`; the bytes written (all of `output` unless a compressor).
    fn run(&self, input: &[u8], output: Target<'_>) -> CodecResult<usize> {
        let room = output.len();
        match self {
            Self::Kernel {
                name,
                kernel,
                output_len,
            } => {
                let written = kernel.run(input, output)?;
                if output_len.is_some() && written != room {
                    return Err(CodecError::Corrupt(format!(
                        "{name}: the chunk decodes to {written} bytes, {room} expected"
                    )));
                }
                if written > room {
                    return Err(CodecError::Corrupt(format!(
                        "{name}: the kernel wrote {written} bytes into {room}"
                    )));
                }
                Ok(written)
            }
            Self::Swap { size } => {
                if !input.len().is_multiple_of(*size) || input.len() != room {
                    return Err(CodecError::Corrupt(format!(
                        "bytes: the chunk's {} bytes are not whole elements of {size} bytes",
                        input.len()
                    )));
                }
                // SAFETY: only initialised bytes (copies of the input's) are written.
                let output = unsafe { output.into_uninit() };
                for (from, to) in input
                    .chunks_exact(*size)
                    .zip(output.chunks_exact_mut(*size))
                {
                    to.iter_mut()
                        .zip(from.iter().rev())
                        .for_each(|(to, from)| *to = std::mem::MaybeUninit::new(*from));
                }
                Ok(room)
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

/// `chunk` through every step, the last one into `out`; the bytes the last step wrote.
pub(crate) fn run_steps(steps: &[Step<'_>], chunk: &[u8], out: Target<'_>) -> CodecResult<usize> {
    SCRATCH.with_borrow_mut(|scratch| {
        let mut input_len = chunk.len();
        let mut out = Some(out);
        let mut written = 0;
        for (index, step) in steps.iter().enumerate() {
            // Step `index` reads scratch[(index + 1) % 2] (the chunk itself first) and writes
            // scratch[index % 2], or `out` for the last step.
            let [even, odd] = &mut *scratch;
            let (read, write) = if index % 2 == 0 {
                (&*odd, even)
            } else {
                (&*even, odd)
            };
            let input = if index == 0 {
                chunk
            } else {
                &read[..input_len]
            };
            written = if index + 1 == steps.len() {
                let Some(target) = out.take() else { break };
                step.run(input, target)?
            } else {
                let room = step.room(input_len)?;
                if write.len() < room {
                    write.resize(room, 0);
                }
                step.run(input, Target::Init(&mut write[..room]))?
            };
            input_len = written;
        }
        for buffer in scratch.iter_mut() {
            if buffer.capacity() > KEPT_SCRATCH {
                *buffer = Vec::new();
            }
        }
        Ok(written)
    })
}

/// `chunk` through every decoding step into all of `out`.
pub(crate) fn decode_one(steps: &[Step<'_>], chunk: &[u8], out: &mut [u8]) -> CodecResult<()> {
    let expected = steps
        .iter()
        .try_fold(chunk.len(), |len, step| step.room(len))?;
    if expected != out.len() {
        return Err(CodecError::OutputSize {
            expected,
            actual: out.len(),
        });
    }
    run_steps(steps, chunk, Target::Init(out)).map(|_| ())
}

/// A step as Python describes it: `(name, kernel capsule, output bytes)` for a codec (-1 for
/// a compressor's, bounded by its kernel), or `("bytes", element size, 0)` for the `bytes`
/// codec swapping byte order.
pub(crate) type Described<'py> = (String, Bound<'py, PyAny>, i64);

/// The steps of the Python iterable `steps`, as described (see [`Described`]).
pub(crate) fn described<'py>(steps: &Bound<'py, PyAny>) -> PyResult<Vec<Described<'py>>> {
    steps.try_iter()?.map(|step| step?.extract()).collect()
}

/// The steps of `described` (whose capsules they borrow).
pub(crate) fn steps_of<'a>(
    py: Python<'_>,
    described: &'a [Described<'_>],
) -> PyResult<Vec<Step<'a>>> {
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
                output_len: usize::try_from(*output_len).ok(),
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
    let described = described(steps)?;
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

/// Encode each of `chunks` (a chunk's native-order element bytes, C order) through the
/// chain's `steps` (in encoding order; see [`steps_of`]) into a new `bytes` object each, in
/// parallel with the GIL released; the last step writes straight into the object, which is
/// then shrunk to the stream's length.
#[pyfunction]
#[pyo3(signature = (steps, chunks, threads=None))]
pub fn encode_chain_batch<'py>(
    py: Python<'py>,
    steps: &Bound<'py, PyAny>,
    chunks: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = thread_count(py, threads, "chain")?;
    let described = described(steps)?;
    let steps = steps_of(py, &described)?;
    let inputs = BytesInput::all(chunks)?;
    let mut outputs = inputs
        .iter()
        .map(|input| {
            let room = steps
                .iter()
                .try_fold(input.len(), |len, step| step.room(len))
                .map_err(|err| to_py_err(py, &err))?;
            UninitBytes::new(py, room)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut jobs: Vec<(&[u8], &mut [std::mem::MaybeUninit<u8>])> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(outputs.iter_mut().map(UninitBytes::storage))
        .collect();
    let steps = &steps;
    let written = run(py, || {
        parallel_map(&mut jobs, threads, |(chunk, out)| {
            run_steps(steps, chunk, Target::Uninit(out))
        })
        .into_iter()
        .collect::<CodecResult<Vec<_>>>()
    })?;
    drop(jobs);
    // SAFETY: each chunk's last step succeeded and initialised the `written` bytes at the
    // start of its object (a compressor's stream, or all of an exactly sized output).
    let encoded = outputs
        .into_iter()
        .zip(written)
        .map(|(output, written)| unsafe { output.assume_init_prefix(written) })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, encoded)
}

/// Add the runners (these two and the [file runners](crate::files)) to a wheel's module:
/// every wheel exports them, so a chain of any of our wheels' kernels runs through whichever
/// wheel the chain finds first.
pub fn add_runners(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(pyo3::wrap_pyfunction!(decode_chain_batch_into, module)?)?;
    module.add_function(pyo3::wrap_pyfunction!(encode_chain_batch, module)?)?;
    crate::files::add_file_runners(module)
}
