//! The specification's examples and rules, and the JSON form.
#![allow(clippy::float_cmp, clippy::unwrap_used)] // exact arithmetic: exact comparisons

use serde_json::{Value, json};
use zarr_codec_scale_offset::ScaleOffset;
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecFromJson, DataType, ErrorKind, FillValue,
};

fn codec(offset: Value, scale: Value) -> ScaleOffset {
    ScaleOffset::new(Some(offset), Some(scale)).expect("codec")
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

fn as_f32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn float32_example_in_float32_arithmetic() {
    let codec = codec(json!(5), json!(0.1));
    let spec = ChunkSpec::with_default_fill_value(vec![3], DataType::Float32).expect("spec");
    let input = [15.0f32, 5.0, -0.0];
    let encoded = as_f32(&codec.encode(&f32s(&input), &spec).expect("encode"));
    // float32 arithmetic: (15 - 5) * float32(0.1), not the float64 product.
    assert_eq!(encoded[0], (15.0f32 - 5.0) * 0.1f32);
    assert_eq!(encoded[1], 0.0);
    let decoded = as_f32(&codec.decode(&f32s(&encoded), &spec).expect("decode"));
    assert_eq!(decoded[0], encoded[0] / 0.1f32 + 5.0);
}

#[test]
fn uint16_range_reduction_example() {
    let codec = ScaleOffset::new(Some(json!(1000)), None).expect("codec");
    let spec = ChunkSpec::with_default_fill_value(vec![3], DataType::UInt16).expect("spec");
    let input: Vec<u8> = [1000u16, 1100, 1255]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let encoded = codec.encode(&input, &spec).expect("encode");
    let values: Vec<u16> = encoded
        .chunks(2)
        .map(|c| u16::from_ne_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(values, [0, 100, 255]);
    assert_eq!(codec.decode(&encoded, &spec).expect("decode"), input);
    // Below the offset: the intermediate is not a uint16 value.
    let err = codec
        .encode(&999u16.to_ne_bytes(), &spec)
        .expect_err("below");
    assert_eq!(err.kind(), ErrorKind::OutOfRange);
}

#[test]
fn float64_nan_example_keeps_nan() {
    let codec = codec(json!(-10), json!(0.1));
    let spec = ChunkSpec::new(
        vec![3],
        DataType::Float64,
        FillValue::from_json(&json!("NaN"), DataType::Float64).expect("fill"),
    )
    .expect("spec");
    let input: Vec<u8> = [f64::NAN, 0.0, 2540.0]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let out = codec.encode(&input, &spec).expect("encode");
    let values: Vec<f64> = out
        .chunks(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert!(values[0].is_nan());
    assert_eq!(values[1], (0.0 + 10.0) * 0.1);
    assert_eq!(values[2], (2540.0 + 10.0) * 0.1);
    let resolved = codec.resolve(&spec).expect("resolve");
    assert_eq!(resolved.fill_value().to_json(), json!("NaN"));
}

#[test]
fn integer_limits_are_errors_in_both_directions() {
    let spec = ChunkSpec::with_default_fill_value(vec![1], DataType::Int64).expect("spec");
    let one = |v: i64| v.to_ne_bytes().to_vec();
    let shift = ScaleOffset::new(Some(json!(1)), None).expect("codec");
    assert_eq!(
        shift
            .encode(&one(i64::MIN), &spec)
            .expect_err("min - 1")
            .kind(),
        ErrorKind::OutOfRange
    );
    assert_eq!(
        shift
            .decode(&one(i64::MAX), &spec)
            .expect_err("max + 1")
            .kind(),
        ErrorKind::OutOfRange
    );
    let double = ScaleOffset::new(None, Some(json!(2))).expect("codec");
    assert_eq!(
        double
            .encode(&one(i64::MAX / 2 + 1), &spec)
            .expect_err("2x")
            .kind(),
        ErrorKind::OutOfRange
    );
    assert_eq!(
        double.encode(&one(i64::MAX / 2), &spec).expect("fits"),
        one(i64::MAX - 1)
    );
    // Decoding divides exactly or fails.
    assert_eq!(
        double.decode(&one(7), &spec).expect_err("7 / 2").kind(),
        ErrorKind::OutOfRange
    );
    assert_eq!(double.decode(&one(-8), &spec).expect("-8 / 2"), one(-4));
    let negate = ScaleOffset::new(None, Some(json!(-1))).expect("codec");
    assert_eq!(
        negate
            .encode(&one(i64::MIN), &spec)
            .expect_err("-MIN")
            .kind(),
        ErrorKind::OutOfRange
    );
    let spec = ChunkSpec::with_default_fill_value(vec![1], DataType::UInt64).expect("spec");
    let big = ScaleOffset::new(Some(json!(u64::MAX)), Some(json!(1))).expect("codec");
    assert_eq!(
        big.encode(&u64::MAX.to_ne_bytes(), &spec)
            .expect("max - max"),
        0u64.to_ne_bytes()
    );
    assert_eq!(
        big.decode(&1u64.to_ne_bytes(), &spec)
            .expect_err("1 + max")
            .kind(),
        ErrorKind::OutOfRange
    );
}

#[test]
fn floats_follow_their_own_arithmetic() {
    // float16 emulated: 65504 * 2 overflows to +Infinity (IEEE), both ways; NaN and -0 pass.
    let codec = ScaleOffset::new(None, Some(json!(2))).expect("codec");
    let spec = ChunkSpec::with_default_fill_value(vec![4], DataType::Float16).expect("spec");
    let input: Vec<u8> = [0x7bffu16, 0x7e00, 0x8000, 0x3c00]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let out = codec.encode(&input, &spec).expect("encode");
    let values: Vec<u16> = out
        .chunks(2)
        .map(|c| u16::from_ne_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(values, [0x7c00, 0x7e00, 0x8000, 0x4000]);
    // In a format without infinity the overflow is not representable: an error.
    let spec = ChunkSpec::with_default_fill_value(vec![1], DataType::Float8E4M3Fnuz).expect("spec");
    let err = codec.encode(&[0x7f], &spec).expect_err("240 * 2");
    assert_eq!(err.kind(), ErrorKind::OutOfRange);
}

#[test]
fn parameters_are_checked_against_the_data_type() {
    for (offset, scale, data_type) in [
        (json!(1.5), json!(1), DataType::Int32),
        (json!("0x0000"), json!(1), DataType::Int32),
        (json!(0), json!("0x00000000"), DataType::Float32),
        (json!(300), json!(1), DataType::UInt8),
        (json!(0), json!(1), DataType::Bool),
    ] {
        let codec = codec(offset.clone(), scale.clone());
        let err = codec.bind(data_type).expect_err("invalid");
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Configuration | ErrorKind::Unsupported
            ),
            "{offset} {scale} {data_type}: {err}"
        );
    }
    // What no data type accepts is refused before any is known: a zero scale, non-finite
    // or other strings, JSON that is not a number.
    for (offset, scale) in [
        (json!(0), json!(0)),
        (json!(0), json!(0.0)),
        (json!(0), json!(-0.0)),
        (json!("NaN"), json!(1)),
        (json!(0), json!("Infinity")),
        (json!("nearest-even"), json!(1)),
        (json!([1]), json!(1)),
        (json!(true), json!(1)),
    ] {
        let err = ScaleOffset::new(Some(offset.clone()), Some(scale.clone()))
            .expect_err("no data type accepts it");
        assert_eq!(
            err.kind(),
            ErrorKind::Configuration,
            "{offset} {scale}: {err}"
        );
    }
    // Hex floats are fill-value JSON too.
    let codec = codec(json!("0x3f800000"), json!(2));
    let spec = ChunkSpec::with_default_fill_value(vec![1], DataType::Float32).expect("spec");
    assert_eq!(
        as_f32(&codec.encode(&f32s(&[3.0]), &spec).expect("hex")),
        [4.0]
    );
}

#[test]
fn json_forms() {
    let bare = json!({"name": "scale_offset"});
    let identity = ScaleOffset::from_json(&bare, ZarrFormat::V3).expect("bare");
    assert_eq!(identity, ScaleOffset::default());
    assert_eq!(identity.to_json(ZarrFormat::V3).expect("json"), bare);
    let explicit = json!({"name": "scale_offset", "configuration": {"offset": 0, "scale": 1}});
    let codec = ScaleOffset::from_json(&explicit, ZarrFormat::V3).expect("explicit");
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), bare);
    let full = json!({"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}});
    let codec = ScaleOffset::from_json(&full, ZarrFormat::V3).expect("full");
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), full);
    for bad in [
        json!({"name": "scale_offset", "configuration": {"offset": 1, "extra": 2}}),
        json!({"name": "scale_offset", "configuration": {"offset": [1]}}),
        json!({"name": "scale_offset", "configuration": 5}),
        json!({"name": "scale_offset", "other": {}}),
        json!({"name": "cast_value"}),
    ] {
        let err = ScaleOffset::from_json(&bad, ZarrFormat::V3).expect_err("invalid");
        assert_eq!(err.kind(), ErrorKind::Configuration, "{bad}");
    }
}

#[test]
fn every_element_decodes_alone() {
    let capability = codec(json!(1), json!(2)).partial_decode_capability();
    assert!(capability.partial_read && capability.partial_decode);
}

#[test]
fn null_parameters_are_refused_not_read_as_identities() {
    for key in ["offset", "scale"] {
        let json = json!({"name": "scale_offset", "configuration": {key: null}});
        let error = ScaleOffset::from_json(&json, ZarrFormat::V3).expect_err("null accepted");
        assert!(error.to_string().contains("is null"), "{error}");
    }
}
