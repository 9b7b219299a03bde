//! `[scale_offset, cast_value]` as one pass, with exactly what the two codecs give one after
//! the other. For float32 and float64 arrays the affine map runs inside `cast_value`'s kernels
//! ([`CastPlan::apply_after`], [`CastPlan::apply_then`]); other types, and pairs no kernel
//! covers, go through both codecs one cache-sized block at a time, with no intermediate array
//! (the same functions run, in the same order, on every element).

use zarr_codec_cast_value::{CastPlan, CastValue, Direction};
use zarr_codec_shapes::{CodecError, DataType, Result};

use crate::{Affine, ScaleOffset};

/// Elements per block: the intermediate block (at most 64 KiB) stays in L2, and blocks are
/// large enough that each codec's per-call setup is paid rarely.
const BLOCK: usize = 8192;

/// `scale_offset` followed by `cast_value`, bound to the array's data type.
#[derive(Debug, Clone)]
pub struct ScaleOffsetCast {
    affine: Affine,
    encode: CastPlan,
    decode: CastPlan,
}

impl ScaleOffsetCast {
    /// The pair for arrays of `data_type` (the type `scale_offset` works in; `cast_value`
    /// casts it to its own `data_type`).
    pub fn new(scale_offset: &ScaleOffset, cast: &CastValue, data_type: DataType) -> Result<Self> {
        Ok(Self {
            affine: scale_offset.bind(data_type)?,
            encode: cast.plan(data_type, Direction::Encode)?,
            decode: cast.plan(data_type, Direction::Decode)?,
        })
    }

    /// The array's data type.
    pub fn data_type(&self) -> DataType {
        self.affine.data_type()
    }

    /// The encoded data type (`cast_value`'s `data_type`).
    pub fn encoded_type(&self) -> DataType {
        self.encode.to()
    }

    /// `cast((x - offset) * scale)` for every element of `input` into `output`.
    pub fn encode(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        if let Some(affine) = self.affine.native()
            && self.encode.apply_after(affine, input, output)?
        {
            return Ok(());
        }
        let types = (self.data_type(), self.data_type(), self.encoded_type());
        blocks(
            input,
            output,
            types,
            |source, temp| self.affine.encode(source, temp),
            |temp, target| self.encode.apply(temp, target),
        )
    }

    /// `cast⁻¹(x) / scale + offset` for every element of `input` into `output`.
    pub fn decode(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        if let Some(affine) = self.affine.native()
            && self.decode.apply_then(input, output, affine)?
        {
            return Ok(());
        }
        let types = (self.encoded_type(), self.data_type(), self.data_type());
        blocks(
            input,
            output,
            types,
            |source, temp| self.decode.apply(source, temp),
            |temp, target| self.affine.decode(temp, target),
        )
    }
}

/// Runs `first` then `second` over each block of `input` (elements of `from`) into `output`
/// (elements of `to`), through a block-sized buffer of elements of `between` (the array's
/// data type: encoding is array -> array -> cast, decoding cast -> array -> array).
fn blocks(
    input: &[u8],
    output: &mut [u8],
    (from, between, to): (DataType, DataType, DataType),
    first: impl Fn(&[u8], &mut [u8]) -> Result<()>,
    second: impl Fn(&[u8], &mut [u8]) -> Result<()>,
) -> Result<()> {
    let (in_size, out_size) = (from.size(), to.size());
    if !input.len().is_multiple_of(in_size) {
        return Err(CodecError::corrupt(format!(
            "scale_offset + cast_value: {} bytes is not a whole number of {from} elements",
            input.len()
        )));
    }
    let count = input.len() / in_size;
    if output.len() != count * out_size {
        return Err(CodecError::OutputSize {
            expected: count * out_size,
            actual: output.len(),
        });
    }
    let temp_size = between.size();
    let mut temp = vec![0u8; BLOCK * temp_size];
    for (source, target) in input
        .chunks(BLOCK * in_size)
        .zip(output.chunks_mut(BLOCK * out_size))
    {
        let n = source.len() / in_size;
        let temp = &mut temp[..n * temp_size];
        first(source, temp)?;
        second(temp, target)?;
    }
    Ok(())
}
