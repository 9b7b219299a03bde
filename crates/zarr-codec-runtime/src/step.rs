//! [`Step`]: one stage of a planned chain, and the room it needs.

use std::sync::Arc;

use zarr_codec_shapes::{CodecError, Result};

use crate::kernel::Kernel;
use crate::target::Target;

/// How much a step writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Exactly this many bytes (array codecs, the `bytes` codec, the decompressor nearest the
    /// array): a chunk that decodes to another size is corrupt.
    Exact(usize),
    /// At most the kernel's [`max_output_len`](Kernel::max_output_len) of its input
    /// (compressors, checksums).
    Bounded,
}

/// What a step does.
#[derive(Clone)]
pub enum Action {
    /// A codec's kernel.
    Kernel(Arc<dyn Kernel>),
    /// The `bytes` codec between native elements of `size` bytes and the other byte order.
    Swap {
        /// The element size, at least 2.
        size: usize,
    },
}

/// One stage of a chain in the direction it runs: a named action and its output size.
#[derive(Clone)]
pub struct Step {
    /// The codec's name, for error messages.
    pub name: String,
    /// What runs.
    pub action: Action,
    /// What it writes.
    pub output: Output,
}

impl Step {
    /// A codec's kernel writing `output`.
    pub fn kernel(name: impl Into<String>, kernel: Arc<dyn Kernel>, output: Output) -> Self {
        Self {
            name: name.into(),
            action: Action::Kernel(kernel),
            output,
        }
    }

    /// The `bytes` codec swapping `len` bytes of elements of `size` bytes (at least 2).
    pub fn swap(size: usize, len: usize) -> Result<Self> {
        if size < 2 || !len.is_multiple_of(size) {
            return Err(CodecError::configuration(format!(
                "bytes: {len} bytes are not whole elements of {size} bytes"
            )));
        }
        Ok(Self {
            name: "bytes".into(),
            action: Action::Swap { size },
            output: Output::Exact(len),
        })
    }

    /// The room the step needs for `input_len` input bytes, when known before it runs.
    pub fn bound(&self, input_len: usize) -> Option<usize> {
        match (self.output, &self.action) {
            (Output::Exact(len), _) => Some(len),
            (Output::Bounded, Action::Kernel(kernel)) => kernel.max_output_len(input_len),
            (Output::Bounded, Action::Swap { .. }) => Some(input_len),
        }
    }

    /// [`bound`](Self::bound), or a configuration error naming the step.
    pub fn room(&self, input_len: usize) -> Result<usize> {
        self.bound(input_len).ok_or_else(|| {
            CodecError::configuration(format!("{}: the kernel states no output bound", self.name))
        })
    }

    /// `input` into `output` (exactly [`room`](Self::room) bytes, or more for a bounded
    /// step); the bytes written, checked against the step's output size.
    pub fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
        let room = output.len();
        let written = match &self.action {
            Action::Kernel(kernel) => kernel.run(input, output)?,
            Action::Swap { size } => swap(*size, input, output)?,
        };
        match self.output {
            Output::Exact(len) if written != len => Err(CodecError::Corrupt(format!(
                "{}: the chunk decodes to {written} bytes, {len} expected",
                self.name
            ))),
            _ if written > room => Err(CodecError::Corrupt(format!(
                "{}: the kernel wrote {written} bytes into {room}",
                self.name
            ))),
            _ => Ok(written),
        }
    }
}

/// Elements of `size` bytes from `input` into `output` in the other byte order.
fn swap(size: usize, input: &[u8], output: Target<'_>) -> Result<usize> {
    if !input.len().is_multiple_of(size) || input.len() > output.len() {
        return Err(CodecError::Corrupt(format!(
            "bytes: the chunk's {} bytes are not whole elements of {size} bytes",
            input.len()
        )));
    }
    // SAFETY: only initialised bytes (copies of the input's) are written.
    let output = unsafe { output.into_uninit() };
    for (from, to) in input.chunks_exact(size).zip(output.chunks_exact_mut(size)) {
        to.iter_mut()
            .zip(from.iter().rev())
            .for_each(|(to, from)| *to = std::mem::MaybeUninit::new(*from));
    }
    Ok(input.len())
}
