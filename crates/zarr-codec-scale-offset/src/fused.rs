//! `[scale_offset, cast_value]` as one pass, with exactly what the two codecs give one after
//! the other. For float32 and float64 arrays the affine map runs inside `cast_value`'s kernels
//! ([`CastPlan::apply_after`], [`CastPlan::apply_then`]); other types, and pairs no kernel
//! covers, go through both codecs one cache-sized block at a time, with no intermediate array
//! (the same functions run, in the same order, on every element).

use zarr_codec_cast_value::{CastPlan, CastValue, Direction};
use zarr_codec_shapes::{DataType, Result};

use crate::{Affine, ScaleOffset, blocks};

const CODEC: &str = "scale_offset + cast_value";

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
        let types = [self.data_type(), self.data_type(), self.encoded_type()];
        let affine = |source: &[u8], temp: &mut [u8]| self.affine.encode(source, temp);
        let cast = |temp: &[u8], target: &mut [u8]| self.encode.apply(temp, target);
        blocks::run(CODEC, input, output, &types, &[&affine, &cast])
    }

    /// `cast⁻¹(x) / scale + offset` for every element of `input` into `output`.
    pub fn decode(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        if let Some(affine) = self.affine.native()
            && self.decode.apply_then(input, output, affine)?
        {
            return Ok(());
        }
        let types = [self.encoded_type(), self.data_type(), self.data_type()];
        let cast = |source: &[u8], temp: &mut [u8]| self.decode.apply(source, temp);
        let affine = |temp: &[u8], target: &mut [u8]| self.affine.decode(temp, target);
        blocks::run(CODEC, input, output, &types, &[&cast, &affine])
    }
}
