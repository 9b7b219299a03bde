//! Fast kernels for the common pairs of types.
//!
//! A kernel converts a block of elements with plain arithmetic and, alongside, works out
//! whether every element was an easy case (in range, not NaN into an integer, not a
//! `scalar_map` key, ...). Keys take their mapped output and the other hard elements of a block
//! are redone, one by one and in order, by the exact path ([`CastPlan::apply_slow`]), so a
//! kernel only has to be right on the easy cases and to recognise the others: results are
//! identical to the exact path by construction, and data full of NaNs or mapped values (a NaN
//! fill value) stays on the fast path.
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

// Everything a kernel calls must inline into the AVX2 copy of `dispatch` to be compiled for
// AVX2, hence `#[inline(always)]` throughout.
#![allow(clippy::inline_always)]

use zarr_codec_shapes::element::write_bits;
use zarr_codec_shapes::{DataType, FloatFormat, Result};

const FLOAT64: FloatFormat = FloatFormat::FLOAT64;

use crate::numeric::Scalar;
use crate::plan::CastPlan;
use crate::round::Rounding;
use crate::{Affine, OutOfRange};

mod range;

/// Elements per block: small enough that redoing a block is cheap, large enough to vectorise.
const BLOCK: usize = 512;

/// A plan's casts of whole buffers: the fast kernels here, the exact path
/// (`CastPlan::apply_slow`) for what they do not cover. (Here, not in `plan.rs`, so that
/// the plan knows nothing of its kernels.)
impl CastPlan {
    /// Casts every element of `input` into `output`, which must hold exactly as many elements
    /// of the target type (`OutputSize` otherwise; nothing is written then). On an element
    /// the rules refuse, the error names it and `output` is partly written.
    pub fn apply(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.check_sizes(input, output)?;
        if apply(self, input, output)? {
            return Ok(());
        }
        self.apply_slow(input, output)
    }

    /// `cast((x - offset) * scale)` for every element of `input` (of the affine map's type,
    /// the plan's source type), in one pass: what `scale_offset` then this cast give.
    /// `Ok(false)`, with nothing written, when no fused kernel covers these types; the caller
    /// then runs the two steps.
    pub fn apply_after(&self, affine: Affine, input: &[u8], output: &mut [u8]) -> Result<bool> {
        self.check_sizes(input, output)?;
        if affine.data_type() != self.from() {
            return Ok(false);
        }
        apply_after(self, affine, input, output)
    }

    /// `cast(x) / scale + offset` for every element of `input`, into the affine map's type
    /// (the plan's target type), in one pass: what this cast then `scale_offset`'s decoding
    /// give. `Ok(false)`, with nothing written, when no fused kernel covers these types.
    pub fn apply_then(&self, input: &[u8], output: &mut [u8], affine: Affine) -> Result<bool> {
        self.check_sizes(input, output)?;
        if affine.data_type() != self.to() {
            return Ok(false);
        }
        apply_then(self, input, output, affine)
    }

    /// Casts into a new buffer.
    pub fn apply_to_vec(&self, input: &[u8]) -> Result<Vec<u8>> {
        let count = input.len() / self.from().size();
        let mut output = vec![0; count * self.to().size()];
        self.apply(input, &mut output)?;
        Ok(output)
    }
}

/// Runs a kernel for the plan's pair of types if there is one; `Ok(false)` when there is not.
pub(crate) fn apply(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        if std::arch::is_x86_feature_detected!("f16c")
            && let Some(done) = f16c::apply(plan, input, output)
        {
            return done;
        }
        let float_to_int = plan.from().is_float() && plan.to().is_integer();
        // SAFETY: these only need the CPU features checked just above.
        return unsafe {
            match (float_to_int, range::rule_of(plan)) {
                (false, _) => apply_avx2(plan, input, output),
                (true, range::STRICT) => {
                    float_to_int_avx2::<{ range::STRICT }>(plan, input, output)
                }
                (true, range::CLAMP) => float_to_int_avx2::<{ range::CLAMP }>(plan, input, output),
                (true, _) => float_to_int_avx2::<{ range::WRAP }>(plan, input, output),
            }
        };
    }
    dispatch_any(plan, input, output)
}

/// The baseline build of the kernel [`apply`] picks: float sources into integers have a copy
/// of their kernels per `out_of_range` rule (see `range`), the other pairs one.
fn dispatch_any(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    let float_to_int = plan.from().is_float() && plan.to().is_integer();
    match (float_to_int, range::rule_of(plan)) {
        (false, _) => dispatch(plan, input, output),
        (true, range::STRICT) => dispatch_float_to_int::<{ range::STRICT }>(plan, input, output),
        (true, range::CLAMP) => dispatch_float_to_int::<{ range::CLAMP }>(plan, input, output),
        (true, _) => dispatch_float_to_int::<{ range::WRAP }>(plan, input, output),
    }
}

/// Whether the CPU has what the AVX2 copy of the kernels is compiled for.
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("sse4.1")
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,sse4.1")]
unsafe fn apply_avx2(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    dispatch(plan, input, output)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,sse4.1")]
unsafe fn float_to_int_avx2<const RULE: u8>(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
) -> Result<bool> {
    dispatch_float_to_int::<RULE>(plan, input, output)
}

/// An element type the kernels read or write, as native-endian byte arrays (no alignment
/// needed; loops over fixed-size arrays vectorise).
trait Elem: Copy {
    type Bytes: Copy + Default + AsMut<[u8]>;
    fn from_bytes(bytes: Self::Bytes) -> Self;
    fn to_bytes(self) -> Self::Bytes;
    /// `bytes` as elements (a trailing partial element is left out).
    fn split(bytes: &[u8]) -> &[Self::Bytes];
    fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes];
    fn join(elements: &[Self::Bytes]) -> &[u8];
    fn join_mut(elements: &mut [Self::Bytes]) -> &mut [u8];
    /// The element whose bits (as [`write_bits`] lays them out) are `bits`.
    fn from_bits(bits: u64) -> Self::Bytes {
        let mut bytes = Self::Bytes::default();
        write_bits(bits, bytes.as_mut());
        bytes
    }
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            type Bytes = [u8; std::mem::size_of::<$t>()];
            #[inline(always)]
            fn from_bytes(bytes: Self::Bytes) -> Self {
                <$t>::from_ne_bytes(bytes)
            }
            #[inline(always)]
            fn to_bytes(self) -> Self::Bytes {
                self.to_ne_bytes()
            }
            #[inline(always)]
            fn split(bytes: &[u8]) -> &[Self::Bytes] {
                bytes.as_chunks().0
            }
            #[inline(always)]
            fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes] {
                bytes.as_chunks_mut().0
            }
            #[inline(always)]
            fn join(elements: &[Self::Bytes]) -> &[u8] {
                elements.as_flattened()
            }
            #[inline(always)]
            fn join_mut(elements: &mut [Self::Bytes]) -> &mut [u8] {
                elements.as_flattened_mut()
            }
        }
    )*};
}
elem!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// Converts every block of `input` with `convert` (returning the value and whether it was an
/// easy case). `scalar_map` keys (`exact` gives the element's exact value for that test) then
/// take their mapped output, and each remaining hard element is redone by the exact path, in
/// order; so a block with a few mapped or out-of-range elements keeps the fast path for the
/// rest.
#[inline(always)]
fn run<S: Elem, T: Elem>(
    plan: &CastPlan,
    keys: &Keys,
    input: &[u8],
    output: &mut [u8],
    exact: impl Fn(S) -> f64,
    convert: impl Fn(S) -> (T, bool),
) -> Result<bool> {
    run_mapped(
        plan,
        keys,
        (input, output),
        exact,
        convert,
        no_refinement(),
        same,
        Post::same(),
    )
}

/// A kernel's conversion of one element: the value and whether it is right.
type Conversion<S, T> = fn(S) -> (T, bool);

/// No second conversion for blocks with hard elements (see [`run_mapped`]).
fn no_refinement<'a, S, T>() -> Option<&'a Conversion<S, T>> {
    None
}

/// What a kernel applies to each result after the cast: `converted` to the values its own
/// conversion gives, `any` to every other (mapped outputs, exact-path results). Both compute
/// the same function; `converted` may rely on what the kernel's conversion can give.
struct Post<F, G> {
    converted: F,
    any: G,
}

impl<T> Post<fn(T) -> T, fn(T) -> T> {
    /// Nothing after the cast.
    fn same() -> Self {
        Self {
            converted: same,
            any: same,
        }
    }
}

impl<P: Copy> Post<P, P> {
    /// `post` for every value.
    fn all(post: P) -> Self {
        Self {
            converted: post,
            any: post,
        }
    }
}

/// [`run`] with `pre` applied to each source element before the cast and `post` to each result
/// after it (the identities but for a fused affine map): every element, mapped and exact-path
/// ones included, becomes `post(cast(pre(x)))`.
///
/// The first pass over a block only converts and notes whether every element was easy; only
/// the rare blocks that were not pay for per-element bookkeeping. `refine`, when given, is a
/// slower conversion that covers more: a block where `convert` found hard elements is
/// converted again with it before anything goes element by element.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // each is one stage of the kernel
fn run_mapped<S: Elem, T: Elem, R: Fn(S) -> (T, bool)>(
    plan: &CastPlan,
    keys: &Keys,
    (input, output): Io<'_, '_>,
    exact: impl Fn(S) -> f64,
    convert: impl Fn(S) -> (T, bool),
    refine: Option<&R>,
    pre: impl Fn(S) -> S,
    post: Post<impl Fn(T) -> T, impl Fn(T) -> T>,
) -> Result<bool> {
    let Post {
        converted: post,
        any: post_any,
    } = post;
    let sources = S::split(input);
    let targets = T::split_mut(output);
    let mapped: Vec<(f64, T::Bytes)> = keys
        .values
        .iter()
        .map(|&(key, bits)| (key, post_any(T::from_bytes(T::from_bits(bits))).to_bytes()))
        .collect();
    let nan = keys
        .nan
        .map(|bits| post_any(T::from_bytes(T::from_bits(bits))).to_bytes());
    for (source, target) in sources.chunks(BLOCK).zip(targets.chunks_mut(BLOCK)) {
        // A count of hard elements rather than a `bool`: an integer sum of the comparison
        // masks, in integers as wide as the source's lanes, vectorises without repacking them.
        let (mut hard, mut hard_wide) = (0u32, 0u64);
        for (s, t) in source.iter().zip(target.iter_mut()) {
            let (value, fine) = convert(pre(S::from_bytes(*s)));
            *t = post(value).to_bytes();
            if size_of::<S>() == 8 {
                hard_wide += u64::from(!fine);
            } else {
                hard += u32::from(!fine);
            }
        }
        if let Some(refine) = refine
            && (hard != 0 || hard_wide != 0)
        {
            (hard, hard_wide) = (0, 0);
            for (s, t) in source.iter().zip(target.iter_mut()) {
                let (value, fine) = refine(pre(S::from_bytes(*s)));
                *t = post(value).to_bytes();
                if size_of::<S>() == 8 {
                    hard_wide += u64::from(!fine);
                } else {
                    hard += u32::from(!fine);
                }
            }
        }
        // Whether the kernel's conversions got an element right.
        let easy = |x: S| match refine {
            Some(refine) => refine(x).1,
            None => convert(x).1,
        };
        // Mapped elements take their output straight from the map, as the exact path would:
        // one select per key over the block, which vectorises (keys are few and distinct).
        for &(key, out) in &mapped {
            for (s, t) in source.iter().zip(target.iter_mut()) {
                #[allow(clippy::float_cmp)] // numerical equality is the rule
                let hit = exact(pre(S::from_bytes(*s))) == key;
                *t = if hit { out } else { *t };
            }
        }
        if let Some(out) = nan {
            for (s, t) in source.iter().zip(target.iter_mut()) {
                let hit = exact(pre(S::from_bytes(*s))).is_nan();
                *t = if hit { out } else { *t };
            }
        }
        if (hard != 0 || hard_wide != 0) && nan.is_some() {
            // NaNs the map takes are not hard: a block with many (a masked area) need not go
            // element by element below unless something else in it is hard.
            let (mut left, mut left_wide) = (0u32, 0u64);
            for s in source {
                let x = pre(S::from_bytes(*s));
                let hard_here = !easy(x) && !exact(x).is_nan();
                if size_of::<S>() == 8 {
                    left_wide += u64::from(hard_here);
                } else {
                    left += u32::from(hard_here);
                }
            }
            (hard, hard_wide) = (left, left_wide);
        }
        if hard != 0 || hard_wide != 0 {
            let is_key = |x: f64| {
                #[allow(clippy::float_cmp)] // numerical equality is the rule
                let hit = mapped.iter().any(|&(key, _)| key == x);
                hit || (nan.is_some() && x.is_nan())
            };
            for (s, t) in source.iter().zip(target.iter_mut()) {
                let x = pre(S::from_bytes(*s));
                if easy(x) || is_key(exact(x)) {
                    continue;
                }
                let one = std::slice::from_mut(t);
                plan.apply_slow(S::join(&[x.to_bytes()]), T::join_mut(one))?;
                *t = post_any(T::from_bytes(*t)).to_bytes();
            }
        }
    }
    Ok(true)
}

/// `scalar_map` keys as `f64` values (every key of an f32/f64/small-integer source is one)
/// with the target bits they map to, for the kernels; `nan` is NaN's output when NaN is a key.
#[derive(Default)]
struct Keys {
    values: Vec<(f64, u64)>,
    nan: Option<u64>,
}

/// The `f64` equal to a finite scalar, if there is one (keys come from the source type, so
/// for the kernels' sources there always is).
fn exact_f64(value: Scalar) -> Option<f64> {
    let Scalar::Finite {
        negative,
        significand,
        exponent,
    } = value
    else {
        return None;
    };
    if significand >> 53 != 0 {
        return None;
    }
    // Scale by powers of two that are themselves normal, so nothing rounds on the way; the
    // last multiplication is exact when the result is representable, which the check confirms.
    #[allow(clippy::cast_precision_loss)] // < 2^53: exact
    let mut result = significand as f64;
    let mut exponent = exponent;
    while exponent > 1000 {
        result *= 2f64.powi(1000);
        exponent -= 1000;
    }
    while exponent < -1000 {
        result *= 2f64.powi(-1000);
        exponent += 1000;
    }
    result *= 2f64.powi(exponent);
    let result = if negative { -result } else { result };
    let back = crate::numeric::decode(result.to_bits(), crate::numeric::Numeric::Float(FLOAT64));
    (back.key() == value.key()).then_some(result)
}

impl Keys {
    fn of(plan: &CastPlan) -> Option<Self> {
        let mut keys = Self::default();
        for &(key, bits) in plan.map().entries() {
            match key {
                Scalar::Nan { .. } => keys.nan = Some(bits),
                Scalar::Infinity { negative } => {
                    let infinity = if negative {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    };
                    keys.values.push((infinity, bits));
                }
                finite @ Scalar::Finite { .. } => keys.values.push((exact_f64(finite)?, bits)),
            }
        }
        Some(keys)
    }

    fn is_empty(&self) -> bool {
        self.values.is_empty() && self.nan.is_none()
    }
}

/// Integer targets: the exclusive bounds of the range as floats (powers of two, exact in
/// `f32` and `f64`) and unchecked conversions, which compile to plain vector conversions
/// (Rust's saturating `as` does not vectorise well).
trait IntTarget: Elem {
    /// The smallest value, as a float: the fast path's lower bound, and the type's.
    const LOW: f64;
    /// The fast path's exclusive upper bound: the type's, but for `uint64` (see below).
    const HIGH: f64;
    /// The type's exclusive upper bound (`2^N` or `2^(N-1)`).
    const TOP: f64;
    /// Width in bits.
    const BITS: u32;
    /// 64-bit: converted by [`range::wide_int`] (no packed conversion before AVX-512).
    const WIDE: bool = Self::BITS == 64;
    const MIN: Self;
    const MAX: Self;
    /// The low bits of a two's complement value.
    fn from_i64_bits(value: i64) -> Self;
    /// The low bits of a two's complement value.
    fn from_i32_bits(value: i32) -> Self;
    /// # Safety
    /// `value` must be an integer in `[LOW, HIGH)`.
    unsafe fn from_f64_unchecked(value: f64) -> Self;
    /// # Safety
    /// `value` must be an integer in `[LOW, HIGH)`.
    unsafe fn from_f32_unchecked(value: f32) -> Self;
    fn from_i128(value: i128) -> Option<Self>;
}

macro_rules! int_target {
    ($($t:ty => $low:expr, $high:expr, $top:expr, $via:ty);* $(;)?) => {$(
        impl IntTarget for $t {
            const LOW: f64 = $low;
            const HIGH: f64 = $high;
            const TOP: f64 = $top;
            const BITS: u32 = <$t>::BITS;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // low bits
            fn from_i64_bits(value: i64) -> Self { value as $t }
            #[inline(always)]
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_lossless,
                clippy::cast_possible_wrap
            )] // low bits, sign-extended for the 64-bit types
            fn from_i32_bits(value: i32) -> Self { value as $t }
            #[inline(always)]
            unsafe fn from_f64_unchecked(value: f64) -> Self {
                // SAFETY: the caller guarantees `value` is an integer that fits the type, so
                // it fits the (at least as wide) type converted through too.
                let wide = unsafe { value.to_int_unchecked::<$via>() };
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // in range
                let narrow = wide as $t;
                narrow
            }
            #[inline(always)]
            unsafe fn from_f32_unchecked(value: f32) -> Self {
                // SAFETY: as above.
                let wide = unsafe { value.to_int_unchecked::<$via>() };
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // in range
                let narrow = wide as $t;
                narrow
            }
            #[inline(always)]
            fn from_i128(value: i128) -> Option<Self> { <$t>::try_from(value).ok() }
        }
    )*};
}
// Bounds of the fast path: [LOW, HIGH), powers of two (or zero), exact in f32 and f64, within
// the type's range (anything outside is redone by the exact path, or clamped or wrapped in
// the kernel: see `range`). The narrow types convert through i32, which has packed
// conversions (vcvttps2dq) that the 8- and 16-bit forms lack.
int_target! {
    i8 => -128.0, 128.0, 128.0, i32;
    i16 => -32768.0, 32768.0, 32768.0, i32;
    i32 => -2_147_483_648.0, 2_147_483_648.0, 2_147_483_648.0, i32;
    i64 => -9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0,
        9_223_372_036_854_775_808.0, i64;
    u8 => 0.0, 256.0, 256.0, i32;
    u16 => 0.0, 65536.0, 65536.0, i32;
    u32 => 0.0, 4_294_967_296.0, 4_294_967_296.0, u32;
    // uint64 values from 2^63 up take the exact path: unsigned 64-bit conversion has no
    // vector instruction before AVX-512.
    u64 => 0.0, 9_223_372_036_854_775_808.0, 18_446_744_073_709_551_616.0, i64;
}

/// A rounding mode as a type, so each kernel is compiled for one mode.
trait Mode {
    const ROUNDING: Rounding;
    fn f64(value: f64) -> f64;
    fn f32(value: f32) -> f32;
}

macro_rules! mode {
    ($($name:ident => $rounding:ident, $method:ident);* $(;)?) => {$(
        struct $name;
        impl Mode for $name {
            const ROUNDING: Rounding = Rounding::$rounding;
            #[inline(always)]
            fn f64(value: f64) -> f64 { value.$method() }
            #[inline(always)]
            fn f32(value: f32) -> f32 { value.$method() }
        }
    )*};
}
// Rounding to an integer is exact in the same float type: the result is representable.
mode! {
    NearestEven => NearestEven, round_ties_even;
    TowardsZero => TowardsZero, trunc;
    TowardsPositive => TowardsPositive, ceil;
    TowardsNegative => TowardsNegative, floor;
    NearestAway => NearestAway, round;
}

/// `$kernel::<$params..., M>($args...)` with `M` the mode type of `$rounding` (the parameters
/// are types, or `true`/`false`/`WRAP` for a kernel's `WRAP`).
macro_rules! by_mode {
    ($rounding:expr, $kernel:ident::<$($t:tt),*>($($arg:expr),* $(,)?)) => {
        match $rounding {
            Rounding::NearestEven => $kernel::<$($t,)* NearestEven>($($arg),*),
            Rounding::TowardsZero => $kernel::<$($t,)* TowardsZero>($($arg),*),
            Rounding::TowardsPositive => $kernel::<$($t,)* TowardsPositive>($($arg),*),
            Rounding::TowardsNegative => $kernel::<$($t,)* TowardsNegative>($($arg),*),
            Rounding::NearestAway => $kernel::<$($t,)* NearestAway>($($arg),*),
        }
    };
}

/// `float32` bits to `float16` bits, to nearest, ties to even. NaN stays NaN (quiet, sign
/// kept), infinities stay; `false` for a finite value that overflows, which gives ±Infinity
/// (what `clamp` wants; otherwise the exact path raises its error).
#[inline(always)]
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
    // Finite inputs at or beyond 65520 round to 0x7c00 (infinity) or past it: out of range.
    let overflow = magnitude < 0x7f80_0000 && result >= 0x7c00;
    let result = if overflow { 0x7c00 } else { result };
    #[allow(clippy::cast_possible_truncation)] // result <= 0x7e00
    let half = (result | sign) as u16;
    (half, !overflow)
}

/// `float16` bits to `float32`, exactly.
#[inline(always)]
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
    let result = if overflow { 0x7c00 } else { result };
    #[allow(clippy::cast_possible_truncation)] // result <= 0x7e00
    let half = (result | sign) as u16;
    (half, !overflow)
}

/// `float32` to `bfloat16` bits, to nearest, ties to even; `false` on finite overflow (which
/// rounds to ±Infinity).
#[inline(always)]
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
fn canonical_f32(value: f32) -> f32 {
    if value.is_nan() {
        f32::from_bits(0x7fc0_0000 | (value.to_bits() & 0x8000_0000))
    } else {
        value
    }
}

#[inline(always)]
fn canonical_f64(value: f64) -> f64 {
    if value.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000 | (value.to_bits() & 0x8000_0000_0000_0000))
    } else {
        value
    }
}

/// Picks the kernel for the plan's types and rules.
#[inline(always)]
#[allow(clippy::too_many_lines)]
fn dispatch(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    let Some(keys) = Keys::of(plan) else {
        return Ok(false);
    };
    let keys = &keys;
    let rounding = plan.rules().rounding;
    let clamp = plan.rules().out_of_range == Some(OutOfRange::Clamp);
    let wrap = plan.rules().out_of_range == Some(OutOfRange::Wrap);
    let (from, to) = (plan.from(), plan.to());
    let io = (input, output);

    // Integer to integer: no rounding; out-of-range values clamp or wrap as the rule says.
    macro_rules! int_to_int {
        ($s:ty) => {
            match to {
                DataType::Int8 => int_to_int::<$s, i8>(plan, keys, io, clamp, wrap),
                DataType::Int16 => int_to_int::<$s, i16>(plan, keys, io, clamp, wrap),
                DataType::Int32 => int_to_int::<$s, i32>(plan, keys, io, clamp, wrap),
                DataType::Int64 => int_to_int::<$s, i64>(plan, keys, io, clamp, wrap),
                DataType::UInt8 => int_to_int::<$s, u8>(plan, keys, io, clamp, wrap),
                DataType::UInt16 => int_to_int::<$s, u16>(plan, keys, io, clamp, wrap),
                DataType::UInt32 => int_to_int::<$s, u32>(plan, keys, io, clamp, wrap),
                DataType::UInt64 => int_to_int::<$s, u64>(plan, keys, io, clamp, wrap),
                _ => Ok(false),
            }
        };
    }
    // From a source whose values are all exact `f32`s (`Exact32`) to every kernel target.
    macro_rules! from_f32 {
        ($s:ty) => {
            match to {
                DataType::Float32 => {
                    exact_to::<$s, f32>(plan, keys, io, |v| canonical_f32(v.f32()), Post::same())
                }
                DataType::Float64 => exact_to::<$s, f64>(
                    plan,
                    keys,
                    io,
                    |v| canonical_f64(f64::from(v.f32())),
                    Post::same(),
                ),
                DataType::Float16 if rounding == Rounding::NearestEven => {
                    narrow::<$s>(plan, keys, io, |v| f32_to_f16(v.f32()), clamp)
                }
                DataType::BFloat16 if rounding == Rounding::NearestEven => {
                    narrow::<$s>(plan, keys, io, |v| f32_to_bf16(v.f32()), clamp)
                }
                _ => Ok(false),
            }
        };
    }
    // From a source whose values are all exact `f64`s (`Exact64`).
    macro_rules! from_f64 {
        ($s:ty) => {
            match to {
                DataType::Float64 => {
                    exact_to::<$s, f64>(plan, keys, io, |v| canonical_f64(v.f64()), Post::same())
                }
                DataType::Float32 if clamp => {
                    by_mode!(
                        rounding,
                        f64_to_f32::<$s, true>(plan, keys, io, Post::same())
                    )
                }
                DataType::Float32 => {
                    by_mode!(
                        rounding,
                        f64_to_f32::<$s, false>(plan, keys, io, Post::same())
                    )
                }
                DataType::Float16 if rounding == Rounding::NearestEven => {
                    narrow::<$s>(plan, keys, io, |v| f64_to_f16(v.f64()), clamp)
                }
                _ => Ok(false),
            }
        };
    }

    match from {
        DataType::Float32 => from_f32!(f32),
        DataType::Float16 => from_f32!(F16),
        DataType::BFloat16 => from_f32!(BF16),
        DataType::Float64 => from_f64!(f64),
        DataType::Int8 if to.is_float() => from_f32!(i8),
        DataType::UInt8 if to.is_float() => from_f32!(u8),
        DataType::Int16 if to.is_float() => from_f32!(i16),
        DataType::UInt16 if to.is_float() => from_f32!(u16),
        DataType::Int32 if to.is_float() => from_f64!(i32),
        DataType::UInt32 if to.is_float() => from_f64!(u32),
        DataType::Int64 | DataType::UInt64 if to.is_float() => {
            wide_int_to_float(plan, keys, io, rounding)
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

/// [`dispatch`] for float sources into integers, compiled once per `out_of_range` rule.
/// `float16` and `bfloat16` have kernels for the common modes only (each kernel is compiled
/// six times: three rules, baseline and AVX2); the others take the exact path.
#[inline(always)]
fn dispatch_float_to_int<const RULE: u8>(
    plan: &CastPlan,
    input: &[u8],
    output: &mut [u8],
) -> Result<bool> {
    let Some(keys) = Keys::of(plan) else {
        return Ok(false);
    };
    let keys = &keys;
    let rounding = plan.rules().rounding;
    let common = matches!(rounding, Rounding::NearestEven | Rounding::TowardsZero);
    let io = (input, output);
    macro_rules! to_int {
        ($kernel:ident, $s:ty) => {
            match plan.to() {
                DataType::Int8 => by_mode!(rounding, $kernel::<$s, i8, RULE>(plan, keys, io, same)),
                DataType::Int16 => {
                    by_mode!(rounding, $kernel::<$s, i16, RULE>(plan, keys, io, same))
                }
                DataType::Int32 => {
                    by_mode!(rounding, $kernel::<$s, i32, RULE>(plan, keys, io, same))
                }
                DataType::Int64 => {
                    by_mode!(rounding, $kernel::<$s, i64, RULE>(plan, keys, io, same))
                }
                DataType::UInt8 => {
                    by_mode!(rounding, $kernel::<$s, u8, RULE>(plan, keys, io, same))
                }
                DataType::UInt16 => {
                    by_mode!(rounding, $kernel::<$s, u16, RULE>(plan, keys, io, same))
                }
                DataType::UInt32 => {
                    by_mode!(rounding, $kernel::<$s, u32, RULE>(plan, keys, io, same))
                }
                DataType::UInt64 => {
                    by_mode!(rounding, $kernel::<$s, u64, RULE>(plan, keys, io, same))
                }
                _ => Ok(false),
            }
        };
    }
    match plan.from() {
        DataType::Float32 => to_int!(f32_to_int, f32),
        DataType::Float64 => to_int!(f64_to_int, f64),
        DataType::Float16 if common => to_int!(f32_to_int, F16),
        DataType::BFloat16 if common => to_int!(f32_to_int, BF16),
        _ => Ok(false),
    }
}

/// The identity, for kernels with nothing to fuse.
#[inline(always)]
fn same<X>(x: X) -> X {
    x
}

/// The input and output bytes of one kernel call.
type Io<'a, 'b> = (&'a [u8], &'b mut [u8]);

/// `float16` and `bfloat16` elements (their bits; Rust has no such float types yet).
#[derive(Clone, Copy)]
struct F16(u16);
#[derive(Clone, Copy)]
struct BF16(u16);

macro_rules! half_elem {
    ($($t:ident),*) => {$(
        impl Elem for $t {
            type Bytes = [u8; 2];
            #[inline(always)]
            fn from_bytes(bytes: Self::Bytes) -> Self { $t(u16::from_ne_bytes(bytes)) }
            #[inline(always)]
            fn to_bytes(self) -> Self::Bytes { self.0.to_ne_bytes() }
            #[inline(always)]
            fn split(bytes: &[u8]) -> &[Self::Bytes] { bytes.as_chunks().0 }
            #[inline(always)]
            fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes] { bytes.as_chunks_mut().0 }
            #[inline(always)]
            fn join(elements: &[Self::Bytes]) -> &[u8] { elements.as_flattened() }
            #[inline(always)]
            fn join_mut(elements: &mut [Self::Bytes]) -> &mut [u8] { elements.as_flattened_mut() }
        }
    )*};
}
half_elem!(F16, BF16);

/// Sources whose every value is exactly an `f32` (and so an `f64`).
trait Exact32: Elem {
    fn f32(self) -> f32;
}
/// Sources whose every value is exactly an `f64`.
trait Exact64: Elem {
    fn f64(self) -> f64;
}

impl Exact32 for f32 {
    #[inline(always)]
    fn f32(self) -> f32 {
        self
    }
}
impl Exact32 for F16 {
    #[inline(always)]
    fn f32(self) -> f32 {
        f16_to_f32(self.0)
    }
}
impl Exact32 for BF16 {
    #[inline(always)]
    fn f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}
macro_rules! exact_int {
    (32: $($t:ty),*; 64: $($u:ty),*) => {
        $(impl Exact32 for $t {
            #[inline(always)]
            fn f32(self) -> f32 { f32::from(self) }
        })*
        $(impl Exact64 for $u {
            #[inline(always)]
            fn f64(self) -> f64 { f64::from(self) }
        })*
    };
}
exact_int!(32: i8, u8, i16, u16; 64: i32, u32);
impl Exact64 for f64 {
    #[inline(always)]
    fn f64(self) -> f64 {
        self
    }
}

#[inline(always)]
fn int_to_int<S, T>(
    plan: &CastPlan,
    keys: &Keys,
    (input, output): Io<'_, '_>,
    clamp: bool,
    wrap: bool,
) -> Result<bool>
where
    S: Elem + Into<i128>,
    T: IntTarget + Default,
{
    // Keys are exact in f64, and so is every element below 2^53. A wider element that is not
    // would round onto a neighbour, perhaps a key: it gives NaN instead, which equals no key
    // (an integer source has no NaN key).
    let exact = |v: S| {
        let value: i128 = v.into();
        #[allow(clippy::cast_precision_loss)] // checked below where it can round
        let rounded = value as f64;
        #[allow(clippy::cast_possible_truncation)] // a rounded 64-bit integer fits in i128
        let exact = std::mem::size_of::<S>() < 8 || rounded as i128 == value;
        if exact { rounded } else { f64::NAN }
    };
    run(plan, keys, input, output, exact, |v: S| {
        let value: i128 = v.into();
        match T::from_i128(value) {
            Some(t) => (t, true),
            None if clamp => (if value < 0 { T::MIN } else { T::MAX }, true),
            // The low bits of the two's complement value are its residue.
            #[allow(clippy::cast_possible_truncation)] // the low 64 bits, as meant
            None if wrap => (T::from_i64_bits(value as i64), true),
            None => (T::default(), false),
        }
    })
}

#[inline(always)]
fn f64_to_int<S: Exact64, T: IntTarget, const RULE: u8, M: Mode>(
    plan: &CastPlan,
    keys: &Keys,
    io: Io<'_, '_>,
    pre: impl Fn(S) -> S,
) -> Result<bool> {
    let convert = move |v: S| range::int_from_f64::<T, RULE>(M::f64(v.f64()));
    if RULE == range::WRAP && !T::WIDE {
        // Beyond i32 the residue needs the full computation (see `range`).
        let refine = move |v: S| range::wrapped::<T, f64>(M::f64(v.f64()));
        return run_mapped(
            plan,
            keys,
            io,
            S::f64,
            convert,
            Some(&refine),
            pre,
            Post::same(),
        );
    }
    run_mapped(
        plan,
        keys,
        io,
        S::f64,
        convert,
        no_refinement(),
        pre,
        Post::same(),
    )
}

#[inline(always)]
fn f32_to_int<S: Exact32, T: IntTarget, const RULE: u8, M: Mode>(
    plan: &CastPlan,
    keys: &Keys,
    io: Io<'_, '_>,
    pre: impl Fn(S) -> S,
) -> Result<bool> {
    let convert = move |v: S| range::int_from_f32::<T, RULE>(M::f32(v.f32()));
    let exact = |v: S| f64::from(v.f32());
    if RULE == range::WRAP && !T::WIDE {
        // Beyond i32 the residue needs the full computation (see `range`).
        let refine = move |v: S| {
            let r = M::f32(v.f32());
            // As `int_from_f32` does: 32-bit targets in f64.
            if T::BITS > 16 {
                range::wrapped::<T, f64>(f64::from(r))
            } else {
                range::wrapped::<T, f32>(r)
            }
        };
        return run_mapped(
            plan,
            keys,
            io,
            exact,
            convert,
            Some(&refine),
            pre,
            Post::same(),
        );
    }
    run_mapped(
        plan,
        keys,
        io,
        exact,
        convert,
        no_refinement(),
        pre,
        Post::same(),
    )
}

/// An exact conversion (widening, or to the same type): every element is easy.
#[inline(always)]
fn exact_to<S: Elem + Exact, T: Elem>(
    plan: &CastPlan,
    keys: &Keys,
    io: Io<'_, '_>,
    convert: impl Fn(S) -> T,
    post: Post<impl Fn(T) -> T, impl Fn(T) -> T>,
) -> Result<bool> {
    let convert = |v: S| (convert(v), true);
    run_mapped(
        plan,
        keys,
        io,
        S::exact,
        convert,
        no_refinement(),
        same,
        post,
    )
}

/// A narrowing to 16 bits whose routine says when the value overflowed (and gives ±Infinity
/// then).
#[inline(always)]
fn narrow<S: Elem + Exact>(
    plan: &CastPlan,
    keys: &Keys,
    (input, output): Io<'_, '_>,
    convert: impl Fn(S) -> (u16, bool),
    clamp: bool,
) -> Result<bool> {
    // The routines give ±Infinity on overflow, which is what `clamp` asks for.
    let convert = |v: S| {
        let (half, ok) = convert(v);
        (half, ok || clamp)
    };
    run(plan, keys, input, output, S::exact, convert)
}

/// The exact `f64` value of a kernel source, for the `scalar_map` key test.
trait Exact: Elem {
    fn exact(self) -> f64;
}
macro_rules! exact_via {
    (f32: $($t:ty),*; f64: $($u:ty),*) => {
        $(impl Exact for $t {
            #[inline(always)]
            fn exact(self) -> f64 { f64::from(Exact32::f32(self)) }
        })*
        $(impl Exact for $u {
            #[inline(always)]
            fn exact(self) -> f64 { Exact64::f64(self) }
        })*
    };
}
exact_via!(f32: f32, F16, BF16, i8, u8, i16, u16; f64: f64, i32, u32);

/// `float64` to `float32`: the IEEE conversion rounds to nearest even; the directed modes
/// step one ulp from it where it went the wrong way. Ties away from zero are left to the
/// exact path, and so is overflow unless `clamp` (then ±Infinity from `2^128` up, where the
/// exact path finds the value out of range in every mode; below that, what the steps give).
#[inline(always)]
fn f64_to_f32<S: Exact64, const CLAMP: bool, M: Mode>(
    plan: &CastPlan,
    keys: &Keys,
    io: Io<'_, '_>,
    post: Post<impl Fn(f32) -> f32, impl Fn(f32) -> f32>,
) -> Result<bool> {
    let convert = |v: S| {
        let x = v.f64();
        #[allow(clippy::cast_possible_truncation)] // rounding is the point
        let nearest = x as f32;
        let back = f64::from(nearest);
        #[allow(clippy::float_cmp)] // exactness is the question
        let (result, ok) = match M::ROUNDING {
            Rounding::TowardsPositive if back < x => (nearest.next_up(), true),
            Rounding::TowardsNegative if back > x => (nearest.next_down(), true),
            Rounding::TowardsZero if back.abs() > x.abs() => (
                if x > 0.0 {
                    nearest.next_down()
                } else {
                    nearest.next_up()
                },
                true,
            ),
            Rounding::NearestAway => (nearest, back == x || x.is_nan()),
            _ => (nearest, true),
        };
        if CLAMP {
            const OUTSIDE: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0; // 2^128
            // To nearest, the conversion already gives ±Infinity there.
            if M::ROUNDING == Rounding::NearestEven {
                return (canonical_f32(result), ok);
            }
            let infinity = if x > 0.0 {
                f32::INFINITY
            } else {
                f32::NEG_INFINITY
            };
            let result = if x.abs() >= OUTSIDE { infinity } else { result };
            return (canonical_f32(result), ok);
        }
        // Overflow (an infinity from a finite value, or a directed step off the end): the exact
        // path applies the range rule.
        let ok = ok && result.is_finite() == x.is_finite() && nearest.is_finite() == x.is_finite();
        (canonical_f32(result), ok)
    };
    run_mapped(plan, keys, io, S::f64, convert, no_refinement(), same, post)
}

/// `v` as an `f64`, exact for `|v| < 2^51` (the caller checks): see `wide_int_to_float`.
#[inline(always)]
fn int_to_f64(v: i64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 2^52 + 2^51
    f64::from_bits(
        v.wrapping_add(MAGIC.to_bits().cast_signed())
            .cast_unsigned(),
    ) - MAGIC
}

/// `int64`/`uint64` to `float64`/`float32` to nearest even through an exact `f64`; other modes
/// and the 16-bit formats take the exact path.
#[inline(always)]
fn wide_int_to_float(
    plan: &CastPlan,
    keys: &Keys,
    (input, output): Io<'_, '_>,
    rounding: Rounding,
) -> Result<bool> {
    if rounding != Rounding::NearestEven || !keys.is_empty() {
        return Ok(false);
    }
    // |v| < 2^51 (others are hard cases): v + (2^52 + 2^51) as the bits of a double, minus
    // that double, is v exactly, with plain vector integer and float arithmetic (AVX2 has no
    // packed int64 conversion); float32 then rounds once from that exact value.
    // (-2^51 <= v < 2^51 as one shifted comparison: it vectorises where `abs` does not.)
    let signed = |v: i64| (int_to_f64(v), (v.wrapping_add(1 << 51) >> 52) == 0);
    let unsigned = |v: u64| (int_to_f64(v.cast_signed()), v < 1 << 51);
    #[allow(clippy::cast_possible_truncation)] // rounding to float32 is the point
    match (plan.from(), plan.to()) {
        (DataType::Int64, DataType::Float64) => {
            run(plan, keys, input, output, |_: i64| 0.0, signed)
        }
        (DataType::Int64, DataType::Float32) => run(
            plan,
            keys,
            input,
            output,
            |_: i64| 0.0,
            |v: i64| {
                let (x, ok) = signed(v);
                (x as f32, ok)
            },
        ),
        (DataType::UInt64, DataType::Float64) => {
            run(plan, keys, input, output, |_: u64| 0.0, unsigned)
        }
        (DataType::UInt64, DataType::Float32) => run(
            plan,
            keys,
            input,
            output,
            |_: u64| 0.0,
            |v: u64| {
                let (x, ok) = unsigned(v);
                (x as f32, ok)
            },
        ),
        _ => Ok(false),
    }
}

/// `float32 <-> float16` with the F16C conversion instructions, 8 elements at a time.
#[cfg(target_arch = "x86_64")]
mod f16c {
    use std::arch::x86_64::{
        __m128, __m256, __m256d, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_NEQ_OQ, _CMP_UNORD_Q,
        _MM_FROUND_TO_NEAREST_INT, _mm_add_epi32, _mm_and_si128, _mm_castps_si128,
        _mm_castsi128_ps, _mm_cmpneq_ps, _mm_loadu_si128, _mm_or_si128, _mm_set1_epi32,
        _mm_setzero_ps, _mm_storeu_si128, _mm256_and_pd, _mm256_and_ps, _mm256_castsi256_pd,
        _mm256_castsi256_ps, _mm256_cmp_pd, _mm256_cmp_ps, _mm256_cvtpd_ps, _mm256_cvtph_ps,
        _mm256_cvtps_pd, _mm256_cvtps_ph, _mm256_loadu_pd, _mm256_loadu_ps, _mm256_movemask_pd,
        _mm256_movemask_ps, _mm256_set_m128, _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_set1_pd,
        _mm256_set1_ps, _mm256_storeu_ps,
    };

    use zarr_codec_shapes::{DataType, Result};

    use super::{Keys, OutOfRange, canonical_f32};
    use crate::plan::CastPlan;
    use crate::round::Rounding;

    /// Runs the F16C kernel if it covers the plan (`None` otherwise). The caller has checked
    /// that the CPU has AVX2 and F16C.
    pub(super) fn apply(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Option<Result<bool>> {
        let covered = plan.rules().rounding == Rounding::NearestEven
            && Keys::of(plan).is_some_and(|keys| keys.is_empty());
        match (plan.from(), plan.to()) {
            (DataType::Float32, DataType::Float16) if covered => {
                // SAFETY: the caller checked the CPU features `narrow` enables.
                Some(unsafe { narrow(plan, input, output) })
            }
            (DataType::Float64, DataType::Float16) if covered => {
                // SAFETY: the caller checked the CPU features `narrow_f64` enables.
                Some(unsafe { narrow_f64(plan, input, output) })
            }
            (DataType::Float16, DataType::Float32) if covered => {
                // SAFETY: the caller checked the CPU features `widen` enables.
                Some(unsafe { widen(plan, input, output) })
            }
            _ => None,
        }
    }

    /// float32 -> float16, nearest-even. F16C gives ±Infinity for a finite value at or beyond
    /// 65520, which is `clamp`'s result; without `clamp` such groups of 8 take the exact path
    /// (which raises its error). NaNs, whose payload F16C keeps, are made canonical.
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn narrow(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
        let clamp = plan.rules().out_of_range == Some(OutOfRange::Clamp);
        let sources = input.as_chunks::<32>();
        let targets = output.as_chunks_mut::<16>();
        let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
        let limit = _mm256_set1_ps(65520.0);
        let infinity = _mm256_set1_ps(f32::INFINITY);
        for (s, t) in sources.0.iter().zip(targets.0.iter_mut()) {
            // SAFETY: `s` is 32 readable bytes and `t` 16 writable ones; unaligned access.
            let (overflow, nan) = unsafe {
                let x: __m256 = _mm256_loadu_ps(s.as_ptr().cast());
                let magnitude = _mm256_and_ps(x, abs_mask);
                let big = _mm256_cmp_ps::<_CMP_GE_OQ>(magnitude, limit);
                let finite_big = _mm256_cmp_ps::<_CMP_GE_OQ>(infinity, magnitude);
                let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x);
                let half = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x);
                _mm_storeu_si128(t.as_mut_ptr().cast(), half);
                (
                    _mm256_movemask_ps(_mm256_and_ps(big, finite_big)),
                    _mm256_movemask_ps(nan),
                )
            };
            settle(plan, s, t, (overflow, nan), clamp)?;
        }
        finish(plan, sources.1, targets.1)
    }

    /// float64 -> float16, nearest-even, through float32 rounded to odd: truncated toward zero,
    /// with the last bit set when anything was cut off. float32 keeps more than two bits
    /// beyond float16's, so rounding that to nearest (F16C) gives the correctly rounded
    /// result, not a double rounding. Overflow and NaN as in [`narrow`].
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn narrow_f64(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
        let clamp = plan.rules().out_of_range == Some(OutOfRange::Clamp);
        let sources = input.as_chunks::<64>();
        let targets = output.as_chunks_mut::<16>();
        let abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fff_ffff_ffff_ffff));
        let limit = _mm256_set1_pd(65520.0);
        let infinity = _mm256_set1_pd(f64::INFINITY);
        let one = _mm256_set1_pd(1.0);
        // Four float64 lanes to float32 rounded to odd, and their overflow and NaN bits.
        let to_odd = |x: __m256d| -> (__m128, i32, i32) {
            let magnitude = _mm256_and_pd(x, abs_mask);
            let nearest = _mm256_cvtpd_ps(x);
            let back = _mm256_cvtps_pd(nearest);
            let inexact = _mm256_cmp_pd::<_CMP_NEQ_OQ>(back, x);
            let away = _mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_and_pd(back, abs_mask), magnitude);
            // The 64-bit masks as 32-bit ones: 1.0 where set, converted, compared with 0.
            let narrow = |mask: __m256d| {
                _mm_castps_si128(_mm_cmpneq_ps(
                    _mm256_cvtpd_ps(_mm256_and_pd(mask, one)),
                    _mm_setzero_ps(),
                ))
            };
            // One step toward zero where it went away (the mask is -1), then the sticky bit.
            let truncated = _mm_add_epi32(_mm_castps_si128(nearest), narrow(away));
            let odd = _mm_or_si128(truncated, _mm_and_si128(narrow(inexact), _mm_set1_epi32(1)));
            let big = _mm256_cmp_pd::<_CMP_GE_OQ>(magnitude, limit);
            let finite = _mm256_cmp_pd::<_CMP_GT_OQ>(infinity, magnitude);
            let overflow = _mm256_movemask_pd(_mm256_and_pd(big, finite));
            let nan = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(x, x));
            (_mm_castsi128_ps(odd), overflow, nan)
        };
        for (s, t) in sources.0.iter().zip(targets.0.iter_mut()) {
            // SAFETY: `s` is 64 readable bytes and `t` 16 writable ones; unaligned access.
            let (overflow, nan) = unsafe {
                let (low, low_overflow, low_nan) = to_odd(_mm256_loadu_pd(s.as_ptr().cast()));
                let (high, high_overflow, high_nan) =
                    to_odd(_mm256_loadu_pd(s.as_ptr().add(32).cast()));
                let half = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_set_m128(high, low));
                _mm_storeu_si128(t.as_mut_ptr().cast(), half);
                (low_overflow | high_overflow << 4, low_nan | high_nan << 4)
            };
            settle(plan, s, t, (overflow, nan), clamp)?;
        }
        finish(plan, sources.1, targets.1)
    }

    /// After F16C converted 8 elements of `s` into `t`: without `clamp`, a group with an
    /// overflow (bits of `overflow`) is redone by the exact path, which raises its error; NaN
    /// lanes (bits of `nan`; F16C keeps their payload and sign) become the canonical NaN.
    fn settle(
        plan: &CastPlan,
        s: &[u8],
        t: &mut [u8; 16],
        (overflow, nan): (i32, i32),
        clamp: bool,
    ) -> Result<()> {
        if overflow != 0 && !clamp {
            return plan.apply_slow(s, t);
        }
        for (lane, half) in t.as_chunks_mut::<2>().0.iter_mut().enumerate() {
            if nan >> lane & 1 != 0 {
                let sign = u16::from_ne_bytes(*half) & 0x8000;
                *half = (0x7e00 | sign).to_ne_bytes();
            }
        }
        Ok(())
    }

    /// float16 -> float32, exact; NaNs are made canonical afterwards.
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn widen(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
        let sources = input.as_chunks::<16>();
        let targets = output.as_chunks_mut::<32>();
        for (s, t) in sources.0.iter().zip(targets.0.iter_mut()) {
            // SAFETY: `s` is 16 readable bytes and `t` 32 writable ones; unaligned access.
            unsafe {
                let x = _mm256_cvtph_ps(_mm_loadu_si128(s.as_ptr().cast()));
                _mm256_storeu_ps(t.as_mut_ptr().cast(), x);
                if _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x)) != 0 {
                    for lane in t.as_chunks_mut::<4>().0 {
                        *lane = canonical_f32(f32::from_ne_bytes(*lane)).to_ne_bytes();
                    }
                }
            }
        }
        finish(plan, sources.1, targets.1)
    }

    /// The last few elements (fewer than 8) by the exact path.
    fn finish(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
        plan.apply_slow(input, output)?;
        Ok(true)
    }
}

mod affine;

pub(crate) use affine::{apply_after, apply_then};

#[cfg(test)]
mod tests {
    //! The kernels against the exact path, on every pair of the types they cover.

    use super::*;
    use crate::scalar_map::ScalarMap;

    /// The core types, the eight integers first.
    pub(super) const TYPES: [DataType; 12] = [
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
    pub(super) struct Bits(pub(super) u64);

    impl Bits {
        pub(super) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Elements of `data_type` as native bytes: random bit patterns, and values near the
    /// interesting places (small integers, halves, powers of two and their neighbours).
    pub(super) fn elements(data_type: DataType, count: usize, seed: u64) -> Vec<u8> {
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
        match dispatch_any(plan, input, &mut baseline) {
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

    /// Out-of-range values, infinities and NaN planted at each position of a vector block (and
    /// of the block after it, and of the tail) among in-range values: every kernel, under every
    /// `out_of_range` rule, gives what the exact path gives wherever they fall.
    #[test]
    fn out_of_range_values_at_every_position() {
        use DataType::{
            BFloat16, Float16, Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32,
            UInt64,
        };
        let sources = [Float64, Float32, Float16, Int16, Int32, Int64, UInt64];
        let targets = [
            UInt8, Int8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float32, Float16, BFloat16,
        ];
        let specials = [
            300.5,
            -200.0,
            70000.0,
            -1e6,
            3e9,
            -5e9,
            1e17,
            -1e19,
            2e19,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let length = 2 * BLOCK + 21;
        let positions: Vec<usize> = (0..40)
            .chain(BLOCK - 20..BLOCK + 20)
            .chain(length - 12..length)
            .collect();
        for from in sources {
            let size = from.size();
            let into_source = |x: f64| {
                let plan = CastPlan::new(
                    Float64,
                    from,
                    Rounding::NearestEven,
                    Some(OutOfRange::Clamp),
                    ScalarMap::default(),
                )
                .expect("plan");
                plan.apply_to_vec(&x.to_ne_bytes()).ok()
            };
            let base: Vec<u8> = (0..length)
                .filter_map(|i| into_source(f64::from(u8::try_from(i % 100).unwrap_or(0)) + 0.25))
                .flatten()
                .collect();
            let specials: Vec<Vec<u8>> = specials.iter().filter_map(|&x| into_source(x)).collect();
            for to in targets {
                for rounding in [Rounding::NearestEven, Rounding::TowardsZero] {
                    for rule in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                        let map = ScalarMap::default();
                        let Ok(plan) = CastPlan::new(from, to, rounding, rule, map) else {
                            continue;
                        };
                        let expected_base = plan.apply_to_vec(&base).expect("in range");
                        let out_size = to.size();
                        for special in &specials {
                            let one = plan.apply_to_vec(special);
                            for &position in &positions {
                                let mut input = base.clone();
                                input[position * size..][..size].copy_from_slice(special);
                                let fast = plan.apply_to_vec(&input);
                                match &one {
                                    Ok(value) => {
                                        let mut expected = expected_base.clone();
                                        expected[position * out_size..][..out_size]
                                            .copy_from_slice(value);
                                        assert!(
                                            fast.as_ref().is_ok_and(|f| *f == expected),
                                            "{plan:?}: {special:02x?} at {position}"
                                        );
                                    }
                                    Err(_) => assert!(
                                        fast.is_err(),
                                        "{plan:?}: {special:02x?} at {position} must fail"
                                    ),
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// float64 just above, at and just below every float16 tie (halfway between neighbours),
    /// where rounding through float32 to nearest would round twice: the kernels (F16C through
    /// float32 rounded to odd where the CPU has it) give the exact path's single rounding.
    #[test]
    fn float64_to_float16_near_ties_rounds_once() {
        let widen = CastPlan::new(
            DataType::Float16,
            DataType::Float64,
            Rounding::NearestEven,
            None,
            ScalarMap::default(),
        )
        .expect("plan");
        let mut input = Vec::new();
        for bits in (0u16..0x7c00).step_by(7).chain(0x7b00..0x7c00) {
            let value = |b: u16| {
                let out = widen.apply_to_vec(&b.to_ne_bytes()).expect("widen");
                f64::from_ne_bytes(out.try_into().expect("8 bytes"))
            };
            let tie = f64::midpoint(value(bits), value(bits + 1));
            for x in [
                tie,
                tie.next_up(),
                tie.next_down(),
                -tie.next_up(),
                tie + 2e-9 * tie,
            ] {
                input.extend_from_slice(&x.to_ne_bytes());
            }
        }
        for rule in [None, Some(OutOfRange::Clamp)] {
            let plan = CastPlan::new(
                DataType::Float64,
                DataType::Float16,
                Rounding::NearestEven,
                rule,
                ScalarMap::default(),
            )
            .expect("plan");
            check(&plan, &input);
        }
    }

    #[test]
    fn kernels_with_map_keys_equal_the_exact_path() {
        use serde_json::json;
        let rules = [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)];
        for (i, &from) in TYPES.iter().enumerate() {
            let small = CastPlan::new(
                DataType::Int8,
                from,
                Rounding::NearestEven,
                None,
                ScalarMap::default(),
            )
            .expect("plan");
            let zero = small.apply_to_vec(&[0]).expect("0 fits every type");
            let one = small.apply_to_vec(&[1]).expect("1 fits every type");
            // Every third element a key; the others as generated (NaN among them for floats).
            let mut input = elements(from, 1500, 0x51ed_270b + i as u64);
            for (j, element) in input.chunks_exact_mut(from.size()).enumerate() {
                match j % 6 {
                    0 => element.copy_from_slice(&zero),
                    3 => element.copy_from_slice(&one),
                    _ => {}
                }
            }
            let mut pairs = vec![(json!(0), json!(1)), (json!(1), json!(0))];
            if from.is_float() {
                pairs.push((json!("NaN"), json!(1)));
            }
            for &to in &TYPES {
                let map = ScalarMap::parse(&pairs, from, to).expect("0 and 1 fit every type");
                for rounding in Rounding::ALL {
                    for out_of_range in rules {
                        if let Ok(plan) =
                            CastPlan::new(from, to, rounding, out_of_range, map.clone())
                        {
                            check(&plan, &input);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn subnormal_and_huge_keys_are_matched_exactly() {
        use serde_json::json;
        let pairs = [(json!(5e-324), json!(1)), (json!(f64::MAX), json!(2))];
        let map = ScalarMap::parse(&pairs, DataType::Float64, DataType::Int8).expect("map");
        let plan = CastPlan::new(
            DataType::Float64,
            DataType::Int8,
            Rounding::NearestEven,
            Some(OutOfRange::Clamp),
            map,
        )
        .expect("plan");
        let input: Vec<u8> = [5e-324, 1e-323, f64::MAX, 0.0]
            .iter()
            .flat_map(|v: &f64| v.to_ne_bytes())
            .collect();
        assert_eq!(plan.apply_to_vec(&input).expect("cast"), [1, 0, 2, 0]);
    }

    #[test]
    fn wide_integer_keys_match_only_themselves() {
        // 2^63 - 2 and 2^63 are one f64 apart from nothing: compared as f64 they are equal.
        use serde_json::json;
        let cases: [(DataType, u64, [u64; 4]); 2] = [
            (
                DataType::UInt64,
                1 << 63,
                [1 << 63, (1 << 63) - 2, (1 << 63) + 2, (1 << 53) + 1],
            ),
            (
                DataType::Int64,
                1_u64 << 62,
                [1 << 62, (1 << 62) - 1, (1 << 62) + 1, 7],
            ),
        ];
        for (from, key, elements) in cases {
            let pairs = [(json!(key), json!(5))];
            let map = ScalarMap::parse(&pairs, from, DataType::Int8).expect("map");
            let plan = CastPlan::new(
                from,
                DataType::Int8,
                Rounding::NearestEven,
                Some(OutOfRange::Clamp),
                map,
            )
            .expect("plan");
            let input: Vec<u8> = elements.iter().flat_map(|v| v.to_ne_bytes()).collect();
            let small = if elements[3] == 7 { 7 } else { 127 };
            assert_eq!(
                plan.apply_to_vec(&input).expect("cast"),
                [5, 127, 127, small],
                "{from}"
            );
            check(&plan, &input);
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
