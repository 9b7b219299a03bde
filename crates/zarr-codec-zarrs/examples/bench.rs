//! zarrs reading a 256 MiB array with its own gzip and blosc against this crate's, side by
//! side in one process: `cargo run --release --example bench [-- ROUNDS]`.
//!
//! The array: float32, 8192 x 8192 in 1024 x 1024 chunks (4 MiB), a smooth field with noise,
//! written once per codec (gzip level 5; blosc lz4 and zstd with shuffle) under a temporary
//! directory. Each round reads the whole array once with zarrs' codecs and once with ours
//! (`register()`, the array opened again), in turn; the medians and their ratio are printed.

use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

use zarrs::array::{Array, ArrayBuilder, data_type};
use zarrs::filesystem::FilesystemStore;

const SIDE: u64 = 8192;
const CHUNK: u64 = 1024;

#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
fn field() -> Vec<f32> {
    let mut noise: u32 = 12345;
    (0..SIDE * SIDE)
        .map(|i| {
            noise = noise.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let (y, x) = ((i / SIDE) as f32, (i % SIDE) as f32);
            15.0 + 20.0 * (y / 300.0).sin() * (x / 500.0).cos()
                + f32::from((noise >> 24) as u8) / 2560.0
        })
        .collect()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn read_all(store: &Arc<FilesystemStore>, path: &str) -> Result<f64, Box<dyn Error>> {
    let array = Array::open(store.clone(), path)?;
    let start = Instant::now();
    let values: Vec<f32> = array.retrieve_array_subset(&array.subset_all())?;
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(values.len(), usize::try_from(SIDE * SIDE)?);
    Ok(seconds)
}

fn main() -> Result<(), Box<dyn Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(5), |r| r.parse())?;
    let dir = std::env::temp_dir().join(format!("zarr-codec-zarrs-bench-{}", std::process::id()));
    let store = Arc::new(FilesystemStore::new(&dir)?);
    let values = field();
    let codecs = [
        (
            "gzip 5",
            serde_json::json!({"name": "gzip", "configuration": {"level": 5}}),
        ),
        (
            "blosc lz4 shuffle",
            serde_json::json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}),
        ),
        (
            "blosc zstd shuffle",
            serde_json::json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3,
                "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}),
        ),
    ];
    println!(
        "zarrs 0.23 reading 256 MiB of float32 in 4 MiB chunks, whole array, median of {rounds} rounds"
    );
    println!("| codec | zarrs' own (ms) | zarr-codecs (ms) | ours vs zarrs' own |");
    println!("|---|---:|---:|---:|");
    for (number, (label, metadata)) in codecs.iter().enumerate() {
        let path = format!("/a{number}");
        let codec = zarrs::array::Codec::from_metadata(&serde_json::from_value::<
            zarrs::metadata::v3::MetadataV3,
        >(metadata.clone())?)?;
        let zarrs::array::Codec::BytesToBytes(codec) = codec else {
            return Err("not a bytes codec".into());
        };
        let array = ArrayBuilder::new(
            vec![SIDE, SIDE],
            vec![CHUNK, CHUNK],
            data_type::float32(),
            0.0f32,
        )
        .bytes_to_bytes_codecs(vec![codec])
        .build(store.clone(), &path)?;
        array.store_metadata()?;
        array.store_array_subset(&array.subset_all(), values.as_slice())?;
        let (mut theirs, mut ours) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            theirs.push(read_all(&store, &path)?);
            zarr_codec_zarrs::register();
            ours.push(read_all(&store, &path)?);
            zarr_codec_zarrs::unregister();
        }
        let (theirs, ours) = (median(theirs), median(ours));
        println!(
            "| {label} | {:.1} | {:.1} | {:.2}x |",
            theirs * 1e3,
            ours * 1e3,
            theirs / ours
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
