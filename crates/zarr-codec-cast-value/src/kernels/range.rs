//! The `out_of_range` rule inside the kernels: out-of-range elements are clamped or wrapped
//! with vector arithmetic, giving what the exact path gives, so data with many of them keeps
//! the fast path. What stays hard (redone by the exact path, element by element): NaN and
//! infinities into integers (errors there, unless `scalar_map` maps them), and, into the
//! 64-bit integers, magnitudes the vector conversion cannot take (see [`wide_int`]).
//!
//! The float-to-integer kernels are compiled once per rule ([`STRICT`], [`CLAMP`], [`WRAP`]):
//! testing the rule inside their loops costs as much as the conversion itself. The other
//! kernels test it at run time (see `int_to_int`, `narrow`); float targets treat `wrap` as no
//! rule at all, as the exact path does.

use super::IntTarget;
use crate::OutOfRange;
use crate::plan::CastPlan;

/// No `out_of_range`: an out-of-range value is an error, which the exact path raises.
pub(super) const STRICT: u8 = 0;
/// `"out_of_range": "clamp"`.
pub(super) const CLAMP: u8 = 1;
/// `"out_of_range": "wrap"`.
pub(super) const WRAP: u8 = 2;

/// The plan's rule as one of the constants above.
pub(super) fn rule_of(plan: &CastPlan) -> u8 {
    match plan.rules().out_of_range {
        None => STRICT,
        Some(OutOfRange::Clamp) => CLAMP,
        Some(OutOfRange::Wrap) => WRAP,
    }
}

/// A rounded (integer-valued) `r` into `T` under `RULE`: the value, and whether it is the
/// exact path's (`false`: the exact path redoes that element).
#[inline(always)]
pub(super) fn int_from_f64<T: IntTarget, const RULE: u8>(r: f64) -> (T, bool) {
    if T::WIDE {
        return wide_int::<T, RULE>(r);
    }
    if RULE == WRAP {
        return wrapped_quickly::<T, f64>(r);
    }
    // `HIGH - 1` is the largest value, exactly (HIGH <= 2^32).
    let (safe, ok) = clamped::<f64, RULE>(r, T::LOW, T::HIGH - 1.0, r.abs() < f64::INFINITY);
    // SAFETY: `safe` is an integer value in [LOW, HIGH): `r` rounded, or a bound.
    (unsafe { T::from_f64_unchecked(safe) }, ok)
}

/// `r` clamped into `[low, high]` (NaN to `low`; the forms compile to maxpd/minpd or
/// maxps/minps), so a conversion of it is always defined; and whether that is the result:
/// under `clamp` for every `finite` value, otherwise for unchanged ones.
#[inline(always)]
fn clamped<F: Copy + PartialOrd, const RULE: u8>(r: F, low: F, high: F, finite: bool) -> (F, bool) {
    let above = if r > low { r } else { low };
    let safe = if above < high { above } else { high };
    let ok = if RULE == CLAMP { finite } else { safe == r };
    (safe, ok)
}

/// [`int_from_f64`] for an `f32`, in `f32` lanes where that is exact.
#[inline(always)]
pub(super) fn int_from_f32<T: IntTarget, const RULE: u8>(r: f32) -> (T, bool) {
    // Into 32-bit types no f32 is the largest value, so clamping and wrapping go through f64
    // (exact); the 64-bit types always do.
    if T::WIDE || (T::BITS > 16 && RULE != STRICT) {
        return int_from_f64::<T, RULE>(f64::from(r));
    }
    if RULE == WRAP {
        return wrapped_quickly::<T, f32>(r);
    }
    // The bounds are powers of two (or zero): exact in f32 as well; the upper one is the
    // largest float32 below HIGH, an integer, and the type's largest value up to 16 bits.
    #[allow(clippy::cast_possible_truncation)]
    let (low, high) = (T::LOW as f32, (T::HIGH as f32).next_down());
    let (safe, ok) = clamped::<f32, RULE>(r, low, high, r.abs() < f32::INFINITY);
    // SAFETY: `safe` is an integer value in [LOW, HIGH): `r` rounded, or a bound.
    (unsafe { T::from_f32_unchecked(safe) }, ok)
}

/// A float lane the wrap arithmetic runs in: `f64`, or `f32` where that is exact.
pub(super) trait Lane:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    /// 0 in the lane.
    const ZERO: Self;
    /// 1 in the lane.
    const ONE: Self;
    /// 2^31: below it in magnitude, the conversion to `i32` is exact.
    const I32_LIMIT: Self;
    /// The lane's `abs`.
    fn abs(self) -> Self;
    /// The lane's `floor`.
    fn floor(self) -> Self;
    /// `2^(BITS-1)` (at most 2^31) in the lane, exactly.
    fn from_half(half: f64) -> Self;
    /// The value as an `i32`.
    ///
    /// # Safety
    /// The value is an integer within `i32`.
    unsafe fn to_i32_unchecked(self) -> i32;
}

macro_rules! lane {
    ($float:ty) => {
        impl Lane for $float {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const I32_LIMIT: Self = 2_147_483_648.0;
            fn abs(self) -> Self {
                <$float>::abs(self)
            }
            fn floor(self) -> Self {
                <$float>::floor(self)
            }
            #[allow(clippy::cast_possible_truncation)] // a power of two up to 2^31, exact
            fn from_half(half: f64) -> Self {
                half as $float
            }
            unsafe fn to_i32_unchecked(self) -> i32 {
                // SAFETY: the caller's contract: an integer within i32.
                unsafe { self.to_int_unchecked::<i32>() }
            }
        }
    };
}
lane!(f64);
lane!(f32);

/// `wrap` for `|r| < 2^31`, where the conversion to i32 is exact and its low bits are the
/// residue; larger magnitudes are hard here, and the kernel redoes their block with
/// [`wrapped`], which takes any finite value. In `f32` lanes for `BITS <= 16`.
#[inline(always)]
fn wrapped_quickly<T: IntTarget, F: Lane>(r: F) -> (T, bool) {
    let small = r.abs() < F::I32_LIMIT;
    let safe = if small { r } else { F::ZERO };
    // SAFETY: `safe` is an integer within i32.
    let low = unsafe { safe.to_i32_unchecked() };
    (T::from_i32_bits(low), small)
}

/// The integer `r` modulo `2^BITS` into `T` (`BITS <= 32`; in `f32` lanes `BITS <= 16`,
/// where the residue, below 2^16, is exact too).
///
/// `r - floor(r / 2^BITS) * 2^BITS` is exact: dividing by a power of two and taking the floor
/// are exact, and so is the product; the difference is an integer in `[0, 2^BITS)`, which
/// the lane represents, so the subtraction does not round either. NaN and the infinities give
/// NaN, which is refused (the exact path raises its error).
#[inline(always)]
pub(super) fn wrapped<T: IntTarget, F: Lane>(r: F) -> (T, bool) {
    let (half, half_bits) = half_range::<T>();
    let half = F::from_half(half);
    let modulus = half + half;
    let residue = r - (r * (F::ONE / modulus)).floor() * modulus;
    let ok = residue >= F::ZERO;
    // Centred on zero it fits an i32 (which converts in vectors) for every width up to 32.
    let centred = if ok { residue - half } else { F::ZERO };
    // SAFETY: `centred` is an integer in [-2^(BITS-1), 2^(BITS-1)), within i32.
    let low = unsafe { centred.to_i32_unchecked() };
    (T::from_i32_bits(low.wrapping_add(half_bits)), ok)
}

/// `2^(BITS-1)` as a float and as the `i32` with those low bits.
#[inline(always)]
fn half_range<T: IntTarget>() -> (f64, i32) {
    let half = 1i64 << (T::BITS - 1);
    #[allow(clippy::cast_precision_loss)] // a power of two
    let float = half as f64;
    #[allow(clippy::cast_possible_truncation)] // 2^31 becomes i32::MIN: the same low bits
    let bits = half as i32;
    (float, bits)
}

/// A rounded `r` into a 64-bit `T`. For `|r| < 2^51`, adding `1.5 * 2^52` puts the integer in
/// the low mantissa bits, exactly, with plain vector arithmetic (AVX2 has no packed float to
/// int64 conversion); those bits are also its residue for `wrap`. Under `clamp`, values past
/// either end take that end. Larger magnitudes within range, or to wrap, are hard.
#[inline(always)]
pub(super) fn wide_int<T: IntTarget, const RULE: u8>(r: f64) -> (T, bool) {
    const LIMIT: f64 = 2_251_799_813_685_248.0; // 2^51
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 2^52 + 2^51
    let small = r.abs() < LIMIT;
    let safe = if small { r } else { 0.0 };
    let bits = (safe + MAGIC).to_bits().wrapping_sub(MAGIC.to_bits());
    let value = T::from_i64_bits(bits.cast_signed());
    if RULE == WRAP {
        return (value, small);
    }
    let inside = small && r >= T::LOW && r < T::HIGH;
    if RULE == CLAMP {
        let below = r < T::LOW;
        let above = r >= T::TOP;
        let value = if below {
            T::MIN
        } else if above {
            T::MAX
        } else {
            value
        };
        return (
            value,
            inside || ((below || above) && r.abs() < f64::INFINITY),
        );
    }
    (value, inside)
}
