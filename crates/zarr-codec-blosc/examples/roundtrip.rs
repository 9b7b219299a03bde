//! Use the blosc codec from Rust alone: `cargo run -p zarr-codec-blosc --example roundtrip`.

use zarr_codec_blosc::Blosc;
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, Codec, CodecFromJson, DataType};

fn main() -> Result<(), zarr_codec_shapes::CodecError> {
    let json = serde_json::json!({"name": "blosc", "configuration":
        {"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}});
    let codec = Blosc::from_json(&json, ZarrFormat::V3)?;
    let data: Vec<u8> = (0..250_000u32)
        .flat_map(|i| (i / 9).to_le_bytes())
        .collect();
    // The chunk the bytes come from: the trait's one call shape passes it to every codec.
    let spec = ChunkSpec::with_default_fill_value(vec![data.len() / 4], DataType::UInt32)?;
    let encoded = codec.encode(&data, &spec)?;
    assert_eq!(codec.decode(&encoded, &spec)?, data);
    println!(
        "c-blosc {}: {} bytes -> {} bytes; v2 JSON: {}",
        zarr_codec_blosc::version(),
        data.len(),
        encoded.len(),
        codec.to_json(ZarrFormat::V2)?
    );
    Ok(())
}
