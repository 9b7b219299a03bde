//! Decodes a directory of chunk files into one array, with no Python.
//!
//! ```text
//! cargo run --release -p zarr-codec-runtime --example decode_dir            # a demo array
//! cargo run --release -p zarr-codec-runtime --example decode_dir -- <array> # a Zarr v3 array
//! ```
//!
//! `<array>` is a Zarr v3 array directory (its `zarr.json`): a regular chunk grid, the
//! default chunk key encoding, a numeric data type and codecs `bytes` then any of `gzip`,
//! `zstd` and `crc32c`. Without it, the example writes a 1024 x 1024 float32 array in 256 x 256
//! zstd chunks to a temporary directory first. Either way every chunk file is read and decoded
//! into its place in one call, on every core.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use zarr_codec_runtime::{
    Chain, OutArray, ReadItem, Region, Source, default_threads, encode_files, read_batch,
};
use zarr_codec_shapes::{
    BytesToBytesCodec, ChunkSpec, CodecError, CodecFromJson, DataType, Endian, FillValue,
    ZarrFormat,
};

type Failure = Box<dyn std::error::Error>;

/// What the example needs of an array's `zarr.json`.
struct Array {
    shape: Vec<usize>,
    chunk_shape: Vec<usize>,
    chain: Chain,
}

fn bytes_codec(json: &Value) -> Result<Arc<dyn BytesToBytesCodec>, CodecError> {
    Ok(match json["name"].as_str() {
        Some("gzip") => Arc::new(zarr_codec_gzip::Gzip::from_json(json, ZarrFormat::V3)?),
        Some("zstd") => Arc::new(zarr_codec_zstd::Zstd::from_json(json, ZarrFormat::V3)?),
        Some("crc32c") => Arc::new(zarr_codec_crc32c::Crc32c::from_json(json, ZarrFormat::V3)?),
        other => return Err(CodecError::unsupported(format!("codec {other:?}"))),
    })
}

fn usizes(json: &Value) -> Result<Vec<usize>, Failure> {
    let values = json.as_array().ok_or("a list of sizes expected")?;
    values
        .iter()
        .map(|v| {
            v.as_u64()
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| "a size expected".into())
        })
        .collect()
}

fn open(dir: &Path) -> Result<Array, Failure> {
    let metadata: Value = serde_json::from_slice(&std::fs::read(dir.join("zarr.json"))?)?;
    let data_type = DataType::from_json(&metadata["data_type"])?;
    let shape = usizes(&metadata["shape"])?;
    let chunk_shape = usizes(&metadata["chunk_grid"]["configuration"]["chunk_shape"])?;
    let fill = FillValue::from_json(&metadata["fill_value"], data_type)?;
    let codecs = metadata["codecs"].as_array().ok_or("no codecs")?;
    let (first, rest) = codecs.split_first().ok_or("no codecs")?;
    if first["name"] != "bytes" {
        return Err("the example reads chains that start with `bytes`".into());
    }
    let endian = match first["configuration"]["endian"].as_str() {
        Some("big") => Some(Endian::Big),
        Some("little") => Some(Endian::Little),
        _ => None,
    };
    let bytes = rest
        .iter()
        .map(bytes_codec)
        .collect::<Result<Vec<_>, _>>()?;
    let spec = ChunkSpec::new(chunk_shape.clone(), data_type, fill)?;
    let chain = Chain::new(&[], endian, &bytes, spec)?;
    Ok(Array {
        shape,
        chunk_shape,
        chain,
    })
}

/// Every chunk of the grid: its key's path and its part's place in the array.
fn chunks(dir: &Path, array: &Array) -> Vec<(PathBuf, Region, Region)> {
    let grid: Vec<usize> = array
        .shape
        .iter()
        .zip(&array.chunk_shape)
        .map(|(len, chunk)| len.div_ceil(*chunk))
        .collect();
    let mut all = Vec::new();
    let mut index = vec![0usize; grid.len()];
    if grid.contains(&0) {
        return all;
    }
    loop {
        let mut path = dir.join("c");
        for i in &index {
            path.push(i.to_string());
        }
        let start: Vec<usize> = index
            .iter()
            .zip(&array.chunk_shape)
            .map(|(i, c)| i * c)
            .collect();
        let counts: Vec<usize> = start
            .iter()
            .zip(&array.chunk_shape)
            .zip(&array.shape)
            .map(|((s, c), len)| (*c).min(len - s))
            .collect();
        let zeros = vec![0; counts.len()];
        all.push((
            path,
            Region::block(&zeros, &counts),
            Region::block(&start, &counts),
        ));
        let mut dim = grid.len();
        loop {
            if dim == 0 {
                return all;
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < grid[dim] {
                break;
            }
            index[dim] = 0;
        }
    }
}

/// A demo array in a temporary directory: 1024 x 1024 float32, 256 x 256 zstd chunks.
fn write_demo() -> Result<PathBuf, Failure> {
    let dir = std::env::temp_dir().join(format!("zarr-codec-runtime-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let metadata = json!({
        "zarr_format": 3, "node_type": "array", "shape": [1024, 1024], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [256, 256]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0.0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 1, "checksum": false}}],
    });
    std::fs::write(dir.join("zarr.json"), serde_json::to_vec_pretty(&metadata)?)?;
    let array = open(&dir)?;
    let chunks = chunks(&dir, &array);
    let data: Vec<Vec<u8>> = (0..chunks.len())
        .map(|k| {
            (0..256 * 256)
                .flat_map(|i| {
                    (f32::from(u16::try_from(k).unwrap_or(0))
                        + f32::from(u16::try_from(i % 1000).unwrap_or(0)) / 8.0)
                        .to_le_bytes()
                })
                .collect()
        })
        .collect();
    let mut jobs: Vec<(&[u8], &Path)> = data
        .iter()
        .map(Vec::as_slice)
        .zip(chunks.iter().map(|(path, ..)| path.as_path()))
        .collect();
    encode_files(array.chain.encode_plan(), &mut jobs, default_threads())?;
    Ok(dir)
}

fn main() -> Result<(), Failure> {
    let dir = match std::env::args().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => write_demo()?,
    };
    let array = open(&dir)?;
    let chunks = chunks(&dir, &array);
    let item = array.chain.spec().data_type().size();
    let mut values = vec![0u8; array.shape.iter().product::<usize>() * item];
    let items: Vec<ReadItem<'_>> = chunks
        .iter()
        .map(|(path, part, place)| ReadItem {
            source: Source::File(path),
            chunk: part.clone(),
            out: place.clone(),
        })
        .collect();
    let fill = array.chain.spec().fill_value().as_bytes().to_vec();
    let started = Instant::now();
    let out = OutArray::contiguous(&mut values, &array.shape, item)?;
    let found = read_batch(
        array.chain.decode_plan(),
        &array.chunk_shape,
        &items,
        &out,
        &fill,
        default_threads(),
    )?;
    let elapsed = started.elapsed();
    let present = found.iter().filter(|&&f| f).count();
    println!(
        "{}: {} chunks ({} present, the rest fill), {} bytes decoded into place in {elapsed:.2?}",
        dir.display(),
        found.len(),
        present,
        values.len()
    );
    if array.chain.spec().data_type() == DataType::Float32 {
        let floats: Vec<f32> = values
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let sum: f64 = floats.iter().map(|&v| f64::from(v)).sum();
        println!(
            "float32 values: {}, mean {:.4}",
            floats.len(),
            sum / f64::from(u32::try_from(floats.len()).unwrap_or(u32::MAX))
        );
    }
    if std::env::args().nth(1).is_none() {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}
