//! Zarr data types: names, sizes, numeric kinds and Zarr v2 (numpy) type strings.
//!
//! The names are those of the
//! [Zarr v3 core data types](https://zarr-specs.readthedocs.io/en/latest/v3/data-types/index.html)
//! and of the registered extension data types in
//! [zarr-extensions](https://github.com/zarr-developers/zarr-extensions/tree/main/data-types)
//! (`int2`, `int4`, `uint2`, `uint4`, `bfloat16`, the `float8_*` family, `float6_e2m3fn`,
//! `float6_e3m2fn`, `float4_e2m1fn`). The v2 type strings are those of the
//! [Zarr v2 specification](https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html#data-type-encoding).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{CodecError, Result};
use crate::float_format::FloatFormat;

/// A Zarr data type with a fixed element size.
///
/// Arrays of every data type are handled as one element per [`size`](Self::size) bytes:
/// the sub-byte types (`int2`, `int4`, `uint2`, `uint4`, `float6_*`, `float4_e2m1fn`) take one
/// byte each, their value in the low bits, as the `bytes` codec stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DataType {
    /// `bool`: `false` or `true`, one byte `0` or `1`.
    Bool,
    /// `int2`: an integer in `[-2, 1]`, one byte.
    Int2,
    /// `int4`: an integer in `[-8, 7]`, one byte.
    Int4,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `uint2`: an integer in `[0, 3]`, one byte.
    UInt2,
    /// `uint4`: an integer in `[0, 15]`, one byte.
    UInt4,
    /// `uint8`.
    UInt8,
    /// `uint16`.
    UInt16,
    /// `uint32`.
    UInt32,
    /// `uint64`.
    UInt64,
    /// `float16`: IEEE 754 binary16.
    Float16,
    /// `bfloat16`: binary32 truncated to 16 bits.
    BFloat16,
    /// `float32`: IEEE 754 binary32.
    Float32,
    /// `float64`: IEEE 754 binary64.
    Float64,
    /// `float8_e3m4`.
    Float8E3M4,
    /// `float8_e4m3`.
    Float8E4M3,
    /// `float8_e4m3b11fnuz`.
    Float8E4M3B11Fnuz,
    /// `float8_e4m3fnuz`.
    Float8E4M3Fnuz,
    /// `float8_e5m2`.
    Float8E5M2,
    /// `float8_e5m2fnuz`.
    Float8E5M2Fnuz,
    /// `float8_e8m0fnu`.
    Float8E8M0Fnu,
    /// `float6_e2m3fn`, one byte.
    Float6E2M3Fn,
    /// `float6_e3m2fn`, one byte.
    Float6E3M2Fn,
    /// `float4_e2m1fn`, one byte.
    Float4E2M1Fn,
    /// `complex64`: two `float32`, real then imaginary.
    Complex64,
    /// `complex128`: two `float64`, real then imaginary.
    Complex128,
}

/// The numeric category of a [`DataType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataTypeKind {
    /// `bool`.
    Bool,
    /// Signed integers (`int2` … `int64`).
    SignedInt,
    /// Unsigned integers (`uint2` … `uint64`).
    UnsignedInt,
    /// Real floating-point numbers.
    Float,
    /// Complex numbers made of two floating-point components.
    Complex,
}

/// Byte order of multi-byte elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl Endian {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: Self = if cfg!(target_endian = "big") {
        Self::Big
    } else {
        Self::Little
    };
}

impl DataType {
    /// Every data type, in declaration order.
    pub const ALL: [Self; 29] = [
        Self::Bool,
        Self::Int2,
        Self::Int4,
        Self::Int8,
        Self::Int16,
        Self::Int32,
        Self::Int64,
        Self::UInt2,
        Self::UInt4,
        Self::UInt8,
        Self::UInt16,
        Self::UInt32,
        Self::UInt64,
        Self::Float16,
        Self::BFloat16,
        Self::Float32,
        Self::Float64,
        Self::Float8E3M4,
        Self::Float8E4M3,
        Self::Float8E4M3B11Fnuz,
        Self::Float8E4M3Fnuz,
        Self::Float8E5M2,
        Self::Float8E5M2Fnuz,
        Self::Float8E8M0Fnu,
        Self::Float6E2M3Fn,
        Self::Float6E3M2Fn,
        Self::Float4E2M1Fn,
        Self::Complex64,
        Self::Complex128,
    ];

    /// The Zarr v3 name (`"float32"`, `"float8_e4m3fnuz"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::Int2 => "int2",
            Self::Int4 => "int4",
            Self::Int8 => "int8",
            Self::Int16 => "int16",
            Self::Int32 => "int32",
            Self::Int64 => "int64",
            Self::UInt2 => "uint2",
            Self::UInt4 => "uint4",
            Self::UInt8 => "uint8",
            Self::UInt16 => "uint16",
            Self::UInt32 => "uint32",
            Self::UInt64 => "uint64",
            Self::Complex64 => "complex64",
            Self::Complex128 => "complex128",
            Self::Float16 => "float16",
            Self::BFloat16 => "bfloat16",
            Self::Float32 => "float32",
            Self::Float64 => "float64",
            Self::Float8E3M4 => "float8_e3m4",
            Self::Float8E4M3 => "float8_e4m3",
            Self::Float8E4M3B11Fnuz => "float8_e4m3b11fnuz",
            Self::Float8E4M3Fnuz => "float8_e4m3fnuz",
            Self::Float8E5M2 => "float8_e5m2",
            Self::Float8E5M2Fnuz => "float8_e5m2fnuz",
            Self::Float8E8M0Fnu => "float8_e8m0fnu",
            Self::Float6E2M3Fn => "float6_e2m3fn",
            Self::Float6E3M2Fn => "float6_e3m2fn",
            Self::Float4E2M1Fn => "float4_e2m1fn",
        }
    }

    /// The data type with the Zarr v3 name `name`; a [`CodecError::Configuration`] for an
    /// unknown name.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|data_type| data_type.name() == name)
            .ok_or_else(|| CodecError::configuration(format!("unknown data type `{name}`")))
    }

    /// Parses v3 data type metadata: the name as a JSON string, or an object
    /// `{"name": ..., "configuration": {}}` whose configuration, if present, is empty (none of
    /// these data types takes a configuration).
    pub fn from_json(json: &serde_json::Value) -> Result<Self> {
        match json {
            serde_json::Value::String(name) => Self::from_name(name),
            serde_json::Value::Object(object) => {
                let mut name = None;
                for (key, value) in object {
                    match (key.as_str(), value) {
                        ("name", serde_json::Value::String(value)) => name = Some(value),
                        ("configuration", serde_json::Value::Object(configuration))
                            if configuration.is_empty() => {}
                        ("name" | "configuration", _) => {
                            return Err(CodecError::configuration(format!(
                                "invalid `{key}` in data type metadata: {value}"
                            )));
                        }
                        _ => {
                            return Err(CodecError::configuration(format!(
                                "unknown key `{key}` in data type metadata"
                            )));
                        }
                    }
                }
                name.map_or_else(
                    || {
                        Err(CodecError::configuration(
                            "data type metadata has no `name`",
                        ))
                    },
                    |name| Self::from_name(name),
                )
            }
            other => Err(CodecError::configuration(format!(
                "data type metadata must be a string or an object, not {other}"
            ))),
        }
    }

    /// The v3 metadata of this data type: its name as a JSON string.
    pub fn to_json(self) -> serde_json::Value {
        serde_json::Value::String(self.name().to_owned())
    }

    /// Bytes per element as stored by the `bytes` codec (1 for the sub-byte types).
    pub const fn size(self) -> usize {
        match self {
            Self::Bool
            | Self::Int2
            | Self::Int4
            | Self::Int8
            | Self::UInt2
            | Self::UInt4
            | Self::UInt8
            | Self::Float8E3M4
            | Self::Float8E4M3
            | Self::Float8E4M3B11Fnuz
            | Self::Float8E4M3Fnuz
            | Self::Float8E5M2
            | Self::Float8E5M2Fnuz
            | Self::Float8E8M0Fnu
            | Self::Float6E2M3Fn
            | Self::Float6E3M2Fn
            | Self::Float4E2M1Fn => 1,
            Self::Int16 | Self::UInt16 | Self::Float16 | Self::BFloat16 => 2,
            Self::Int32 | Self::UInt32 | Self::Float32 => 4,
            Self::Int64 | Self::UInt64 | Self::Float64 | Self::Complex64 => 8,
            Self::Complex128 => 16,
        }
    }

    /// Bytes reversed together when the byte order changes: [`size`](Self::size), but one
    /// component's size for the complex types (the `bytes` codec swaps the real and the
    /// imaginary part each on its own, and keeps their order).
    pub const fn swap_size(self) -> usize {
        match self.component_type() {
            Some(component) => component.size(),
            None => self.size(),
        }
    }

    /// The number of bits that carry the value: 1 for `bool`, 2 for `int2`, 6 for the
    /// `float6` types, 64 for `complex64`, ...; `8 * size()` for the whole-byte types.
    pub const fn bits(self) -> u32 {
        match self {
            Self::Bool => 1,
            Self::Int2 | Self::UInt2 => 2,
            Self::Int4 | Self::UInt4 | Self::Float4E2M1Fn => 4,
            Self::Float6E2M3Fn | Self::Float6E3M2Fn => 6,
            #[allow(clippy::cast_possible_truncation)]
            _ => (self.size() * 8) as u32,
        }
    }

    /// The numeric category.
    pub const fn kind(self) -> DataTypeKind {
        match self {
            Self::Bool => DataTypeKind::Bool,
            Self::Int2 | Self::Int4 | Self::Int8 | Self::Int16 | Self::Int32 | Self::Int64 => {
                DataTypeKind::SignedInt
            }
            Self::UInt2
            | Self::UInt4
            | Self::UInt8
            | Self::UInt16
            | Self::UInt32
            | Self::UInt64 => DataTypeKind::UnsignedInt,
            Self::Complex64 | Self::Complex128 => DataTypeKind::Complex,
            _ => DataTypeKind::Float,
        }
    }

    /// Whether this is a real floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), DataTypeKind::Float)
    }

    /// Whether this is a signed or unsigned integer type (not `bool`).
    pub const fn is_integer(self) -> bool {
        matches!(
            self.kind(),
            DataTypeKind::SignedInt | DataTypeKind::UnsignedInt
        )
    }

    /// Whether this is a complex type.
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), DataTypeKind::Complex)
    }

    /// The smallest and largest value of an integer type, `None` for the others.
    pub const fn integer_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Self::Int2 => (-2, 1),
            Self::Int4 => (-8, 7),
            Self::Int8 => (i8::MIN as i128, i8::MAX as i128),
            Self::Int16 => (i16::MIN as i128, i16::MAX as i128),
            Self::Int32 => (i32::MIN as i128, i32::MAX as i128),
            Self::Int64 => (i64::MIN as i128, i64::MAX as i128),
            Self::UInt2 => (0, 3),
            Self::UInt4 => (0, 15),
            Self::UInt8 => (0, u8::MAX as i128),
            Self::UInt16 => (0, u16::MAX as i128),
            Self::UInt32 => (0, u32::MAX as i128),
            Self::UInt64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// The binary format of a real floating-point type, or of each component of a complex
    /// type; `None` for `bool` and the integers.
    pub const fn float_format(self) -> Option<FloatFormat> {
        Some(match self {
            Self::Float16 => FloatFormat::FLOAT16,
            Self::BFloat16 => FloatFormat::BFLOAT16,
            Self::Float32 | Self::Complex64 => FloatFormat::FLOAT32,
            Self::Float64 | Self::Complex128 => FloatFormat::FLOAT64,
            Self::Float8E3M4 => FloatFormat::FLOAT8_E3M4,
            Self::Float8E4M3 => FloatFormat::FLOAT8_E4M3,
            Self::Float8E4M3B11Fnuz => FloatFormat::FLOAT8_E4M3B11FNUZ,
            Self::Float8E4M3Fnuz => FloatFormat::FLOAT8_E4M3FNUZ,
            Self::Float8E5M2 => FloatFormat::FLOAT8_E5M2,
            Self::Float8E5M2Fnuz => FloatFormat::FLOAT8_E5M2FNUZ,
            Self::Float8E8M0Fnu => FloatFormat::FLOAT8_E8M0FNU,
            Self::Float6E2M3Fn => FloatFormat::FLOAT6_E2M3FN,
            Self::Float6E3M2Fn => FloatFormat::FLOAT6_E3M2FN,
            Self::Float4E2M1Fn => FloatFormat::FLOAT4_E2M1FN,
            _ => return None,
        })
    }

    /// The real type of each component of a complex type (`float32` for `complex64`,
    /// `float64` for `complex128`), `None` for the others.
    pub const fn component_type(self) -> Option<Self> {
        match self {
            Self::Complex64 => Some(Self::Float32),
            Self::Complex128 => Some(Self::Float64),
            _ => None,
        }
    }

    /// The Zarr v2 (numpy) type string in little-endian order (`"<f4"`, `"|u1"`, `"|b1"`),
    /// or `None` for the types that have none (`bfloat16`, the float8/6/4 family and the
    /// sub-byte integers).
    pub const fn numpy_str(self) -> Option<&'static str> {
        Some(match self {
            Self::Bool => "|b1",
            Self::Int8 => "|i1",
            Self::Int16 => "<i2",
            Self::Int32 => "<i4",
            Self::Int64 => "<i8",
            Self::UInt8 => "|u1",
            Self::UInt16 => "<u2",
            Self::UInt32 => "<u4",
            Self::UInt64 => "<u8",
            Self::Float16 => "<f2",
            Self::Float32 => "<f4",
            Self::Float64 => "<f8",
            Self::Complex64 => "<c8",
            Self::Complex128 => "<c16",
            _ => return None,
        })
    }

    /// Parses a Zarr v2 type string: a byte order (`<` little, `>` big, `|` not applicable,
    /// `=` native) then the numpy kind and size (`"<f4"`, `">i8"`, `"|b1"`).
    ///
    /// Returns the data type and its byte order, `None` for single-byte types (any of the
    /// four prefixes is accepted for them). `|` on a multi-byte type, or a type string with
    /// no data type here, is a [`CodecError::Configuration`].
    pub fn from_v2_str(type_str: &str) -> Result<(Self, Option<Endian>)> {
        let error = || CodecError::configuration(format!("unsupported v2 data type `{type_str}`"));
        let mut chars = type_str.chars();
        let endian = match chars.next() {
            Some('<') => Some(Endian::Little),
            Some('>') => Some(Endian::Big),
            Some('=') => Some(Endian::NATIVE),
            Some('|') => None,
            _ => return Err(error()),
        };
        let rest = chars.as_str();
        let data_type = Self::ALL
            .into_iter()
            .find(|data_type| data_type.numpy_str().is_some_and(|s| &s[1..] == rest))
            .ok_or_else(error)?;
        if data_type.size() == 1 {
            return Ok((data_type, None));
        }
        match endian {
            Some(endian) => Ok((data_type, Some(endian))),
            None => Err(error()),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DataType {
    type Err = CodecError;

    fn from_str(name: &str) -> Result<Self> {
        Self::from_name(name)
    }
}

impl Serialize for DataType {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::from_name(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() -> Result<()> {
        for data_type in DataType::ALL {
            assert_eq!(DataType::from_name(data_type.name())?, data_type);
            assert_eq!(data_type.to_string(), data_type.name());
        }
        let mut names: Vec<_> = DataType::ALL.iter().map(|d| d.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DataType::ALL.len());
        Ok(())
    }

    #[test]
    fn unknown_name_is_configuration_error() {
        let error = DataType::from_name("float128").expect_err("no float128");
        assert_eq!(error.kind(), crate::ErrorKind::Configuration);
        assert!(error.to_string().contains("float128"));
    }

    #[test]
    fn complex_types_swap_one_part_at_a_time() {
        assert_eq!(DataType::Complex64.swap_size(), 4);
        assert_eq!(DataType::Complex128.swap_size(), 8);
        for data_type in DataType::ALL {
            if !data_type.is_complex() {
                assert_eq!(data_type.swap_size(), data_type.size(), "{data_type}");
            }
        }
    }

    #[test]
    fn sizes_and_bits() {
        assert_eq!(DataType::Int2.size(), 1);
        assert_eq!(DataType::Int2.bits(), 2);
        assert_eq!(DataType::Float6E3M2Fn.bits(), 6);
        assert_eq!(DataType::Complex128.size(), 16);
        assert_eq!(DataType::Complex64.bits(), 64);
        assert_eq!(DataType::BFloat16.size(), 2);
        for data_type in DataType::ALL {
            if let Some(format) = data_type.float_format().filter(|_| data_type.is_float()) {
                assert_eq!(format.total_bits(), data_type.bits(), "{data_type}");
                assert_eq!(format.name(), data_type.name());
            }
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(DataType::Bool.kind(), DataTypeKind::Bool);
        assert_eq!(DataType::Int4.kind(), DataTypeKind::SignedInt);
        assert_eq!(DataType::UInt64.kind(), DataTypeKind::UnsignedInt);
        assert_eq!(DataType::Float8E8M0Fnu.kind(), DataTypeKind::Float);
        assert_eq!(DataType::Complex64.kind(), DataTypeKind::Complex);
        assert!(DataType::BFloat16.is_float());
        assert!(!DataType::Complex64.is_float());
        assert_eq!(
            DataType::Complex64.component_type(),
            Some(DataType::Float32)
        );
    }

    #[test]
    fn v2_strings() -> Result<()> {
        assert_eq!(
            DataType::from_v2_str("<f4")?,
            (DataType::Float32, Some(Endian::Little))
        );
        assert_eq!(
            DataType::from_v2_str(">i8")?,
            (DataType::Int64, Some(Endian::Big))
        );
        assert_eq!(
            DataType::from_v2_str("=u2")?,
            (DataType::UInt16, Some(Endian::NATIVE))
        );
        assert_eq!(DataType::from_v2_str("|b1")?, (DataType::Bool, None));
        assert_eq!(DataType::from_v2_str("<u1")?, (DataType::UInt8, None));
        assert_eq!(
            DataType::from_v2_str(">c16")?,
            (DataType::Complex128, Some(Endian::Big))
        );
        for bad in ["", "f4", "|f4", "<f3", "<U10", "<M8[ns]", "<f4 "] {
            assert!(DataType::from_v2_str(bad).is_err(), "{bad:?}");
        }
        for data_type in DataType::ALL {
            if let Some(type_str) = data_type.numpy_str() {
                assert_eq!(DataType::from_v2_str(type_str)?.0, data_type);
            }
        }
        Ok(())
    }

    #[test]
    fn json_forms() -> Result<()> {
        let from =
            |text: &str| -> Result<DataType> { DataType::from_json(&serde_json::from_str(text)?) };
        assert_eq!(from(r#""int4""#)?, DataType::Int4);
        assert_eq!(from(r#"{"name": "int4"}"#)?, DataType::Int4);
        assert_eq!(
            from(r#"{"name": "int4", "configuration": {}}"#)?,
            DataType::Int4
        );
        assert!(from(r#"{"name": "int4", "configuration": {"a": 1}}"#).is_err());
        assert!(from(r#"{"name": "int4", "extra": 1}"#).is_err());
        assert!(from(r"{}").is_err());
        assert!(from("4").is_err());
        assert_eq!(DataType::Int4.to_json(), serde_json::json!("int4"));
        let parsed: DataType = serde_json::from_str(r#""bfloat16""#)?;
        assert_eq!(parsed, DataType::BFloat16);
        assert_eq!(serde_json::to_string(&parsed)?, r#""bfloat16""#);
        assert!(serde_json::from_str::<DataType>(r#""bfloat17""#).is_err());
        Ok(())
    }
}
