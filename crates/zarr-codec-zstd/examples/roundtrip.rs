//! Use the zstd codec from Rust alone: `cargo run -p zarr-codec-zstd --example roundtrip`.
//!
//! Builds the codec from its Zarr v3 JSON, compresses a buffer, decodes it back into a buffer
//! we own, and prints the v2 form of the same codec.

use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, Codec, CodecFromJson, DataType};
use zarr_codec_zstd::Zstd;

fn main() -> Result<(), zarr_codec_shapes::CodecError> {
    let json = serde_json::json!({"name": "zstd", "configuration": {"level": 3, "checksum": true}});
    let codec = Zstd::from_json(&json, ZarrFormat::V3)?;

    let data: Vec<u8> = (0..100_000u32)
        .flat_map(|i| (i / 7).to_le_bytes())
        .collect();
    let spec = ChunkSpec::with_default_fill_value(vec![data.len() / 4], DataType::UInt32)?;
    let encoded = codec.encode(&data, &spec)?;
    let mut decoded = vec![0u8; data.len()];
    let written = codec.decode_into(&encoded, &mut decoded, &spec)?;
    assert_eq!(&decoded[..written], data.as_slice());

    #[allow(clippy::cast_precision_loss)] // a ratio for display
    let ratio = data.len() as f64 / encoded.len() as f64;
    println!(
        "libzstd {}: {} bytes -> {} bytes ({:.1}x); v2 JSON: {}",
        zarr_codec_zstd::engine_version(),
        data.len(),
        encoded.len(),
        ratio,
        codec.to_json(ZarrFormat::V2)?
    );
    Ok(())
}
