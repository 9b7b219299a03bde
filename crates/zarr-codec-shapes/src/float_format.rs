//! Binary floating-point formats and exact conversion between them and `f64`.
//!
//! Covers the IEEE 754 formats of the Zarr v3 core data types (`float16`, `float32`,
//! `float64`) and the extension formats of the
//! [zarr-extensions data types](https://github.com/zarr-developers/zarr-extensions/tree/main/data-types):
//! `bfloat16`, the `float8_*` family, `float6_e2m3fn`, `float6_e3m2fn` and `float4_e2m1fn`.
//!
//! [`f64_to_bits_rounded`] rounds to nearest, ties to even, as the v3 fill value rules
//! require ("rounded to the nearest representable value using the round half to even rule");
//! [`bits_to_f64`] is exact, since every value of these formats is an `f64`.

use crate::error::{CodecError, Result};

/// How a format encodes zero, infinity and NaN.
///
/// The names follow LLVM/MLIR (`F`: finite, no infinities; `N`: a special NaN encoding;
/// `UZ`: unsigned zero; `U`: unsigned, no zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FloatEncoding {
    /// IEEE 754: the largest exponent holds infinity (zero mantissa) and NaN (non-zero
    /// mantissa); signed zero; subnormal numbers when the biased exponent is 0.
    Ieee,
    /// `fnuz`: no infinity; NaN is the pattern `0b1000…0` (the would-be negative zero), so zero
    /// is unsigned; the largest exponent holds finite numbers; subnormal numbers.
    Fnuz,
    /// `fn`: no infinity and no NaN; every pattern is a finite number; signed zero;
    /// subnormal numbers.
    Fn,
    /// `fnu` (`float8_e8m0fnu`): no sign bit and no mantissa, so no zero and no subnormals;
    /// the all-ones pattern is NaN; every other pattern `e` is `2^(e - bias)`.
    Fnu,
}

/// A binary floating-point format: sign, exponent and mantissa widths, bias and encoding.
///
/// The only values are the associated constants, one per Zarr data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    name: &'static str,
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i32,
    encoding: FloatEncoding,
}

impl std::fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl FloatFormat {
    /// IEEE 754 binary16 (`float16`): 5 exponent bits, 10 mantissa bits, NaN `0x7e00`.
    pub const FLOAT16: Self = Self::new("float16", 5, 10, 15, FloatEncoding::Ieee);
    /// `bfloat16`: 8 exponent bits, 7 mantissa bits, NaN `0x7fc0`.
    pub const BFLOAT16: Self = Self::new("bfloat16", 8, 7, 127, FloatEncoding::Ieee);
    /// IEEE 754 binary32 (`float32`), NaN `0x7fc00000`.
    pub const FLOAT32: Self = Self::new("float32", 8, 23, 127, FloatEncoding::Ieee);
    /// IEEE 754 binary64 (`float64`), NaN `0x7ff8000000000000`.
    pub const FLOAT64: Self = Self::new("float64", 11, 52, 1023, FloatEncoding::Ieee);
    /// `float8_e3m4`: IEEE-like, bias 3, NaN `0x78`.
    pub const FLOAT8_E3M4: Self = Self::new("float8_e3m4", 3, 4, 3, FloatEncoding::Ieee);
    /// `float8_e4m3`: IEEE-like, bias 7, NaN `0x7c`.
    pub const FLOAT8_E4M3: Self = Self::new("float8_e4m3", 4, 3, 7, FloatEncoding::Ieee);
    /// `float8_e4m3b11fnuz`: bias 11, no infinity, NaN `0x80`.
    pub const FLOAT8_E4M3B11FNUZ: Self =
        Self::new("float8_e4m3b11fnuz", 4, 3, 11, FloatEncoding::Fnuz);
    /// `float8_e4m3fnuz`: bias 8, no infinity, NaN `0x80`.
    pub const FLOAT8_E4M3FNUZ: Self = Self::new("float8_e4m3fnuz", 4, 3, 8, FloatEncoding::Fnuz);
    /// `float8_e5m2`: IEEE-like, bias 15, NaN `0x7e`.
    pub const FLOAT8_E5M2: Self = Self::new("float8_e5m2", 5, 2, 15, FloatEncoding::Ieee);
    /// `float8_e5m2fnuz`: bias 16, no infinity, NaN `0x80`.
    pub const FLOAT8_E5M2FNUZ: Self = Self::new("float8_e5m2fnuz", 5, 2, 16, FloatEncoding::Fnuz);
    /// `float8_e8m0fnu`: unsigned powers of two `2^(e - 127)`, no zero, NaN `0xff`.
    pub const FLOAT8_E8M0FNU: Self = Self::new("float8_e8m0fnu", 8, 0, 127, FloatEncoding::Fnu);
    /// `float6_e2m3fn`: bias 1, no infinity, no NaN (largest value 7.5).
    pub const FLOAT6_E2M3FN: Self = Self::new("float6_e2m3fn", 2, 3, 1, FloatEncoding::Fn);
    /// `float6_e3m2fn`: bias 3, no infinity, no NaN (largest value 28).
    pub const FLOAT6_E3M2FN: Self = Self::new("float6_e3m2fn", 3, 2, 3, FloatEncoding::Fn);
    /// `float4_e2m1fn`: bias 1, no infinity, no NaN (largest value 6).
    pub const FLOAT4_E2M1FN: Self = Self::new("float4_e2m1fn", 2, 1, 1, FloatEncoding::Fn);

    const fn new(
        name: &'static str,
        exponent_bits: u32,
        mantissa_bits: u32,
        bias: i32,
        encoding: FloatEncoding,
    ) -> Self {
        Self {
            name,
            exponent_bits,
            mantissa_bits,
            bias,
            encoding,
        }
    }

    /// The Zarr v3 name of the data type with this format (`"float16"`, `"float8_e4m3"`, ...).
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The number of exponent bits.
    pub const fn exponent_bits(self) -> u32 {
        self.exponent_bits
    }

    /// The number of explicitly stored mantissa (fraction) bits.
    pub const fn mantissa_bits(self) -> u32 {
        self.mantissa_bits
    }

    /// The exponent bias.
    pub const fn bias(self) -> i32 {
        self.bias
    }

    /// How zero, infinity and NaN are encoded.
    pub const fn encoding(self) -> FloatEncoding {
        self.encoding
    }

    /// Whether the format has a sign bit (all but [`FloatEncoding::Fnu`]).
    pub const fn has_sign(self) -> bool {
        !matches!(self.encoding, FloatEncoding::Fnu)
    }

    /// The width of a value in bits (sign, exponent and mantissa).
    pub const fn total_bits(self) -> u32 {
        self.has_sign() as u32 + self.exponent_bits + self.mantissa_bits
    }

    /// Whether the format represents infinities.
    pub const fn has_inf(self) -> bool {
        matches!(self.encoding, FloatEncoding::Ieee)
    }

    /// Whether the format represents NaN.
    pub const fn has_nan(self) -> bool {
        !matches!(self.encoding, FloatEncoding::Fn)
    }

    /// Whether the format has a distinct negative zero.
    pub const fn has_negative_zero(self) -> bool {
        matches!(self.encoding, FloatEncoding::Ieee | FloatEncoding::Fn)
    }

    /// A mask of the [`total_bits`](Self::total_bits) low bits.
    pub const fn bits_mask(self) -> u64 {
        low_mask(self.total_bits())
    }

    const fn sign_bit(self) -> u64 {
        if self.has_sign() {
            1 << (self.total_bits() - 1)
        } else {
            0
        }
    }

    const fn exponent_all_ones(self) -> u64 {
        low_mask(self.exponent_bits)
    }

    /// The largest biased exponent of a finite number.
    const fn max_finite_exponent(self) -> u64 {
        match self.encoding {
            FloatEncoding::Ieee | FloatEncoding::Fnu => self.exponent_all_ones() - 1,
            FloatEncoding::Fnuz | FloatEncoding::Fn => self.exponent_all_ones(),
        }
    }

    /// The canonical NaN: the one the fill value string `"NaN"` denotes (positive, quiet,
    /// only the most significant mantissa bit set for IEEE formats; `0x80` for `fnuz`;
    /// `0xff` for `float8_e8m0fnu`), or `None` when the format has no NaN.
    pub const fn nan_bits(self) -> Option<u64> {
        match self.encoding {
            FloatEncoding::Ieee => Some(
                (self.exponent_all_ones() << self.mantissa_bits) | (1 << (self.mantissa_bits - 1)),
            ),
            FloatEncoding::Fnuz => Some(self.sign_bit()),
            FloatEncoding::Fnu => Some(self.bits_mask()),
            FloatEncoding::Fn => None,
        }
    }

    /// The pattern of positive infinity, or `None` when the format has none.
    pub const fn infinity_bits(self) -> Option<u64> {
        if self.has_inf() {
            Some(self.exponent_all_ones() << self.mantissa_bits)
        } else {
            None
        }
    }

    /// The pattern of the largest finite value.
    pub const fn max_finite_bits(self) -> u64 {
        (self.max_finite_exponent() << self.mantissa_bits) | low_mask(self.mantissa_bits)
    }

    /// The largest finite value.
    pub fn max_finite(self) -> f64 {
        bits_to_f64(self.max_finite_bits(), self)
    }

    /// Whether `bits` (masked to [`total_bits`](Self::total_bits)) is a NaN of this format.
    pub const fn is_nan_bits(self, bits: u64) -> bool {
        let bits = bits & self.bits_mask();
        match self.encoding {
            FloatEncoding::Ieee => {
                let magnitude = bits & !self.sign_bit();
                magnitude > (self.exponent_all_ones() << self.mantissa_bits)
            }
            FloatEncoding::Fnuz => bits == self.sign_bit(),
            FloatEncoding::Fnu => bits == self.bits_mask(),
            FloatEncoding::Fn => false,
        }
    }

    /// Whether `bits` (masked to [`total_bits`](Self::total_bits)) is an infinity.
    pub const fn is_inf_bits(self, bits: u64) -> bool {
        match self.infinity_bits() {
            Some(inf) => bits & self.bits_mask() & !self.sign_bit() == inf,
            None => false,
        }
    }

    /// Whether the sign bit of `bits` is set (always false without a sign bit).
    pub const fn is_sign_negative_bits(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }
}

/// The `bits` low bits set.
const fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// `2^exponent` as an `f64`: exact for `-1074 <= exponent <= 1023`, 0 or infinity beyond.
fn pow2(exponent: i32) -> f64 {
    if exponent > 1023 {
        f64::INFINITY
    } else if exponent >= -1022 {
        // Normal: biased exponent in 1..=2046.
        f64::from_bits(u64::from((exponent + 1023).unsigned_abs()) << 52)
    } else if exponent >= -1074 {
        f64::from_bits(1 << (exponent + 1074).unsigned_abs())
    } else {
        0.0
    }
}

/// Decodes a value of `format` to `f64`, exactly.
///
/// Bits above [`FloatFormat::total_bits`] are ignored (the `float6`/`float4` data types are
/// stored with unused upper bits). NaN patterns decode to a NaN with the same sign bit;
/// their payload is not kept.
pub fn bits_to_f64(bits: u64, format: FloatFormat) -> f64 {
    let bits = bits & format.bits_mask();
    if format.is_nan_bits(bits) {
        return if format.is_sign_negative_bits(bits) {
            -f64::NAN
        } else {
            f64::NAN
        };
    }
    let mantissa_bits = format.mantissa_bits;
    let mantissa = bits & low_mask(mantissa_bits);
    let exponent = (bits >> mantissa_bits) & format.exponent_all_ones();
    let magnitude = if format.is_inf_bits(bits) {
        f64::INFINITY
    } else if format.encoding == FloatEncoding::Fnu {
        // exponent < 2^8, so the conversion is exact.
        pow2(i32::try_from(exponent).unwrap_or(i32::MAX) - format.bias)
    } else {
        let mantissa_bits_i32 = i32::try_from(mantissa_bits).unwrap_or(i32::MAX);
        let (significand, scale) = if exponent == 0 {
            (mantissa, 1 - format.bias - mantissa_bits_i32)
        } else {
            let exponent = i32::try_from(exponent).unwrap_or(i32::MAX);
            (
                mantissa | (1 << mantissa_bits),
                exponent - format.bias - mantissa_bits_i32,
            )
        };
        // significand < 2^53 is exact; the product is a power-of-two scaling of it that stays
        // in the f64 range for every format, so it is exact too.
        #[allow(clippy::cast_precision_loss)]
        let significand = significand as f64;
        significand * pow2(scale)
    };
    if format.is_sign_negative_bits(bits) {
        -magnitude
    } else {
        magnitude
    }
}

/// Rounds `value` to `format`, to nearest with ties to even, and returns its bit pattern.
///
/// - NaN becomes the format's canonical NaN ([`FloatFormat::nan_bits`]); the payload is not
///   kept. Error ([`CodecError::OutOfRange`]) for a format without NaN.
/// - Infinities, and finite values whose rounded magnitude exceeds the largest finite value
///   (IEEE overflow: `|value| >= max + ulp(max) / 2`), become infinity; error for a format
///   without infinity (no saturation: the caller decides whether to clamp first).
/// - Values too small in magnitude round to zero, keeping the sign where the format has a
///   negative zero (`fnuz` formats have a single zero: `-0.0` gives `0x00`).
/// - `float8_e8m0fnu` has neither zero nor negative values: zero and negative values are an
///   error; positive values below the smallest, `2^-127`, round to it. Its significand is
///   the implicit bit alone, which is odd, so a tie between `2^k` and `2^(k+1)` (`1.5 * 2^k`)
///   rounds up, as in `ml_dtypes` and LLVM's `APFloat`.
pub fn f64_to_bits_rounded(value: f64, format: FloatFormat) -> Result<u64> {
    if value.is_nan() {
        return format.nan_bits().ok_or_else(|| {
            CodecError::out_of_range(format!("NaN is not representable in {format}"))
        });
    }
    let negative = value.is_sign_negative();
    if value.is_infinite() && !format.has_inf() {
        return Err(CodecError::out_of_range(format!(
            "{format} has no infinity"
        )));
    }
    if value.is_infinite() {
        return overflow(negative, format, value);
    }
    let raw = value.to_bits();
    let biased_exponent = (raw >> 52) & 0x7ff;
    let fraction = raw & low_mask(52);
    if biased_exponent == 0 && fraction == 0 {
        return zero(negative, format, value);
    }
    let (significand, exponent) = if biased_exponent == 0 {
        (fraction, -1074)
    } else {
        // biased_exponent < 2^11, so the conversion is exact.
        let biased_exponent = i32::try_from(biased_exponent).unwrap_or(i32::MAX);
        (fraction | (1 << 52), biased_exponent - 1075)
    };
    round_parts(negative, u128::from(significand), exponent, format, value)
}

/// Rounds the integer `value` to `format` exactly (a single rounding, to nearest with ties to
/// even), with the same rules as [`f64_to_bits_rounded`].
pub fn i128_to_bits_rounded(value: i128, format: FloatFormat) -> Result<u64> {
    let negative = value < 0;
    if value == 0 {
        return zero(false, format, value);
    }
    round_parts(negative, value.unsigned_abs(), 0, format, value)
}

fn zero(negative: bool, format: FloatFormat, value: impl std::fmt::Debug) -> Result<u64> {
    match format.encoding {
        FloatEncoding::Fnu => Err(CodecError::out_of_range(format!(
            "{value:?} is not representable in float8_e8m0fnu, which has no zero"
        ))),
        FloatEncoding::Fnuz => Ok(0),
        FloatEncoding::Ieee | FloatEncoding::Fn => Ok(if negative { format.sign_bit() } else { 0 }),
    }
}

fn overflow(negative: bool, format: FloatFormat, value: impl std::fmt::Debug) -> Result<u64> {
    match format.infinity_bits() {
        Some(inf) => Ok(if negative {
            inf | format.sign_bit()
        } else {
            inf
        }),
        None => Err(CodecError::out_of_range(format!(
            "{value:?} is outside the finite range of {format}, which has no infinity"
        ))),
    }
}

/// Rounds the non-zero magnitude `significand * 2^exponent` (`significand <= 2^127`).
fn round_parts(
    negative: bool,
    significand: u128,
    exponent: i32,
    format: FloatFormat,
    value: impl std::fmt::Debug + Copy,
) -> Result<u64> {
    if negative && !format.has_sign() {
        return Err(CodecError::out_of_range(format!(
            "{value:?} is negative; float8_e8m0fnu holds positive values only"
        )));
    }
    let mantissa_bits = i32::try_from(format.mantissa_bits).unwrap_or(i32::MAX);
    // floor(log2(magnitude)); the bit length of a u128 is at most 128.
    let bit_length = 128 - i32::try_from(significand.leading_zeros()).unwrap_or(128);
    let log2 = exponent + bit_length - 1;
    let min_exponent = match format.encoding {
        FloatEncoding::Fnu => -format.bias,
        _ => 1 - format.bias,
    };
    if format.encoding == FloatEncoding::Fnu && log2 < min_exponent {
        // No zero and no subnormals: the nearest value is the smallest one, 2^-bias (0x00).
        return Ok(0);
    }
    // The exponent of the last mantissa bit: the quantum of the result.
    let mut quantum = log2.max(min_exponent) - mantissa_bits;
    let mut rounded = shift_round_half_even(significand, exponent - quantum);
    if rounded == 0 {
        return zero(negative, format, value);
    }
    if rounded >> (mantissa_bits + 1) != 0 {
        // Rounding carried into a new leading bit: rounded == 2^(mantissa_bits + 1).
        rounded >>= 1;
        quantum += 1;
    }
    let implicit_bit = 1u128 << mantissa_bits;
    let (biased_exponent, mantissa) = if rounded >= implicit_bit {
        (
            i64::from(quantum) + i64::from(mantissa_bits) + i64::from(format.bias),
            rounded - implicit_bit,
        )
    } else {
        // Subnormal: quantum == min_exponent - mantissa_bits.
        (0, rounded)
    };
    let max_exponent = i64::try_from(format.max_finite_exponent()).unwrap_or(i64::MAX);
    if biased_exponent > max_exponent {
        return overflow(negative, format, value);
    }
    // 0 <= biased_exponent <= max_exponent < 2^11 and mantissa < 2^52.
    let biased_exponent = u64::try_from(biased_exponent).unwrap_or(0);
    let mantissa = u64::try_from(mantissa).unwrap_or(0);
    let magnitude = (biased_exponent << format.mantissa_bits) | mantissa;
    Ok(if negative {
        magnitude | format.sign_bit()
    } else {
        magnitude
    })
}

/// `value * 2^shift`, rounded to an integer, ties to even. For `shift > 0` the caller
/// guarantees the result fits (`shift <= 53 - bit_length(value)`), and `value <= 2^127`.
fn shift_round_half_even(value: u128, shift: i32) -> u128 {
    if shift >= 0 {
        return value << shift.unsigned_abs();
    }
    let right = shift.unsigned_abs();
    if right >= 128 {
        // value * 2^-right <= 2^127 * 2^-128 = 1/2, and a tie rounds to the even 0.
        return 0;
    }
    let kept = value >> right;
    let remainder = value & ((1u128 << right) - 1);
    let half = 1u128 << (right - 1);
    if remainder > half || (remainder == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact conversions: exact comparisons are the point
mod tests {
    use super::*;

    #[test]
    fn pow2_covers_the_f64_range() {
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-1022), f64::MIN_POSITIVE);
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(-1075), 0.0);
        assert_eq!(pow2(1023), 2f64.powi(1023));
        assert_eq!(pow2(1024), f64::INFINITY);
    }

    #[test]
    fn shift_rounds_half_to_even() {
        assert_eq!(shift_round_half_even(0b101, 2), 0b10100);
        assert_eq!(shift_round_half_even(0b1010, -2), 0b10); // 2.5 -> 2
        assert_eq!(shift_round_half_even(0b1110, -2), 0b100); // 3.5 -> 4
        assert_eq!(shift_round_half_even(0b1011, -2), 0b11); // 2.75 -> 3
        assert_eq!(shift_round_half_even(0b1001, -2), 0b10); // 2.25 -> 2
        assert_eq!(shift_round_half_even(1 << 127, -128), 0); // 0.5 -> 0
        assert_eq!(shift_round_half_even(u128::MAX, -200), 0);
    }

    #[test]
    fn format_properties() {
        let e4m3 = FloatFormat::FLOAT8_E4M3;
        assert_eq!(e4m3.total_bits(), 8);
        assert_eq!(e4m3.infinity_bits(), Some(0x78));
        assert_eq!(e4m3.max_finite(), 240.0);
        assert!(e4m3.is_nan_bits(0xff) && e4m3.is_inf_bits(0xf8));
        let e8m0 = FloatFormat::FLOAT8_E8M0FNU;
        assert!(!e8m0.has_sign() && !e8m0.has_negative_zero());
        assert_eq!(e8m0.total_bits(), 8);
        assert_eq!(e8m0.max_finite(), 2f64.powi(127));
        let e2m1 = FloatFormat::FLOAT4_E2M1FN;
        assert_eq!(e2m1.bits_mask(), 0xf);
        assert_eq!((e2m1.nan_bits(), e2m1.infinity_bits()), (None, None));
        assert_eq!(e2m1.to_string(), "float4_e2m1fn");
        let fnuz = FloatFormat::FLOAT8_E5M2FNUZ;
        assert!(fnuz.is_nan_bits(0x80) && !fnuz.is_nan_bits(0xff));
        assert_eq!(fnuz.max_finite(), 57344.0);
    }
}
