//! Use the gzip codec from Rust alone: `cargo run -p zarr-codec-gzip --example roundtrip`.
//!
//! Builds the codec from its Zarr v3 JSON, compresses a buffer, decodes it back (into a
//! buffer we own), and prints the v2 form of the same codec.

use zarr_codec_gzip::Gzip;
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, Codec, CodecFromJson, DataType};

fn main() -> Result<(), zarr_codec_shapes::CodecError> {
    let json = serde_json::json!({"name": "gzip", "configuration": {"level": 5}});
    let codec = Gzip::from_json(&json, ZarrFormat::V3)?;

    let data: Vec<u8> = (0..100_000u32)
        .flat_map(|i| (i / 7).to_le_bytes())
        .collect();
    // The chunk the bytes come from: the trait's one call shape passes it to every codec.
    let spec = ChunkSpec::with_default_fill_value(vec![data.len() / 4], DataType::UInt32)?;
    let encoded = codec.encode(&data, &spec)?;
    let mut decoded = vec![0u8; data.len()];
    let written = codec.decode_into(&encoded, &mut decoded, &spec)?;
    assert_eq!(&decoded[..written], data.as_slice());

    #[allow(clippy::cast_precision_loss)] // a ratio for display
    let ratio = data.len() as f64 / encoded.len() as f64;
    println!(
        "{} bytes -> {} bytes ({:.1}x); v2 JSON: {}",
        data.len(),
        encoded.len(),
        ratio,
        codec.to_json(ZarrFormat::V2)?
    );
    Ok(())
}
