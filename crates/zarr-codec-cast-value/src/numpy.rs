//! numpy's own conversions, for codecs that must give numpy's exact values (numcodecs'
//! filters): its type strings, and `astype` as numpy 2 runs it on x86.

use serde_json::Value;
use zarr_codec_shapes::{CodecError, DataType, Result};

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

/// numpy's `astype` from `from` to `to` (integers and floats): integers wrap modulo 2^N,
/// floats round to nearest (ties to even) and overflow to ±Infinity, a float into an integer
/// is truncated towards zero. Where C leaves that conversion undefined (NaN, ±Infinity, a
/// finite float out of range), the result is what numpy gives on x86: NaN and ±Infinity as
/// its conversion instructions give them, finite values wrapped modulo 2^N.
pub fn numpy_astype(from: DataType, to: DataType) -> Result<CastPlan> {
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
    use DataType::{Float16, Float32, Float64};
    if a == b {
        return a;
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
        ];
        for (a, b, expected) in cases {
            assert_eq!(numpy_promote(a, b), expected, "{a} {b}");
            assert_eq!(numpy_promote(b, a), expected, "{b} {a}");
        }
    }

    #[test]
    fn astype_truncates_wraps_and_maps_nonfinite() -> Result<()> {
        let plan = numpy_astype(DataType::Float64, DataType::Int8)?;
        let input: Vec<u8> = [-1.7f64, 2.9, 300.0, f64::NAN]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let mut output = [0u8; 4];
        plan.apply(&input, &mut output)?;
        assert_eq!(output.map(u8::cast_signed), [-1, 2, 44, 0]);
        let plan = numpy_astype(DataType::Float64, DataType::Int32)?;
        let mut output = [0u8; 4];
        plan.apply(&f64::INFINITY.to_ne_bytes(), &mut output)?;
        assert_eq!(i32::from_ne_bytes(output), i32::MIN);
        Ok(())
    }
}
