//! A cast bound to its source and target data types: the thing that runs over arrays.

use zarr_codec_shapes::element::{read_bits, write_bits};
use zarr_codec_shapes::{CodecError, DataType, Result};

use crate::numeric::{Numeric, Rules, Scalar, decode};
use crate::scalar_map::ScalarMap;
use crate::{OutOfRange, Rounding};

/// One direction of a `cast_value` codec for one pair of data types, ready to run.
///
/// Elements are native-endian, one per [`DataType::size`] bytes (the sub-byte types take a
/// byte each, signed ones sign-extended).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CastPlan {
    from: DataType,
    to: DataType,
    source: Numeric,
    rules: Rules,
    map: ScalarMap,
}

impl CastPlan {
    /// A plan casting `from` to `to` with these rules; `Unsupported` for types that are not
    /// integers or floats.
    ///
    /// `wrap` only has a meaning for integer targets (the codec requires an integer
    /// `data_type` with it); decoding back into a float type with it treats an out-of-range
    /// value as an error, as when `out_of_range` is absent.
    pub fn new(
        from: DataType,
        to: DataType,
        rounding: Rounding,
        out_of_range: Option<OutOfRange>,
        map: ScalarMap,
    ) -> Result<Self> {
        let source = Numeric::of(from)?;
        let target = Numeric::of(to)?;
        Ok(Self {
            from,
            to,
            source,
            rules: Rules {
                target,
                rounding,
                out_of_range,
            },
            map,
        })
    }

    /// The source data type.
    pub fn from(&self) -> DataType {
        self.from
    }

    /// The target data type.
    pub fn to(&self) -> DataType {
        self.to
    }

    /// The conversion rules (target, rounding, out of range).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The scalar map applied first.
    pub fn map(&self) -> &ScalarMap {
        &self.map
    }

    /// Casts one element given as its bits (low bits of the native value).
    pub fn cast_bits(&self, bits: u64) -> Result<u64> {
        let value = decode(bits, self.source);
        self.cast_scalar(value)
    }

    /// Casts one exact value: the map first, then the rules.
    pub fn cast_scalar(&self, value: Scalar) -> Result<u64> {
        if let Some(mapped) = self.map.get(value) {
            return Ok(mapped);
        }
        self.rules.convert(value)
    }

    /// `input` must be whole source elements and `output` as many target elements.
    pub(crate) fn check_sizes(&self, input: &[u8], output: &[u8]) -> Result<()> {
        let (in_size, out_size) = (self.from.size(), self.to.size());
        if !input.len().is_multiple_of(in_size) {
            return Err(CodecError::corrupt(format!(
                "cast_value: {} bytes is not a whole number of {} elements",
                input.len(),
                self.from
            )));
        }
        let count = input.len() / in_size;
        let expected = count.checked_mul(out_size).ok_or_else(|| {
            CodecError::out_of_range("cast_value: the output would not fit in memory")
        })?;
        if output.len() != expected {
            return Err(CodecError::OutputSize {
                expected,
                actual: output.len(),
            });
        }
        Ok(())
    }

    /// The exact path, element by element (also what the fast kernels fall back to).
    pub(crate) fn apply_slow(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        let (in_size, out_size) = (self.from.size(), self.to.size());
        for (source, target) in input
            .chunks_exact(in_size)
            .zip(output.chunks_exact_mut(out_size))
        {
            let bits = self.cast_bits(read_bits(source))?;
            write_bits(bits, target);
        }
        Ok(())
    }
}

impl CastPlan {
    /// The exact value of a source element given as bits.
    pub fn cast_source_scalar(&self, bits: u64) -> Scalar {
        decode(bits, self.source)
    }

    /// The exact value of a target element given as bits.
    pub fn target_scalar(&self, bits: u64) -> Scalar {
        decode(bits, self.rules.target)
    }
}
