//! numcodecs' `fixedscaleoffset` ([`FixedScaleOffset`]): its JSON in both Zarr versions, and
//! values numpy computes (worked out by hand here; the Python tests compare with numcodecs
//! itself over many more).

use serde_json::{Number, Value, json};
use zarr_codec_scale_offset::FixedScaleOffset;
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecFromJson, DataType, ErrorKind, ZarrFormat,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn number(value: &Value) -> Result<Number, Box<dyn std::error::Error>> {
    match value {
        Value::Number(number) => Ok(number.clone()),
        other => Err(format!("{other} is not a number").into()),
    }
}

fn codec(offset: &Value, scale: &Value, dtype: &str, astype: &str) -> FixedScaleOffset {
    let (Ok(offset), Ok(scale)) = (number(offset), number(scale)) else {
        panic!("test parameters are numbers");
    };
    match FixedScaleOffset::new(offset, scale, dtype, Some(astype)) {
        Ok(codec) => codec,
        Err(err) => panic!("{err}"),
    }
}

fn spec(data_type: DataType, count: usize) -> ChunkSpec {
    match ChunkSpec::with_default_fill_value(vec![count], data_type) {
        Ok(spec) => spec,
        Err(err) => panic!("{err}"),
    }
}

fn bytes<const N: usize, T>(values: &[T], to: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(to).collect()
}

#[test]
fn json_round_trips_in_both_versions_with_the_type_strings_as_written() -> TestResult {
    let v2 = json!({"id": "fixedscaleoffset", "offset": 1000, "scale": 10.5,
                    "dtype": "<f8", "astype": "|u1"});
    let codec = FixedScaleOffset::from_json(&v2, ZarrFormat::V2)?;
    assert_eq!(codec.to_json(ZarrFormat::V2)?, v2);
    assert_eq!(codec.data_type(), DataType::Float64);
    assert_eq!(codec.encoded_type(), DataType::UInt8);
    let v3 = codec.to_json(ZarrFormat::V3)?;
    assert_eq!(v3["name"], "numcodecs.fixedscaleoffset");
    assert_eq!(FixedScaleOffset::from_json(&v3, ZarrFormat::V3)?, codec);
    // numpy names and type strings without a byte order, as numcodecs' zarr3 wrapper writes.
    let named = json!({"name": "numcodecs.fixedscaleoffset", "configuration":
                       {"offset": 0, "scale": 1, "dtype": "float32", "astype": "i2"}});
    let codec = FixedScaleOffset::from_json(&named, ZarrFormat::V3)?;
    assert_eq!(
        (codec.data_type(), codec.encoded_type()),
        (DataType::Float32, DataType::Int16)
    );
    Ok(())
}

#[test]
fn bad_configurations_are_errors_of_their_kind() {
    let kind = |json: Value| {
        FixedScaleOffset::from_json(&json, ZarrFormat::V2)
            .err()
            .map(|err| err.kind())
    };
    let base = |field: &str, value: Value| {
        let mut json = json!({"id": "fixedscaleoffset", "offset": 1, "scale": 2,
                              "dtype": "<f8", "astype": "<i2"});
        json[field] = value;
        json
    };
    assert_eq!(
        kind(base("dtype", json!("<c8"))),
        Some(ErrorKind::Unsupported)
    );
    assert_eq!(
        kind(base("astype", json!("|b1"))),
        Some(ErrorKind::Unsupported)
    );
    assert_eq!(
        kind(base("dtype", json!("<x3"))),
        Some(ErrorKind::Configuration)
    );
    assert_eq!(
        kind(base("scale", json!(0))),
        Some(ErrorKind::Configuration)
    );
    assert_eq!(
        kind(base("offset", json!("1"))),
        Some(ErrorKind::Configuration)
    );
    assert_eq!(
        kind(base("extra", json!(1))),
        Some(ErrorKind::Configuration)
    );
}

#[test]
fn float_dtype_rounds_half_to_even_and_wraps_like_numpy() -> TestResult {
    let codec = codec(&json!(0), &json!(1), "<f8", "|i1");
    let input = bytes(&[0.5, 1.5, 2.5, -2.5, 127.0, 128.0, 300.0], |v: &f64| {
        v.to_ne_bytes()
    });
    let encoded = codec.encode(&input, &spec(DataType::Float64, 7))?;
    let wrapped: Vec<i8> = encoded.iter().map(|&b| i8::from_ne_bytes([b])).collect();
    // around(): 0, 2, 2, -2; astype(int8) wraps 128 -> -128 and 300 -> 44.
    assert_eq!(wrapped, [0, 2, 2, -2, 127, -128, 44]);
    Ok(())
}

#[test]
fn nan_and_infinity_become_what_x86_gives_integers() -> TestResult {
    let input = bytes(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY], |v: &f64| {
        v.to_ne_bytes()
    });
    let int32 = codec(&json!(0), &json!(1), "<f8", "<i4");
    let encoded = int32.encode(&input, &spec(DataType::Float64, 3))?;
    assert_eq!(encoded, bytes(&[i32::MIN; 3], |v: &i32| v.to_ne_bytes()));
    let uint64 = codec(&json!(0), &json!(1), "<f8", "<u8");
    let encoded = uint64.encode(&input, &spec(DataType::Float64, 3))?;
    assert_eq!(
        encoded,
        bytes(&[1u64 << 63, 0, 1 << 63], |v: &u64| v.to_ne_bytes())
    );
    Ok(())
}

#[test]
fn integer_dtype_wraps_in_its_own_arithmetic_and_truncates_when_decoding() -> TestResult {
    let codec = codec(&json!(1), &json!(2), "|i1", "|i1");
    let input = bytes(&[-128i8, -1, 0, 63, 64, 127], |v: &i8| v.to_ne_bytes());
    let encoded = codec.encode(&input, &spec(DataType::Int8, 6))?;
    // (x - 1) * 2 in int8: -129 -> 127 -> 254 -> -2, ...
    assert_eq!(
        encoded,
        bytes(&[-2i8, -4, -2, 124, 126, -4], |v: &i8| v.to_ne_bytes())
    );
    let decoded = codec.decode(
        &bytes(&[-3i8, 3, 5], |v: &i8| v.to_ne_bytes()),
        &spec(DataType::Int8, 3),
    )?;
    // y / 2 + 1 in float64, truncated: -0.5 -> 0, 2.5 -> 2, 3.5 -> 3.
    assert_eq!(decoded, bytes(&[0i8, 2, 3], |v: &i8| v.to_ne_bytes()));
    Ok(())
}

#[test]
fn a_float_parameter_moves_integer_arithmetic_to_float64() -> TestResult {
    let codec = codec(&json!(1.5), &json!(2), "<i2", "<i2");
    let input = bytes(&[0i16, 3, -3, 32767], |v: &i16| v.to_ne_bytes());
    let encoded = codec.encode(&input, &spec(DataType::Int16, 4))?;
    // around((x - 1.5) * 2): -3, 3, -9, 65531 (wraps to -5).
    assert_eq!(
        encoded,
        bytes(&[-3i16, 3, -9, -5], |v: &i16| v.to_ne_bytes())
    );
    Ok(())
}

#[test]
fn an_integer_parameter_the_dtype_cannot_hold_is_out_of_range() {
    let codec = codec(&json!(-7), &json!(3), "|u1", "|u1");
    let err = codec.encode(&[1, 2, 3], &spec(DataType::UInt8, 3)).err();
    assert_eq!(err.map(|e| e.kind()), Some(ErrorKind::OutOfRange));
    // Decoding is float64 arithmetic, which any offset meets.
    assert!(codec.decode(&[1, 2, 3], &spec(DataType::UInt8, 3)).is_ok());
}

#[test]
fn decoding_is_in_float64_for_integer_codes() -> TestResult {
    let codec = codec(&json!(1000.1), &json!(10.3), "<f4", "<i4");
    let stored = [123_456_789i32, -5, 16_777_217];
    let decoded = codec.decode(
        &bytes(&stored, |v: &i32| v.to_ne_bytes()),
        &spec(DataType::Float32, 3),
    )?;
    #[allow(clippy::cast_possible_truncation)] // numpy's float64 -> float32: nearest
    let expected: Vec<f32> = stored
        .iter()
        .map(|&c| (f64::from(c) / 10.3 + 1000.1) as f32)
        .collect();
    assert_eq!(decoded, bytes(&expected, |v: &f32| v.to_ne_bytes()));
    Ok(())
}

#[test]
fn the_fill_value_is_encoded_and_a_wrong_array_type_refused() -> TestResult {
    let codec = codec(&json!(10), &json!(100), "<f8", "<i4");
    let spec = ChunkSpec::new(
        vec![4],
        DataType::Float64,
        zarr_codec_shapes::FillValue::from_f64(12.5, DataType::Float64)?,
    )?;
    let encoded = codec.resolve(&spec)?;
    assert_eq!(encoded.data_type(), DataType::Int32);
    assert_eq!(encoded.fill_value().to_json(), json!(250));
    let float32 = ChunkSpec::with_default_fill_value(vec![4], DataType::Float32)?;
    let err = codec.encode(&[0; 16], &float32).err();
    assert_eq!(err.map(|e| e.kind()), Some(ErrorKind::Configuration));
    let short = codec.decode(&[0; 15], &spec).err();
    assert_eq!(short.map(|e| e.kind()), Some(ErrorKind::Corrupt));
    Ok(())
}
