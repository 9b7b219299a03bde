//! [`Step`]: one stage of a planned chain, and the room it needs.

use std::sync::Arc;

use zarr_codec_shapes::{CodecError, Result};

use crate::kernel::Kernel;
use crate::region::{Layout, Region, copy_region};
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
    /// The `transpose` codec: a C-order array read through `source` (the input's elements
    /// seen in the output's order) into a C-order array of `target`'s shape.
    Permute {
        /// The input's memory seen with the output's shape.
        source: Layout,
        /// The output, C order.
        target: Layout,
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

    /// The `transpose` codec moving a C-order array of `shape` (elements of `item` bytes) to
    /// the C-order array whose dimension `k` is the input's dimension `order[k]`.
    pub fn permute(shape: &[usize], order: &[usize], item: usize) -> Result<Self> {
        let mut seen = vec![false; shape.len()];
        let valid = order.len() == shape.len()
            && order
                .iter()
                .all(|&axis| axis < shape.len() && !std::mem::replace(&mut seen[axis], true));
        if !valid {
            return Err(CodecError::configuration(format!(
                "transpose: order {order:?} is not a permutation of {} dimensions",
                shape.len()
            )));
        }
        let input = Layout::c_order(shape, item)?;
        let out_shape: Vec<usize> = order.iter().map(|&axis| shape[axis]).collect();
        let strides: Vec<isize> = order.iter().map(|&axis| input.strides()[axis]).collect();
        let source = Layout::new(&out_shape, &strides, item)?;
        let target = Layout::c_order(&out_shape, item)?;
        let len = out_shape
            .iter()
            .product::<usize>()
            .checked_mul(item)
            .ok_or_else(|| CodecError::configuration("transpose: an array larger than memory"))?;
        Ok(Self {
            name: "transpose".into(),
            action: Action::Permute { source, target },
            output: Output::Exact(len),
        })
    }

    /// The room the step needs for `input_len` input bytes, when known before it runs.
    pub fn bound(&self, input_len: usize) -> Option<usize> {
        match (self.output, &self.action) {
            (Output::Exact(len), _) => Some(len),
            (Output::Bounded, Action::Kernel(kernel)) => kernel.max_output_len(input_len),
            (Output::Bounded, Action::Swap { .. } | Action::Permute { .. }) => Some(input_len),
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
            Action::Permute { source, target } => permute(source, target, input, output)?,
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

/// `input`, a C-order array seen through `source`, into `output` in C order (`target`).
fn permute(source: &Layout, target: &Layout, input: &[u8], output: Target<'_>) -> Result<usize> {
    let len = target.shape().iter().product::<usize>() * target.item();
    if input.len() != len || output.len() < len {
        return Err(CodecError::Corrupt(format!(
            "transpose: {} bytes in, {len} expected",
            input.len()
        )));
    }
    // SAFETY: only initialised bytes (copies of the input's) are written, and every byte of
    // the first `len` is written.
    let output = unsafe { output.into_uninit() };
    let whole = Region::whole(target.shape());
    // SAFETY: both layouts hold exactly `len` bytes of elements (the source is a permutation
    // of a C-order array of the same elements, checked when the step was made), `input` and
    // `output` hold at least that many and do not overlap (one is borrowed shared, the other
    // exclusively).
    unsafe {
        copy_region(
            (input.as_ptr(), source),
            &whole,
            (output.as_mut_ptr().cast::<u8>(), target),
            &whole,
        );
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(step: &Step, input: &[u8]) -> Vec<u8> {
        let mut output = vec![0u8; input.len()];
        let written = step
            .run(input, Target::Init(&mut output))
            .expect("permuted");
        assert_eq!(written, input.len());
        output
    }

    #[test]
    fn permute_moves_elements_as_numpy_transposes() {
        // A 2 x 3 array of 2-byte elements, transposed to 3 x 2.
        let input: Vec<u8> = (0..6u16).flat_map(u16::to_ne_bytes).collect();
        let step = Step::permute(&[2, 3], &[1, 0], 2).expect("a step");
        let expected: Vec<u8> = [0u16, 3, 1, 4, 2, 5]
            .into_iter()
            .flat_map(u16::to_ne_bytes)
            .collect();
        assert_eq!(run(&step, &input), expected);
        // 2 x 3 x 4 to order (2, 0, 1): out[k][i][j] = in[i][j][k]; and back.
        let input: Vec<u8> = (0..24).collect();
        let step = Step::permute(&[2, 3, 4], &[2, 0, 1], 1).expect("a step");
        let output = run(&step, &input);
        for (at, &value) in output.iter().enumerate() {
            let (k, i, j) = (at / 6, at / 3 % 2, at % 3);
            assert_eq!(usize::from(value), (i * 3 + j) * 4 + k);
        }
        let back = Step::permute(&[4, 2, 3], &[1, 2, 0], 1).expect("the inverse");
        assert_eq!(run(&back, &output), input);
    }

    #[test]
    fn permute_refuses_what_is_not_a_permutation_or_the_wrong_size() {
        for order in [&[0, 0][..], &[0][..], &[0, 2][..]] {
            assert!(Step::permute(&[2, 3], order, 1).is_err(), "{order:?}");
        }
        let step = Step::permute(&[2, 3], &[1, 0], 1).expect("a step");
        let mut output = [0u8; 6];
        assert!(step.run(&[0; 5], Target::Init(&mut output)).is_err());
    }
}
