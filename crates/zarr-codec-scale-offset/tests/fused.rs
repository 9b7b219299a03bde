//! The fused `[scale_offset, cast_value]` path gives exactly the two codecs' results, one
//! after the other, for every pair of core types, every rounding mode and range rule.

use serde_json::json;
use zarr_codec_cast_value::{CastValue, Direction, OutOfRange, Rounding};
use zarr_codec_scale_offset::{ScaleOffset, ScaleOffsetCast};
use zarr_codec_shapes::DataType;

const TYPES: [DataType; 12] = [
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

/// Deterministic pseudo-random element bytes of `data_type` (xorshift): small values that
/// most combinations accept, so that the comparisons run (errors are compared too).
fn elements(data_type: DataType, count: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(count * data_type.size());
    for _ in 0..count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let small = (state >> 56) % 100;
        let bits = match data_type {
            DataType::Float64 => (f64::from(u32::try_from(small).unwrap_or(0)) / 4.0).to_bits(),
            DataType::Float32 => {
                u64::from((f32::from(u16::try_from(small).unwrap_or(0)) / 4.0).to_bits())
            }
            DataType::Float16 => 0x3c00 + small,
            DataType::BFloat16 => 0x3f80 + small,
            _ => small,
        };
        let size = data_type.size();
        let bytes = bits.to_ne_bytes();
        if cfg!(target_endian = "little") {
            out.extend_from_slice(&bytes[..size]);
        } else {
            out.extend_from_slice(&bytes[8 - size..]);
        }
    }
    out
}

fn parameters(data_type: DataType) -> ScaleOffset {
    let (offset, scale) = if data_type.is_float() {
        (json!(0.5), json!(1.25))
    } else {
        (json!(3), json!(2))
    };
    ScaleOffset::new(Some(offset), Some(scale)).expect("codec")
}

#[test]
fn fused_equals_the_two_codecs_in_turn() {
    let mut compared = 0;
    for (i, &array_type) in TYPES.iter().enumerate() {
        let affine_codec = parameters(array_type);
        let affine = affine_codec.bind(array_type).expect("bind");
        let input = elements(array_type, 16_500, 7 + i as u64); // crosses 8192-element blocks
        for &target in &TYPES {
            for rounding in Rounding::ALL {
                for out_of_range in [None, Some(OutOfRange::Clamp)] {
                    let cast = CastValue::new(target, rounding, out_of_range, None).expect("cast");
                    let fused =
                        ScaleOffsetCast::new(&affine_codec, &cast, array_type).expect("fused");
                    // Encode: scale_offset, then cast_value.
                    let mut middle = vec![0u8; input.len()];
                    let sequential = affine.encode(&input, &mut middle).and_then(|()| {
                        cast.plan(array_type, Direction::Encode)?
                            .apply_to_vec(&middle)
                    });
                    let mut out = vec![0u8; input.len() / array_type.size() * target.size()];
                    let together = fused.encode(&input, &mut out).map(|()| out);
                    assert_eq!(
                        sequential.is_ok(),
                        together.is_ok(),
                        "{array_type}->{target} {rounding:?}"
                    );
                    if let (Ok(a), Ok(b)) = (&sequential, &together) {
                        assert_eq!(
                            a, b,
                            "encode {array_type}->{target} {rounding:?} {out_of_range:?}"
                        );
                        compared += 1;
                    }
                    // Decode: cast back, then scale_offset's inverse.
                    let encoded = elements(target, 16_500, 99 + i as u64);
                    let back = cast.plan(array_type, Direction::Decode).expect("plan");
                    let sequential = back.apply_to_vec(&encoded).and_then(|middle| {
                        let mut out = vec![0u8; middle.len()];
                        affine.decode(&middle, &mut out).map(|()| out)
                    });
                    let mut out = vec![0u8; encoded.len() / target.size() * array_type.size()];
                    let together = fused.decode(&encoded, &mut out).map(|()| out);
                    assert_eq!(
                        sequential.is_ok(),
                        together.is_ok(),
                        "decode {target}->{array_type}"
                    );
                    if let (Ok(a), Ok(b)) = (&sequential, &together) {
                        assert_eq!(
                            a, b,
                            "decode {target}->{array_type} {rounding:?} {out_of_range:?}"
                        );
                        compared += 1;
                    }
                }
            }
        }
    }
    // Most combinations succeed (clamp covers the ranges): the comparisons really ran.
    assert!(compared > 1000, "only {compared} successful comparisons");
}
