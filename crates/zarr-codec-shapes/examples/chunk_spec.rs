//! The API crate from Rust alone: `cargo run -p zarr-codec-shapes --example chunk_spec`.
//!
//! Reads data types and fill values from their Zarr JSON forms, builds the spec of a chunk, and
//! shows the one error type every codec crate returns.

use zarr_codec_shapes::{ChunkSpec, CodecError, DataType, FillValue};

fn main() -> Result<(), CodecError> {
    let data_type = DataType::from_json(&serde_json::json!("float32"))?;
    let fill = FillValue::from_json(&serde_json::json!("NaN"), data_type)?;
    let spec = ChunkSpec::new(vec![256, 256], data_type, fill)?;
    println!(
        "{} chunk of {:?}: {} elements, {} bytes, fill value {} (NaN: {})",
        spec.data_type(),
        spec.shape(),
        spec.num_elements(),
        spec.num_bytes(),
        spec.fill_value().to_json(),
        spec.fill_value().is_nan()
    );
    // A numpy-style v2 type string, with its byte order.
    let (v2_type, endian) = DataType::from_v2_str("<i2")?;
    println!("'<i2' is {v2_type} ({endian:?})");
    // Errors carry a kind that bindings map to their own classes.
    match FillValue::from_json(&serde_json::json!(300), DataType::Int8) {
        Ok(value) => println!("int8 fill value 300 read as {value:?}?"),
        Err(err) => println!("int8 fill value 300: {:?} error: {err}", err.kind()),
    }
    Ok(())
}
