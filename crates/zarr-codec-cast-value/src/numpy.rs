//! numpy's own conversions, for codecs that must give numpy's exact values (numcodecs'
//! filters): its type strings, and `astype` as numpy 2 runs it on x86.

use serde_json::Value;
use zarr_codec_shapes::element::{read_bits, write_bits};
use zarr_codec_shapes::{CodecError, DataType, Result, bits_to_f64};

use crate::{CastPlan, OutOfRange, Rounding, ScalarMap};

/// The integer or float type a numpy type string (`"<f8"`, `"f8"`, `"|u1"`) or name
/// (`"float64"`) names; the byte order is dropped (elements are native-endian here).
/// `Configuration` for text numpy would not read, `Unsupported` for other types; both name
/// `codec` and what the type is for (`label`).
pub fn numpy_type(text: &str, codec: &str, label: &str) -> Result<DataType> {
    let data_type = DataType::from_name(text).or_else(|_| {
        let prefixed = if text.starts_with(['<', '>', '|', '=']) {
            text.to_owned()
        } else {
            format!("<{text}")
        };
        DataType::from_v2_str(&prefixed).map(|(data_type, _)| data_type)
    });
    let data_type = data_type.map_err(|_| {
        CodecError::configuration(format!("{codec}: {label} {text:?} is not a numpy type"))
    })?;
    let numeric = data_type.is_integer() || data_type.is_float();
    if !numeric || data_type.numpy_str().is_none() {
        return Err(CodecError::unsupported(format!(
            "{codec}: {label} {data_type} is not supported (integers and float16/32/64)"
        )));
    }
    Ok(data_type)
}

/// numpy's `astype` from `from` to `to` (integers and floats), as numpy 2 computes it on x86
/// for contiguous arrays: integers wrap modulo 2^N, floats round to nearest (ties to even)
/// and overflow to ±Infinity. A float into an integer is truncated towards zero; where C
/// leaves that undefined (NaN, ±Infinity, out of range), the result is x86's: into 8- and
/// 16-bit types through a 32-bit conversion (wrapped while within `int32`, else 0); into
/// `int32`/`int64` the type's minimum; into `uint32`/`uint64` numpy's unsigned sequence (below
/// 2^(N-1) a signed conversion, else one of `x - 2^(N-1)` with the top bit flipped), so NaN
/// and -Infinity give 2^(N-1), +Infinity and values from 2^N give 0 (from float16 into `uint32`
/// numpy goes through `int64`: NaN and ±Infinity give 0).
#[derive(Debug, Clone)]
pub enum NumpyCast {
    /// Every pair but float to integer: a `cast_value` plan.
    Plan(CastPlan),
    /// Between integer types: two's complement truncation or extension (Rust's `as`).
    IntToInt {
        /// The source type.
        from: DataType,
        /// The target type.
        to: DataType,
    },
    /// A float type (`from`) into an integer type (`to`), x86's way.
    FloatToInt {
        /// The float type.
        from: DataType,
        /// The integer type.
        to: DataType,
    },
}

impl NumpyCast {
    /// The source type.
    pub fn from(&self) -> DataType {
        match self {
            Self::Plan(plan) => plan.from(),
            Self::IntToInt { from, .. } | Self::FloatToInt { from, .. } => *from,
        }
    }

    /// The target type.
    pub fn to(&self) -> DataType {
        match self {
            Self::Plan(plan) => plan.to(),
            Self::IntToInt { to, .. } | Self::FloatToInt { to, .. } => *to,
        }
    }

    /// Casts every element of `input` into `output`, which holds exactly as many of the
    /// target type (`OutputSize` otherwise).
    pub fn apply(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        let (from, to, integers) = match self {
            Self::Plan(plan) => return plan.apply(input, output),
            Self::IntToInt { from, to } => (*from, *to, true),
            Self::FloatToInt { from, to } => (*from, *to, false),
        };
        let (in_size, out_size) = (from.size(), to.size());
        let count = input.len() / in_size;
        if !input.len().is_multiple_of(in_size) {
            return Err(CodecError::corrupt(format!(
                "astype: {} bytes are not whole {from} elements",
                input.len()
            )));
        }
        if output.len() != count * out_size {
            return Err(CodecError::OutputSize {
                expected: count * out_size,
                actual: output.len(),
            });
        }
        if integers {
            int_to_int(from, to, input, output);
            return Ok(());
        }
        let elements = input
            .chunks_exact(in_size)
            .zip(output.chunks_exact_mut(out_size));
        match from {
            DataType::Float64 => {
                for (x, y) in elements {
                    let value = f64::from_ne_bytes(x.try_into().unwrap_or([0; 8]));
                    write_bits(float_to_int_bits(value, to), y);
                }
            }
            DataType::Float32 => {
                for (x, y) in elements {
                    let value = f32::from_ne_bytes(x.try_into().unwrap_or([0; 4]));
                    write_bits(float_to_int_bits(f64::from(value), to), y);
                }
            }
            _ => {
                let format = from
                    .float_format()
                    .ok_or_else(|| CodecError::unsupported(format!("numpy astype from {from}")))?;
                for (x, y) in elements {
                    let value = bits_to_f64(read_bits(x), format);
                    write_bits(float_to_int_bits(value, to), y);
                }
            }
        }
        Ok(())
    }
}

/// Every element of `input` (integers of `from`) as `to`, with Rust's `as`: numpy's
/// integer `astype` (wrap-around by truncation, sign or zero extension).
fn int_to_int(from: DataType, to: DataType, input: &[u8], output: &mut [u8]) {
    macro_rules! cast_from {
        ($source:ty) => {
            match to {
                DataType::Int8 => cast::<$source, i8>(input, output),
                DataType::UInt8 => cast::<$source, u8>(input, output),
                DataType::Int16 => cast::<$source, i16>(input, output),
                DataType::UInt16 => cast::<$source, u16>(input, output),
                DataType::Int32 => cast::<$source, i32>(input, output),
                DataType::UInt32 => cast::<$source, u32>(input, output),
                DataType::Int64 => cast::<$source, i64>(input, output),
                _ => cast::<$source, u64>(input, output),
            }
        };
    }
    match from {
        DataType::Int8 => cast_from!(i8),
        DataType::UInt8 => cast_from!(u8),
        DataType::Int16 => cast_from!(i16),
        DataType::UInt16 => cast_from!(u16),
        DataType::Int32 => cast_from!(i32),
        DataType::UInt32 => cast_from!(u32),
        DataType::Int64 => cast_from!(i64),
        _ => cast_from!(u64),
    }
}

/// An integer type numpy casts with Rust's `as`.
trait Integer: Copy {
    const SIZE: usize;
    fn load(bytes: &[u8]) -> Self;
    fn store(self, bytes: &mut [u8]);
    /// Sign- or zero-extended (`u64`: its bits) to 64 bits.
    fn widen(self) -> i64;
    /// The low bits of `value`.
    fn narrow(value: i64) -> Self;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
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
            #[inline(always)]
            #[allow(clippy::cast_possible_wrap, clippy::cast_lossless)] // two's complement
            fn widen(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // two's complement
            fn narrow(value: i64) -> Self {
                value as $t
            }
        }
    )*};
}

integer!(i8, u8, i16, u16, i32, u32, i64, u64);

/// Each `S` element as a `T` (wrapped or extended; both sides native-endian).
fn cast<S: Integer, T: Integer>(input: &[u8], output: &mut [u8]) {
    // SAFETY: integers of every bit pattern: aligned bytes may be read and written as them.
    let (source, target) = unsafe { (input.align_to::<S>(), output.align_to_mut::<T>()) };
    if source.0.is_empty() && source.2.is_empty() && target.0.is_empty() && target.2.is_empty() {
        // Aligned (numpy's arrays are): a plain loop of typed elements, which vectorises; on
        // x86-64 with AVX2 into its wider loads and sign extensions (SSE2 has neither).
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { cast_aligned_avx2(source.1, target.1) };
            return;
        }
        cast_aligned(source.1, target.1);
        return;
    }
    for (x, y) in input
        .chunks_exact(S::SIZE)
        .zip(output.chunks_exact_mut(T::SIZE))
    {
        T::narrow(S::load(x).widen()).store(y);
    }
}

/// The typed loop, inlined into each caller so that it is compiled for the caller's features.
#[inline(always)]
#[allow(clippy::inline_always)] // the point: the AVX2 copy must hold its own loop
fn cast_aligned<S: Integer, T: Integer>(source: &[S], target: &mut [T]) {
    for (x, y) in source.iter().zip(target.iter_mut()) {
        *y = T::narrow(x.widen());
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn cast_aligned_avx2<S: Integer, T: Integer>(source: &[S], target: &mut [T]) {
    cast_aligned(source, target);
}

/// x86's conversion of `value` into the integer type `to`, as numpy runs it (see
/// [`NumpyCast`]): the element's bits, in the low `8 * to.size()` bits.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // each checked in range
fn float_to_int_bits(value: f64, to: DataType) -> u64 {
    const I32_LIMIT: f64 = 2_147_483_648.0; // 2^31
    const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    let signed = |limit: f64, indefinite: i64| {
        let whole = value.trunc();
        if whole >= -limit && whole < limit {
            whole as i64
        } else {
            indefinite // NaN fails both comparisons
        }
    };
    match to.size() {
        1 | 2 => {
            let mask = (1u64 << (8 * to.size())) - 1;
            (signed(I32_LIMIT, 0) as u64) & mask
        }
        4 if to.integer_range().is_some_and(|(min, _)| min < 0) => {
            u64::from(signed(I32_LIMIT, i64::from(i32::MIN)) as u32)
        }
        4 => {
            if value >= I32_LIMIT {
                let high = (value - I32_LIMIT).trunc();
                if high < I32_LIMIT {
                    high as u64 | (1 << 31)
                } else {
                    0
                }
            } else {
                u64::from(signed(I32_LIMIT, i64::from(i32::MIN)) as u32)
            }
        }
        _ if to.integer_range().is_some_and(|(min, _)| min < 0) => {
            signed(I64_LIMIT, i64::MIN) as u64
        }
        _ => {
            if value >= I64_LIMIT {
                let high = (value - I64_LIMIT).trunc();
                if high < I64_LIMIT {
                    high as u64 | (1 << 63)
                } else {
                    0
                }
            } else {
                signed(I64_LIMIT, i64::MIN) as u64
            }
        }
    }
}

/// numpy's `astype` from `from` to `to` (integers and floats; see [`NumpyCast`]).
pub fn numpy_astype(from: DataType, to: DataType) -> Result<NumpyCast> {
    if from.is_float() && to.is_integer() {
        return Ok(NumpyCast::FloatToInt { from, to });
    }
    if from.is_integer()
        && to.is_integer()
        && from.numpy_str().is_some()
        && to.numpy_str().is_some()
    {
        return Ok(NumpyCast::IntToInt { from, to });
    }
    wrapping_astype(from, to).map(NumpyCast::Plan)
}

/// `astype` as a `cast_value` plan: numpy's rules, except that a finite float outside an
/// integer type's range wraps modulo 2^N (NaN and ±Infinity as x86 gives them); what
/// numcodecs' `fixedscaleoffset` here defines where numpy's result is platform-defined.
pub fn wrapping_astype(from: DataType, to: DataType) -> Result<CastPlan> {
    let rounding = if from.is_float() && to.is_integer() {
        Rounding::TowardsZero
    } else {
        Rounding::NearestEven
    };
    let (out_of_range, map) = if to.is_integer() {
        let map = if from.is_float() {
            ScalarMap::parse(&nonfinite_pairs(to), from, to)?
        } else {
            ScalarMap::default()
        };
        (OutOfRange::Wrap, map)
    } else {
        (OutOfRange::Clamp, ScalarMap::default())
    };
    CastPlan::new(from, to, rounding, Some(out_of_range), map)
}

/// numpy's `result_type` of two integer or float types: the type its ufuncs compute in when
/// arrays of both meet (`uint8` and `int8` give `int16`, `uint64` and `int64` give
/// `float64`, `int16` and `float16` give `float32`).
pub fn numpy_promote(a: DataType, b: DataType) -> DataType {
    use DataType::{Bool, Float16, Float32, Float64};
    if a == b || b == Bool {
        return a;
    }
    if a == Bool {
        return b;
    }
    match (a.is_float(), b.is_float()) {
        (true, true) => {
            if a.size() >= b.size() {
                a
            } else {
                b
            }
        }
        (true, false) | (false, true) => {
            let (float, int) = if a.is_float() { (a, b) } else { (b, a) };
            // The smallest float holding every value of the integer type exactly, or float64.
            let needed = match int.size() {
                1 => Float16,
                2 => Float32,
                _ => Float64,
            };
            if needed.size() > float.size() {
                needed
            } else {
                float
            }
        }
        (false, false) => {
            let signed = |t: DataType| t.integer_range().is_some_and(|(min, _)| min < 0);
            if signed(a) == signed(b) {
                return if a.size() >= b.size() { a } else { b };
            }
            let (unsigned, signed_type) = if signed(a) { (b, a) } else { (a, b) };
            if signed_type.size() > unsigned.size() {
                return signed_type;
            }
            match unsigned.size() {
                1 => DataType::Int16,
                2 => DataType::Int32,
                4 => DataType::Int64,
                _ => Float64,
            }
        }
    }
}

/// `scalar_map` pairs sending NaN, +Infinity and -Infinity where numpy's float to integer
/// conversion sends them on x86: through a 32-bit conversion for the narrower types (its low
/// bits: 0); the minimum for 32/64-bit signed types; 2^63 or 0 for uint64 through its
/// unsigned 64-bit conversion.
pub fn nonfinite_pairs(target: DataType) -> Vec<(Value, Value)> {
    let outputs: [Value; 3] = match target {
        DataType::Int32 => [i32::MIN.into(), i32::MIN.into(), i32::MIN.into()],
        DataType::Int64 => [i64::MIN.into(), i64::MIN.into(), i64::MIN.into()],
        DataType::UInt64 => [(1u64 << 63).into(), 0.into(), (1u64 << 63).into()],
        _ => [0.into(), 0.into(), 0.into()],
    };
    ["NaN", "Infinity", "-Infinity"]
        .into_iter()
        .zip(outputs)
        .map(|(key, output)| (Value::from(key), output))
        .collect()
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    #[test]
    fn type_strings_and_names() -> Result<()> {
        for text in ["<f8", "f8", "float64", "=f8", ">f8"] {
            assert_eq!(numpy_type(text, "c", "dtype")?, DataType::Float64);
        }
        assert_eq!(numpy_type("|u1", "c", "dtype")?, DataType::UInt8);
        assert!(matches!(
            numpy_type("nope", "c", "dtype"),
            Err(CodecError::Configuration(_))
        ));
        assert!(matches!(
            numpy_type("bool", "c", "dtype"),
            Err(CodecError::Unsupported(_))
        ));
        Ok(())
    }

    #[test]
    fn promotion_is_numpys() {
        use DataType::*;
        let cases = [
            (UInt8, Int8, Int16),
            (UInt16, Int16, Int32),
            (UInt32, Int32, Int64),
            (UInt64, Int64, Float64),
            (UInt8, Int16, Int16),
            (Int8, Float16, Float16),
            (Int16, Float16, Float32),
            (UInt32, Float16, Float64),
            (Int32, Float32, Float64),
            (Int16, Float32, Float32),
            (Float16, Float64, Float64),
            (Int8, Int64, Int64),
            (Bool, Int8, Int8),
            (Bool, Float16, Float16),
        ];
        for (a, b, expected) in cases {
            assert_eq!(numpy_promote(a, b), expected, "{a} {b}");
            assert_eq!(numpy_promote(b, a), expected, "{b} {a}");
        }
    }

    #[test]
    fn astype_truncates_wraps_and_maps_nonfinite() -> Result<()> {
        let plan = wrapping_astype(DataType::Float64, DataType::Int8)?;
        let input: Vec<u8> = [-1.7f64, 2.9, 300.0, f64::NAN]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let mut output = [0u8; 4];
        plan.apply(&input, &mut output)?;
        assert_eq!(output.map(u8::cast_signed), [-1, 2, 44, 0]);
        let plan = wrapping_astype(DataType::Float64, DataType::Int32)?;
        let mut output = [0u8; 4];
        plan.apply(&f64::INFINITY.to_ne_bytes(), &mut output)?;
        assert_eq!(i32::from_ne_bytes(output), i32::MIN);
        Ok(())
    }

    /// What numpy 2.5 gives on x86-64 for `np.repeat(values, 100).astype(t)`.
    #[test]
    fn float_to_int_is_x86s() -> Result<()> {
        let values = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            3e9,
            -3e19,
            1e300,
            5e9,
            -5.7,
        ];
        let expected: [(DataType, [u64; 8]); 6] = [
            (
                DataType::UInt32,
                [
                    1 << 31,
                    0,
                    1 << 31,
                    3_000_000_000,
                    1 << 31,
                    0,
                    0,
                    4_294_967_291,
                ],
            ),
            (
                DataType::Int32,
                [
                    1 << 31,
                    1 << 31,
                    1 << 31,
                    1 << 31,
                    1 << 31,
                    1 << 31,
                    1 << 31,
                    0xffff_fffb,
                ],
            ),
            (DataType::UInt16, [0, 0, 0, 0, 0, 0, 0, 0xfffb]),
            (DataType::Int8, [0, 0, 0, 0, 0, 0, 0, 0xfb]),
            (
                DataType::UInt64,
                [
                    1 << 63,
                    0,
                    1 << 63,
                    3_000_000_000,
                    1 << 63,
                    0,
                    5_000_000_000,
                    (-5i64).cast_unsigned(),
                ],
            ),
            (
                DataType::Int64,
                [
                    1 << 63,
                    1 << 63,
                    1 << 63,
                    3_000_000_000,
                    1 << 63,
                    1 << 63,
                    5_000_000_000,
                    (-5i64).cast_unsigned(),
                ],
            ),
        ];
        let input: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        for (target, bits) in expected {
            let cast = numpy_astype(DataType::Float64, target)?;
            let mut output = vec![0u8; values.len() * target.size()];
            cast.apply(&input, &mut output)?;
            let got: Vec<u64> = output.chunks_exact(target.size()).map(read_bits).collect();
            assert_eq!(got, bits, "{target}");
        }
        Ok(())
    }
}
