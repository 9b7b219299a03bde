//! IEEE binary16 to and from `f32` as numpy converts them on x86 (F16C's rules: exact
//! widening; narrowing rounds to nearest, ties to even, overflows to ±Infinity and keeps a
//! NaN's sign and top payload bits, quieted). numpy computes every float16 operation in
//! `f32` and narrows the result; `f32` holds twice float16's precision and more, so that is
//! the correctly rounded float16 result.

/// The `f32` of a float16 bit pattern, exactly.
pub fn to_f32(half: u16) -> f32 {
    let sign = u32::from(half & 0x8000) << 16;
    let exponent = u32::from((half >> 10) & 0x1f);
    let mantissa = u32::from(half & 0x3ff);
    match exponent {
        0x1f => f32::from_bits(sign | 0x7f80_0000 | (mantissa << 13)),
        0 => {
            // Zero or subnormal: mantissa × 2^-24, exact in f32.
            #[allow(clippy::cast_precision_loss)] // mantissa < 2^10
            let magnitude = mantissa as f32 * (1.0 / 16_777_216.0);
            if sign == 0 { magnitude } else { -magnitude }
        }
        _ => f32::from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13)),
    }
}

/// The float16 bit pattern nearest `value` (ties to even).
pub fn from_f32(value: f32) -> u16 {
    let bits = value.to_bits();
    #[allow(clippy::cast_possible_truncation)] // the sign bit, moved to bit 15
    let sign = ((bits >> 16) & 0x8000) as u16;
    let magnitude = bits & 0x7fff_ffff;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // each fits 15 bits
    let half = if magnitude > 0x7f80_0000 {
        0x7e00 | ((magnitude & 0x007f_ffff) >> 13) as u16
    } else if magnitude >= 0x477f_f000 {
        0x7c00 // at or past halfway from 65504 to 65536: Infinity
    } else if magnitude < 0x3880_0000 {
        // Below the smallest normal (2^-14): a multiple of 2^-24, rounded.
        (f32::from_bits(magnitude) * 16_777_216.0).round_ties_even() as u16
    } else {
        let mut half = (((magnitude >> 23) - 112) << 10) | ((magnitude >> 13) & 0x3ff);
        let rest = magnitude & 0x1fff;
        if rest > 0x1000 || (rest == 0x1000 && half & 1 == 1) {
            half += 1; // a carry into the exponent is the right result
        }
        half as u16
    };
    sign | half
}

/// `op` on two float16 values as numpy computes it: in `f32`, then narrowed.
pub fn apply(a: u16, b: u16, op: impl Fn(f32, f32) -> f32) -> u16 {
    from_f32(op(to_f32(a), to_f32(b)))
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    #[test]
    fn every_half_round_trips() {
        for half in 0..=u16::MAX {
            let back = from_f32(to_f32(half));
            if to_f32(half).is_nan() {
                assert!(to_f32(back).is_nan());
                assert_eq!(back & 0x8000, half & 0x8000);
            } else {
                assert_eq!(back, half, "{half:#06x}");
            }
        }
    }

    #[test]
    fn rounds_to_nearest_even_and_overflows() {
        assert_eq!(from_f32(65504.0), 0x7bff);
        assert_eq!(from_f32(65519.0), 0x7bff);
        assert_eq!(from_f32(65520.0), 0x7c00);
        assert_eq!(from_f32(-1e9), 0xfc00);
        assert_eq!(from_f32(1.0 + 1.0 / 2048.0), 0x3c00); // tie to even: down
        assert_eq!(from_f32(1.0 + 3.0 / 2048.0), 0x3c02); // tie to even: up
        assert_eq!(from_f32(2f32.powi(-25)), 0); // a tie between 0 and the least subnormal
        assert_eq!(from_f32(3.0 * 2f32.powi(-25)), 2);
        assert_eq!(from_f32(-0.0), 0x8000);
    }
}
