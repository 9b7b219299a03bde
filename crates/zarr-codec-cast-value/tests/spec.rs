//! The specification's examples and rules, one test each, plus the JSON form.
#![allow(clippy::float_cmp, clippy::unwrap_used, clippy::similar_names)] // exact casts: exact comparisons

use serde_json::{Value, json};
use zarr_codec_cast_value::{CastPlan, CastValue, Direction, OutOfRange, Rounding, ScalarMap};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecFromJson, DataType, ErrorKind, FillValue,
};

fn plan(from: DataType, to: DataType, rounding: Rounding, oor: Option<OutOfRange>) -> CastPlan {
    CastPlan::new(from, to, rounding, oor, ScalarMap::default()).expect("plan")
}

fn f64_to_i8(value: f64, oor: Option<OutOfRange>) -> Result<i8, ErrorKind> {
    let out = plan(
        DataType::Float64,
        DataType::Int8,
        Rounding::NearestEven,
        oor,
    )
    .apply_to_vec(&value.to_ne_bytes())
    .map_err(|err| err.kind())?;
    Ok(i8::from_ne_bytes([out[0]]))
}

#[test]
fn out_of_range_example_128_into_int8() {
    assert_eq!(f64_to_i8(128.0, None), Err(ErrorKind::OutOfRange));
    assert_eq!(f64_to_i8(128.0, Some(OutOfRange::Clamp)), Ok(127));
    assert_eq!(f64_to_i8(128.0, Some(OutOfRange::Wrap)), Ok(-128));
}

#[test]
fn wrap_examples_into_int16() {
    let cast = plan(
        DataType::Int32,
        DataType::Int16,
        Rounding::NearestEven,
        Some(OutOfRange::Wrap),
    );
    let input: Vec<u8> = [32768i32, 32769, -32769]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let out = cast.apply_to_vec(&input).expect("wrap");
    let values: Vec<i16> = out
        .chunks(2)
        .map(|c| i16::from_ne_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(values, [-32768, -32767, 32767]);
}

#[test]
fn exact_values_are_kept() {
    // "0 in uint16 maps to 0 in uint8"
    let cast = plan(
        DataType::UInt16,
        DataType::UInt8,
        Rounding::NearestEven,
        None,
    );
    assert_eq!(cast.apply_to_vec(&0u16.to_ne_bytes()).expect("exact"), [0]);
}

#[test]
fn numpy_compatibility_example() {
    // The example as the specification writes it ("+Infinity" included).
    let codec = CastValue::from_json(
        &json!({
            "name": "cast_value",
            "configuration": {
                "data_type": "uint8",
                "rounding": "towards-zero",
                "out_of_range": "wrap",
                "scalar_map": {"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]}
            }
        }),
        ZarrFormat::V3,
    )
    .expect("codec");
    let spec = ChunkSpec::with_default_fill_value(vec![7], DataType::Float64).expect("spec");
    let input: Vec<u8> = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        3.9,
        -1.5,
        257.0,
        1e300,
    ]
    .iter()
    .flat_map(|v| v.to_ne_bytes())
    .collect();
    let out = codec.encode(&input, &spec).expect("encode");
    // As numpy: NaN/Inf -> 0, truncation, then modulo 256 (1e300 is a multiple of 2^64).
    assert_eq!(out, [0, 0, 0, 3, 255, 1, 0]);
}

#[test]
fn nan_and_infinity() {
    let to_f32 = plan(
        DataType::Float64,
        DataType::Float32,
        Rounding::NearestEven,
        None,
    );
    let input: Vec<u8> = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let out = to_f32.apply_to_vec(&input).expect("propagate");
    let values: Vec<f32> = out
        .chunks(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert!(values[0].is_nan());
    assert_eq!(values[1], f32::INFINITY);
    assert_eq!(values[2], f32::NEG_INFINITY);
    assert!(
        values[3] == 0.0 && values[3].is_sign_negative(),
        "signed zero kept"
    );
    // Into integers: an error even with clamp or wrap; only scalar_map saves them.
    for oor in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                f64_to_i8(value, oor),
                Err(ErrorKind::OutOfRange),
                "{value} {oor:?}"
            );
        }
    }
    // Into float types without them.
    let to_e2m1 = plan(
        DataType::Float32,
        DataType::Float4E2M1Fn,
        Rounding::NearestEven,
        Some(OutOfRange::Clamp),
    );
    for value in [f32::NAN, f32::INFINITY] {
        let err = to_e2m1
            .apply_to_vec(&value.to_ne_bytes())
            .expect_err("no NaN or Inf");
        assert_eq!(err.kind(), ErrorKind::OutOfRange);
    }
}

#[test]
fn clamp_into_floats_goes_to_infinity_where_there_is_one() {
    let to_f16 = plan(
        DataType::Float64,
        DataType::Float16,
        Rounding::NearestEven,
        Some(OutOfRange::Clamp),
    );
    let out = to_f16
        .apply_to_vec(
            &[1e10f64, -1e10]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect::<Vec<_>>(),
        )
        .expect("clamp");
    assert_eq!(out, [0x00, 0x7c, 0x00, 0xfc].map(u8::from)); // +inf, -inf (little-endian)
    let to_e4m3fnuz = plan(
        DataType::Float64,
        DataType::Float8E4M3Fnuz,
        Rounding::NearestEven,
        Some(OutOfRange::Clamp),
    );
    let out = to_e4m3fnuz
        .apply_to_vec(
            &[1e10f64, -1e10]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect::<Vec<_>>(),
        )
        .expect("clamp");
    assert_eq!(out, [0x7f, 0xff]); // ±240, the largest finite values
    let none = plan(
        DataType::Float64,
        DataType::Float16,
        Rounding::NearestEven,
        None,
    );
    assert_eq!(
        none.apply_to_vec(&1e10f64.to_ne_bytes())
            .expect_err("range")
            .kind(),
        ErrorKind::OutOfRange
    );
}

#[test]
fn rounding_comes_before_the_range_check() {
    // 65519 rounds to 65504 (the largest float16) at nearest-even; 65520 rounds to 65536.
    let cast = |value: f64, rounding| {
        plan(DataType::Float64, DataType::Float16, rounding, None)
            .apply_to_vec(&value.to_ne_bytes())
    };
    assert_eq!(
        cast(65519.0, Rounding::NearestEven).expect("in range"),
        [0xff, 0x7b]
    );
    assert!(cast(65520.0, Rounding::NearestEven).is_err());
    assert_eq!(
        cast(65535.0, Rounding::TowardsZero).expect("in range"),
        [0xff, 0x7b]
    );
    // 127.5 into int8: towards-zero gives 127, every rounding up gives 128 (out of range).
    let to_i8 = |rounding| {
        plan(DataType::Float64, DataType::Int8, rounding, None)
            .apply_to_vec(&127.5f64.to_ne_bytes())
    };
    assert_eq!(to_i8(Rounding::TowardsZero).expect("127"), [127]);
    assert!(to_i8(Rounding::NearestEven).is_err() && to_i8(Rounding::NearestAway).is_err());
}

#[test]
fn no_double_rounding() {
    // 1 + 2^-11 + 2^-40 is just above the midpoint of two float16 values: through float32 it
    // would first become the midpoint and then round to even (1.0).
    let value = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    let out = plan(
        DataType::Float64,
        DataType::Float16,
        Rounding::NearestEven,
        None,
    )
    .apply_to_vec(&value.to_ne_bytes())
    .expect("cast");
    assert_eq!(u16::from_ne_bytes([out[0], out[1]]), 0x3c01); // 1 + 2^-10
    // int64 -> float32 in every mode, against exact expectations.
    let big = (1i64 << 62) + (1 << 38) + 1; // just above a float32 midpoint
    let cast = |rounding| {
        let out = plan(DataType::Int64, DataType::Float32, rounding, None)
            .apply_to_vec(&big.to_ne_bytes())
            .expect("cast");
        f32::from_ne_bytes(out.try_into().unwrap())
    };
    let below = 2f32.powi(62);
    let above = 2f32.powi(62) + 2f32.powi(39);
    assert_eq!(cast(Rounding::NearestEven), above);
    assert_eq!(cast(Rounding::NearestAway), above);
    assert_eq!(cast(Rounding::TowardsPositive), above);
    assert_eq!(cast(Rounding::TowardsZero), below);
    assert_eq!(cast(Rounding::TowardsNegative), below);
}

#[test]
fn integer_extremes() {
    let to_i64 = |value: f64, oor| {
        plan(
            DataType::Float64,
            DataType::Int64,
            Rounding::NearestEven,
            oor,
        )
        .apply_to_vec(&value.to_ne_bytes())
        .map(|out| i64::from_ne_bytes(out.try_into().unwrap()))
    };
    assert_eq!(to_i64(-(2f64.powi(63)), None).expect("min"), i64::MIN);
    assert!(to_i64(2f64.powi(63), None).is_err());
    assert_eq!(
        to_i64(2f64.powi(63), Some(OutOfRange::Clamp)).expect("clamp"),
        i64::MAX
    );
    assert_eq!(
        to_i64(2f64.powi(63), Some(OutOfRange::Wrap)).expect("wrap"),
        i64::MIN
    );
    let to_u64 = |value: f64, oor| {
        plan(
            DataType::Float64,
            DataType::UInt64,
            Rounding::NearestEven,
            oor,
        )
        .apply_to_vec(&value.to_ne_bytes())
        .map(|out| u64::from_ne_bytes(out.try_into().unwrap()))
    };
    assert!(to_u64(2f64.powi(64), None).is_err());
    assert_eq!(
        to_u64(2f64.powi(64) + 2f64.powi(12), Some(OutOfRange::Wrap)).expect("wrap"),
        4096
    );
    assert_eq!(
        to_u64(-1.0, Some(OutOfRange::Wrap)).expect("wrap"),
        u64::MAX
    );
    assert_eq!(to_u64(-1.0, Some(OutOfRange::Clamp)).expect("clamp"), 0);
    assert_eq!(to_u64(-0.4, None).expect("rounds to 0"), 0);
    // uint64 max -> float64: 2^64 (nearest) or 2^64 - 2^11 (towards zero).
    let u64_to_f64 = |rounding| {
        let out = plan(DataType::UInt64, DataType::Float64, rounding, None)
            .apply_to_vec(&u64::MAX.to_ne_bytes())
            .expect("cast");
        f64::from_ne_bytes(out.try_into().unwrap())
    };
    assert_eq!(u64_to_f64(Rounding::NearestEven), 2f64.powi(64));
    assert_eq!(
        u64_to_f64(Rounding::TowardsZero),
        2f64.powi(64) - 2f64.powi(11)
    );
}

#[test]
fn scalar_map_comes_first_and_never_chains() {
    let pairs = vec![
        (json!(1), json!(2)),
        (json!(2), json!(3)),
        (json!(1), json!(9)),
    ];
    let map = ScalarMap::parse(&pairs, DataType::Int32, DataType::Int8).expect("map");
    let cast = CastPlan::new(
        DataType::Int32,
        DataType::Int8,
        Rounding::NearestEven,
        None,
        map,
    )
    .expect("plan");
    let input: Vec<u8> = [1i32, 2, 3, 1000]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    // 1000 is out of range and unmapped: an error; without it the map applies once.
    assert!(cast.apply_to_vec(&input).is_err());
    assert_eq!(cast.apply_to_vec(&input[..12]).expect("map"), [2, 3, 3]);
    // Keys match by value: -0.0 is the key 0.0; every NaN is the key NaN.
    let pairs = vec![
        (json!(0.0), json!(5)),
        (json!("NaN"), json!(7)),
        (json!("0x7ff8000000000001"), json!(8)),
    ];
    let map = ScalarMap::parse(&pairs, DataType::Float64, DataType::Int8).expect("map");
    let cast = CastPlan::new(
        DataType::Float64,
        DataType::Int8,
        Rounding::NearestEven,
        None,
        map,
    )
    .expect("plan");
    let input: Vec<u8> = [-0.0f64, f64::from_bits(0xfff0_0000_0000_0001)]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    assert_eq!(cast.apply_to_vec(&input).expect("map"), [5, 7]);
}

#[test]
fn scalar_map_entries_must_fit_their_types() {
    for (pair, from, to) in [
        ((json!(1), json!(300)), DataType::Int32, DataType::Int8),
        ((json!(1.5), json!(1)), DataType::Int32, DataType::Int8),
        ((json!("NaN"), json!(1)), DataType::Int32, DataType::Int8),
        ((json!(1), json!("NaN")), DataType::Int32, DataType::Int8),
        ((json!(1), json!(1e10)), DataType::Int32, DataType::Float16),
        ((json!("nan"), json!(1)), DataType::Float32, DataType::Int8),
    ] {
        let err = ScalarMap::parse(std::slice::from_ref(&pair), from, to).expect_err("invalid");
        assert_eq!(err.kind(), ErrorKind::Configuration, "{pair:?}");
    }
}

fn config(configuration: &Value) -> Value {
    json!({"name": "cast_value", "configuration": configuration})
}

#[test]
fn json_round_trips_and_omits_defaults() {
    let minimal = config(&json!({"data_type": "uint8"}));
    let codec = CastValue::from_json(&minimal, ZarrFormat::V3).expect("minimal");
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), minimal);
    // An explicit default rounding is written the way zarr-python writes it: omitted.
    let explicit = config(&json!({"data_type": "uint8", "rounding": "nearest-even"}));
    let codec = CastValue::from_json(&explicit, ZarrFormat::V3).expect("explicit");
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), minimal);
    let full = config(&json!({
        "data_type": "int16",
        "rounding": "towards-negative",
        "out_of_range": "clamp",
        "scalar_map": {"encode": [["NaN", -1]], "decode": [[-1, "NaN"]]}
    }));
    let codec = CastValue::from_json(&full, ZarrFormat::V3).expect("full");
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), full);
    assert_eq!(codec.rounding(), Rounding::TowardsNegative);
    assert_eq!(codec.out_of_range(), Some(OutOfRange::Clamp));
}

#[test]
fn invalid_json_is_a_configuration_error() {
    for bad in [
        config(&json!({})),
        config(&json!({"data_type": "uint8", "extra": 1})),
        config(&json!({"data_type": "uint8", "rounding": "nearest"})),
        config(&json!({"data_type": "uint8", "out_of_range": "saturate"})),
        config(&json!({"data_type": "float32", "out_of_range": "wrap"})),
        config(&json!({"data_type": "bool"})),
        config(&json!({"data_type": "complex64"})),
        config(&json!({"data_type": "nonsense"})),
        config(&json!({"data_type": "uint8", "scalar_map": {"both": []}})),
        config(&json!({"data_type": "uint8", "scalar_map": {"encode": [[1]]}})),
        config(&json!({"data_type": "uint8", "scalar_map": {"encode": [[1, 2, 3]]}})),
        config(&json!({"data_type": "uint8", "scalar_map": {"encode": {"1": 2}}})),
        config(&json!({"data_type": "uint8", "scalar_map": {"decode": [[300, 1]]}})),
        config(&json!({"data_type": "uint8", "rounding": null})),
        config(&json!({"data_type": "uint8", "out_of_range": null})),
        config(&json!({"data_type": "uint8", "scalar_map": null})),
        config(&json!({"data_type": "uint8", "scalar_map": {"encode": null}})),
        json!({"name": "cast_value"}),
        json!({"name": "other", "configuration": {"data_type": "uint8"}}),
    ] {
        let err = CastValue::from_json(&bad, ZarrFormat::V3).expect_err("invalid");
        assert_eq!(err.kind(), ErrorKind::Configuration, "{bad}");
    }
    let err = CastValue::from_json(&config(&json!({"data_type": "uint8"})), ZarrFormat::V2)
        .expect_err("v2");
    assert_eq!(err.kind(), ErrorKind::Unsupported);
}

#[test]
fn fill_value_is_cast_and_must_round_trip() {
    let codec = CastValue::new(DataType::Int16, Rounding::NearestEven, None, None).expect("codec");
    let spec = |fill: Value| {
        ChunkSpec::new(
            vec![4],
            DataType::Float32,
            FillValue::from_json(&fill, DataType::Float32).expect("fill"),
        )
        .expect("spec")
    };
    let resolved = codec.resolve(&spec(json!(-3.0))).expect("resolve");
    assert_eq!(resolved.data_type(), DataType::Int16);
    assert_eq!(resolved.fill_value().to_json(), json!(-3));
    for fill in [json!(0.5), json!("NaN"), json!(1e6)] {
        let err = codec
            .resolve(&spec(fill.clone()))
            .expect_err("no round trip");
        assert_eq!(err.kind(), ErrorKind::Configuration, "{fill}");
    }
    // A mapped NaN fill value survives both ways.
    let map = zarr_codec_cast_value::ScalarMapJson {
        encode: Some(vec![(json!("NaN"), json!(-32768))]),
        decode: Some(vec![(json!(-32768), json!("NaN"))]),
    };
    let codec =
        CastValue::new(DataType::Int16, Rounding::NearestEven, None, Some(map)).expect("codec");
    let resolved = codec.resolve(&spec(json!("NaN"))).expect("resolve");
    assert_eq!(resolved.fill_value().to_json(), json!(-32768));
    let plan = codec
        .plan(DataType::Float32, Direction::Decode)
        .expect("plan");
    assert!(
        plan.target_scalar(plan.cast_bits(0x8000).expect("decode"))
            .is_nan()
    );
}

#[test]
fn every_element_decodes_alone() {
    let codec = CastValue::from_json(
        &json!({"name": "cast_value", "configuration": {"data_type": "int16"}}),
        ZarrFormat::V3,
    )
    .expect("codec");
    let capability = codec.partial_decode_capability();
    assert!(capability.partial_read && capability.partial_decode);
}

#[test]
fn a_scalar_map_that_is_not_an_object_is_refused() {
    for map in [json!([]), json!([["NaN", 0]]), json!("NaN")] {
        let json = json!({"name": "cast_value", "configuration": {"data_type": "int8", "scalar_map": map}});
        let error = CastValue::from_json(&json, ZarrFormat::V3).expect_err("accepted");
        assert!(error.to_string().contains("scalar_map"), "{error}");
    }
}
