//! zarrs arrays with our codecs: built with them, opened from metadata as zarr-python writes
//! it, with `register()` and without, and with broken chunks.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use zarr_codec_cast_value::CastValue;
use zarr_codec_scale_offset::ScaleOffset;
use zarr_codec_shapes::{CodecFromJson, ZarrFormat};
use zarr_codec_zarrs::{
    BloscCodec, CastValueCodec, FixedScaleOffsetCodec, GzipCodec, ScaleOffsetCodec, ZstdCodec,
    register, unregister,
};
use zarrs::array::{Array, ArrayBuilder, data_type};
use zarrs::filesystem::FilesystemStore;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `register()` is process-wide: tests that look at which codec ran take turns.
static REGISTRY: Mutex<()> = Mutex::new(());

fn scratch(name: &str) -> Result<PathBuf, std::io::Error> {
    let dir = std::env::temp_dir().join(format!("zarr-codec-zarrs-{}-{name}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn quantize() -> Result<(ScaleOffset, CastValue), Box<dyn std::error::Error>> {
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
    Ok((scale_offset, cast))
}

/// 12 x 10 values with NaN, values beyond int16 once scaled, and ordinary ones.
fn field() -> Vec<f32> {
    (0..120u16)
        .map(|i| match i % 17 {
            0 => f32::NAN,
            1 => 1e9,
            2 => -1e9,
            _ => f32::from(i) * 0.37 - 10.0,
        })
        .collect()
}

/// What `[scale_offset(15, 100), cast_value(int16, clamp, NaN <-> -32768)]` gives back.
fn quantized(x: f32) -> f32 {
    if x.is_nan() {
        return f32::NAN;
    }
    let code = ((x - 15.0) * 100.0)
        .round_ties_even()
        .clamp(-32768.0, 32767.0);
    if code <= -32768.0 {
        return f32::NAN; // clamped onto the code that scalar_map decodes as NaN
    }
    code / 100.0 + 15.0
}

fn same(actual: &[f32], expected: &[f32]) -> bool {
    actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|(a, e)| a.to_bits() == e.to_bits() || (a - e).abs() < 1e-4)
}

#[test]
fn an_array_built_with_our_codecs_writes_their_metadata_and_reads_back() -> TestResult {
    let dir = scratch("built")?;
    let store = Arc::new(FilesystemStore::new(&dir)?);
    let (scale_offset, cast) = quantize()?;
    let array = ArrayBuilder::new(vec![12, 10], vec![4, 5], data_type::float32(), f32::NAN)
        .array_to_array_codecs(vec![
            Arc::new(ScaleOffsetCodec::new(scale_offset)),
            Arc::new(CastValueCodec::new(cast)),
        ])
        .bytes_to_bytes_codecs(vec![Arc::new(GzipCodec::new(zarr_codec_gzip::Gzip::new(
            zarr_codec_gzip::Level::new(5)?,
        )))])
        .build(store.clone(), "/t")?;
    array.store_metadata()?;
    let values = field();
    array.store_array_subset(&array.subset_all(), values.as_slice())?;

    let metadata: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("t/zarr.json"))?)?;
    let names: Vec<&str> = metadata["codecs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["scale_offset", "cast_value", "bytes", "gzip"]);
    assert_eq!(
        metadata["codecs"][1]["configuration"]["scalar_map"]["encode"][0][0],
        "NaN"
    );

    let reopened = Array::open(store, "/t")?; // scale_offset and cast_value: plugins
    let back: Vec<f32> = reopened.retrieve_array_subset(&reopened.subset_all())?;
    let expected: Vec<f32> = values.iter().copied().map(quantized).collect();
    assert!(same(&back, &expected), "{back:?}\n{expected:?}");
    let part: Vec<f32> = reopened.retrieve_array_subset(&[3..7, 2..9])?;
    let expected_part: Vec<f32> = (3..7)
        .flat_map(|r| (2..9).map(move |c| r * 10 + c))
        .map(|i| quantized(values[i]))
        .collect();
    assert!(same(&part, &expected_part));
    Ok(())
}

/// Metadata as zarr-python 3.4 writes it for `[scale_offset, cast_value, bytes, zstd]`.
const ZARR_PYTHON_METADATA: &str = r#"{
  "zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "float32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "NaN",
  "codecs": [
    {"name": "scale_offset", "configuration": {"offset": 15, "scale": 100}},
    {"name": "cast_value", "configuration": {"data_type": "int16", "rounding": "nearest-even",
      "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]}}},
    {"name": "bytes", "configuration": {"endian": "little"}},
    {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
  "attributes": {}, "storage_transformers": []}"#;

fn write_zarr_python_array(dir: &std::path::Path, codes: &[i16]) -> TestResult {
    std::fs::create_dir_all(dir.join("a/c"))?;
    std::fs::write(dir.join("a/zarr.json"), ZARR_PYTHON_METADATA)?;
    let raw: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let zstd = zarr_codec_zstd::Zstd::new(zarr_codec_zstd::Level::new(0)?, false);
    let chunk = zarr_codec_zstd::encode(&raw, zstd.level(), false)?;
    std::fs::write(dir.join("a/c/0"), chunk)?;
    Ok(())
}

#[test]
fn zarr_python_metadata_opens_and_register_swaps_the_implementation() -> TestResult {
    let _turn = REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = scratch("zarr-python")?;
    write_zarr_python_array(&dir, &[-32768, 0, 100, 32767])?; // the second chunk is missing
    let store = Arc::new(FilesystemStore::new(&dir)?);
    let expected = [
        f32::NAN,
        15.0,
        16.0,
        342.67,
        f32::NAN,
        f32::NAN,
        f32::NAN,
        f32::NAN,
    ];

    let theirs = Array::open(store.clone(), "/a")?;
    let bytes_codecs = theirs.codecs();
    let zstd = &bytes_codecs.bytes_to_bytes_codecs()[0];
    assert!(
        zstd.as_any().downcast_ref::<ZstdCodec>().is_none(),
        "zarrs' own before register()"
    );
    let values: Vec<f32> = theirs.retrieve_array_subset(&theirs.subset_all())?;
    assert!(same(&values, &expected), "{values:?}");

    assert!(register());
    assert!(!register());
    let ours = Array::open(store.clone(), "/a")?;
    let codecs = ours.codecs();
    assert!(
        codecs.bytes_to_bytes_codecs()[0]
            .as_any()
            .downcast_ref::<ZstdCodec>()
            .is_some()
    );
    let values: Vec<f32> = ours.retrieve_array_subset(&ours.subset_all())?;
    assert!(same(&values, &expected), "{values:?}");

    assert!(unregister());
    assert!(!unregister());
    let again = Array::open(store, "/a")?;
    assert!(
        again.codecs().bytes_to_bytes_codecs()[0]
            .as_any()
            .downcast_ref::<ZstdCodec>()
            .is_none()
    );
    Ok(())
}

#[test]
fn gzip_and_blosc_written_by_ours_read_with_zarrs_own_and_back() -> TestResult {
    let _turn = REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let values: Vec<f64> = (0..4096).map(|i| (f64::from(i) * 0.01).sin()).collect();
    for (name, config) in [
        ("gzip", serde_json::json!({"level": 6})),
        (
            "blosc",
            serde_json::json!({"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}),
        ),
    ] {
        for writer_is_ours in [true, false] {
            let dir = scratch(&format!("{name}-{writer_is_ours}"))?;
            let store = Arc::new(FilesystemStore::new(&dir)?);
            let metadata = serde_json::json!({
                "zarr_format": 3, "node_type": "array", "shape": [4096], "data_type": "float64",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1000]}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0.0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": name, "configuration": config}],
                "attributes": {}});
            std::fs::create_dir_all(dir.join("x"))?;
            std::fs::write(dir.join("x/zarr.json"), metadata.to_string())?;
            if writer_is_ours {
                register();
            }
            let writer = Array::open(store.clone(), "/x")?;
            writer.store_array_subset(&writer.subset_all(), values.as_slice())?;
            let ours_wrote = writer.codecs().bytes_to_bytes_codecs()[0]
                .as_any()
                .downcast_ref::<GzipCodec>()
                .is_some()
                || writer.codecs().bytes_to_bytes_codecs()[0]
                    .as_any()
                    .downcast_ref::<BloscCodec>()
                    .is_some();
            assert_eq!(ours_wrote, writer_is_ours);
            if writer_is_ours {
                unregister();
            } else {
                register();
            }
            let reader = Array::open(store, "/x")?;
            let back: Vec<f64> = reader.retrieve_array_subset(&reader.subset_all())?;
            assert_eq!(back, values, "{name}, written by ours: {writer_is_ours}");
            unregister();
        }
    }
    Ok(())
}

#[test]
fn broken_chunks_are_errors_not_panics() -> TestResult {
    let _turn = REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = scratch("broken")?;
    write_zarr_python_array(&dir, &[1, 2, 3, 4])?;
    let chunk = std::fs::read(dir.join("a/c/0"))?;
    let store = Arc::new(FilesystemStore::new(&dir)?);
    let cases: Vec<Vec<u8>> = vec![
        chunk[..chunk.len() / 2].to_vec(),
        chunk.iter().map(|b| b ^ 0x5a).collect(),
        Vec::new(),
        vec![0; 3],
    ];
    for ours in [false, true] {
        if ours {
            register(); // our zstd decodes: its errors reach zarrs with their kind
        }
        for broken in &cases {
            std::fs::write(dir.join("a/c/0"), broken)?;
            let array = Array::open(store.clone(), "/a")?;
            let read: Result<Vec<f32>, _> = array.retrieve_array_subset(&array.subset_all());
            let err = read.err().ok_or_else(|| format!("{broken:?} read"))?;
            if ours {
                assert!(err.to_string().contains("Corrupt"), "{err}");
            }
        }
    }
    unregister();
    Ok(())
}

#[test]
fn a_bad_configuration_is_a_plugin_error_naming_the_problem() -> TestResult {
    let dir = scratch("bad-config")?;
    std::fs::create_dir_all(dir.join("a"))?;
    let bad =
        ZARR_PYTHON_METADATA.replace(r#""rounding": "nearest-even""#, r#""rounding": "sideways""#);
    std::fs::write(dir.join("a/zarr.json"), bad)?;
    let store = Arc::new(FilesystemStore::new(&dir)?);
    let err = Array::open(store, "/a")
        .err()
        .ok_or("opened with a bad rounding")?;
    assert!(
        err.to_string().contains("sideways") || err.to_string().contains("rounding"),
        "{err}"
    );
    Ok(())
}

/// A Zarr v2 array of `dtype` as numcodecs writes it: `FixedScaleOffset(offset=1000.1,
/// scale=10.3, dtype="<f8", astype="<i4")` and no compressor; chunk 0 holds `codes`.
fn write_fixedscaleoffset_array(dir: &std::path::Path, dtype: &str, codes: &[i32]) -> TestResult {
    std::fs::create_dir_all(dir.join("a"))?;
    let metadata = serde_json::json!({
        "zarr_format": 2, "shape": [codes.len()], "chunks": [codes.len()], "dtype": dtype,
        "compressor": null, "fill_value": 0.0, "order": "C", "dimension_separator": ".",
        "filters": [{"id": "fixedscaleoffset", "offset": 1000.1, "scale": 10.3,
                     "dtype": "<f8", "astype": "<i4"}],
    });
    std::fs::write(dir.join("a/.zarray"), metadata.to_string())?;
    let raw: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    std::fs::write(dir.join("a/0"), raw)?;
    Ok(())
}

#[test]
fn register_replaces_fixedscaleoffset_with_numpys_arithmetic() -> TestResult {
    let _turn = REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = scratch("fixedscaleoffset")?;
    // Codes beyond float32's 24 bits, where arithmetic in float32 loses digits.
    let quantized = [
        0,
        1,
        -1,
        123_456_789,
        -987_654_321,
        i32::MAX,
        i32::MIN,
        16_777_217,
    ];
    write_fixedscaleoffset_array(&dir, "<f8", &quantized)?;
    let store = Arc::new(FilesystemStore::new(&dir)?);
    // What numcodecs decodes: `(y / scale + offset).astype("<f8")`, in float64.
    let expected: Vec<f64> = quantized
        .iter()
        .map(|&c| f64::from(c) / 10.3 + 1000.1)
        .collect();

    register();
    let ours = Array::open(store.clone(), "/a")?;
    let codecs = ours.codecs();
    assert!(
        codecs.array_to_array_codecs()[0]
            .as_any()
            .is::<FixedScaleOffsetCodec>()
    );
    let values: Vec<f64> = ours.retrieve_array_subset(&ours.subset_all())?;
    assert_eq!(values, expected);
    // Writing back stores the same codes.
    ours.store_array_subset(&ours.subset_all(), values.as_slice())?;
    let stored = std::fs::read(dir.join("a/0"))?;
    let raw: Vec<u8> = quantized.iter().flat_map(|c| c.to_le_bytes()).collect();
    assert_eq!(stored, raw);

    unregister();
    let theirs = Array::open(store, "/a")?;
    let codecs = theirs.codecs();
    assert!(
        !codecs.array_to_array_codecs()[0]
            .as_any()
            .is::<FixedScaleOffsetCodec>()
    );
    // zarrs' own (0.23) reads 1000.0999755859375 for the first code where numcodecs reads
    // 1000.1: it rounds offset and scale to f32 (the other codes differ in more digits).
    Ok(())
}

#[test]
fn fixedscaleoffset_refuses_an_array_of_another_type() -> TestResult {
    let _turn = REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = scratch("fixedscaleoffset-type")?;
    write_fixedscaleoffset_array(&dir, "<f4", &[1, 2])?;
    register();
    let store = Arc::new(FilesystemStore::new(&dir)?);
    let err = match Array::open(store, "/a") {
        Err(err) => err.to_string(),
        Ok(array) => match array.retrieve_array_subset::<Vec<f32>>(&array.subset_all()) {
            Err(err) => err.to_string(),
            Ok(values) => format!("read {values:?}"),
        },
    };
    unregister();
    assert!(err.contains("does not match"), "{err}");
    Ok(())
}
