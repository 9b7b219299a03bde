//! Use the blosc codec from Rust alone: `cargo run -p zarr-codec-blosc --example roundtrip`.

use zarr_codec_blosc::Blosc;
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{BytesToBytesCodec, Codec, CodecFromJson};

fn main() -> Result<(), zarr_codec_shapes::CodecError> {
    let json = serde_json::json!({"name": "blosc", "configuration":
        {"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}});
    let codec = Blosc::from_json(&json, ZarrFormat::V3)?;
    let data: Vec<u8> = (0..250_000u32)
        .flat_map(|i| (i / 9).to_le_bytes())
        .collect();
    let encoded = codec.encode(&data)?;
    assert_eq!(codec.decode(&encoded)?, data);
    println!(
        "c-blosc {}: {} bytes -> {} bytes; v2 JSON: {}",
        zarr_codec_blosc::version(),
        data.len(),
        encoded.len(),
        codec.to_json(ZarrFormat::V2)?
    );
    Ok(())
}
