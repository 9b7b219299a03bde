//! Fill values: one element of a data type, held as its little-endian bytes, and its JSON form.
//!
//! The JSON forms are the
//! [permitted fill values](https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html#fill-value)
//! of the Zarr v3 core specification, which the extension data types reuse: a JSON boolean for
//! `bool`; a JSON integer within range for the integers; for floats a JSON number (rounded to
//! nearest, ties to even), `"NaN"`, `"Infinity"`, `"-Infinity"` or `"0x…"`, the bit pattern
//! in hexadecimal; for complex numbers a two-element array of such floats.

use serde_json::Value;

use crate::data_type::{DataType, DataTypeKind};
use crate::error::{CodecError, Result};
use crate::float_format::{FloatFormat, bits_to_f64, f64_to_bits_rounded, i128_to_bits_rounded};

/// The largest element size, in bytes (`complex128`).
const MAX_SIZE: usize = 16;

/// A single value of a [`DataType`], held as its little-endian bytes.
///
/// Equality is bitwise: two NaNs with the same bit pattern are equal. Sub-byte types are held
/// canonically: signed integers (`int2`, `int4`) sign-extended to the whole byte, the other
/// sub-byte types with their unused upper bits zero; `bool` as `0` or `1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FillValue {
    data_type: DataType,
    bytes: [u8; MAX_SIZE],
}

impl FillValue {
    /// The all-zero value: zero (`false`, `0`, `0.0`, `0+0i`) for every data type except
    /// `float8_e8m0fnu`, which has no zero, where the pattern `0x00` is its smallest value,
    /// `2^-127`.
    pub fn default_for(data_type: DataType) -> Self {
        Self {
            data_type,
            bytes: [0; MAX_SIZE],
        }
    }

    /// The value whose little-endian bytes are `bytes` (exactly [`DataType::size`] of them).
    ///
    /// The unused upper bits of the sub-byte types are ignored, as the data type
    /// specifications say; a `bool` byte other than `0` or `1` is an error.
    pub fn from_bytes(data_type: DataType, bytes: &[u8]) -> Result<Self> {
        let size = data_type.size();
        if bytes.len() != size {
            return Err(CodecError::configuration(format!(
                "a {data_type} fill value takes {size} bytes, not {}",
                bytes.len()
            )));
        }
        let mut value = Self::default_for(data_type);
        value.bytes[..size].copy_from_slice(bytes);
        let first = bytes.first().copied().unwrap_or(0);
        let canonical = match data_type {
            DataType::Bool if first > 1 => {
                return Err(CodecError::out_of_range(format!(
                    "bool fill value byte {first:#04x} is neither 0 nor 1"
                )));
            }
            DataType::Int2 | DataType::Int4 => {
                // Shift the value bits to the top and back to sign-extend them.
                let unused = 8 - data_type.bits();
                let signed = i8::from_le_bytes([first << unused]) >> unused;
                signed.to_le_bytes()[0]
            }
            DataType::UInt2 | DataType::UInt4 => first & low_bits_u8(data_type.bits()),
            DataType::Float6E2M3Fn | DataType::Float6E3M2Fn | DataType::Float4E2M1Fn => {
                first & low_bits_u8(data_type.bits())
            }
            _ => first,
        };
        value.bytes[0] = canonical;
        Ok(value)
    }

    /// The `bool` value `value`.
    pub fn from_bool(value: bool) -> Self {
        let mut fill = Self::default_for(DataType::Bool);
        fill.bytes[0] = u8::from(value);
        fill
    }

    /// The integer `value` as `data_type`: checked against the range of an integer type,
    /// rounded to nearest (ties to even) for a float type or the real part of a complex type.
    ///
    /// Errors: [`CodecError::OutOfRange`] when an integer type cannot hold `value` or a float
    /// type without infinity overflows; [`CodecError::Unsupported`] for `bool`.
    pub fn from_i128(value: i128, data_type: DataType) -> Result<Self> {
        match data_type.kind() {
            DataTypeKind::SignedInt | DataTypeKind::UnsignedInt => {
                Self::from_integer(value, data_type)
            }
            DataTypeKind::Float => {
                let format = float_format(data_type)?;
                Ok(Self::from_float_bits(
                    data_type,
                    &[i128_to_bits_rounded(value, format)?],
                ))
            }
            DataTypeKind::Complex => {
                let format = float_format(data_type)?;
                let real = i128_to_bits_rounded(value, format)?;
                Ok(Self::from_float_bits(data_type, &[real, 0]))
            }
            DataTypeKind::Bool => Err(bool_from_number(data_type)),
        }
    }

    /// The real number `value` as `data_type`: rounded to nearest (ties to even) for a float
    /// type or the real part of a complex type; for an integer type it must be a whole number
    /// in range.
    ///
    /// Errors: [`CodecError::OutOfRange`] for a value the type cannot hold (see
    /// [`f64_to_bits_rounded`] for floats); [`CodecError::Unsupported`] for `bool`.
    pub fn from_f64(value: f64, data_type: DataType) -> Result<Self> {
        match data_type.kind() {
            DataTypeKind::SignedInt | DataTypeKind::UnsignedInt => {
                Self::from_integer(whole_number(value, data_type)?, data_type)
            }
            DataTypeKind::Float => {
                let bits = f64_to_bits_rounded(value, float_format(data_type)?)?;
                Ok(Self::from_float_bits(data_type, &[bits]))
            }
            DataTypeKind::Complex => Self::from_complex(value, 0.0, data_type),
            DataTypeKind::Bool => Err(bool_from_number(data_type)),
        }
    }

    /// The complex number `real + imaginary·i` as a complex type, each component rounded to
    /// nearest (ties to even). [`CodecError::Unsupported`] for a type that is not complex.
    pub fn from_complex(real: f64, imaginary: f64, data_type: DataType) -> Result<Self> {
        if !data_type.is_complex() {
            return Err(CodecError::unsupported(format!(
                "{data_type} is not a complex data type"
            )));
        }
        let format = float_format(data_type)?;
        Ok(Self::from_float_bits(
            data_type,
            &[
                f64_to_bits_rounded(real, format)?,
                f64_to_bits_rounded(imaginary, format)?,
            ],
        ))
    }

    /// Parses the v3 JSON form of a fill value of `data_type`.
    ///
    /// Errors: [`CodecError::Configuration`] for a JSON form the data type does not accept
    /// (a fraction for an integer, `"nan"`, a hex string of the wrong length, ...);
    /// [`CodecError::OutOfRange`] for a value it cannot represent (an integer out of range,
    /// `"Infinity"` or `"NaN"` for a type without them, an overflowing finite number for a
    /// type without infinity).
    pub fn from_json(json: &Value, data_type: DataType) -> Result<Self> {
        match data_type.kind() {
            DataTypeKind::Bool => match json {
                Value::Bool(value) => Ok(Self::from_bool(*value)),
                other => Err(invalid_json(other, data_type, "expected true or false")),
            },
            DataTypeKind::SignedInt | DataTypeKind::UnsignedInt => {
                Self::from_integer(json_integer(json, data_type)?, data_type)
            }
            DataTypeKind::Float => {
                let bits = json_float_bits(json, data_type, float_format(data_type)?)?;
                Ok(Self::from_float_bits(data_type, &[bits]))
            }
            DataTypeKind::Complex => {
                let format = float_format(data_type)?;
                match json.as_array().map(Vec::as_slice) {
                    Some([real, imaginary]) => {
                        let real = json_float_bits(real, data_type, format)?;
                        let imaginary = json_float_bits(imaginary, data_type, format)?;
                        Ok(Self::from_float_bits(data_type, &[real, imaginary]))
                    }
                    _ => Err(invalid_json(
                        json,
                        data_type,
                        "expected a two-element array [real, imaginary]",
                    )),
                }
            }
        }
    }

    /// The canonical v3 JSON form: a boolean, an integer, a number for finite floats
    /// (`-0.0` included), `"Infinity"`/`"-Infinity"`, `"NaN"` for the canonical NaN, and a
    /// `"0x…"` hex string for any other NaN; complex numbers as `[real, imaginary]`.
    pub fn to_json(&self) -> Value {
        match self.data_type.kind() {
            DataTypeKind::Bool => Value::Bool(self.bytes[0] != 0),
            DataTypeKind::SignedInt | DataTypeKind::UnsignedInt => {
                let value = self.integer();
                match i64::try_from(value) {
                    Ok(value) => Value::from(value),
                    Err(_) => u64::try_from(value).map_or(Value::Null, Value::from),
                }
            }
            DataTypeKind::Float | DataTypeKind::Complex => {
                let Some(format) = self.data_type.float_format() else {
                    return Value::Null;
                };
                let components: Vec<Value> = self
                    .float_bits()
                    .into_iter()
                    .map(|bits| float_to_json(bits, format))
                    .collect();
                match <[Value; 1]>::try_from(components) {
                    Ok([real]) => real,
                    Err(components) => Value::Array(components),
                }
            }
        }
    }

    /// The data type of this value.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The little-endian bytes of this value, [`DataType::size`] of them.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.data_type.size()]
    }

    /// The value of a `bool`, `None` for the other types.
    pub fn as_bool(&self) -> Option<bool> {
        (self.data_type == DataType::Bool).then_some(self.bytes[0] != 0)
    }

    /// The value of an integer type, `None` for the other types.
    pub fn as_i128(&self) -> Option<i128> {
        self.data_type.is_integer().then(|| self.integer())
    }

    /// The value of a real type as `f64`: exact for floats and for integers of magnitude up to
    /// 2^53, rounded to nearest beyond; `None` for `bool` and complex types.
    pub fn as_f64(&self) -> Option<f64> {
        match self.data_type.kind() {
            #[allow(clippy::cast_precision_loss)]
            DataTypeKind::SignedInt | DataTypeKind::UnsignedInt => Some(self.integer() as f64),
            DataTypeKind::Float => {
                let format = self.data_type.float_format()?;
                let bits = self.float_bits().first().copied()?;
                Some(bits_to_f64(bits, format))
            }
            DataTypeKind::Bool | DataTypeKind::Complex => None,
        }
    }

    /// The `(real, imaginary)` components of a complex type, `None` for the other types.
    pub fn as_complex(&self) -> Option<(f64, f64)> {
        if !self.data_type.is_complex() {
            return None;
        }
        let format = self.data_type.float_format()?;
        match self.float_bits()[..] {
            [real, imaginary] => Some((bits_to_f64(real, format), bits_to_f64(imaginary, format))),
            _ => None,
        }
    }

    /// Whether this is a NaN of a float type, or a complex value with a NaN component.
    pub fn is_nan(&self) -> bool {
        self.data_type.float_format().is_some_and(|format| {
            self.float_bits()
                .into_iter()
                .any(|bits| format.is_nan_bits(bits))
        })
    }

    /// The value of an integer type (sign-extended for the signed ones).
    fn integer(&self) -> i128 {
        let size = self.data_type.size();
        let mut wide = [0u8; 16];
        wide[..size].copy_from_slice(&self.bytes[..size]);
        let negative =
            self.data_type.kind() == DataTypeKind::SignedInt && self.bytes[size - 1] & 0x80 != 0;
        if negative {
            wide[size..].fill(0xff);
        }
        i128::from_le_bytes(wide)
    }

    /// The bit patterns of the float components (one for real, two for complex types).
    fn float_bits(&self) -> Vec<u64> {
        let size = self.data_type.size();
        let component_size = if self.data_type.is_complex() {
            size / 2
        } else {
            size
        };
        self.bytes[..size]
            .chunks_exact(component_size)
            .map(|chunk| {
                let mut wide = [0u8; 8];
                wide[..chunk.len()].copy_from_slice(chunk);
                u64::from_le_bytes(wide)
            })
            .collect()
    }

    fn from_integer(value: i128, data_type: DataType) -> Result<Self> {
        let (min, max) = data_type.integer_range().ok_or_else(|| {
            CodecError::unsupported(format!("{data_type} is not an integer data type"))
        })?;
        if value < min || value > max {
            return Err(CodecError::out_of_range(format!(
                "{value} is outside the range [{min}, {max}] of {data_type}"
            )));
        }
        let mut fill = Self::default_for(data_type);
        let size = data_type.size();
        // Two's complement truncation to `size` bytes; int2/int4 stay sign-extended in a byte.
        fill.bytes[..size].copy_from_slice(&value.to_le_bytes()[..size]);
        Ok(fill)
    }

    /// The value of the float components `bits` (each already of the data type's format).
    fn from_float_bits(data_type: DataType, bits: &[u64]) -> Self {
        let mut fill = Self::default_for(data_type);
        let component_size = data_type.size() / bits.len().max(1);
        for (chunk, bits) in fill.bytes[..data_type.size()]
            .chunks_exact_mut(component_size)
            .zip(bits)
        {
            chunk.copy_from_slice(&bits.to_le_bytes()[..component_size]);
        }
        fill
    }
}

/// The `bits` low bits of a byte set (`bits <= 8`).
const fn low_bits_u8(bits: u32) -> u8 {
    if bits >= 8 { u8::MAX } else { (1 << bits) - 1 }
}

fn float_format(data_type: DataType) -> Result<FloatFormat> {
    data_type.float_format().ok_or_else(|| {
        CodecError::unsupported(format!("{data_type} is not a floating-point data type"))
    })
}

fn bool_from_number(data_type: DataType) -> CodecError {
    CodecError::unsupported(format!("a {data_type} fill value must be true or false"))
}

fn invalid_json(json: &Value, data_type: DataType, expected: &str) -> CodecError {
    CodecError::configuration(format!(
        "invalid fill value {json} for data type {data_type}: {expected}"
    ))
}

/// A finite whole `value` as an integer, checked only for being whole (range is the caller's).
fn whole_number(value: f64, data_type: DataType) -> Result<i128> {
    // 2^127: every whole f64 below it in magnitude fits an i128.
    const LIMIT: f64 = 1.701_411_834_604_692_3e38;
    if !value.is_finite() || value.fract() != 0.0 {
        return Err(CodecError::out_of_range(format!(
            "{value:?} is not a whole number, as a {data_type} value must be"
        )));
    }
    if value.abs() >= LIMIT {
        return Err(CodecError::out_of_range(format!(
            "{value:?} is outside the range of {data_type}"
        )));
    }
    #[allow(clippy::cast_possible_truncation)]
    Ok(value as i128)
}

/// A JSON integer for an integer type: a number without fraction or exponent.
fn json_integer(json: &Value, data_type: DataType) -> Result<i128> {
    let Value::Number(number) = json else {
        return Err(invalid_json(json, data_type, "expected an integer"));
    };
    if let Some(value) = number.as_i64() {
        return Ok(i128::from(value));
    }
    if let Some(value) = number.as_u64() {
        return Ok(i128::from(value));
    }
    // Parsed as a float: a fraction or exponent, or an integer beyond the 64-bit range.
    match number.as_f64() {
        Some(value) if value.is_finite() && value.fract() == 0.0 && value.abs() >= 9.2e18 => Err(
            CodecError::out_of_range(format!("{number} is outside the range of {data_type}")),
        ),
        _ => Err(invalid_json(
            json,
            data_type,
            "expected an integer without fraction or exponent",
        )),
    }
}

/// The bit pattern in `format` of one JSON float: a number, `"NaN"`, `"Infinity"`,
/// `"-Infinity"` or `"0x…"`.
fn json_float_bits(json: &Value, data_type: DataType, format: FloatFormat) -> Result<u64> {
    let with_context = |error: CodecError| match error {
        CodecError::OutOfRange(message) => CodecError::OutOfRange(format!(
            "fill value {json} for data type {data_type}: {message}"
        )),
        other => other,
    };
    match json {
        Value::Number(number) => {
            let bits = if let Some(value) = number.as_i64() {
                i128_to_bits_rounded(i128::from(value), format)
            } else if let Some(value) = number.as_u64() {
                i128_to_bits_rounded(i128::from(value), format)
            } else {
                let value = number.as_f64().unwrap_or(f64::NAN);
                f64_to_bits_rounded(value, format)
            };
            bits.map_err(with_context)
        }
        Value::String(text) => match text.as_str() {
            "NaN" => f64_to_bits_rounded(f64::NAN, format).map_err(with_context),
            "Infinity" => f64_to_bits_rounded(f64::INFINITY, format).map_err(with_context),
            "-Infinity" => f64_to_bits_rounded(f64::NEG_INFINITY, format).map_err(with_context),
            _ => parse_hex(text, data_type, format),
        },
        other => Err(invalid_json(
            other,
            data_type,
            r#"expected a number, "NaN", "Infinity", "-Infinity" or a "0x" hex string"#,
        )),
    }
}

/// `"0x…"` with exactly two hex digits per byte of the (component) type, either case.
fn parse_hex(text: &str, data_type: DataType, format: FloatFormat) -> Result<u64> {
    let Some(digits) = text.strip_prefix("0x") else {
        return Err(invalid_json(
            &Value::String(text.to_owned()),
            data_type,
            r#"expected a number, "NaN", "Infinity", "-Infinity" or a "0x" hex string"#,
        ));
    };
    let bytes = format.total_bits().div_ceil(8) as usize;
    if digits.len() != 2 * bytes || !digits.bytes().all(|digit| digit.is_ascii_hexdigit()) {
        return Err(invalid_json(
            &Value::String(text.to_owned()),
            data_type,
            &format!(
                "a hex fill value has \"0x\" and exactly {} hex digits",
                2 * bytes
            ),
        ));
    }
    let bits = u64::from_str_radix(digits, 16).map_err(|error| {
        invalid_json(
            &Value::String(text.to_owned()),
            data_type,
            &error.to_string(),
        )
    })?;
    // float6/float4: the unused upper bits are ignored.
    Ok(bits & format.bits_mask())
}

/// The canonical JSON form of one float of `format`.
fn float_to_json(bits: u64, format: FloatFormat) -> Value {
    if format.is_nan_bits(bits) {
        if Some(bits) == format.nan_bits() {
            return Value::from("NaN");
        }
        let digits = 2 * format.total_bits().div_ceil(8) as usize;
        return Value::from(format!("0x{bits:0digits$x}"));
    }
    let value = bits_to_f64(bits, format);
    if value.is_infinite() {
        return Value::from(if value < 0.0 { "-Infinity" } else { "Infinity" });
    }
    Value::from(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers() -> Result<()> {
        let value = FillValue::from_json(&json!(-1), DataType::Int2)?;
        assert_eq!(value.as_bytes(), &[0xff]);
        assert_eq!(value.to_json(), json!(-1));
        let value = FillValue::from_json(&json!(u64::MAX), DataType::UInt64)?;
        assert_eq!(value.as_bytes(), &[0xff; 8]);
        assert_eq!(value.to_json(), json!(u64::MAX));
        let value = FillValue::from_json(&json!(i64::MIN), DataType::Int64)?;
        assert_eq!(value.as_i128(), Some(i128::from(i64::MIN)));
        assert_eq!(value.to_json(), json!(i64::MIN));
        assert!(FillValue::from_json(&json!(2), DataType::Int2).is_err());
        assert!(FillValue::from_json(&json!(16), DataType::UInt4).is_err());
        Ok(())
    }

    #[test]
    fn sub_byte_bytes_are_canonical() -> Result<()> {
        assert_eq!(
            FillValue::from_bytes(DataType::Int4, &[0x0f])?.as_i128(),
            Some(-1)
        );
        assert_eq!(
            FillValue::from_bytes(DataType::Int4, &[0x07])?.as_i128(),
            Some(7)
        );
        assert_eq!(
            FillValue::from_bytes(DataType::UInt2, &[0xff])?.as_i128(),
            Some(3)
        );
        assert_eq!(
            FillValue::from_bytes(DataType::Float4E2M1Fn, &[0xf7])?.as_f64(),
            Some(6.0)
        );
        assert!(FillValue::from_bytes(DataType::Bool, &[2]).is_err());
        assert!(FillValue::from_bytes(DataType::Int16, &[0]).is_err());
        Ok(())
    }

    #[test]
    fn float_forms() -> Result<()> {
        let value = FillValue::from_json(&json!("NaN"), DataType::Float16)?;
        assert_eq!(value.as_bytes(), &[0x00, 0x7e]);
        let value = FillValue::from_json(&json!(0.1), DataType::Float16)?;
        assert_eq!(value.as_bytes(), &0x2e66u16.to_le_bytes());
        let value = FillValue::from_json(&json!("0x7FC1"), DataType::BFloat16)?;
        assert_eq!(value.to_json(), json!("0x7fc1"));
        let value = FillValue::from_json(&json!(-0.0), DataType::Float8E5M2)?;
        assert_eq!(value.as_bytes(), &[0x80]);
        assert_eq!(serde_json::to_string(&value.to_json())?, "-0.0");
        Ok(())
    }

    #[test]
    fn native_constructors() -> Result<()> {
        assert_eq!(FillValue::from_f64(3.0, DataType::UInt8)?.as_bytes(), &[3]);
        assert!(FillValue::from_f64(3.5, DataType::UInt8).is_err());
        assert!(FillValue::from_f64(f64::NAN, DataType::Int8).is_err());
        assert!(FillValue::from_f64(1e300, DataType::Int64).is_err());
        assert_eq!(
            FillValue::from_f64(2.5, DataType::Complex64)?.as_complex(),
            Some((2.5, 0.0))
        );
        assert_eq!(
            FillValue::from_i128(16_777_217, DataType::Float32)?.as_f64(),
            Some(16_777_216.0)
        );
        assert!(FillValue::from_i128(1, DataType::Bool).is_err());
        assert!(FillValue::from_complex(1.0, 1.0, DataType::Float32).is_err());
        assert_eq!(FillValue::from_bool(true).as_bool(), Some(true));
        Ok(())
    }
}
