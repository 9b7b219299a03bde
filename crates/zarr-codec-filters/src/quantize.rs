//! numcodecs' `Quantize(digits, dtype, astype=None)`: floats rounded to a multiple of a
//! power of two of about `digits` decimal digits (lossy); decoding is numpy's `astype` back.
//!
//! numcodecs computes `scale = 2.0 ** ceil(log2(10.0 ** -e))` with `e` the whole exponent of
//! `10.0 ** -digits` (floored below 1, ceiled from 1), then `around(scale * x) / scale` in
//! `dtype` (the scale converted to it: ±Infinity where it does not fit, as numpy does), each
//! operation rounded in `dtype`, then numpy's `astype` into `astype`.

use serde::{Deserialize, Serialize};
use zarr_codec_cast_value::numpy::{NumpyCast, numpy_astype, numpy_type};
use zarr_codec_shapes::{CodecError, DataType, PartialDecodeCapability, Result};

use crate::element_filter::{ElementFilter, check_dtype, element_filter_codec};
use crate::float16;

/// The codec's name in Zarr v3 metadata (zarr-python's).
pub const QUANTIZE_NAME: &str = "numcodecs.quantize";
/// The codec's id in Zarr v2 metadata.
pub const QUANTIZE_ID: &str = "quantize";

/// `Quantize`'s configuration: type strings kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuantizeConfig {
    /// The decimal digits of precision wanted.
    pub digits: i64,
    /// The decoded elements' type (a float type).
    pub dtype: String,
    /// The encoded elements' type (`dtype` when absent; a float type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub astype: Option<String>,
}

/// numcodecs' `Quantize(digits, dtype, astype)` on float16/32/64.
#[derive(Debug, Clone)]
pub struct Quantize {
    config: QuantizeConfig,
    dtype: DataType,
    astype: DataType,
    scale: f64,
    narrow: Option<NumpyCast>,
    widen: Option<NumpyCast>,
}

impl PartialEq for Quantize {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
    }
}

impl Quantize {
    /// numcodecs' `Quantize(digits, dtype, astype)`.
    pub fn new(digits: i64, dtype: &str, astype: Option<&str>) -> Result<Self> {
        Self::from_config(QuantizeConfig {
            digits,
            dtype: dtype.to_owned(),
            astype: astype.map(str::to_owned),
        })
    }

    /// The multiplier, a power of two (as `f64`, before its conversion to `dtype`).
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The decoded data type (`dtype`).
    pub fn data_type(&self) -> DataType {
        self.dtype
    }

    /// The encoded data type (`astype`).
    pub fn encoded_type(&self) -> DataType {
        self.astype
    }

    /// Quantizes `dtype` elements (native-endian) into as many `astype` elements.
    pub fn encode_all(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        let count = input.len() / self.dtype.size();
        if !input.len().is_multiple_of(self.dtype.size())
            || output.len() != count * self.astype.size()
        {
            return Err(CodecError::corrupt(format!(
                "{QUANTIZE_ID}: {} bytes of {} do not fill {} bytes of {}",
                input.len(),
                self.dtype,
                output.len(),
                self.astype
            )));
        }
        match &self.narrow {
            None => self.quantize(input, output),
            Some(plan) => {
                let mut quantized = vec![0u8; input.len()];
                self.quantize(input, &mut quantized);
                plan.apply(&quantized, output)?;
            }
        }
        Ok(())
    }

    /// Decodes `astype` elements into as many `dtype` elements (numpy's `astype`).
    pub fn decode_all(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        match &self.widen {
            Some(plan) => plan.apply(input, output),
            None if input.len() == output.len() => {
                output.copy_from_slice(input);
                Ok(())
            }
            None => Err(CodecError::corrupt(format!(
                "{QUANTIZE_ID}: {} bytes are not the chunk's {}",
                input.len(),
                output.len()
            ))),
        }
    }

    /// `around(scale * x) / scale` in `dtype`, for every element.
    fn quantize(&self, input: &[u8], output: &mut [u8]) {
        let scale = self.scale;
        match self.dtype {
            DataType::Float64 | DataType::Float32 => {
                // Twice as many lanes with AVX2 where the CPU has it (numpy's own loops
                // dispatch at run time too); the same operations, so the same results.
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked just above.
                    unsafe { quantize_floats_avx2(self.dtype, scale, input, output) };
                    return;
                }
                quantize_floats(self.dtype, scale, input, output);
            }
            _ => {
                #[allow(clippy::cast_possible_truncation)] // then to float16, as numpy does
                let scale = float16::from_f32(scale as f32);
                for (x, y) in input.chunks_exact(2).zip(output.chunks_exact_mut(2)) {
                    let value = u16::from_ne_bytes(x.try_into().unwrap_or([0; 2]));
                    let product = float16::apply(scale, value, |a, b| a * b);
                    let rounded = float16::from_f32(float16::to_f32(product).round_ties_even());
                    let result = float16::apply(rounded, scale, |a, b| a / b);
                    y.copy_from_slice(&result.to_ne_bytes());
                }
            }
        }
    }
}

/// [`Quantize::quantize`] for `float32` and `float64` (any other `dtype`: nothing), inlined
/// into each caller so that it is compiled for the caller's features.
#[inline(always)]
#[allow(clippy::inline_always)] // the point: the AVX2 copy must hold its own loops
fn quantize_floats(dtype: DataType, scale: f64, input: &[u8], output: &mut [u8]) {
    match dtype {
        DataType::Float64 => {
            let (values, _) = input.as_chunks::<8>();
            let (results, _) = output.as_chunks_mut::<8>();
            let rounded = |x: &[u8; 8]| round_even_f64(scale * f64::from_ne_bytes(*x));
            // One loop per way of dividing, so that each runs without a branch.
            match Divide::<f64>::by(scale, 1.0 / scale) {
                Divide::Multiply(inverse) => {
                    for (x, y) in values.iter().zip(results) {
                        *y = (rounded(x) * inverse).to_ne_bytes();
                    }
                }
                Divide::Divide(scale) => {
                    for (x, y) in values.iter().zip(results) {
                        *y = (rounded(x) / scale).to_ne_bytes();
                    }
                }
            }
        }
        DataType::Float32 => {
            #[allow(clippy::cast_possible_truncation)] // numpy's conversion: nearest, or ±inf
            let scale = scale as f32;
            let (values, _) = input.as_chunks::<4>();
            let (results, _) = output.as_chunks_mut::<4>();
            let rounded = |x: &[u8; 4]| round_even_f32(scale * f32::from_ne_bytes(*x));
            match Divide::<f32>::by(scale, 1.0 / scale) {
                Divide::Multiply(inverse) => {
                    for (x, y) in values.iter().zip(results) {
                        *y = (rounded(x) * inverse).to_ne_bytes();
                    }
                }
                Divide::Divide(scale) => {
                    for (x, y) in values.iter().zip(results) {
                        *y = (rounded(x) / scale).to_ne_bytes();
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn quantize_floats_avx2(dtype: DataType, scale: f64, input: &[u8], output: &mut [u8]) {
    quantize_floats(dtype, scale, input, output);
}

/// Division by a power of two `scale`, as a multiplication by `inverse` where that is exact
/// (`inverse` finite, nonzero and `scale * inverse == 1`: then `x * inverse` and `x / scale`
/// are the same correctly rounded `x * 2^-k`), and as a division otherwise.
#[derive(Clone, Copy)]
enum Divide<F> {
    Multiply(F),
    Divide(F),
}

macro_rules! divide {
    ($float:ty) => {
        impl Divide<$float> {
            fn by(scale: $float, inverse: $float) -> Self {
                #[allow(clippy::float_cmp)] // exactness is the question
                let exact = inverse.is_finite() && inverse != 0.0 && scale * inverse == 1.0;
                if exact {
                    Self::Multiply(inverse)
                } else {
                    Self::Divide(scale)
                }
            }
        }
    };
}

divide!(f32);
divide!(f64);

/// `x.round_ties_even()` by the default rounding of an addition (no library call, so loops
/// vectorise): exact for every `f32`; NaN, ±Infinity and whole values come back as they are,
/// the sign of zero kept.
#[inline(always)]
fn round_even_f32(x: f32) -> f32 {
    const WHOLE: f32 = 8_388_608.0; // 2^23: from here on every f32 is whole
    let magnitude = x.abs();
    if magnitude < WHOLE {
        (magnitude + WHOLE - WHOLE).copysign(x)
    } else {
        x
    }
}

/// As [`round_even_f32`], for `f64`.
#[inline(always)]
fn round_even_f64(x: f64) -> f64 {
    const WHOLE: f64 = 4_503_599_627_370_496.0; // 2^52
    let magnitude = x.abs();
    if magnitude < WHOLE {
        (magnitude + WHOLE - WHOLE).copysign(x)
    } else {
        x
    }
}

/// numcodecs' scale for `digits`, as Python computes it (`pow`, `log10` and `log2` of the C
/// library); `Configuration` where Python raises (a precision of 0, an overflow).
fn scale_of(digits: i64) -> Result<f64> {
    let fail = || {
        CodecError::configuration(format!(
            "{QUANTIZE_ID}: digits {digits} gives no finite scale"
        ))
    };
    #[allow(clippy::cast_precision_loss)] // Python's float(-digits) for any sane digits
    let precision = 10f64.powf(-(digits as f64));
    if !precision.is_finite() || precision <= 0.0 {
        return Err(fail());
    }
    let exponent = precision.log10();
    let exponent = if exponent < 0.0 {
        exponent.floor()
    } else {
        exponent.ceil()
    };
    let bits = 10f64.powf(-exponent).log2().ceil();
    let scale = 2f64.powf(bits);
    if !scale.is_finite() {
        return Err(fail());
    }
    Ok(scale)
}

/// A float type for `label`: `Unsupported` otherwise, as numcodecs refuses others.
fn float_type(name: &str, label: &str) -> Result<DataType> {
    let data_type = numpy_type(name, QUANTIZE_ID, label)?;
    if !data_type.is_float() {
        return Err(CodecError::unsupported(format!(
            "{QUANTIZE_ID}: only floating point data types are supported, {label} is {data_type}"
        )));
    }
    Ok(data_type)
}

impl ElementFilter for Quantize {
    const ID: &'static str = QUANTIZE_ID;
    const NAME: &'static str = QUANTIZE_NAME;
    type Config = QuantizeConfig;

    fn from_config(config: QuantizeConfig) -> Result<Self> {
        let dtype = float_type(&config.dtype, "dtype")?;
        let astype = match &config.astype {
            Some(name) => float_type(name, "astype")?,
            None => dtype,
        };
        let cast = |from, to| (from != to).then(|| numpy_astype(from, to)).transpose();
        Ok(Self {
            scale: scale_of(config.digits)?,
            narrow: cast(dtype, astype)?,
            widen: cast(astype, dtype)?,
            config,
            dtype,
            astype,
        })
    }

    fn config(&self) -> &QuantizeConfig {
        &self.config
    }

    fn encoded_type(&self, data_type: DataType) -> Result<DataType> {
        check_dtype(QUANTIZE_ID, self.dtype, data_type)?;
        Ok(self.astype)
    }

    fn encode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.encode_all(input, output)
    }

    fn decode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.decode_all(input, output)
    }
}

element_filter_codec!(Quantize, PartialDecodeCapability::ELEMENTWISE);

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    #[test]
    fn numcodecs_docstring_example() -> Result<()> {
        let codec = Quantize::new(1, "<f8", None)?;
        assert_eq!(codec.scale(), 16.0);
        let input: Vec<u8> = (0..10)
            .map(|i| f64::from(i) / 9.0)
            .flat_map(f64::to_ne_bytes)
            .collect();
        let mut output = vec![0u8; 80];
        codec.encode_all(&input, &mut output)?;
        let values: Vec<f64> = output
            .chunks_exact(8)
            .map(|b| f64::from_ne_bytes(b.try_into().unwrap_or_default()))
            .collect();
        let expected = [
            0.0, 0.125, 0.25, 0.3125, 0.4375, 0.5625, 0.6875, 0.75, 0.875, 1.0,
        ];
        assert_eq!(values, expected);
        assert_eq!(Quantize::new(2, "f8", None)?.scale(), 128.0);
        assert_eq!(Quantize::new(-5, "f8", None)?.scale(), 2f64.powi(-16));
        Ok(())
    }

    #[test]
    fn rounding_by_addition_is_round_ties_even() {
        let mut value = -70.0f64;
        while value < 70.0 {
            assert_eq!(
                round_even_f64(value).to_bits(),
                value.round_ties_even().to_bits()
            );
            #[allow(clippy::cast_possible_truncation)]
            let single = value as f32;
            assert_eq!(
                round_even_f32(single).to_bits(),
                single.round_ties_even().to_bits()
            );
            value += 0.125;
        }
        for special in [
            f64::NAN,
            f64::INFINITY,
            -0.0,
            0.499_999_999_999_999_94,
            4.5e15 + 0.5,
            1e300,
        ] {
            let expected = special.round_ties_even();
            assert!(round_even_f64(special).to_bits() == expected.to_bits() || expected.is_nan());
        }
    }

    #[test]
    fn refuses_what_numcodecs_refuses() {
        assert!(Quantize::new(1, "<i4", None).is_err());
        assert!(Quantize::new(1, "<f4", Some("<i2")).is_err());
        assert!(Quantize::new(400, "<f4", None).is_err());
    }
}
