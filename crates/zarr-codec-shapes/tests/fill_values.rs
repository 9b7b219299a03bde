//! Fill values against the v3 core specification's "Permitted fill values" clause and the
//! extension data type documents.

use serde_json::{Value, json};
use zarr_codec_shapes::{CodecError, DataType, DataTypeKind, ErrorKind, FillValue};

type TestResult = Result<(), CodecError>;

fn parse(json: &Value, data_type: DataType) -> Result<FillValue, CodecError> {
    FillValue::from_json(json, data_type)
}

fn error_kind(json: &Value, data_type: DataType) -> ErrorKind {
    match parse(json, data_type) {
        Ok(value) => panic!("{json} accepted for {data_type} as {value:?}"),
        Err(error) => error.kind(),
    }
}

#[test]
fn defaults_round_trip_for_every_data_type() -> TestResult {
    for data_type in DataType::ALL {
        let value = FillValue::default_for(data_type);
        assert_eq!(value.data_type(), data_type);
        assert_eq!(value.as_bytes().len(), data_type.size());
        assert!(value.as_bytes().iter().all(|&byte| byte == 0));
        let json = value.to_json();
        assert_eq!(parse(&json, data_type)?, value, "{data_type}: {json}");
    }
    assert_eq!(
        FillValue::default_for(DataType::Bool).to_json(),
        json!(false)
    );
    assert_eq!(FillValue::default_for(DataType::Int8).to_json(), json!(0));
    assert_eq!(
        FillValue::default_for(DataType::Complex64).to_json(),
        json!([0.0, 0.0])
    );
    // float8_e8m0fnu has no zero: its all-zero pattern is 2^-127.
    assert_eq!(
        FillValue::default_for(DataType::Float8E8M0Fnu).as_f64(),
        Some(2f64.powi(-127))
    );
    Ok(())
}

#[test]
fn every_small_float_pattern_round_trips_through_json() -> TestResult {
    for data_type in DataType::ALL.into_iter().filter(|d| d.is_float()) {
        let Some(format) = data_type.float_format() else {
            continue;
        };
        if format.total_bits() > 16 {
            continue;
        }
        for bits in 0..(1u64 << format.total_bits()) {
            let bytes = &bits.to_le_bytes()[..data_type.size()];
            let value = FillValue::from_bytes(data_type, bytes)?;
            let json = value.to_json();
            assert_eq!(
                parse(&json, data_type)?,
                value,
                "{data_type} {bits:#x}: {json}"
            );
            assert_eq!(
                value.is_nan(),
                format.is_nan_bits(bits),
                "{data_type} {bits:#x}"
            );
        }
    }
    Ok(())
}

#[test]
fn bool_fill_values() -> TestResult {
    assert_eq!(parse(&json!(true), DataType::Bool)?.as_bytes(), &[1]);
    assert_eq!(parse(&json!(false), DataType::Bool)?.as_bool(), Some(false));
    for bad in [json!(0), json!(1), json!("true"), json!(null)] {
        assert_eq!(
            error_kind(&bad, DataType::Bool),
            ErrorKind::Configuration,
            "{bad}"
        );
    }
    Ok(())
}

#[test]
fn integer_fill_values_in_range() -> TestResult {
    let cases = [
        (DataType::Int2, -2, 1),
        (DataType::Int4, -8, 7),
        (DataType::Int8, -128, 127),
        (DataType::Int16, -32768, 32767),
        (DataType::Int32, i128::from(i32::MIN), i128::from(i32::MAX)),
        (DataType::Int64, i128::from(i64::MIN), i128::from(i64::MAX)),
        (DataType::UInt2, 0, 3),
        (DataType::UInt4, 0, 15),
        (DataType::UInt8, 0, 255),
        (DataType::UInt16, 0, 65535),
        (DataType::UInt32, 0, i128::from(u32::MAX)),
        (DataType::UInt64, 0, i128::from(u64::MAX)),
    ];
    for (data_type, min, max) in cases {
        assert_eq!(data_type.integer_range(), Some((min, max)));
        for value in [min, max] {
            let json: Value = serde_json::from_str(&value.to_string())?;
            let fill = parse(&json, data_type)?;
            assert_eq!(fill.as_i128(), Some(value), "{data_type}");
            assert_eq!(fill.to_json(), json, "{data_type}");
            assert_eq!(FillValue::from_i128(value, data_type)?, fill);
        }
        for value in [min - 1, max + 1] {
            if let Ok(json) = serde_json::from_str::<Value>(&value.to_string()) {
                assert_eq!(
                    error_kind(&json, data_type),
                    ErrorKind::OutOfRange,
                    "{data_type} {value}"
                );
            }
            let error = FillValue::from_i128(value, data_type).expect_err("out of range");
            assert_eq!(error.kind(), ErrorKind::OutOfRange);
        }
    }
    // Little-endian, two's complement bytes; sub-byte signed values sign-extended.
    assert_eq!(parse(&json!(-2), DataType::Int2)?.as_bytes(), &[0xfe]);
    assert_eq!(parse(&json!(258), DataType::UInt16)?.as_bytes(), &[2, 1]);
    assert_eq!(parse(&json!(-1), DataType::Int32)?.as_bytes(), &[0xff; 4]);
    Ok(())
}

#[test]
fn integer_fill_values_rejected() {
    let configuration = [
        json!(1.5),
        json!(1.0),
        json!(1e3),
        json!("1"),
        json!(true),
        json!(null),
        json!([1]),
        json!("NaN"),
    ];
    for bad in configuration {
        assert_eq!(
            error_kind(&bad, DataType::Int8),
            ErrorKind::Configuration,
            "{bad}"
        );
    }
    let out_of_range = [
        (json!(128), DataType::Int8),
        (json!(-1), DataType::UInt8),
        (json!(-3), DataType::Int2),
        (json!(4), DataType::UInt2),
        (json!(-9), DataType::Int4),
        (json!(16), DataType::UInt4),
        (json!(u64::MAX), DataType::Int64),
    ];
    for (bad, data_type) in out_of_range {
        assert_eq!(
            error_kind(&bad, data_type),
            ErrorKind::OutOfRange,
            "{bad} {data_type}"
        );
    }
    // Integers beyond 64 bits parse as floats in serde_json: still out of range.
    let huge: Value = serde_json::from_str("18446744073709551616").unwrap_or(Value::Null);
    assert_eq!(error_kind(&huge, DataType::UInt64), ErrorKind::OutOfRange);
}

#[test]
fn float_spec_examples() -> TestResult {
    // "for float32, "NaN" is equivalent to "0x7fc00000"".
    let nan = parse(&json!("NaN"), DataType::Float32)?;
    assert_eq!(nan, parse(&json!("0x7fc00000"), DataType::Float32)?);
    assert_eq!(nan, parse(&json!("0x7FC00000"), DataType::Float32)?);
    assert_eq!(nan.as_bytes(), &0x7fc0_0000u32.to_le_bytes());
    assert_eq!(nan.to_json(), json!("NaN"));
    // Other NaNs only through hex, and written back as hex.
    let payload = parse(&json!("0x7fc00001"), DataType::Float32)?;
    assert!(payload.is_nan());
    assert_eq!(payload.to_json(), json!("0x7fc00001"));
    let negative_nan = parse(&json!("0xffc00000"), DataType::Float32)?;
    assert_eq!(negative_nan.to_json(), json!("0xffc00000"));
    // ["-Infinity", "NaN"]: real -inf, imaginary NaN.
    let complex = parse(&json!(["-Infinity", "NaN"]), DataType::Complex64)?;
    let (real, imaginary) = complex.as_complex().unwrap_or((0.0, 0.0));
    assert!(real == f64::NEG_INFINITY && imaginary.is_nan());
    assert_eq!(complex.to_json(), json!(["-Infinity", "NaN"]));
    let complex = parse(&json!([1, 2]), DataType::Complex128)?;
    assert_eq!(complex.as_complex(), Some((1.0, 2.0)));
    assert_eq!(complex.to_json(), json!([1.0, 2.0]));
    Ok(())
}

#[test]
fn float_fill_values() -> TestResult {
    assert_eq!(
        parse(&json!("Infinity"), DataType::Float64)?.as_f64(),
        Some(f64::INFINITY)
    );
    assert_eq!(
        parse(&json!("-Infinity"), DataType::Float16)?.as_bytes(),
        &[0x00, 0xfc]
    );
    assert_eq!(
        parse(&json!("NaN"), DataType::BFloat16)?.as_bytes(),
        &[0xc0, 0x7f]
    );
    assert_eq!(
        parse(&json!("NaN"), DataType::Float64)?.as_bytes(),
        &0x7ff8_0000_0000_0000u64.to_le_bytes()
    );
    for data_type in [
        DataType::Float8E4M3Fnuz,
        DataType::Float8E5M2Fnuz,
        DataType::Float8E4M3B11Fnuz,
    ] {
        let nan = parse(&json!("NaN"), data_type)?;
        assert_eq!(nan.as_bytes(), &[0x80]);
        assert_eq!(nan.to_json(), json!("NaN"));
        // fnuz: a single zero.
        assert_eq!(parse(&json!(-0.0), data_type)?.as_bytes(), &[0x00]);
    }
    assert_eq!(
        parse(&json!("0xFF"), DataType::Float8E8M0Fnu)?.to_json(),
        json!("NaN")
    );
    assert_eq!(
        parse(&json!("NaN"), DataType::Float8E4M3)?.as_bytes(),
        &[0x7c]
    );
    assert_eq!(
        parse(&json!("NaN"), DataType::Float8E3M4)?.as_bytes(),
        &[0x78]
    );
    assert_eq!(
        parse(&json!("NaN"), DataType::Float8E5M2)?.as_bytes(),
        &[0x7e]
    );
    // Rounded to nearest, ties to even: 2049 is a float16 tie between 2048 and 2050.
    assert_eq!(
        parse(&json!(2049), DataType::Float16)?.as_f64(),
        Some(2048.0)
    );
    assert_eq!(
        parse(&json!(2051), DataType::Float16)?.as_f64(),
        Some(2052.0)
    );
    assert_eq!(
        parse(&json!(16_777_217), DataType::Float32)?.as_f64(),
        Some(16_777_216.0)
    );
    // IEEE overflow goes to infinity.
    assert_eq!(
        parse(&json!(1e6), DataType::Float16)?.to_json(),
        json!("Infinity")
    );
    // -0.0 is kept and written as a number.
    let negative_zero = parse(&json!(-0.0), DataType::Float32)?;
    assert_eq!(negative_zero.as_bytes(), &[0, 0, 0, 0x80]);
    assert_eq!(serde_json::to_string(&negative_zero.to_json())?, "-0.0");
    assert_eq!(
        serde_json::to_string(&parse(&json!(3), DataType::Float32)?.to_json())?,
        "3.0"
    );
    // float6/float4: upper bits of the hex byte are ignored.
    assert_eq!(
        parse(&json!("0xc7"), DataType::Float4E2M1Fn)?.as_f64(),
        Some(6.0)
    );
    assert_eq!(
        parse(&json!(-7.5), DataType::Float6E2M3Fn)?.as_bytes(),
        &[0x3f]
    );
    Ok(())
}

#[test]
fn float_fill_values_rejected() {
    let configuration = [
        (json!("nan"), DataType::Float32),
        (json!("NAN"), DataType::Float32),
        (json!("inf"), DataType::Float32),
        (json!("+Infinity"), DataType::Float32),
        (json!("-NaN"), DataType::Float32),
        (json!("0x7fc0000"), DataType::Float32),
        (json!("0x7fc000000"), DataType::Float32),
        (json!("0x7fc0"), DataType::Float32),
        (json!("0x"), DataType::Float32),
        (json!("0X7fc00000"), DataType::Float32),
        (json!("0x7fc0000g"), DataType::Float32),
        (json!("0x+7fc0000"), DataType::Float32),
        (json!("7fc00000"), DataType::Float32),
        (json!("1.5"), DataType::Float32),
        (json!(null), DataType::Float64),
        (json!(true), DataType::Float64),
        (json!([1.0]), DataType::Float64),
        (json!("0x7e"), DataType::Float16),
        (json!("0x0"), DataType::Float4E2M1Fn),
        (json!("0x000"), DataType::Float8E4M3),
        (json!(1.0), DataType::Complex64),
        (json!([1.0]), DataType::Complex64),
        (json!([1.0, 2.0, 3.0]), DataType::Complex64),
        (json!(["nan", 0]), DataType::Complex128),
    ];
    for (bad, data_type) in configuration {
        assert_eq!(
            error_kind(&bad, data_type),
            ErrorKind::Configuration,
            "{bad} {data_type}"
        );
    }
    let out_of_range = [
        (json!("Infinity"), DataType::Float8E4M3Fnuz),
        (json!("-Infinity"), DataType::Float8E5M2Fnuz),
        (json!("Infinity"), DataType::Float8E4M3B11Fnuz),
        (json!("Infinity"), DataType::Float8E8M0Fnu),
        (json!("Infinity"), DataType::Float6E2M3Fn),
        (json!("NaN"), DataType::Float6E2M3Fn),
        (json!("NaN"), DataType::Float6E3M2Fn),
        (json!("NaN"), DataType::Float4E2M1Fn),
        (json!(1000), DataType::Float8E4M3Fnuz),
        (json!(7.0), DataType::Float4E2M1Fn),
        (json!(0), DataType::Float8E8M0Fnu),
        (json!(-1.0), DataType::Float8E8M0Fnu),
    ];
    for (bad, data_type) in out_of_range {
        assert_eq!(
            error_kind(&bad, data_type),
            ErrorKind::OutOfRange,
            "{bad} {data_type}"
        );
    }
}

#[test]
fn native_constructors_check_range() -> TestResult {
    for data_type in DataType::ALL {
        let result = FillValue::from_f64(1.0, data_type);
        match data_type.kind() {
            DataTypeKind::Bool => {
                assert_eq!(result.map_err(|e| e.kind()), Err(ErrorKind::Unsupported));
            }
            DataTypeKind::Complex => assert_eq!(result?.as_complex(), Some((1.0, 0.0))),
            _ => assert_eq!(result?.as_f64(), Some(1.0), "{data_type}"),
        }
    }
    assert_eq!(
        FillValue::from_f64(0.1, DataType::Float16)?.as_bytes(),
        &0x2e66u16.to_le_bytes()
    );
    assert_eq!(
        FillValue::from_f64(-2.0, DataType::Int2)?.as_i128(),
        Some(-2)
    );
    assert_eq!(
        FillValue::from_f64(-3.0, DataType::Int2).map_err(|e| e.kind()),
        Err(ErrorKind::OutOfRange)
    );
    assert_eq!(
        FillValue::from_f64(0.5, DataType::UInt8).map_err(|e| e.kind()),
        Err(ErrorKind::OutOfRange)
    );
    assert_eq!(
        FillValue::from_complex(1.0, -1.0, DataType::Complex64)?.to_json(),
        json!([1.0, -1.0])
    );
    assert_eq!(
        FillValue::from_bytes(DataType::Float32, &[0, 0, 0x80, 0x3f])?.as_f64(),
        Some(1.0)
    );
    Ok(())
}
