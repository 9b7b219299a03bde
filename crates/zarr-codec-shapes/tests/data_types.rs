//! Data type names, sizes and v2 type strings against the v3 data type list and the
//! zarr-extensions data type documents.

use zarr_codec_shapes::{CodecError, DataType, DataTypeKind, Endian, ErrorKind};

type TestResult = Result<(), CodecError>;

/// Every name of the v3 core list and the extension documents implemented here, with the
/// size the `bytes` codec stores.
const NAMES: [(&str, usize); 29] = [
    ("bool", 1),
    ("int2", 1),
    ("int4", 1),
    ("int8", 1),
    ("int16", 2),
    ("int32", 4),
    ("int64", 8),
    ("uint2", 1),
    ("uint4", 1),
    ("uint8", 1),
    ("uint16", 2),
    ("uint32", 4),
    ("uint64", 8),
    ("float16", 2),
    ("bfloat16", 2),
    ("float32", 4),
    ("float64", 8),
    ("float8_e3m4", 1),
    ("float8_e4m3", 1),
    ("float8_e4m3b11fnuz", 1),
    ("float8_e4m3fnuz", 1),
    ("float8_e5m2", 1),
    ("float8_e5m2fnuz", 1),
    ("float8_e8m0fnu", 1),
    ("float6_e2m3fn", 1),
    ("float6_e3m2fn", 1),
    ("float4_e2m1fn", 1),
    ("complex64", 8),
    ("complex128", 16),
];

#[test]
fn every_name_round_trips() -> TestResult {
    assert_eq!(DataType::ALL.len(), NAMES.len());
    for (data_type, (name, size)) in DataType::ALL.into_iter().zip(NAMES) {
        assert_eq!(data_type.name(), name);
        assert_eq!(data_type.size(), size, "{name}");
        assert_eq!(DataType::from_name(name)?, data_type);
        assert_eq!(name.parse::<DataType>()?, data_type);
        assert_eq!(DataType::from_json(&serde_json::json!(name))?, data_type);
        assert_eq!(
            DataType::from_json(&serde_json::json!({"name": name}))?,
            data_type
        );
        assert_eq!(data_type.to_json(), serde_json::json!(name));
        let text = serde_json::to_string(&data_type)?;
        assert_eq!(text, format!("\"{name}\""));
        assert_eq!(serde_json::from_str::<DataType>(&text)?, data_type);
    }
    Ok(())
}

#[test]
fn unknown_names_are_configuration_errors() {
    for name in [
        "",
        "Float32",
        "float8_e4m3fn",
        "r16",
        "string",
        "complex_float32",
        " int8",
    ] {
        let error = DataType::from_name(name).expect_err("unknown");
        assert_eq!(error.kind(), ErrorKind::Configuration, "{name:?}");
    }
}

#[test]
fn kinds_and_formats() {
    for data_type in DataType::ALL {
        let kind = data_type.kind();
        assert_eq!(data_type.is_float(), kind == DataTypeKind::Float);
        assert_eq!(
            data_type.float_format().is_some(),
            matches!(kind, DataTypeKind::Float | DataTypeKind::Complex),
            "{data_type}"
        );
        assert_eq!(
            data_type.integer_range().is_some(),
            matches!(kind, DataTypeKind::SignedInt | DataTypeKind::UnsignedInt),
            "{data_type}"
        );
        assert!(data_type.bits() <= 8 * u32::try_from(data_type.size()).unwrap_or(0));
    }
    let no_inf = [
        DataType::Float8E4M3B11Fnuz,
        DataType::Float8E4M3Fnuz,
        DataType::Float8E5M2Fnuz,
        DataType::Float8E8M0Fnu,
        DataType::Float6E2M3Fn,
        DataType::Float6E3M2Fn,
        DataType::Float4E2M1Fn,
    ];
    for data_type in DataType::ALL.into_iter().filter(|d| d.is_float()) {
        let format = data_type.float_format();
        let has_inf = format.is_some_and(zarr_codec_shapes::FloatFormat::has_inf);
        assert_eq!(has_inf, !no_inf.contains(&data_type), "{data_type}");
    }
}

#[test]
fn v2_type_strings() -> TestResult {
    let expected = [
        (DataType::Bool, "|b1"),
        (DataType::Int8, "|i1"),
        (DataType::Int16, "<i2"),
        (DataType::Int32, "<i4"),
        (DataType::Int64, "<i8"),
        (DataType::UInt8, "|u1"),
        (DataType::UInt16, "<u2"),
        (DataType::UInt32, "<u4"),
        (DataType::UInt64, "<u8"),
        (DataType::Float16, "<f2"),
        (DataType::Float32, "<f4"),
        (DataType::Float64, "<f8"),
        (DataType::Complex64, "<c8"),
        (DataType::Complex128, "<c16"),
    ];
    for data_type in DataType::ALL {
        let type_str = expected
            .iter()
            .find(|(d, _)| *d == data_type)
            .map(|(_, s)| *s);
        assert_eq!(data_type.numpy_str(), type_str, "{data_type}");
    }
    for (data_type, type_str) in expected {
        let endian = (data_type.size() > 1).then_some(Endian::Little);
        assert_eq!(DataType::from_v2_str(type_str)?, (data_type, endian));
        let big = format!(">{}", &type_str[1..]);
        let endian = (data_type.size() > 1).then_some(Endian::Big);
        assert_eq!(DataType::from_v2_str(&big)?, (data_type, endian));
        let native = format!("={}", &type_str[1..]);
        let endian = (data_type.size() > 1).then_some(Endian::NATIVE);
        assert_eq!(DataType::from_v2_str(&native)?, (data_type, endian));
    }
    for bad in ["|i2", "<f16", "<b2", "i4", "<S10", "<V8", "<m8[s]", "O"] {
        let error = DataType::from_v2_str(bad).expect_err("unsupported");
        assert_eq!(error.kind(), ErrorKind::Configuration, "{bad}");
    }
    Ok(())
}
