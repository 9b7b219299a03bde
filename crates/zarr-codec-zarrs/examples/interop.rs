//! Reads and writes Zarr arrays with zarrs and this crate's codecs, for the interop test with
//! zarr-python (`tests/test_zarrs_plugin.py` in the repository) and as a runnable example.
//!
//! ```text
//! interop read [--register] STORE ARRAY OUT    # the array's values, native bytes, into OUT;
//!                                              # prints which implementation decoded it
//! interop write [--register] STORE             # arrays of every codec of ours, under STORE
//! ```
//!
//! `--register` calls `zarr_codec_zarrs::register()` first (our gzip, blosc, zstd, crc32c and
//! fixedscaleoffset); without it zarrs uses its own for those, and ours only for
//! `scale_offset` and `cast_value`.

use std::error::Error;
use std::sync::Arc;

use zarrs::array::{Array, ArrayBuilder, ArrayBytes, data_type};
use zarrs::filesystem::FilesystemStore;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--register") {
        args.remove(at);
        zarr_codec_zarrs::register();
    }
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["read", store, array, out] => read(store, array, out),
        ["write", store] => write(store),
        _ => Err(
            "usage: interop read [--register] STORE ARRAY OUT | write [--register] STORE".into(),
        ),
    }
}

/// Which implementation each codec of the array's chain has: ours (one of this crate's
/// types) or zarrs'.
fn implementations(array: &Array<FilesystemStore>) -> Vec<String> {
    use zarr_codec_zarrs::{
        BloscCodec, CastValueCodec, Crc32cCodec, FixedScaleOffsetCodec, GzipCodec,
        ScaleOffsetCodec, ZstdCodec,
    };
    fn ours(codec: &dyn std::any::Any) -> Option<&'static str> {
        [
            ("GzipCodec", codec.is::<GzipCodec>()),
            ("BloscCodec", codec.is::<BloscCodec>()),
            ("ZstdCodec", codec.is::<ZstdCodec>()),
            ("Crc32cCodec", codec.is::<Crc32cCodec>()),
            ("ScaleOffsetCodec", codec.is::<ScaleOffsetCodec>()),
            ("CastValueCodec", codec.is::<CastValueCodec>()),
            ("FixedScaleOffsetCodec", codec.is::<FixedScaleOffsetCodec>()),
        ]
        .into_iter()
        .find_map(|(name, is)| is.then_some(name))
    }
    let codecs = array.codecs();
    let array_codecs = codecs
        .array_to_array_codecs()
        .iter()
        .map(|c| (c.as_any(), format!("{c:?}")));
    let bytes_codecs = codecs
        .bytes_to_bytes_codecs()
        .iter()
        .map(|c| (c.as_any(), format!("{c:?}")));
    array_codecs
        .chain(bytes_codecs)
        .map(|(any, debug)| match ours(any) {
            Some(name) => format!("zarr-codecs {name}"),
            None => format!(
                "zarrs {}",
                debug.split(['(', ' ', '{']).next().unwrap_or_default()
            ),
        })
        .collect()
}

fn read(store: &str, path: &str, out: &str) -> Result<(), Box<dyn Error>> {
    let store = Arc::new(FilesystemStore::new(store)?);
    let array = Array::open(store, path)?;
    let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&array.subset_all())?;
    std::fs::write(out, bytes.into_fixed()?.as_ref())?;
    println!(
        "{}",
        serde_json::json!({"implementations": implementations(&array)})
    );
    Ok(())
}

/// The values the writer stores: a ramp with NaN, and values beyond int16 once scaled.
fn ramp(len: u32) -> Vec<f64> {
    (0..len)
        .map(|i| match i % 17 {
            0 => f64::NAN,
            1 => 1e9,
            _ => f64::from(i) * 0.37 - 10.0,
        })
        .collect()
}

#[allow(clippy::cast_possible_truncation)] // the ramp's values fit float32
fn write(store: &str) -> Result<(), Box<dyn Error>> {
    use zarr_codec_shapes::{CodecFromJson, ZarrFormat};

    let store = Arc::new(FilesystemStore::new(store)?);
    let quantize = (
        zarr_codec_scale_offset::ScaleOffset::from_json(
            &serde_json::json!({"name": "scale_offset", "configuration": {"offset": 15, "scale": 100}}),
            ZarrFormat::V3,
        )?,
        zarr_codec_cast_value::CastValue::from_json(
            &serde_json::json!({"name": "cast_value", "configuration": {
                "data_type": "int16", "rounding": "nearest-even", "out_of_range": "clamp",
                "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]}}}),
            ZarrFormat::V3,
        )?,
    );
    let gzip = zarr_codec_gzip::Gzip::new(zarr_codec_gzip::Level::new(5)?);
    let blosc = zarr_codec_blosc::Blosc::from_json(
        &serde_json::json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3,
            "shuffle": "bitshuffle", "typesize": 8, "blocksize": 0}}),
        ZarrFormat::V3,
    )?;
    let zstd = zarr_codec_zstd::Zstd::new(zarr_codec_zstd::Level::new(3)?, true);
    let crc32c = zarr_codec_crc32c::Crc32c::new(zarr_codec_crc32c::Location::End);

    let values = ramp(1200);
    let floats: Vec<f32> = values.iter().map(|&v| v as f32).collect();
    let quantized = ArrayBuilder::new(vec![30, 40], vec![8, 16], data_type::float32(), f32::NAN)
        .array_to_array_codecs(vec![
            Arc::new(zarr_codec_zarrs::ScaleOffsetCodec::new(quantize.0)),
            Arc::new(zarr_codec_zarrs::CastValueCodec::new(quantize.1)),
        ])
        .bytes_to_bytes_codecs(vec![Arc::new(zarr_codec_zarrs::GzipCodec::new(gzip))])
        .build(store.clone(), "/quantized")?;
    quantized.store_metadata()?;
    quantized.store_array_subset(&quantized.subset_all(), floats.as_slice())?;

    let blosced = ArrayBuilder::new(vec![1200], vec![256], data_type::float64(), 0.0f64)
        .bytes_to_bytes_codecs(vec![Arc::new(zarr_codec_zarrs::BloscCodec::new(blosc))])
        .build(store.clone(), "/blosc")?;
    blosced.store_metadata()?;
    blosced.store_array_subset(&blosced.subset_all(), values.as_slice())?;

    let counts: Vec<u16> = (0..1200u16).map(|i| i.wrapping_mul(37)).collect();
    let checked = ArrayBuilder::new(vec![1200], vec![500], data_type::uint16(), 0u16)
        .bytes_to_bytes_codecs(vec![
            Arc::new(zarr_codec_zarrs::ZstdCodec::new(zstd)),
            Arc::new(zarr_codec_zarrs::Crc32cCodec::new(crc32c)),
        ])
        .build(store.clone(), "/zstd_crc32c")?;
    checked.store_metadata()?;
    checked.store_array_subset(&checked.subset_all(), counts.as_slice())?;

    // numcodecs' legacy quantization, with parameters float32 cannot hold.
    let legacy = zarr_codec_scale_offset::FixedScaleOffset::new(
        serde_json::Number::from_f64(1000.1).ok_or("not a number")?,
        serde_json::Number::from_f64(10.3).ok_or("not a number")?,
        "<f8",
        Some("<i4"),
    )?;
    let spread: Vec<f64> = (0..1200).map(|i| f64::from(i) * 167.3 - 1e5).collect();
    let fixed = ArrayBuilder::new(vec![1200], vec![300], data_type::float64(), 0.0f64)
        .array_to_array_codecs(vec![Arc::new(
            zarr_codec_zarrs::FixedScaleOffsetCodec::new(legacy),
        )])
        .bytes_to_bytes_codecs(vec![Arc::new(zarr_codec_zarrs::ZstdCodec::new(zstd))])
        .build(store, "/fixedscaleoffset")?;
    fixed.store_metadata()?;
    fixed.store_array_subset(&fixed.subset_all(), spread.as_slice())?;
    Ok(())
}
