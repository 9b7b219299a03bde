//! numcodecs' `BitRound(keepbits)`: float mantissas rounded to `keepbits` bits (Klöwer et al.
//! 2021), half to even, as integer arithmetic on the bits; decoding changes nothing.
//!
//! numcodecs computes, on the bits `b` of each float16/32/64 element with `m` = mantissa bits
//! − `keepbits` dropped: `b += ((b >> m) & 1) + (1 << (m - 1)) - 1; b &= -1 << m`, in the
//! signed integer of the element's width (wrapping). `keepbits` equal to the mantissa's bits
//! leaves the elements as they are; more is an error.

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::{CodecError, DataType, PartialDecodeCapability, Result};

use crate::element_filter::{ElementFilter, element_filter_codec};

/// The codec's name in Zarr v3 metadata (zarr-python's).
pub const BITROUND_NAME: &str = "numcodecs.bitround";
/// The codec's id in Zarr v2 metadata.
pub const BITROUND_ID: &str = "bitround";

/// `BitRound`'s configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BitRoundConfig {
    /// The mantissa bits to keep.
    pub keepbits: i64,
}

/// numcodecs' `BitRound(keepbits)`: float16, float32 and float64 arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct BitRound {
    config: BitRoundConfig,
}

impl BitRound {
    /// numcodecs' `BitRound(keepbits)`; `Configuration` for a negative `keepbits`.
    pub fn new(keepbits: i64) -> Result<Self> {
        Self::from_config(BitRoundConfig { keepbits })
    }

    /// The mantissa bits kept.
    pub fn keepbits(&self) -> i64 {
        self.config.keepbits
    }

    /// The bits dropped from elements of `data_type`: `Unsupported` for a type other than
    /// float16/32/64, `Configuration` when `keepbits` exceeds its mantissa.
    pub fn dropped_bits(&self, data_type: DataType) -> Result<u32> {
        let mantissa: u32 = match data_type {
            DataType::Float16 => 10,
            DataType::Float32 => 23,
            DataType::Float64 => 52,
            other => {
                return Err(CodecError::unsupported(format!(
                    "{BITROUND_ID}: only float16/32/64 arrays can be bit-rounded, not {other}"
                )));
            }
        };
        u32::try_from(self.config.keepbits)
            .ok()
            .and_then(|keep| mantissa.checked_sub(keep))
            .ok_or_else(|| {
                CodecError::configuration(format!(
                    "{BITROUND_ID}: keepbits {} is more than {data_type}'s {mantissa} mantissa bits",
                    self.config.keepbits
                ))
            })
    }

    /// Rounds every `data_type` element of `input` into `output` (native-endian, same size).
    pub fn round(&self, data_type: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        let dropped = self.dropped_bits(data_type)?;
        if input.len() != output.len() || !input.len().is_multiple_of(data_type.size()) {
            return Err(CodecError::corrupt(format!(
                "{BITROUND_ID}: {} bytes are not as many {data_type} elements as {}",
                input.len(),
                output.len()
            )));
        }
        if dropped == 0 {
            output.copy_from_slice(input);
            return Ok(());
        }
        match data_type.size() {
            2 => round_words!(u16, dropped, input, output),
            4 => round_words!(u32, dropped, input, output),
            _ => round_words!(u64, dropped, input, output),
        }
        Ok(())
    }
}

/// numcodecs' integer rounding of each element, as the unsigned integer of its width,
/// `dropped` (1 or more) bits dropped.
macro_rules! round_words {
    ($word:ty, $dropped:expr, $input:expr, $output:expr) => {{
        let dropped: u32 = $dropped;
        let mask = <$word>::MAX << dropped;
        let half_quantum = (1 << (dropped - 1)) - 1;
        let (elements, _) = $input.as_chunks::<{ std::mem::size_of::<$word>() }>();
        let (results, _) = $output.as_chunks_mut::<{ std::mem::size_of::<$word>() }>();
        for (x, y) in elements.iter().zip(results) {
            let bits = <$word>::from_ne_bytes(*x);
            let rounded = bits.wrapping_add(((bits >> dropped) & 1) + half_quantum) & mask;
            *y = rounded.to_ne_bytes();
        }
    }};
}

use round_words;

impl ElementFilter for BitRound {
    const ID: &'static str = BITROUND_ID;
    const NAME: &'static str = BITROUND_NAME;
    type Config = BitRoundConfig;

    fn from_config(config: BitRoundConfig) -> Result<Self> {
        if config.keepbits < 0 {
            return Err(CodecError::configuration(format!(
                "{BITROUND_ID}: keepbits must be zero or positive, got {}",
                config.keepbits
            )));
        }
        Ok(Self { config })
    }

    fn config(&self) -> &BitRoundConfig {
        &self.config
    }

    fn encoded_type(&self, data_type: DataType) -> Result<DataType> {
        self.dropped_bits(data_type)?;
        Ok(data_type)
    }

    fn encode_elements(&self, data_type: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.round(data_type, input, output)
    }

    fn decode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        if input.len() != output.len() {
            return Err(CodecError::corrupt(format!(
                "{BITROUND_ID}: {} bytes are not the chunk's {}",
                input.len(),
                output.len()
            )));
        }
        output.copy_from_slice(input);
        Ok(())
    }
}

element_filter_codec!(BitRound, PartialDecodeCapability::ELEMENTWISE);

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    fn round32(keepbits: i64, value: f32) -> Result<f32> {
        let mut output = [0u8; 4];
        BitRound::new(keepbits)?.round(DataType::Float32, &value.to_ne_bytes(), &mut output)?;
        Ok(f32::from_ne_bytes(output))
    }

    #[test]
    fn rounds_half_to_even_on_the_kept_bits() -> Result<()> {
        assert_eq!(round32(23, 0.1)?, 0.1);
        assert_eq!(round32(0, 1.4)?, 1.0);
        assert_eq!(round32(0, 1.6)?, 2.0);
        assert_eq!(round32(1, 1.25)?, 1.0); // a tie: the even neighbour
        assert_eq!(round32(1, 1.75)?, 2.0); // a tie: the even neighbour
        assert!(round32(3, f32::NAN)?.is_nan());
        assert_eq!(round32(3, f32::INFINITY)?, f32::INFINITY);
        Ok(())
    }

    #[test]
    fn refuses_what_numcodecs_refuses() -> Result<()> {
        assert!(BitRound::new(-1).is_err());
        let codec = BitRound::new(24)?;
        assert!(matches!(
            codec.dropped_bits(DataType::Float32),
            Err(CodecError::Configuration(_))
        ));
        assert!(matches!(
            codec.dropped_bits(DataType::Int32),
            Err(CodecError::Unsupported(_))
        ));
        assert_eq!(codec.dropped_bits(DataType::Float64)?, 28);
        Ok(())
    }
}
