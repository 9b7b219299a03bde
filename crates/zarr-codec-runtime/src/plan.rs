//! [`Plan`]: a chain's steps in one direction, checked once, then run on any number of
//! chunks.
//!
//! Each chunk goes through every step on one thread; the intermediate results live in that
//! thread's two scratch buffers (reused, so in cache and with no page faults), and the last
//! step writes into the caller's output.

use std::cell::RefCell;

use zarr_codec_shapes::{CodecError, Result};

use crate::step::{Output, Step};
use crate::target::Target;

/// Scratch kept by a thread between chunks beyond this is freed after the chunk.
const KEPT_SCRATCH: usize = 64 << 20;

thread_local! {
    /// Two buffers, the steps' results in turn.
    static SCRATCH: RefCell<[Vec<u8>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

/// A direction of a chain, planned: its steps in running order (none: chunks are stored as
/// they are) and the sizes known before any chunk is seen.
#[derive(Clone)]
pub struct Plan {
    steps: Vec<Step>,
    input_len: Option<usize>,
    output_len: Option<usize>,
    /// The most a step without a stated bound may write (see [`intermediate_cap`]).
    grow_cap: usize,
}

impl Plan {
    /// A plan of `steps`, in the order they run.
    ///
    /// `input_len`: the size every input must have, when known (a decoding plan with no
    /// compressor reads the stored elements themselves; an encoding plan reads whole chunks).
    /// With no steps, the output is the input, so that size is the output's too.
    pub fn new(steps: Vec<Step>, input_len: Option<usize>) -> Self {
        let output_len = match steps.last() {
            None => input_len,
            Some(step) => match step.output {
                Output::Exact(len) => Some(len),
                Output::Bounded => None,
            },
        };
        let grow_cap = intermediate_cap(&steps);
        Self {
            steps,
            input_len,
            output_len,
            grow_cap,
        }
    }

    /// The steps, in running order.
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Whether chunks pass unchanged (no steps).
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.steps.is_empty()
    }

    /// The size every input must have, when the plan knows it.
    #[must_use]
    pub fn input_len(&self) -> Option<usize> {
        self.input_len
    }

    /// The size of every output, when fixed (decoding plans: the decoded chunk).
    #[must_use]
    pub fn output_len(&self) -> Option<usize> {
        self.output_len
    }

    /// The room the whole plan needs for an input of `input_len` bytes.
    pub fn room(&self, input_len: usize) -> Result<usize> {
        self.steps
            .iter()
            .try_fold(input_len, |len, step| step.room(len))
    }

    /// Checks the input's size against the plan's.
    fn check_input(&self, input: &[u8]) -> Result<()> {
        match self.input_len {
            // Only plans that read stored elements (no compressor) state an input size.
            Some(expected) if input.len() != expected => Err(CodecError::Corrupt(format!(
                "bytes: a stored chunk of {} bytes, {expected} expected",
                input.len()
            ))),
            _ => Ok(()),
        }
    }

    /// `input` through every step into the start of `output`; the bytes written.
    pub fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
        self.check_input(input)?;
        if self.steps.is_empty() {
            return copy_into(input, output);
        }
        SCRATCH.with_borrow_mut(|scratch| {
            let result = run_steps(&self.steps, input, output, scratch, self.grow_cap);
            for buffer in scratch.iter_mut() {
                if buffer.capacity() > KEPT_SCRATCH {
                    *buffer = Vec::new();
                }
            }
            result
        })
    }

    /// `input` through every step into all of `output`, which must be the plan's output size.
    pub fn run_exact(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        let expected = match self.output_len {
            Some(len) => len,
            None => self.room(input.len())?,
        };
        if expected != output.len() {
            return Err(CodecError::OutputSize {
                expected,
                actual: output.len(),
            });
        }
        let written = self.run(input, Target::Init(output))?;
        if written != expected {
            return Err(CodecError::Corrupt(format!(
                "the chunk decodes to {written} bytes, {expected} expected"
            )));
        }
        Ok(())
    }

    /// `input` through every step into a new vector.
    pub fn run_to_vec(&self, input: &[u8]) -> Result<Vec<u8>> {
        let room = self.room(input.len())?;
        let mut output = Vec::new();
        output
            .try_reserve_exact(room)
            .map_err(|_| CodecError::OutputLimit { limit: room })?;
        output.resize(room, 0);
        let written = self.run(input, Target::Init(&mut output))?;
        output.truncate(written);
        Ok(output)
    }
}

/// `input` at the start of `output`.
fn copy_into(input: &[u8], output: Target<'_>) -> Result<usize> {
    if input.len() > output.len() {
        return Err(CodecError::OutputSize {
            expected: input.len(),
            actual: output.len(),
        });
    }
    match output {
        Target::Init(bytes) => bytes[..input.len()].copy_from_slice(input),
        Target::Uninit(bytes) => {
            for (to, from) in bytes.iter_mut().zip(input) {
                *to = std::mem::MaybeUninit::new(*from);
            }
        }
    }
    Ok(input.len())
}

/// `chunk` through every step, the last one into `out`, the others into `scratch` in turn.
fn run_steps(
    steps: &[Step],
    chunk: &[u8],
    out: Target<'_>,
    scratch: &mut [Vec<u8>; 2],
    grow_cap: usize,
) -> Result<usize> {
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
            match step.bound(input_len) {
                Some(room) => {
                    grow(write, room)?;
                    step.run(input, Target::Init(&mut write[..room]))?
                }
                None => run_growing(step, input, write, grow_cap)?,
            }
        };
        input_len = written;
    }
    Ok(written)
}

/// `buffer` made at least `room` bytes long (an error, not an abort, without the memory).
pub(crate) fn grow(buffer: &mut Vec<u8>, room: usize) -> Result<()> {
    if buffer.len() < room {
        buffer
            .try_reserve(room - buffer.len())
            .map_err(|_| CodecError::OutputLimit { limit: room })?;
        buffer.resize(room, 0);
    }
    Ok(())
}

/// The most an intermediate step without a stated bound may write, whatever the plan.
pub const MAX_INTERMEDIATE: usize = 1 << 31;

/// The most an intermediate step without a stated bound (a decompressor outside another) may
/// write in `steps`: its output is the next codec's stream, which is about the size of the
/// exactly sized output further in (the stored elements), so twice the largest of those and a
/// MiB, never more than [`MAX_INTERMEDIATE`]. A bomb in an outer codec fails at that size
/// instead of growing the scratch to gigabytes.
fn intermediate_cap(steps: &[Step]) -> usize {
    steps
        .iter()
        .filter_map(|step| match step.output {
            Output::Exact(len) => Some(len),
            Output::Bounded => None,
        })
        .max()
        .map_or(MAX_INTERMEDIATE, |len| {
            len.saturating_mul(2)
                .saturating_add(1 << 20)
                .min(MAX_INTERMEDIATE)
        })
}

/// A step that states no bound, run into `write` with room doubled each time it reports the
/// room too small, from four times its input up to `cap`.
fn run_growing(step: &Step, input: &[u8], write: &mut Vec<u8>, cap: usize) -> Result<usize> {
    let mut room = input.len().saturating_mul(4).clamp(4096, cap.max(4096));
    loop {
        grow(write, room)?;
        match step.run(input, Target::Init(&mut write[..room])) {
            Err(CodecError::OutputSize { .. } | CodecError::OutputLimit { .. }) if room < cap => {
                room = room.saturating_mul(2).min(cap);
            }
            Err(CodecError::OutputSize { .. } | CodecError::OutputLimit { .. }) => {
                return Err(CodecError::Corrupt(format!(
                    "{}: the chunk decodes to more than {room} bytes, more than its codecs \
                     can hold",
                    step.name
                )));
            }
            other => return other,
        }
    }
}
