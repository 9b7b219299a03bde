//! Fast kernels for the common pairs of types.
//!
//! A kernel converts a block of elements with plain arithmetic and, alongside, works out
//! whether every element was an easy case (in range, not NaN into an integer, not a
//! `scalar_map` key, ...). Blocks with any hard element are redone by the exact path
//! ([`CastPlan::apply_slow`]), so a kernel only has to be right on the easy cases and to
//! recognise the others: results are identical to the exact path by construction.
//!
//! Every kernel goes through an *exact* intermediate: `f32` for sources that fit it (`float16`,
//! `bfloat16`, `float32`, integers up to 24 bits), `f64` for `float64` and integers up to 53
//! bits, so the only rounding is the last step, which is correctly rounded (IEEE conversions,
//! `round_ties_even` and friends, or the bit-exact `float16`/`bfloat16` routines below). Pairs
//! without such a path (`int64 -> float16`, directed modes into `float16`, ...) take the exact
//! path throughout.
//!
//! On x86-64 the kernels are compiled twice, for the baseline and for AVX2 (chosen at run time),
//! because float rounding instructions (`roundps`) and wide vectors need it.

use zarr_codec::{DataType, Result};

use crate::numeric::Scalar;
use crate::plan::CastPlan;
use crate::round::Rounding;

/// Elements per block: small enough that redoing a block is cheap, large enough to vectorise.
const BLOCK: usize = 512;

/// Runs a kernel for the plan's pair of types if there is one; `Ok(false)` when there is not.
pub(crate) fn apply(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("sse4.1")
    {
        // SAFETY: `apply_avx2` only needs the CPU features checked just above.
        return unsafe { apply_avx2(plan, input, output) };
    }
    dispatch(plan, input, output)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,sse4.1")]
unsafe fn apply_avx2(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    dispatch(plan, input, output)
}

/// An element type the kernels read or write.
trait Elem: Copy {
    const SIZE: usize;
    fn load(bytes: &[u8]) -> Self;
    fn store(self, bytes: &mut [u8]);
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn load(bytes: &[u8]) -> Self {
                let mut buffer = [0u8; std::mem::size_of::<$t>()];
                buffer.copy_from_slice(bytes);
                <$t>::from_ne_bytes(buffer)
            }
            #[inline(always)]
            fn store(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
elem!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// Converts every block of `input` with `convert` (returning the value and whether it was an
/// easy case); blocks with a hard case are redone by the exact path.
#[inline(always)]
#[allow(clippy::inline_always)] // must inline into the AVX2 copy of `dispatch`
fn run<S: Elem, T: Elem>(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
    convert: impl Fn(S) -> (T, bool),
) -> Result<bool> {
    for (source, target) in input
        .chunks(BLOCK * S::SIZE)
        .zip(output.chunks_mut(BLOCK * T::SIZE))
    {
        let mut easy = true;
        for (s, t) in source
            .chunks_exact(S::SIZE)
            .zip(target.chunks_exact_mut(T::SIZE))
        {
            let (value, ok) = convert(S::load(s));
            value.store(t);
            easy &= ok;
        }
        if !easy {
            plan.apply_slow(source, target)?;
        }
    }
    Ok(true)
}

/// `scalar_map` keys as `f64` values (every key of an f32/f64/small-integer source is one)
/// for the kernels' "is this a key?" test; `nan` when NaN is a key.
#[derive(Default)]
struct Keys {
    values: Vec<f64>,
    nan: bool,
}

impl Keys {
    fn of(plan: &CastPlan) -> Option<Self> {
        let mut keys = Self::default();
        for &(key, _) in plan.map().entries() {
            match key {
                Scalar::Nan { .. } => keys.nan = true,
                Scalar::Infinity { negative } => keys.values.push(if negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }),
                Scalar::Finite {
                    negative,
                    significand,
                    exponent,
                } => {
                    // Keys come from the source type, so this is exact for the kernels' sources
                    // (their values are f64s); refuse anything else.
                    if significand >> 53 != 0 {
                        return None;
                    }
                    #[allow(clippy::cast_precision_loss)] // < 2^53: exact
                    let magnitude = significand as f64 * 2f64.powi(exponent);
                    keys.values
                        .push(if negative { -magnitude } else { magnitude });
                }
            }
        }
        Some(keys)
    }

    /// Whether `value` (exact) may be a key: then it goes to the exact path.
    #[inline(always)]
    #[allow(clippy::inline_always, clippy::float_cmp)] // numerical equality is the rule
    fn hit(&self, value: f64) -> bool {
        let mut hit = self.nan && value.is_nan();
        for &key in &self.values {
            hit |= value == key;
        }
        hit
    }
}

/// Integer targets: the exclusive bounds of the range as floats (powers of two, exact in
/// `f32` and `f64`) and a saturating conversion used only inside the range.
trait IntTarget: Elem {
    const LOW: f64;
    const HIGH: f64;
    fn from_f64(value: f64) -> Self;
    fn from_f32(value: f32) -> Self;
    fn from_i128(value: i128) -> Option<Self>;
}

macro_rules! int_target {
    ($($t:ty => $low:expr, $high:expr);* $(;)?) => {$(
        impl IntTarget for $t {
            const LOW: f64 = $low;
            const HIGH: f64 = $high;
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // in range
            fn from_f64(value: f64) -> Self { value as $t }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // in range
            fn from_f32(value: f32) -> Self { value as $t }
            #[inline(always)]
            fn from_i128(value: i128) -> Option<Self> { <$t>::try_from(value).ok() }
        }
    )*};
}
// Bounds: [LOW, HIGH), powers of two (or zero), exact in f32 and f64.
int_target! {
    i8 => -128.0, 128.0;
    i16 => -32768.0, 32768.0;
    i32 => -2_147_483_648.0, 2_147_483_648.0;
    i64 => -9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0;
    u8 => 0.0, 256.0;
    u16 => 0.0, 65536.0;
    u32 => 0.0, 4_294_967_296.0;
    u64 => 0.0, 18_446_744_073_709_551_616.0;
}

/// Rounds to an integer in the given mode (exact: the result is representable).
#[inline(always)]
#[allow(clippy::inline_always)]
fn round_f64(value: f64, rounding: Rounding) -> f64 {
    match rounding {
        Rounding::NearestEven => value.round_ties_even(),
        Rounding::TowardsZero => value.trunc(),
        Rounding::TowardsPositive => value.ceil(),
        Rounding::TowardsNegative => value.floor(),
        Rounding::NearestAway => value.round(),
    }
}

#[inline(always)]
#[allow(clippy::inline_always)]
fn round_f32(value: f32, rounding: Rounding) -> f32 {
    match rounding {
        Rounding::NearestEven => value.round_ties_even(),
        Rounding::TowardsZero => value.trunc(),
        Rounding::TowardsPositive => value.ceil(),
        Rounding::TowardsNegative => value.floor(),
        Rounding::NearestAway => value.round(),
    }
}

/// `float32` bits to `float16` bits, to nearest, ties to even. NaN stays NaN (quiet, sign
/// kept), infinities stay; `false` for a finite value that overflows (the exact path decides).
#[inline(always)]
#[allow(clippy::inline_always)]
fn f32_to_f16(value: f32) -> (u16, bool) {
    let bits = value.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let magnitude = bits & 0x7fff_ffff;
    // Normal results: rebias the exponent (127 -> 15) and round the 13 dropped bits to even.
    let odd = (magnitude >> 13) & 1;
    let normal = (magnitude.wrapping_sub(112 << 23).wrapping_add(0xfff + odd)) >> 13;
    // Subnormal results: adding 0.5 (whose ulp is 2^-24, the float16 quantum) lets the FPU
    // round, and the low bits of the sum are the float16 mantissa.
    let sum = f32::from_bits(magnitude) + 0.5;
    let subnormal = sum.to_bits().wrapping_sub(0x3f00_0000);
    let nan = magnitude > 0x7f80_0000;
    let result = if magnitude < 113 << 23 {
        subnormal
    } else if magnitude >= 0x7f80_0000 {
        if nan { 0x7e00 } else { 0x7c00 }
    } else {
        normal
    };
    // Finite inputs at or beyond 65520 round to 0x7c00 (infinity): out of range.
    let overflow = magnitude < 0x7f80_0000 && result >= 0x7c00;
    #[allow(clippy::cast_possible_truncation)] // result <= 0x7e00
    let half = (result | sign) as u16;
    (half, !overflow)
}

/// `float16` bits to `float32`, exactly.
#[inline(always)]
#[allow(clippy::inline_always)]
fn f16_to_f32(half: u16) -> f32 {
    let half = u32::from(half);
    let sign = (half & 0x8000) << 16;
    let exponent = (half >> 10) & 0x1f;
    let mantissa = half & 0x3ff;
    let magnitude = if exponent == 0x1f {
        0x7f80_0000 | (mantissa << 13) // infinity, NaN (payload kept)
    } else if exponent == 0 {
        // Zero or subnormal: mantissa * 2^-24, exact in f32.
        #[allow(clippy::cast_precision_loss)] // < 2^10
        let value = mantissa as f32 * f32::from_bits(0x3380_0000);
        value.to_bits()
    } else {
        ((exponent + 112) << 23) | (mantissa << 13)
    };
    f32::from_bits(sign | magnitude)
}

/// `float64` to `float16` bits directly (not through `float32`, which would round twice).
#[inline(always)]
#[allow(clippy::inline_always)]
fn f64_to_f16(value: f64) -> (u16, bool) {
    let bits = value.to_bits();
    let sign = (bits >> 48) & 0x8000;
    let magnitude = bits & 0x7fff_ffff_ffff_ffff;
    let odd = (magnitude >> 42) & 1;
    let normal = (magnitude
        .wrapping_sub(1008 << 52)
        .wrapping_add((1 << 41) - 1 + odd))
        >> 42;
    // 2^28 has ulp 2^-24 in f64: the same trick as in `f32_to_f16`.
    let magic = 1051u64 << 52;
    let sum = f64::from_bits(magnitude) + f64::from_bits(magic);
    let subnormal = sum.to_bits().wrapping_sub(magic);
    let infinity = 0x7ff0_0000_0000_0000;
    let result = if magnitude < 1009 << 52 {
        subnormal
    } else if magnitude >= infinity {
        if magnitude > infinity { 0x7e00 } else { 0x7c00 }
    } else {
        normal
    };
    let overflow = magnitude < infinity && result >= 0x7c00;
    #[allow(clippy::cast_possible_truncation)] // result <= 0x7e00
    let half = (result | sign) as u16;
    (half, !overflow)
}

/// `float32` to `bfloat16` bits, to nearest, ties to even; `false` on finite overflow.
#[inline(always)]
#[allow(clippy::inline_always)]
fn f32_to_bf16(value: f32) -> (u16, bool) {
    let bits = value.to_bits();
    let nan = value.is_nan();
    let rounded = bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16;
    let result = if nan {
        (bits >> 16) & 0x8000 | 0x7fc0
    } else {
        rounded
    };
    let overflow = value.is_finite() && result & 0x7fff == 0x7f80;
    #[allow(clippy::cast_possible_truncation)] // 16 bits
    let half = result as u16;
    (half, !overflow)
}

/// NaNs leave as the target's canonical quiet NaN with their sign, as the exact path makes
/// them (the specification does not ask for payloads to survive).
#[inline(always)]
#[allow(clippy::inline_always)]
fn canonical_f32(value: f32) -> f32 {
    if value.is_nan() {
        f32::from_bits(0x7fc0_0000 | (value.to_bits() & 0x8000_0000))
    } else {
        value
    }
}

#[inline(always)]
#[allow(clippy::inline_always)]
fn canonical_f64(value: f64) -> f64 {
    if value.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000 | (value.to_bits() & 0x8000_0000_0000_0000))
    } else {
        value
    }
}

/// Picks the kernel for the plan's types and rules.
#[inline(always)]
#[allow(clippy::inline_always, clippy::too_many_lines)]
fn dispatch(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    let Some(keys) = Keys::of(plan) else {
        return Ok(false);
    };
    let rules = plan.rules();
    let rounding = rules.rounding;
    let (from, to) = (plan.from(), plan.to());

    // Integer to integer: no rounding; anything out of range goes to the exact path.
    macro_rules! int_to_int {
        ($s:ty) => {
            match to {
                DataType::Int8 => int_to_int::<$s, i8>(plan, input, output, &keys),
                DataType::Int16 => int_to_int::<$s, i16>(plan, input, output, &keys),
                DataType::Int32 => int_to_int::<$s, i32>(plan, input, output, &keys),
                DataType::Int64 => int_to_int::<$s, i64>(plan, input, output, &keys),
                DataType::UInt8 => int_to_int::<$s, u8>(plan, input, output, &keys),
                DataType::UInt16 => int_to_int::<$s, u16>(plan, input, output, &keys),
                DataType::UInt32 => int_to_int::<$s, u32>(plan, input, output, &keys),
                DataType::UInt64 => int_to_int::<$s, u64>(plan, input, output, &keys),
                _ => Ok(false),
            }
        };
    }
    // From an exact f32 or f64 intermediate to every target the kernels know.
    macro_rules! from_f32 {
        ($s:ty, $widen:expr) => {{
            let widen = $widen;
            match to {
                DataType::Int8 => f32_to_int::<$s, i8>(plan, input, output, &keys, widen, rounding),
                DataType::Int16 => {
                    f32_to_int::<$s, i16>(plan, input, output, &keys, widen, rounding)
                }
                DataType::Int32 => {
                    f32_to_int::<$s, i32>(plan, input, output, &keys, widen, rounding)
                }
                DataType::Int64 => {
                    f32_to_int::<$s, i64>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt8 => {
                    f32_to_int::<$s, u8>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt16 => {
                    f32_to_int::<$s, u16>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt32 => {
                    f32_to_int::<$s, u32>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt64 => {
                    f32_to_int::<$s, u64>(plan, input, output, &keys, widen, rounding)
                }
                DataType::Float32 => run(plan, input, output, |v: $s| {
                    let x: f32 = widen(v);
                    (canonical_f32(x), !keys.hit(f64::from(x)))
                }),
                DataType::Float64 => run(plan, input, output, |v: $s| {
                    let x = f64::from(widen(v));
                    (canonical_f64(x), !keys.hit(x))
                }),
                DataType::Float16 if rounding == Rounding::NearestEven => {
                    run(plan, input, output, |v: $s| {
                        let x: f32 = widen(v);
                        let (half, ok) = f32_to_f16(x);
                        (half, ok && !keys.hit(f64::from(x)))
                    })
                }
                DataType::BFloat16 if rounding == Rounding::NearestEven => {
                    run(plan, input, output, |v: $s| {
                        let x: f32 = widen(v);
                        let (half, ok) = f32_to_bf16(x);
                        (half, ok && !keys.hit(f64::from(x)))
                    })
                }
                _ => Ok(false),
            }
        }};
    }
    macro_rules! from_f64 {
        ($s:ty, $widen:expr) => {{
            let widen = $widen;
            match to {
                DataType::Int8 => f64_to_int::<$s, i8>(plan, input, output, &keys, widen, rounding),
                DataType::Int16 => {
                    f64_to_int::<$s, i16>(plan, input, output, &keys, widen, rounding)
                }
                DataType::Int32 => {
                    f64_to_int::<$s, i32>(plan, input, output, &keys, widen, rounding)
                }
                DataType::Int64 => {
                    f64_to_int::<$s, i64>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt8 => {
                    f64_to_int::<$s, u8>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt16 => {
                    f64_to_int::<$s, u16>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt32 => {
                    f64_to_int::<$s, u32>(plan, input, output, &keys, widen, rounding)
                }
                DataType::UInt64 => {
                    f64_to_int::<$s, u64>(plan, input, output, &keys, widen, rounding)
                }
                DataType::Float64 => run(plan, input, output, |v: $s| {
                    let x: f64 = widen(v);
                    (canonical_f64(x), !keys.hit(x))
                }),
                DataType::Float32 => f64_to_f32::<$s>(plan, input, output, &keys, widen, rounding),
                DataType::Float16 if rounding == Rounding::NearestEven => {
                    run(plan, input, output, |v: $s| {
                        let x: f64 = widen(v);
                        let (half, ok) = f64_to_f16(x);
                        (half, ok && !keys.hit(x))
                    })
                }
                _ => Ok(false),
            }
        }};
    }

    match from {
        DataType::Float32 => from_f32!(f32, |v: f32| v),
        DataType::Float16 => from_f32!(u16, f16_to_f32),
        DataType::BFloat16 => from_f32!(u16, |v: u16| f32::from_bits(u32::from(v) << 16)),
        DataType::Float64 => from_f64!(f64, |v: f64| v),
        DataType::Int8 if to.is_float() => from_f32!(i8, f32::from),
        DataType::UInt8 if to.is_float() => from_f32!(u8, f32::from),
        DataType::Int16 if to.is_float() => from_f32!(i16, f32::from),
        DataType::UInt16 if to.is_float() => from_f32!(u16, f32::from),
        DataType::Int32 if to.is_float() => from_f64!(i32, f64::from),
        DataType::UInt32 if to.is_float() => from_f64!(u32, f64::from),
        DataType::Int64 | DataType::UInt64 if to.is_float() => {
            wide_int_to_float(plan, input, output, &keys, rounding)
        }
        DataType::Int8 => int_to_int!(i8),
        DataType::Int16 => int_to_int!(i16),
        DataType::Int32 => int_to_int!(i32),
        DataType::Int64 => int_to_int!(i64),
        DataType::UInt8 => int_to_int!(u8),
        DataType::UInt16 => int_to_int!(u16),
        DataType::UInt32 => int_to_int!(u32),
        DataType::UInt64 => int_to_int!(u64),
        _ => Ok(false),
    }
}

#[inline(always)]
#[allow(clippy::inline_always)]
fn int_to_int<S, T>(plan: &CastPlan, input: &[u8], output: &mut [u8], keys: &Keys) -> Result<bool>
where
    S: Elem + Into<i128>,
    T: IntTarget + Default,
{
    let no_keys = keys.values.is_empty();
    run(plan, input, output, |v: S| {
        let wide: i128 = v.into();
        match T::from_i128(wide) {
            #[allow(clippy::cast_precision_loss)] // keys are exact in f64; so is a match
            Some(t) => (t, no_keys || !keys.hit(wide as f64)),
            None => (T::default(), false),
        }
    })
}

#[inline(always)]
#[allow(clippy::inline_always)]
fn f64_to_int<S: Elem, T: IntTarget>(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
    keys: &Keys,
    widen: impl Fn(S) -> f64,
    rounding: Rounding,
) -> Result<bool> {
    run(plan, input, output, |v: S| {
        let x = widen(v);
        let r = round_f64(x, rounding);
        // NaN fails both comparisons.
        let ok = r >= T::LOW && r < T::HIGH && !keys.hit(x);
        (T::from_f64(r), ok)
    })
}

#[inline(always)]
#[allow(clippy::inline_always)]
fn f32_to_int<S: Elem, T: IntTarget>(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
    keys: &Keys,
    widen: impl Fn(S) -> f32,
    rounding: Rounding,
) -> Result<bool> {
    // The bounds are powers of two (or zero): exact in f32 as well.
    #[allow(clippy::cast_possible_truncation)]
    let (low, high) = (T::LOW as f32, T::HIGH as f32);
    run(plan, input, output, |v: S| {
        let x = widen(v);
        let r = round_f32(x, rounding);
        let ok = r >= low && r < high && !keys.hit(f64::from(x));
        (T::from_f32(r), ok)
    })
}

/// `float64` to `float32`: the IEEE conversion rounds to nearest even; the directed modes
/// step one ulp from it where it went the wrong way. Ties away from zero, and overflow, are
/// left to the exact path.
#[inline(always)]
#[allow(clippy::inline_always)]
fn f64_to_f32<S: Elem>(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
    keys: &Keys,
    widen: impl Fn(S) -> f64,
    rounding: Rounding,
) -> Result<bool> {
    run(plan, input, output, |v: S| {
        let x = widen(v);
        #[allow(clippy::cast_possible_truncation)] // rounding is the point
        let nearest = x as f32;
        let back = f64::from(nearest);
        let overflow = nearest.is_infinite() && x.is_finite();
        let ok = !overflow && !keys.hit(x);
        #[allow(clippy::float_cmp)] // exactness is the question
        let result = match rounding {
            Rounding::TowardsPositive if back < x => nearest.next_up(),
            Rounding::TowardsNegative if back > x => nearest.next_down(),
            Rounding::TowardsZero if back.abs() > x.abs() => {
                if x > 0.0 {
                    nearest.next_down()
                } else {
                    nearest.next_up()
                }
            }
            Rounding::NearestAway if back != x => return (nearest, false),
            _ => nearest,
        };
        // A directed step can land on ±max from infinity, or leave the range: exact path.
        (
            canonical_f32(result),
            ok && result.is_finite() == x.is_finite(),
        )
    })
}

/// `int64`/`uint64` to a float: IEEE conversion is correctly rounded to nearest even; other
/// modes and the 16-bit formats take the exact path.
fn wide_int_to_float(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
    keys: &Keys,
    rounding: Rounding,
) -> Result<bool> {
    if rounding != Rounding::NearestEven || !keys.values.is_empty() {
        return Ok(false);
    }
    #[allow(clippy::cast_precision_loss)] // correctly rounded, which is what is asked
    match (plan.from(), plan.to()) {
        (DataType::Int64, DataType::Float64) => run(plan, input, output, |v: i64| (v as f64, true)),
        (DataType::Int64, DataType::Float32) => run(plan, input, output, |v: i64| (v as f32, true)),
        (DataType::UInt64, DataType::Float64) => {
            run(plan, input, output, |v: u64| (v as f64, true))
        }
        (DataType::UInt64, DataType::Float32) => {
            run(plan, input, output, |v: u64| (v as f32, true))
        }
        _ => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    //! The kernels against the exact path, on every pair of the types they cover.

    use super::*;
    use crate::OutOfRange;
    use crate::scalar_map::ScalarMap;

    const TYPES: [DataType; 12] = [
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Float16,
        DataType::BFloat16,
        DataType::Float32,
        DataType::Float64,
    ];

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Bits(u64);

    impl Bits {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Elements of `data_type` as native bytes: random bit patterns, and values near the
    /// interesting places (small integers, halves, powers of two and their neighbours).
    fn elements(data_type: DataType, count: usize, seed: u64) -> Vec<u8> {
        let mut rng = Bits(seed | 1);
        let size = data_type.size();
        let mut out = Vec::with_capacity(count * size);
        for i in 0..count {
            let raw = rng.next();
            let bits = match (i % 4, data_type) {
                (0, _) => raw,
                (_, DataType::Float64) => {
                    let exponent = i32::try_from(raw % 140).unwrap_or(0) - 70;
                    let half = f64::from(i32::try_from(raw >> 40 & 0xffff).unwrap_or(0)) / 2.0;
                    (half * 2f64.powi(exponent / 4) * if raw & 1 == 0 { 1.0 } else { -1.0 })
                        .to_bits()
                }
                (_, DataType::Float32) => {
                    let half = f32::from(u16::try_from(raw >> 40 & 0xffff).unwrap_or(0)) / 4.0;
                    u64::from((half * if raw & 1 == 0 { 1.0 } else { -1.0 }).to_bits())
                }
                // Small magnitudes: near zero and the narrower types' ranges.
                (_, t) if t.is_integer() => (raw >> 48).wrapping_sub(1 << 15) >> (raw % 12),
                _ => raw,
            };
            let mut buffer = [0u8; 8];
            buffer.copy_from_slice(&bits.to_ne_bytes());
            let range = if cfg!(target_endian = "little") {
                0..size
            } else {
                8 - size..8
            };
            out.extend_from_slice(&buffer[range]);
        }
        out
    }

    fn check(plan: &CastPlan, input: &[u8]) {
        let out_size = plan.to().size();
        let count = input.len() / plan.from().size();
        // Element by element: identical results or both errors.
        for element in input.chunks_exact(plan.from().size()) {
            let mut fast = vec![0u8; out_size];
            let mut slow = vec![0u8; out_size];
            let fast_result = plan.apply(element, &mut fast);
            let slow_result = plan.apply_slow(element, &mut slow);
            assert_eq!(
                fast_result.is_ok(),
                slow_result.is_ok(),
                "{plan:?} on {element:02x?}: {fast_result:?} vs {slow_result:?}"
            );
            if fast_result.is_ok() {
                assert_eq!(fast, slow, "{plan:?} on {element:02x?}");
            }
        }
        // The baseline build of the kernels (apply picks the AVX2 one where it can).
        let mut baseline = vec![0u8; count * out_size];
        let mut slow = vec![0u8; count * out_size];
        let slow_result = plan.apply_slow(input, &mut slow);
        match dispatch(plan, input, &mut baseline) {
            Ok(true) => assert!(slow_result.is_ok() && baseline == slow, "{plan:?} baseline"),
            Ok(false) => {}
            Err(_) => assert!(slow_result.is_err(), "{plan:?} baseline"),
        }
        // Whole arrays (several blocks): the same verdict.
        let mut fast = vec![0u8; count * out_size];
        let mut slow = vec![0u8; count * out_size];
        let fast_result = plan.apply(input, &mut fast);
        let slow_result = plan.apply_slow(input, &mut slow);
        assert_eq!(fast_result.is_ok(), slow_result.is_ok(), "{plan:?}");
        if fast_result.is_ok() {
            assert_eq!(fast, slow, "{plan:?}");
        }
    }

    #[test]
    fn kernels_equal_the_exact_path() {
        let rules = [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)];
        for (i, &from) in TYPES.iter().enumerate() {
            let input = elements(from, 1500, 0x9e37_79b9 + i as u64);
            for &to in &TYPES {
                for rounding in Rounding::ALL {
                    for out_of_range in rules {
                        let Ok(plan) =
                            CastPlan::new(from, to, rounding, out_of_range, ScalarMap::default())
                        else {
                            continue; // wrap into a float type
                        };
                        check(&plan, &input);
                    }
                }
            }
        }
    }

    #[test]
    fn kernels_defer_map_keys_to_the_exact_path() {
        use serde_json::json;
        let pairs = [
            (json!("NaN"), json!(-1)),
            (json!(2.5), json!(7)),
            (json!(-0.0), json!(9)),
        ];
        for from in [DataType::Float32, DataType::Float64, DataType::Float16] {
            let map = ScalarMap::parse(&pairs, from, DataType::Int16).expect("map");
            let plan = CastPlan::new(from, DataType::Int16, Rounding::NearestEven, None, map)
                .expect("plan");
            let values: Vec<f64> = vec![f64::NAN, 2.5, 0.0, -0.0, 3.5, 2.0];
            let input: Vec<u8> = match from {
                DataType::Float64 => values.iter().flat_map(|v| v.to_ne_bytes()).collect(),
                #[allow(clippy::cast_possible_truncation)]
                DataType::Float32 => values
                    .iter()
                    .flat_map(|&v| (v as f32).to_ne_bytes())
                    .collect(),
                _ => [0x7e00u16, 0x4100, 0x0000, 0x8000, 0x4300, 0x4000]
                    .iter()
                    .flat_map(|v| v.to_ne_bytes())
                    .collect(),
            };
            let out = plan.apply_to_vec(&input).expect("cast");
            let values: Vec<i16> = out
                .chunks(2)
                .map(|c| i16::from_ne_bytes([c[0], c[1]]))
                .collect();
            assert_eq!(values, [-1, 7, 9, 9, 4, 2], "{from}");
        }
    }
}
