//! The data types `cast_value` handles, their elements as exact values, and the one slow but
//! exact conversion every fast path falls back to.
//!
//! Every element of every supported type is `±significand × 2^exponent` with a 64-bit
//! significand (integers up to 64 bits, float significands up to 53), so a cast is: decode
//! exactly, round once to the target's precision ([`crate::round`]), then apply the range rule.
//! Nothing goes through an intermediate type, so nothing is rounded twice.

use std::fmt;

use zarr_codec_shapes::{CodecError, DataType, FloatEncoding, FloatFormat, Result};

use crate::OutOfRange;
use crate::round::{Rounding, round_magnitude};

/// A data type `cast_value` is defined for: an integer of some width, or a float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numeric {
    /// A two's complement (`signed`) or unsigned integer of `bits` bits (2 to 64).
    Int {
        /// Whether negative values exist.
        signed: bool,
        /// Value bits (the sub-byte types still take a byte each).
        bits: u32,
    },
    /// A binary floating-point format.
    Float(FloatFormat),
}

impl Numeric {
    /// The numeric type behind `data_type`; `Unsupported` for `bool` and the complex types,
    /// which the specification leaves out.
    pub fn of(data_type: DataType) -> Result<Self> {
        if data_type.is_integer() {
            let signed = data_type.integer_range().is_some_and(|(min, _)| min < 0);
            return Ok(Self::Int {
                signed,
                bits: data_type.bits(),
            });
        }
        match data_type.float_format() {
            Some(format) if data_type.is_float() => Ok(Self::Float(format)),
            _ => Err(CodecError::unsupported(format!(
                "cast_value: {data_type} is not a real number type (integers and floats only)"
            ))),
        }
    }

    /// The smallest and largest value of an integer type.
    fn int_range(signed: bool, bits: u32) -> (i128, i128) {
        if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }
}

/// The exact value of one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// Not a number (the sign bit is carried to IEEE targets; payloads are not).
    Nan {
        /// The sign bit.
        negative: bool,
    },
    /// Positive or negative infinity.
    Infinity {
        /// Negative infinity.
        negative: bool,
    },
    /// `±significand × 2^exponent`; a zero significand is a (signed) zero.
    Finite {
        /// The sign (kept for zero too).
        negative: bool,
        /// The magnitude's significand.
        significand: u64,
        /// The power of two it is scaled by.
        exponent: i32,
    },
}

impl Scalar {
    /// An integer value.
    pub fn from_i128(value: i128) -> Self {
        // cast_value's integers are at most 64 bits wide, so the magnitude fits.
        let magnitude = u64::try_from(value.unsigned_abs()).unwrap_or(u64::MAX);
        Self::Finite {
            negative: value < 0,
            significand: magnitude,
            exponent: 0,
        }
    }

    /// Whether this is a NaN.
    pub fn is_nan(self) -> bool {
        matches!(self, Self::Nan { .. })
    }

    /// A canonical form in which two scalars are equal exactly when their numerical values
    /// are: all NaNs are one key, `-0` equals `+0`, and significands are odd. This is how
    /// `scalar_map` keys match.
    #[must_use]
    pub fn key(self) -> Self {
        match self {
            Self::Nan { .. } => Self::Nan { negative: false },
            Self::Finite { significand: 0, .. } => Self::Finite {
                negative: false,
                significand: 0,
                exponent: 0,
            },
            Self::Finite {
                negative,
                significand,
                exponent,
            } => {
                let zeros = significand.trailing_zeros();
                Self::Finite {
                    negative,
                    significand: significand >> zeros,
                    exponent: exponent + i32::try_from(zeros).unwrap_or(0),
                }
            }
            infinity @ Self::Infinity { .. } => infinity,
        }
    }

    /// The value as an `f64` (nearest; for messages only).
    #[allow(clippy::cast_precision_loss)]
    fn approx(self) -> f64 {
        match self {
            Self::Nan { .. } => f64::NAN,
            Self::Infinity { negative } => {
                if negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Self::Finite {
                negative,
                significand,
                exponent,
            } => {
                let magnitude = significand as f64 * 2f64.powi(exponent);
                if negative { -magnitude } else { magnitude }
            }
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Integers exactly (as the key form has an odd significand, an integer has a
        // non-negative exponent); other values as the nearest f64 in Rust's shortest form.
        let sign = |negative: bool| if negative { "-" } else { "" };
        match *self {
            Self::Nan { .. } => f.write_str("NaN"),
            Self::Infinity { negative } => write!(f, "{}Infinity", sign(negative)),
            Self::Finite { .. } => match self.key() {
                Self::Finite {
                    negative,
                    significand,
                    exponent,
                } if (0..64).contains(&exponent) => {
                    let magnitude = u128::from(significand) << exponent;
                    write!(f, "{}{magnitude}", sign(negative))
                }
                _ => write!(f, "{:?}", self.approx()),
            },
        }
    }
}

/// Sign-extends the low `bits` bits of `raw`.
fn sign_extend(raw: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    // Reinterpreting the shifted bits as i64 is the point: the arithmetic shift back
    // copies the sign bit of the `bits`-bit value.
    #[allow(clippy::cast_possible_wrap)]
    let shifted = (raw << shift) as i64;
    shifted >> shift
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The exact value of the element whose bits (native integer, low bits) are `raw`.
pub fn decode(raw: u64, ty: Numeric) -> Scalar {
    match ty {
        Numeric::Int { signed: true, bits } => {
            Scalar::from_i128(i128::from(sign_extend(raw, bits)))
        }
        Numeric::Int {
            signed: false,
            bits,
        } => Scalar::Finite {
            negative: false,
            significand: raw & low_mask(bits),
            exponent: 0,
        },
        Numeric::Float(format) => decode_float(raw & format.bits_mask(), format),
    }
}

fn decode_float(bits: u64, format: FloatFormat) -> Scalar {
    let negative = format.is_sign_negative_bits(bits);
    if format.is_nan_bits(bits) {
        return Scalar::Nan { negative };
    }
    if format.is_inf_bits(bits) {
        return Scalar::Infinity { negative };
    }
    let mantissa_bits = format.mantissa_bits();
    let mantissa = bits & low_mask(mantissa_bits);
    let biased = (bits >> mantissa_bits) & low_mask(format.exponent_bits());
    // biased < 2^11 and mantissa_bits <= 52: the conversions are exact.
    let biased = i32::try_from(biased).unwrap_or(i32::MAX);
    let mantissa_bits = i32::try_from(mantissa_bits).unwrap_or(0);
    let (significand, exponent) = if format.encoding() == FloatEncoding::Fnu {
        (1, biased - format.bias())
    } else if biased == 0 {
        (mantissa, 1 - format.bias() - mantissa_bits)
    } else {
        (
            mantissa | (1 << mantissa_bits),
            biased - format.bias() - mantissa_bits,
        )
    };
    Scalar::Finite {
        negative,
        significand,
        exponent,
    }
}

/// How one element is converted: the target type and the codec's two rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The type converted to.
    pub target: Numeric,
    /// How inexact values are rounded.
    pub rounding: Rounding,
    /// What happens to values outside the target's range (`None`: an error).
    pub out_of_range: Option<OutOfRange>,
}

/// Why a finite value has no exact-or-rounded image in the target.
enum Outside {
    /// Below the smallest value (`negative: true`) or above the largest.
    Range { negative: bool },
}

impl Rules {
    /// Converts `value` to the target's bits (low bits; sub-byte integers sign-extended to
    /// the byte), by the specification's rules 2 and 3 (rule 1, `scalar_map`, is the
    /// caller's).
    pub fn convert(&self, value: Scalar) -> Result<u64> {
        match (value, self.target) {
            (Scalar::Nan { negative }, Numeric::Float(format)) => match format.nan_bits() {
                Some(nan) => Ok(if negative && format.encoding() == FloatEncoding::Ieee {
                    nan | sign_bit(format)
                } else {
                    nan
                }),
                None => Err(self.not_representable(value)),
            },
            (Scalar::Infinity { negative }, Numeric::Float(format)) => match format.infinity_bits()
            {
                Some(inf) => Ok(if negative {
                    inf | sign_bit(format)
                } else {
                    inf
                }),
                None => Err(self.not_representable(value)),
            },
            (Scalar::Nan { .. } | Scalar::Infinity { .. }, Numeric::Int { .. }) => {
                Err(self.not_representable(value))
            }
            (
                Scalar::Finite {
                    negative,
                    significand,
                    exponent,
                },
                Numeric::Int { signed, bits },
            ) => self.convert_to_int(value, negative, significand, exponent, signed, bits),
            (
                Scalar::Finite {
                    negative,
                    significand,
                    exponent,
                },
                Numeric::Float(format),
            ) => match to_float(negative, significand, exponent, format, self.rounding) {
                Ok(bits) => Ok(bits),
                Err(Outside::Range { negative }) => {
                    self.float_out_of_range(value, negative, format)
                }
            },
        }
    }

    fn not_representable(&self, value: Scalar) -> CodecError {
        CodecError::out_of_range(format!(
            "cast_value: {value} has no representation in {} (map it with scalar_map)",
            self.target_name()
        ))
    }

    fn target_name(&self) -> String {
        match self.target {
            Numeric::Int { signed, bits } => format!("{}int{bits}", if signed { "" } else { "u" }),
            Numeric::Float(format) => format.name().to_owned(),
        }
    }

    fn out_of_range_error(&self, value: Scalar) -> CodecError {
        let hint = match self.target {
            Numeric::Int { .. } => "out_of_range \"clamp\" or \"wrap\"",
            Numeric::Float(_) => "out_of_range \"clamp\"",
        };
        CodecError::out_of_range(format!(
            "cast_value: {value} is out of range for {} (set {hint} to allow it)",
            self.target_name()
        ))
    }

    fn convert_to_int(
        &self,
        value: Scalar,
        negative: bool,
        significand: u64,
        exponent: i32,
        signed: bool,
        bits: u32,
    ) -> Result<u64> {
        let (min, max) = Numeric::int_range(signed, bits);
        let mask = low_mask(bits);
        // Magnitudes of 2^64 and more are out of every integer range; keep them apart so the
        // arithmetic below stays in 128 bits.
        let length = 64 - significand.leading_zeros();
        let huge = significand != 0 && i64::from(exponent) + i64::from(length) > 65;
        let rounded = if huge {
            None
        } else {
            let (magnitude, _) =
                round_magnitude(negative, significand, exponent, 0, self.rounding, |kept| {
                    kept & 1 == 1
                });
            let signed_value = i128::try_from(magnitude).unwrap_or(i128::MAX);
            Some(if negative {
                -signed_value
            } else {
                signed_value
            })
        };
        if let Some(v) = rounded.filter(|v| (min..=max).contains(v)) {
            return Ok(low_64(v));
        }
        match self.out_of_range {
            None => Err(self.out_of_range_error(value)),
            Some(OutOfRange::Clamp) => Ok(low_64(if negative { min } else { max })),
            Some(OutOfRange::Wrap) => {
                // The residue modulo 2^bits of the rounded value (of the value itself when it
                // is a multiple of 2^64, whose residue is 0 for every width).
                let residue = match rounded {
                    Some(v) => low_64(v) & mask,
                    None => wrap_huge(negative, significand, exponent) & mask,
                };
                let v = if signed {
                    i128::from(sign_extend(residue, bits))
                } else {
                    i128::from(residue)
                };
                Ok(low_64(v))
            }
        }
    }

    fn float_out_of_range(
        &self,
        value: Scalar,
        negative: bool,
        format: FloatFormat,
    ) -> Result<u64> {
        match self.out_of_range {
            Some(OutOfRange::Clamp) => Ok(clamp_float(negative, format)),
            // `wrap` is refused for float targets when the codec is configured.
            Some(OutOfRange::Wrap) | None => Err(self.out_of_range_error(value)),
        }
    }
}

/// `±significand × 2^exponent mod 2^64` for a magnitude of at least 2^64 (an integer).
fn wrap_huge(negative: bool, significand: u64, exponent: i32) -> u64 {
    let residue = if exponent >= 64 {
        0
    } else {
        // exponent >= 0 here, since the magnitude is at least 2^64 > significand.
        let shifted = u128::from(significand) << exponent.unsigned_abs();
        #[allow(clippy::cast_possible_truncation)] // the low 64 bits are the residue
        let low = shifted as u64;
        low
    };
    if negative {
        residue.wrapping_neg()
    } else {
        residue
    }
}

/// The low 64 bits of `v` in two's complement: how an integer in the target's range is
/// stored (sign-extended to 64 bits; the caller keeps as many bytes as the type is wide).
fn low_64(v: i128) -> u64 {
    #[allow(clippy::cast_possible_truncation)] // keeping the low bits is the point
    let low = v.cast_unsigned() as u64;
    low
}

/// Zero with the value's sign where the format has a negative zero (`fnuz` has one zero).
fn signed_zero(negative: bool, format: FloatFormat) -> u64 {
    if negative && format.has_negative_zero() {
        sign_bit(format)
    } else {
        0
    }
}

fn sign_bit(format: FloatFormat) -> u64 {
    if format.has_sign() {
        1 << (format.total_bits() - 1)
    } else {
        0
    }
}

/// `clamp` for a float target: ±Infinity where the format has it, else the largest finite
/// value of that sign (the smallest value of `float8_e8m0fnu` below its range).
fn clamp_float(negative: bool, format: FloatFormat) -> u64 {
    if format.encoding() == FloatEncoding::Fnu {
        return if negative {
            0
        } else {
            format.max_finite_bits()
        };
    }
    let magnitude = format.infinity_bits().unwrap_or(format.max_finite_bits());
    if negative {
        magnitude | sign_bit(format)
    } else {
        magnitude
    }
}

/// Rounds the finite `±significand × 2^exponent` to `format`: the bits, or which end of the
/// range it falls outside of after rounding (rounding comes first, as the spec orders).
fn to_float(
    negative: bool,
    significand: u64,
    exponent: i32,
    format: FloatFormat,
    rounding: Rounding,
) -> std::result::Result<u64, Outside> {
    let fnu = format.encoding() == FloatEncoding::Fnu;
    if significand == 0 {
        // No zero in float8_e8m0fnu: below its smallest value.
        return if fnu {
            Err(Outside::Range { negative: true })
        } else {
            Ok(signed_zero(negative, format))
        };
    }
    if negative && fnu {
        return Err(Outside::Range { negative: true });
    }
    let mantissa_bits = i32::try_from(format.mantissa_bits()).unwrap_or(0);
    let length = 64 - i32::try_from(significand.leading_zeros()).unwrap_or(0);
    let leading = exponent + length - 1; // floor(log2(magnitude))
    // The quantum (last kept bit) of the result: subnormal formats stop at their smallest
    // normal exponent; e8m0 has no subnormals, so its values below 2^-127 round like any
    // other power of two and are then out of range.
    let min_normal = 1 - format.bias();
    let quantum = if fnu {
        leading
    } else {
        leading.max(min_normal) - mantissa_bits
    };
    // Ties to even look at the last kept bit; e8m0's significand is the implicit 1 alone,
    // which is odd, so its ties go up (as ml_dtypes and LLVM round it).
    let (mut kept, _) = round_magnitude(negative, significand, exponent, quantum, rounding, |k| {
        fnu || k & 1 == 1
    });
    let mut quantum = quantum;
    if kept == 0 {
        return Ok(signed_zero(negative, format));
    }
    let implicit = 1u128 << mantissa_bits;
    if kept >= implicit << 1 {
        // Rounding carried into a new leading bit.
        kept >>= 1;
        quantum += 1;
    }
    let (biased, mantissa) = if kept >= implicit {
        (
            i64::from(quantum) + i64::from(mantissa_bits) + i64::from(format.bias()),
            kept - implicit,
        )
    } else {
        (0, kept)
    };
    let max_biased = i64::try_from(format.max_finite_bits() >> format.mantissa_bits()).unwrap_or(0);
    if biased > max_biased {
        return Err(Outside::Range { negative });
    }
    if fnu && biased < 0 {
        return Err(Outside::Range { negative: true });
    }
    // 0 <= biased <= max_biased < 2^11, mantissa < 2^52.
    let magnitude =
        (biased.cast_unsigned() << format.mantissa_bits()) | u64::try_from(mantissa).unwrap_or(0);
    Ok(if negative {
        magnitude | sign_bit(format)
    } else {
        magnitude
    })
}
