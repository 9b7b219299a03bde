//! Quantize float32 values to int16 from Rust alone, as zarr-python's
//! `[scale_offset, cast_value]` does: `cargo run -p zarr-codec-scale-offset --example quantize`.
//!
//! Builds both codecs from their Zarr v3 JSON, runs them one after the other and as the fused
//! pair ([`ScaleOffsetCast`]), checks that both give the same bytes, and decodes them back.

use zarr_codec_cast_value::CastValue;
use zarr_codec_scale_offset::{ScaleOffset, ScaleOffsetCast};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{ArrayToArrayCodec, ChunkSpec, CodecFromJson, DataType, FillValue};

fn main() -> Result<(), zarr_codec_shapes::CodecError> {
    let scale_offset = ScaleOffset::from_json(
        &serde_json::json!({"name": "scale_offset", "configuration": {"offset": 15, "scale": 100}}),
        ZarrFormat::V3,
    )?;
    let cast = CastValue::from_json(
        &serde_json::json!({"name": "cast_value", "configuration": {
            "data_type": "int16", "rounding": "nearest-even", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]}}}),
        ZarrFormat::V3,
    )?;
    let values: Vec<f32> = vec![15.0, 15.004, 15.005, 16.5, -3.25, f32::NAN, 1e9];
    let input: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let fill = FillValue::from_f64(f64::NAN, DataType::Float32)?;
    let spec = ChunkSpec::new(vec![values.len()], DataType::Float32, fill)?;

    // One after the other: float32 -> float32 -> int16.
    let scaled = scale_offset.encode(&input, &spec)?;
    let middle = scale_offset.resolve(&spec)?;
    let stored = cast.encode(&scaled, &middle)?;

    // Fused: one pass, the same bytes.
    let fused = ScaleOffsetCast::new(&scale_offset, &cast, DataType::Float32)?;
    let mut fused_stored = vec![0u8; values.len() * 2];
    fused.encode(&input, &mut fused_stored)?;
    assert_eq!(fused_stored, stored);

    let mut decoded = vec![0u8; input.len()];
    fused.decode(&stored, &mut decoded)?;
    let codes: Vec<i16> = stored
        .chunks_exact(2)
        .map(|b| i16::from_ne_bytes([b[0], b[1]]))
        .collect();
    let back: Vec<f32> = decoded
        .chunks_exact(4)
        .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    println!("values  {values:?}\nstored  {codes:?}\ndecoded {back:?}");
    Ok(())
}
