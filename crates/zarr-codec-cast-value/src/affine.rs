//! An affine map fused into a cast: the float arithmetic of the `scale_offset` codec, run
//! inside the cast's kernels so that `[scale_offset, cast_value]` is one pass over memory.

use zarr_codec_shapes::DataType;

/// `(x - offset) * scale` (encoding, before the cast) or `x / scale + offset` (decoding,
/// after it), each operation rounded to nearest in the named type, IEEE 754: what
/// `scale_offset` computes for float32 and float64 arrays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Affine {
    /// In float32 arithmetic.
    Float32 {
        /// Subtracted when encoding, added when decoding.
        offset: f32,
        /// Multiplied by when encoding, divided by when decoding.
        scale: f32,
    },
    /// In float64 arithmetic.
    Float64 {
        /// Subtracted when encoding, added when decoding.
        offset: f64,
        /// Multiplied by when encoding, divided by when decoding.
        scale: f64,
    },
}

impl Affine {
    /// The data type whose arithmetic the map uses (its input and output type).
    pub fn data_type(&self) -> DataType {
        match self {
            Self::Float32 { .. } => DataType::Float32,
            Self::Float64 { .. } => DataType::Float64,
        }
    }
}
