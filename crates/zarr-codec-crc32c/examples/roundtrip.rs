//! Use the crc32c codec from Rust alone: `cargo run -p zarr-codec-crc32c --example roundtrip`.
//!
//! Appends a checksum to a buffer, verifies it, and shows that one flipped bit is caught.

use zarr_codec_crc32c::Crc32c;

use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, CodecFromJson, DataType};

fn main() -> Result<(), zarr_codec_shapes::CodecError> {
    let codec = Crc32c::from_json(
        &serde_json::json!({"name": "crc32c"}),
        zarr_codec_shapes::json::ZarrFormat::V3,
    )?;
    let data: Vec<u8> = (0..4096u32).flat_map(u32::to_le_bytes).collect();
    let spec = ChunkSpec::with_default_fill_value(vec![4096], DataType::UInt32)?;

    let mut encoded = codec.encode(&data, &spec)?;
    assert_eq!(codec.decode(&encoded, &spec)?, data);
    encoded[100] ^= 0x04;
    let damaged = codec.decode(&encoded, &spec);
    println!(
        "{} bytes + 4; one flipped bit: {}",
        data.len(),
        damaged.map_or_else(|err| err.to_string(), |_| "not detected".into())
    );
    Ok(())
}
