//! Kernels with an [`Affine`] map fused in: `cast((x - offset) * scale)` from float32 and
//! float64 arrays to integers (encoding `[scale_offset, cast_value]`), and
//! `cast(x) / scale + offset` into float32 and float64 (decoding it). The map runs on each
//! element as it passes through the cast's kernel, so there is no intermediate array, and
//! mapped and exact-path elements see it too: results are those of the two steps in turn.

use zarr_codec_shapes::{DataType, Result};

use super::{
    BF16, F16, Io, Keys, NearestAway, NearestEven, Post, TowardsNegative, TowardsPositive,
    TowardsZero, canonical_f32, canonical_f64, exact_to, f32_to_int, f64_to_f32, f64_to_int,
};
use super::{Exact32, Exact64, range};
use crate::OutOfRange;
use crate::affine::Affine;
use crate::plan::CastPlan;
use crate::round::Rounding;

/// `cast((x - offset) * scale)` by a kernel; `Ok(false)` (nothing written) when none covers
/// the plan's types.
pub(crate) fn apply_after(
    plan: &CastPlan,
    affine: Affine,
    input: &[u8],
    output: &mut [u8],
) -> Result<bool> {
    let io = (input, output);
    // One copy of the kernels per `out_of_range` rule, as for the plain casts.
    #[cfg(target_arch = "x86_64")]
    if super::has_avx2() {
        // SAFETY: these only need the CPU features checked just above.
        return unsafe {
            match range::rule_of(plan) {
                range::STRICT => after_avx2::<{ range::STRICT }>(plan, affine, io),
                range::CLAMP => after_avx2::<{ range::CLAMP }>(plan, affine, io),
                _ => after_avx2::<{ range::WRAP }>(plan, affine, io),
            }
        };
    }
    match range::rule_of(plan) {
        range::STRICT => after::<{ range::STRICT }>(plan, affine, io),
        range::CLAMP => after::<{ range::CLAMP }>(plan, affine, io),
        _ => after::<{ range::WRAP }>(plan, affine, io),
    }
}

/// `cast(x) / scale + offset` by a kernel; `Ok(false)` (nothing written) when none covers the
/// plan's types.
pub(crate) fn apply_then(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
    affine: Affine,
) -> Result<bool> {
    #[cfg(target_arch = "x86_64")]
    if super::has_avx2() {
        // SAFETY: `then_avx2` only needs the CPU features checked just above.
        return unsafe { then_avx2(plan, (input, output), affine, true) };
    }
    then(plan, (input, output), affine, false)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,sse4.1")]
unsafe fn after_avx2<const RULE: u8>(
    plan: &CastPlan,
    affine: Affine,
    io: Io<'_, '_>,
) -> Result<bool> {
    after::<RULE>(plan, affine, io)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,sse4.1")]
unsafe fn then_avx2(plan: &CastPlan, io: Io<'_, '_>, affine: Affine, fma: bool) -> Result<bool> {
    then(plan, io, affine, fma)
}

#[inline(always)]
fn after<const RULE: u8>(plan: &CastPlan, affine: Affine, io: Io<'_, '_>) -> Result<bool> {
    let Some(keys) = Keys::of(plan) else {
        return Ok(false);
    };
    let keys = &keys;
    let rounding = plan.rules().rounding;
    macro_rules! to_int {
        ($kernel:ident, $s:ty, $pre:expr) => {
            match plan.to() {
                DataType::Int8 => by_mode!(rounding, $kernel::<$s, i8, RULE>(plan, keys, io, $pre)),
                DataType::Int16 => {
                    by_mode!(rounding, $kernel::<$s, i16, RULE>(plan, keys, io, $pre))
                }
                DataType::Int32 => {
                    by_mode!(rounding, $kernel::<$s, i32, RULE>(plan, keys, io, $pre))
                }
                DataType::Int64 => {
                    by_mode!(rounding, $kernel::<$s, i64, RULE>(plan, keys, io, $pre))
                }
                DataType::UInt8 => {
                    by_mode!(rounding, $kernel::<$s, u8, RULE>(plan, keys, io, $pre))
                }
                DataType::UInt16 => {
                    by_mode!(rounding, $kernel::<$s, u16, RULE>(plan, keys, io, $pre))
                }
                DataType::UInt32 => {
                    by_mode!(rounding, $kernel::<$s, u32, RULE>(plan, keys, io, $pre))
                }
                DataType::UInt64 => {
                    by_mode!(rounding, $kernel::<$s, u64, RULE>(plan, keys, io, $pre))
                }
                _ => Ok(false),
            }
        };
    }
    match (affine, plan.from()) {
        (Affine::Float32 { offset, scale }, DataType::Float32) => {
            to_int!(f32_to_int, f32, move |x: f32| (x - offset) * scale)
        }
        (Affine::Float64 { offset, scale }, DataType::Float64) => {
            to_int!(f64_to_int, f64, move |x: f64| (x - offset) * scale)
        }
        _ => Ok(false),
    }
}

/// `fma`: the caller was compiled with fused multiply-add, so float64 division can use
/// [`quotient`].
#[inline(always)]
fn then(plan: &CastPlan, io: Io<'_, '_>, affine: Affine, fma: bool) -> Result<bool> {
    let Some(keys) = Keys::of(plan) else {
        return Ok(false);
    };
    let keys = &keys;
    let rounding = plan.rules().rounding;
    let clamp = plan.rules().out_of_range == Some(OutOfRange::Clamp);
    match (affine, plan.to()) {
        (Affine::Float32 { offset, scale }, DataType::Float32) => {
            // `move`: the parameters live in registers, not behind a pointer the loop must reload.
            let post = move |x: f32| x / scale + offset;
            macro_rules! exact {
                ($s:ty) => {
                    exact_to::<$s, f32>(plan, keys, io, |v| canonical_f32(v.f32()), Post::all(post))
                };
            }
            match plan.from() {
                DataType::Float32 => exact!(f32),
                DataType::Float16 => exact!(F16),
                DataType::BFloat16 => exact!(BF16),
                DataType::Int8 => exact!(i8),
                DataType::UInt8 => exact!(u8),
                DataType::Int16 => exact!(i16),
                DataType::UInt16 => exact!(u16),
                DataType::Float64 if clamp => {
                    by_mode!(
                        rounding,
                        f64_to_f32::<f64, true>(plan, keys, io, Post::all(post))
                    )
                }
                DataType::Float64 => {
                    by_mode!(
                        rounding,
                        f64_to_f32::<f64, false>(plan, keys, io, Post::all(post))
                    )
                }
                // 32-bit integers never overflow float32: `clamp` changes nothing.
                DataType::Int32 => {
                    by_mode!(
                        rounding,
                        f64_to_f32::<i32, false>(plan, keys, io, Post::all(post))
                    )
                }
                DataType::UInt32 => {
                    by_mode!(
                        rounding,
                        f64_to_f32::<u32, false>(plan, keys, io, Post::all(post))
                    )
                }
                _ => Ok(false),
            }
        }
        (Affine::Float64 { offset, scale }, DataType::Float64) => {
            let divide = move |x: f64| x / scale + offset;
            let reciprocal = 1.0 / scale;
            // Integer sources give |x| <= 2^32; with such a scale no quotient over- or
            // underflows, which `quotient` needs.
            let fast = fma && (2f64.powi(-900)..=2f64.powi(900)).contains(&scale.abs());
            let multiply = move |x: f64| quotient(x, scale, reciprocal) + offset;
            macro_rules! exact {
                ($s:ty, $via:ident, $post:expr) => {
                    exact_to::<$s, f64>(
                        plan,
                        keys,
                        io,
                        |v| canonical_f64(f64::from(v.$via())),
                        $post,
                    )
                };
            }
            // `multiply` only for the integers the kernel converts: a mapped output can be
            // anything (a NaN, whose sign `quotient` would flip; a huge value).
            let both = Post {
                converted: multiply,
                any: divide,
            };
            macro_rules! int {
                ($s:ty, $via:ident) => {
                    if fast {
                        exact!($s, $via, both)
                    } else {
                        exact!($s, $via, Post::all(divide))
                    }
                };
            }
            match plan.from() {
                DataType::Float64 => exact_to::<f64, f64>(
                    plan,
                    keys,
                    io,
                    |v| canonical_f64(v.f64()),
                    Post::all(divide),
                ),
                DataType::Float32 => exact!(f32, f32, Post::all(divide)),
                DataType::Float16 => exact!(F16, f32, Post::all(divide)),
                DataType::BFloat16 => exact!(BF16, f32, Post::all(divide)),
                DataType::Int8 => int!(i8, f32),
                DataType::UInt8 => int!(u8, f32),
                DataType::Int16 => int!(i16, f32),
                DataType::UInt16 => int!(u16, f32),
                DataType::Int32 => int!(i32, f64),
                DataType::UInt32 => int!(u32, f64),
                _ => Ok(false),
            }
        }
        _ => Ok(false),
    }
}

/// `x / scale`, correctly rounded, with multiplications instead of a division (which costs
/// several times as much): `q = x * (1 / scale)` is within an ulp of the quotient, the
/// remainder `x - q * scale` is exact with a fused multiply-add, and one correction step
/// `q + remainder * (1 / scale)` rounds correctly (Markstein's theorem, for a correctly
/// rounded reciprocal and no overflow or underflow on the way). The caller guarantees the
/// latter: `x` is an integer with `|x| <= 2^32`, `2^-900 <= |scale| <= 2^900`, and the
/// fused multiply-add is an instruction. Zero gives the signed zero division gives.
#[inline(always)]
fn quotient(x: f64, scale: f64, reciprocal: f64) -> f64 {
    let q = x * reciprocal;
    let remainder = (-q).mul_add(scale, x);
    remainder.mul_add(reciprocal, q)
}

#[cfg(test)]
mod tests {
    //! The fused kernels against the two steps in turn (the affine map element by element,
    //! and the exact path of the cast).

    use super::*;
    use crate::OutOfRange;
    use crate::kernels::tests::{Bits, TYPES, elements};
    use crate::scalar_map::ScalarMap;
    use zarr_codec_shapes::element::{read_bits, write_bits};

    /// The integer types (the first eight core types).
    const INTEGERS: &[DataType] = TYPES.split_at(8).0;

    fn affine(data_type: DataType, offset: f64, scale: f64) -> Affine {
        #[allow(clippy::cast_possible_truncation)]
        match data_type {
            DataType::Float32 => Affine::Float32 {
                offset: offset as f32,
                scale: scale as f32,
            },
            _ => Affine::Float64 { offset, scale },
        }
    }

    /// The map on one element of its type, as `scale_offset` computes it.
    fn map(affine: Affine, bits: u64, encode: bool) -> u64 {
        #[allow(clippy::cast_possible_truncation)]
        match affine {
            Affine::Float32 { offset, scale } => {
                let x = f32::from_bits(bits as u32);
                let y = if encode {
                    (x - offset) * scale
                } else {
                    x / scale + offset
                };
                u64::from(y.to_bits())
            }
            Affine::Float64 { offset, scale } => {
                let x = f64::from_bits(bits);
                let y = if encode {
                    (x - offset) * scale
                } else {
                    x / scale + offset
                };
                y.to_bits()
            }
        }
    }

    fn two_steps(plan: &CastPlan, affine: Affine, input: &[u8], encode: bool) -> Result<Vec<u8>> {
        let (from, to) = (plan.from().size(), plan.to().size());
        let mut out = vec![0u8; input.len() / from * to];
        for (s, t) in input.chunks_exact(from).zip(out.chunks_exact_mut(to)) {
            if encode {
                let mut mapped = vec![0u8; from];
                write_bits(map(affine, read_bits(s), true), &mut mapped);
                plan.apply_slow(&mapped, t)?;
            } else {
                plan.apply_slow(s, t)?;
                let bits = map(affine, read_bits(t), false);
                write_bits(bits, t);
            }
        }
        Ok(out)
    }

    fn compare(plan: &CastPlan, affine: Affine, input: &[u8], encode: bool) {
        let (from, to) = (plan.from().size(), plan.to().size());
        let mut fused = vec![0u8; input.len() / from * to];
        let done = if encode {
            apply_after(plan, affine, input, &mut fused)
        } else {
            apply_then(plan, input, &mut fused, affine)
        };
        let expected = two_steps(plan, affine, input, encode);
        match (done, expected) {
            (Ok(true), Ok(expected)) => assert!(
                fused == expected,
                "{plan:?} {affine:?} encode={encode}: fused and two steps differ"
            ),
            (Err(_), Err(_)) => {}
            (done, expected) => panic!(
                "{plan:?} {affine:?} encode={encode}: fused {done:?}, two steps {:?}",
                expected.map(|_| ())
            ),
        }
    }

    fn plans(from: DataType, to: DataType, map: &ScalarMap) -> Vec<CastPlan> {
        let mut plans = Vec::new();
        for rounding in Rounding::ALL {
            for out_of_range in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                if let Ok(plan) = CastPlan::new(from, to, rounding, out_of_range, map.clone()) {
                    plans.push(plan);
                }
            }
        }
        plans
    }

    /// (offset, scale) pairs: identities, typical quantisation, and awkward scales.
    const PARAMETERS: [(f64, f64); 5] = [
        (0.0, 1.0),
        (15.0, 1000.0),
        (-3.5, 0.1),
        (1e3, 7.0),
        (0.25, -3.0),
    ];

    #[test]
    fn encode_matches_two_steps() {
        for array in [DataType::Float32, DataType::Float64] {
            let input = elements(array, 1500, 7);
            for &to in INTEGERS {
                for map in [ScalarMap::default(), key_map(array, to)] {
                    for plan in plans(array, to, &map) {
                        for (offset, scale) in PARAMETERS {
                            compare(&plan, affine(array, offset, scale), &input, true);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn decode_matches_two_steps() {
        let sources = [
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::UInt8,
            DataType::UInt16,
            DataType::UInt32,
            DataType::Float16,
            DataType::BFloat16,
            DataType::Float32,
            DataType::Float64,
        ];
        for array in [DataType::Float32, DataType::Float64] {
            for from in sources {
                let input = elements(from, 1500, 11);
                for map in [ScalarMap::default(), key_map(from, array)] {
                    for plan in plans(from, array, &map) {
                        for (offset, scale) in PARAMETERS {
                            compare(&plan, affine(array, offset, scale), &input, false);
                        }
                    }
                }
            }
        }
    }

    /// A map with a NaN key where the source has NaN, the source's 0 and 1 as keys, and into
    /// a float type 2 and 3 mapped to NaN and -Infinity (values no conversion gives).
    fn key_map(from: DataType, to: DataType) -> ScalarMap {
        let mut entries = vec![
            (serde_json::json!(0), serde_json::json!(1)),
            (serde_json::json!(1), serde_json::json!(0)),
        ];
        if from.is_float() && to.is_float() {
            entries.push((serde_json::json!("NaN"), serde_json::json!(0)));
        } else if from.is_float() {
            entries.push((serde_json::json!("NaN"), serde_json::json!(2)));
        }
        if to.is_float() {
            entries.push((serde_json::json!(2), serde_json::json!("NaN")));
            entries.push((serde_json::json!(3), serde_json::json!("-Infinity")));
        }
        ScalarMap::parse(&entries, from, to).expect("a valid map")
    }

    /// The division-free quotient against division, bit for bit, on every int16 and on random
    /// 32-bit integers, for scales with awkward significands (all ones, one bit, decimal
    /// fractions) across the permitted exponent range.
    #[test]
    fn quotient_is_division() {
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("fma") {
            return;
        }
        let mut scales = vec![
            1.0,
            3.0,
            7.0,
            10.0,
            0.1,
            1e-3,
            1000.0,
            60000.0 / 37.25,
            -0.3,
        ];
        for exponent in [-900, -300, -52, -1, 0, 1, 52, 300, 899] {
            let two = 2f64.powi(exponent);
            scales.extend([
                two,
                two * (2.0 - f64::EPSILON),
                two * (1.0 + f64::EPSILON),
                -two * 1.5,
            ]);
        }
        let mut rng = Bits(0x9e37_79b9_7f4a_7c15);
        let mut ints: Vec<f64> = (-32768..=65535).map(f64::from).collect();
        for _ in 0..20_000 {
            let raw = rng.next();
            #[allow(clippy::cast_possible_truncation)]
            ints.extend([f64::from(raw as u32), f64::from((raw >> 32) as i32)]);
        }
        for scale in scales {
            let reciprocal = 1.0 / scale;
            for &x in &ints {
                let q = fused_quotient(x, scale, reciprocal);
                assert_eq!(q.to_bits(), (x / scale).to_bits(), "{x} / {scale}");
            }
        }
    }

    /// [`quotient`] compiled with FMA, as the kernels use it.
    fn fused_quotient(x: f64, scale: f64, reciprocal: f64) -> f64 {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "fma")]
            unsafe fn with_fma(x: f64, scale: f64, reciprocal: f64) -> f64 {
                quotient(x, scale, reciprocal)
            }
            // SAFETY: the caller checked that the CPU has FMA.
            unsafe { with_fma(x, scale, reciprocal) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        quotient(x, scale, reciprocal)
    }
}
