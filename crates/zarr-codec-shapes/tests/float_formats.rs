//! Exhaustive and randomised checks of `bits_to_f64` / `f64_to_bits_rounded` for every
//! float format: every bit pattern of the formats up to 16 bits, every rounding midpoint,
//! and references built on the native `f32`/`f64` conversions.

use zarr_codec_shapes::{
    CodecError, DataType, ErrorKind, FloatEncoding, FloatFormat, bits_to_f64, f64_to_bits_rounded,
    i128_to_bits_rounded,
};

type TestResult = Result<(), CodecError>;

fn all_formats() -> Vec<FloatFormat> {
    DataType::ALL
        .into_iter()
        .filter(|data_type| data_type.is_float())
        .filter_map(DataType::float_format)
        .collect()
}

fn small_formats() -> Vec<FloatFormat> {
    all_formats()
        .into_iter()
        .filter(|format| format.total_bits() <= 16)
        .collect()
}

/// A decoder written from the data type documents alone, with `powi` instead of bit tricks.
fn reference_decode(bits: u64, format: FloatFormat) -> f64 {
    let m = format.mantissa_bits();
    let e = format.exponent_bits();
    let sign_shift = m + e;
    let negative = format.has_sign() && (bits >> sign_shift) & 1 == 1;
    let exponent = i32::try_from((bits >> m) & ((1 << e) - 1)).expect("small exponent");
    let mantissa = bits & ((1 << m) - 1);
    let all_ones = (1 << e) - 1;
    #[allow(clippy::cast_precision_loss)]
    let fraction = mantissa as f64 / f64::from(1u32 << m);
    let magnitude = match format.encoding() {
        FloatEncoding::Ieee if exponent == all_ones => {
            if mantissa == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        FloatEncoding::Fnuz if negative && exponent == 0 && mantissa == 0 => f64::NAN,
        FloatEncoding::Fnu if exponent == all_ones => f64::NAN,
        FloatEncoding::Fnu => 2f64.powi(exponent - format.bias()),
        _ if exponent == 0 => fraction * 2f64.powi(1 - format.bias()),
        _ => (1.0 + fraction) * 2f64.powi(exponent - format.bias()),
    };
    if negative { -magnitude } else { magnitude }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// The next `f64` away from zero (for finite non-negative `x`).
fn next_up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

/// The next `f64` towards zero (for finite positive `x`).
fn next_down(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

/// splitmix64: a small deterministic generator for the randomised checks.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[test]
fn every_pattern_decodes_and_round_trips() -> TestResult {
    for format in small_formats() {
        for bits in 0..(1u64 << format.total_bits()) {
            let value = bits_to_f64(bits, format);
            let expected = reference_decode(bits, format);
            assert!(
                same(value, expected),
                "{format} {bits:#x}: {value} != {expected}"
            );
            let back = f64_to_bits_rounded(value, format)?;
            if value.is_nan() {
                assert!(format.is_nan_bits(bits), "{format} {bits:#x}");
                assert_eq!(Some(back), format.nan_bits(), "{format} {bits:#x}");
            } else {
                assert!(!format.is_nan_bits(bits), "{format} {bits:#x}");
                assert_eq!(back, bits, "{format} {bits:#x} ({value})");
            }
        }
    }
    Ok(())
}

#[test]
fn midpoints_round_half_to_even() -> TestResult {
    for format in small_formats() {
        // The non-negative finite values in increasing order (bit patterns increase with
        // magnitude).
        let values: Vec<(u64, f64)> = (0..(1u64 << format.total_bits()))
            .map(|bits| (bits, bits_to_f64(bits, format)))
            .filter(|(bits, value)| {
                value.is_finite() && !format.is_sign_negative_bits(*bits) && *value >= 0.0
            })
            .collect();
        for pair in values.windows(2) {
            let [(low_bits, low), (high_bits, high)] = [pair[0], pair[1]];
            assert!(low < high, "{format}: {low} !< {high}");
            let mid = f64::midpoint(low, high); // exact: both have few significant bits
            let tie = if format.encoding() == FloatEncoding::Fnu {
                // The significand is the odd implicit bit alone: ties round up.
                high_bits
            } else if low_bits & 1 == 0 {
                low_bits
            } else {
                high_bits
            };
            assert_eq!(f64_to_bits_rounded(mid, format)?, tie, "{format} mid {mid}");
            assert_eq!(
                f64_to_bits_rounded(next_up(mid), format)?,
                high_bits,
                "{format}"
            );
            assert_eq!(
                f64_to_bits_rounded(next_down(mid), format)?,
                low_bits,
                "{format}"
            );
            if format.has_sign() {
                let sign = 1 << (format.total_bits() - 1);
                let expected = match tie {
                    0 if !format.has_negative_zero() => 0, // fnuz: a single zero
                    _ => tie | sign,
                };
                assert_eq!(
                    f64_to_bits_rounded(-mid, format)?,
                    expected,
                    "{format} -{mid}"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn overflow_goes_to_infinity_or_fails() -> TestResult {
    for format in all_formats() {
        let max_bits = format.max_finite_bits();
        let max = format.max_finite();
        let below = bits_to_f64(max_bits - 1, format);
        // Half an ulp above the largest value: for Fnu the next power of two up.
        let half_ulp = (max - below) / 2.0;
        let threshold = if format.encoding() == FloatEncoding::Fnu {
            max * 1.5
        } else {
            max + half_ulp
        };
        assert_eq!(
            f64_to_bits_rounded(next_down(threshold), format)?,
            max_bits,
            "{format}"
        );
        let mut too_large = vec![threshold, max * 4.0, f64::INFINITY];
        if format != FloatFormat::FLOAT64 {
            too_large.push(f64::MAX);
        }
        for value in too_large {
            let result = f64_to_bits_rounded(value, format).map_err(|error| error.kind());
            let expected = format.infinity_bits().ok_or(ErrorKind::OutOfRange);
            assert_eq!(result, expected, "{format} {value:e}");
        }
    }
    Ok(())
}

#[test]
fn known_values() -> TestResult {
    assert_eq!(f64_to_bits_rounded(0.1, FloatFormat::FLOAT16)?, 0x2e66);
    assert_eq!(f64_to_bits_rounded(0.1, FloatFormat::BFLOAT16)?, 0x3dcd);
    let cases: [(FloatFormat, f64, u64); 23] = [
        (FloatFormat::FLOAT16, 1.0, 0x3c00),
        (FloatFormat::FLOAT16, 65504.0, 0x7bff),
        (FloatFormat::FLOAT16, 2f64.powi(-24), 0x0001),
        (FloatFormat::FLOAT16, -2.0, 0xc000),
        (FloatFormat::BFLOAT16, 1.0, 0x3f80),
        (FloatFormat::FLOAT32, 1.0, 0x3f80_0000),
        (FloatFormat::FLOAT64, 1.0, 0x3ff0_0000_0000_0000),
        (FloatFormat::FLOAT8_E3M4, 15.5, 0x6f),
        (FloatFormat::FLOAT8_E4M3, 240.0, 0x77),
        (FloatFormat::FLOAT8_E4M3, 1.0, 0x38),
        (FloatFormat::FLOAT8_E4M3B11FNUZ, 30.0, 0x7f),
        (FloatFormat::FLOAT8_E4M3FNUZ, 240.0, 0x7f),
        (FloatFormat::FLOAT8_E4M3FNUZ, 1.0, 0x40),
        (FloatFormat::FLOAT8_E5M2, 57344.0, 0x7b),
        (FloatFormat::FLOAT8_E5M2FNUZ, 57344.0, 0x7f),
        (FloatFormat::FLOAT8_E8M0FNU, 1.0, 0x7f),
        (FloatFormat::FLOAT8_E8M0FNU, 2f64.powi(127), 0xfe),
        (FloatFormat::FLOAT8_E8M0FNU, 2f64.powi(-127), 0x00),
        (FloatFormat::FLOAT6_E2M3FN, 7.5, 0x1f),
        (FloatFormat::FLOAT6_E3M2FN, 28.0, 0x1f),
        (FloatFormat::FLOAT6_E3M2FN, -28.0, 0x3f),
        (FloatFormat::FLOAT4_E2M1FN, 6.0, 0x7),
        (FloatFormat::FLOAT4_E2M1FN, 0.5, 0x1),
    ];
    for (format, value, bits) in cases {
        assert_eq!(
            f64_to_bits_rounded(value, format)?,
            bits,
            "{format} {value}"
        );
        assert!(same(bits_to_f64(bits, format), value), "{format} {bits:#x}");
    }
    let nans = [
        (FloatFormat::FLOAT16, Some(0x7e00)),
        (FloatFormat::BFLOAT16, Some(0x7fc0)),
        (FloatFormat::FLOAT32, Some(0x7fc0_0000)),
        (FloatFormat::FLOAT64, Some(0x7ff8_0000_0000_0000)),
        (FloatFormat::FLOAT8_E3M4, Some(0x78)),
        (FloatFormat::FLOAT8_E4M3, Some(0x7c)),
        (FloatFormat::FLOAT8_E4M3B11FNUZ, Some(0x80)),
        (FloatFormat::FLOAT8_E4M3FNUZ, Some(0x80)),
        (FloatFormat::FLOAT8_E5M2, Some(0x7e)),
        (FloatFormat::FLOAT8_E5M2FNUZ, Some(0x80)),
        (FloatFormat::FLOAT8_E8M0FNU, Some(0xff)),
        (FloatFormat::FLOAT6_E2M3FN, None),
        (FloatFormat::FLOAT6_E3M2FN, None),
        (FloatFormat::FLOAT4_E2M1FN, None),
    ];
    for (format, nan) in nans {
        assert_eq!(format.nan_bits(), nan, "{format}");
        assert_eq!(f64_to_bits_rounded(f64::NAN, format).ok(), nan, "{format}");
    }
    Ok(())
}

#[test]
fn special_cases_of_the_unusual_encodings() -> TestResult {
    let e8m0 = FloatFormat::FLOAT8_E8M0FNU;
    for value in [0.0, -0.0, -1.0, f64::NEG_INFINITY, -1e-300] {
        let error = f64_to_bits_rounded(value, e8m0).expect_err("not representable");
        assert_eq!(error.kind(), ErrorKind::OutOfRange, "{value}");
    }
    assert_eq!(f64_to_bits_rounded(1e-300, e8m0)?, 0x00);
    assert_eq!(f64_to_bits_rounded(1.5, e8m0)?, 0x80); // tie 1 | 2 -> 2
    assert_eq!(f64_to_bits_rounded(3.0, e8m0)?, 0x81); // tie 2 | 4 -> 4
    assert_eq!(f64_to_bits_rounded(2.9, e8m0)?, 0x80);
    assert!(i128_to_bits_rounded(0, e8m0).is_err());
    for format in [FloatFormat::FLOAT8_E4M3FNUZ, FloatFormat::FLOAT8_E5M2FNUZ] {
        assert_eq!(f64_to_bits_rounded(-0.0, format)?, 0x00, "{format}");
        assert_eq!(f64_to_bits_rounded(-1e-300, format)?, 0x00, "{format}");
    }
    for format in [FloatFormat::FLOAT6_E2M3FN, FloatFormat::FLOAT4_E2M1FN] {
        assert!(f64_to_bits_rounded(f64::NAN, format).is_err(), "{format}");
        assert!(
            f64_to_bits_rounded(f64::INFINITY, format).is_err(),
            "{format}"
        );
        assert!(
            f64_to_bits_rounded(-0.0, format)? != 0,
            "{format} keeps -0.0"
        );
    }
    // Upper bits of the sub-byte formats are ignored.
    assert!(same(bits_to_f64(0xf7, FloatFormat::FLOAT4_E2M1FN), 6.0));
    assert!(same(bits_to_f64(0xdf, FloatFormat::FLOAT6_E2M3FN), 7.5));
    Ok(())
}

#[test]
fn float32_and_float64_match_native_conversions() -> TestResult {
    let mut rng = Rng(1);
    for _ in 0..200_000 {
        let value = f64::from_bits(rng.next());
        #[allow(clippy::cast_possible_truncation)]
        let native = value as f32;
        let expected = if native.is_nan() {
            0x7fc0_0000
        } else {
            u64::from(native.to_bits())
        };
        assert_eq!(
            f64_to_bits_rounded(value, FloatFormat::FLOAT32)?,
            expected,
            "{value:e}"
        );
        let bits = rng.next() >> 32;
        let narrow = f32::from_bits(u32::try_from(bits).expect("32 bits"));
        assert!(same(
            bits_to_f64(bits, FloatFormat::FLOAT32),
            f64::from(narrow)
        ));
        if !value.is_nan() {
            assert_eq!(
                f64_to_bits_rounded(value, FloatFormat::FLOAT64)?,
                value.to_bits()
            );
            assert!(same(
                bits_to_f64(value.to_bits(), FloatFormat::FLOAT64),
                value
            ));
        }
    }
    // Values near float32 boundaries: subnormal, overflow threshold, ties.
    let specials = [
        f64::from(f32::MAX),
        f64::from(f32::MAX) + 2f64.powi(103),
        f64::from(f32::MAX) + 2f64.powi(103) - 2f64.powi(60),
        2f64.powi(-149),
        2f64.powi(-150),
        2f64.powi(-150) * 1.000_001,
        1.0 + 2f64.powi(-24),
        1.0 + 3.0 * 2f64.powi(-24),
        f64::MIN_POSITIVE,
        -0.0,
    ];
    for value in specials {
        #[allow(clippy::cast_possible_truncation)]
        let native = value as f32;
        assert_eq!(
            f64_to_bits_rounded(value, FloatFormat::FLOAT32)?,
            u64::from(native.to_bits()),
            "{value:e}"
        );
    }
    Ok(())
}

/// IEEE binary16 from `f32`, round to nearest even: the classic bit-twiddling conversion.
fn reference_f32_to_f16(x: f32) -> u64 {
    let bits = x.to_bits();
    let sign = u64::from((bits >> 16) & 0x8000);
    let exponent = i32::try_from((bits >> 23) & 0xff).expect("8 bits");
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        return sign | if mantissa == 0 { 0x7c00 } else { 0x7e00 };
    }
    let unbiased = exponent - 127;
    if unbiased > 15 {
        return sign | 0x7c00;
    }
    let (significand, shift) = if unbiased >= -14 {
        (mantissa | 0x80_0000, 13)
    } else {
        if exponent == 0 || unbiased < -25 {
            return sign;
        }
        (mantissa | 0x80_0000, 13 + (-14 - unbiased))
    };
    let shift = u32::try_from(shift).expect("positive shift");
    let kept = significand >> shift;
    let remainder = significand & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let rounded = if remainder > half || (remainder == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    };
    let magnitude = if unbiased >= -14 {
        // The carry from rounding flows into the exponent (and to infinity past 65504).
        let biased = u32::try_from(unbiased + 15).expect("normal exponent");
        (biased << 10) + rounded - 0x400
    } else {
        rounded
    };
    sign | u64::from(magnitude.min(0x7c00))
}

/// bfloat16 from `f32`, round to nearest even on the bit pattern.
fn reference_f32_to_bf16(x: f32) -> u64 {
    let bits = x.to_bits();
    if x.is_nan() {
        return 0x7fc0;
    }
    u64::from((bits + 0x7fff + ((bits >> 16) & 1)) >> 16)
}

#[test]
fn float16_and_bfloat16_match_f32_references() -> TestResult {
    let mut rng = Rng(2);
    for round in 0..400_000u32 {
        // Half of the inputs concentrated near the float16 range.
        let raw = u32::try_from(rng.next() >> 32).expect("32 bits");
        let bits = if round % 2 == 0 {
            (raw & 0x8fff_ffff) | 0x3000_0000
        } else {
            raw
        };
        let x = f32::from_bits(bits);
        let value = f64::from(x);
        let half = f64_to_bits_rounded(value, FloatFormat::FLOAT16)?;
        let expected = if x.is_nan() {
            0x7e00
        } else {
            reference_f32_to_f16(x)
        };
        assert_eq!(half, expected, "float16 of {x:e} ({bits:#x})");
        let brain = f64_to_bits_rounded(value, FloatFormat::BFLOAT16)?;
        assert_eq!(brain, reference_f32_to_bf16(x), "bfloat16 of {x:e}");
    }
    Ok(())
}

#[test]
fn integers_round_once() -> TestResult {
    let mut rng = Rng(3);
    for format in all_formats() {
        for value in -3000i64..=3000 {
            #[allow(clippy::cast_precision_loss)]
            let as_float = value as f64;
            assert_eq!(
                i128_to_bits_rounded(i128::from(value), format).ok(),
                f64_to_bits_rounded(as_float, format).ok(),
                "{format} {value}"
            );
        }
    }
    for _ in 0..100_000 {
        let value = i128::from(rng.next()) << (rng.next() % 64) >> 1;
        let value = if rng.next().is_multiple_of(2) {
            value
        } else {
            -value
        };
        #[allow(clippy::cast_precision_loss)]
        let (wide, narrow) = (value as f64, value as f32);
        assert_eq!(
            i128_to_bits_rounded(value, FloatFormat::FLOAT64)?,
            wide.to_bits(),
            "{value}"
        );
        assert_eq!(
            i128_to_bits_rounded(value, FloatFormat::FLOAT32)?,
            u64::from(narrow.to_bits()),
            "{value}"
        );
    }
    assert_eq!(
        i128_to_bits_rounded(i128::MIN, FloatFormat::FLOAT64)?,
        (-(2f64.powi(127))).to_bits()
    );
    // 2^24 + 1 is a float32 tie between 2^24 and 2^24 + 2: even wins.
    assert_eq!(
        i128_to_bits_rounded(16_777_217, FloatFormat::FLOAT32)?,
        u64::from(16_777_216f32.to_bits())
    );
    Ok(())
}
