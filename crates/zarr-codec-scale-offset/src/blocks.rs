//! Element-wise steps run one after another over an array one cache-sized block at a time, so
//! that no intermediate array is ever allocated: each step reads the block the previous one
//! wrote (the same functions run, in the same order, on every element).

use zarr_codec_shapes::{CodecError, DataType, Result};

/// Elements per block: an intermediate block (at most 64 KiB) stays in L2, and blocks are
/// large enough that each step's per-call setup is paid rarely.
const BLOCK: usize = 8192;

/// One step: element bytes of one type in, as many elements of the next type out.
pub(crate) type Step<'a> = &'a dyn Fn(&[u8], &mut [u8]) -> Result<()>;

/// Runs `steps` over `input` into `output`. `types[i]` is the element type step `i` reads and
/// `types[i + 1]` the one it writes, so `types` has one entry more than `steps`; `codec`
/// names the codec in errors.
pub(crate) fn run(
    codec: &str,
    input: &[u8],
    output: &mut [u8],
    types: &[DataType],
    steps: &[Step<'_>],
) -> Result<()> {
    let (Some(from), Some(to)) = (types.first(), types.last()) else {
        return Ok(());
    };
    debug_assert_eq!(types.len(), steps.len() + 1);
    let (in_size, out_size) = (from.size(), to.size());
    if !input.len().is_multiple_of(in_size) {
        return Err(CodecError::corrupt(format!(
            "{codec}: {} bytes is not a whole number of {from} elements",
            input.len()
        )));
    }
    let count = input.len() / in_size;
    let expected = count.checked_mul(out_size).ok_or_else(|| {
        CodecError::out_of_range(format!("{codec}: the output would not fit in memory"))
    })?;
    if output.len() != expected {
        return Err(CodecError::OutputSize {
            expected,
            actual: output.len(),
        });
    }
    if let [step] = steps {
        return step(input, output);
    }
    let widest = types.iter().map(|t| t.size()).max().unwrap_or(1);
    // Two buffers, written in turn: step i writes one while reading what step i - 1 wrote.
    let (mut even, mut odd) = (vec![0u8; BLOCK * widest], vec![0u8; BLOCK * widest]);
    let last = steps.len() - 1;
    for (source, target) in input
        .chunks(BLOCK * in_size)
        .zip(output.chunks_mut(BLOCK * out_size))
    {
        let n = source.len() / in_size;
        for (i, step) in steps.iter().enumerate() {
            let (previous, next) = if i % 2 == 0 {
                (&odd[..], &mut even[..])
            } else {
                (&even[..], &mut odd[..])
            };
            let read = if i == 0 {
                source
            } else {
                &previous[..n * types[i].size()]
            };
            if i == last {
                step(read, target)?;
            } else {
                step(read, &mut next[..n * types[i + 1].size()])?;
            }
        }
    }
    Ok(())
}
