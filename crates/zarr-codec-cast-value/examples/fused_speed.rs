//! Times casts with and without a fused affine map, on 16 MiB arrays (median of repeats): a
//! quick probe while tuning the kernels,
//! `cargo run --release -p zarr-codec-cast-value --example fused_speed`. The benchmarks
//! proper, against numpy and the other peers, are in `benchmarks/`.

use std::time::Instant;

use zarr_codec::{DataType, Result};
use zarr_codec_cast_value::{Affine, CastPlan, Rounding, ScalarMap};

fn median(mut run: impl FnMut() -> Result<()>) -> Result<f64> {
    let mut times = Vec::new();
    for _ in 0..31 {
        let start = Instant::now();
        run()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn main() -> Result<()> {
    let count32 = 4 << 20;
    let count64 = 2 << 20;
    // A smooth field in [-300, 300): every value is in int16's range after scaling by 100.
    #[allow(clippy::cast_precision_loss)]
    let wave = |i: usize| ((i as f64) * 0.001).sin() * 300.0;
    #[allow(clippy::cast_possible_truncation)]
    let f32s: Vec<u8> = (0..count32)
        .flat_map(|i| (wave(i) as f32).to_ne_bytes())
        .collect();
    let f64s: Vec<u8> = (0..count64).flat_map(|i| wave(i).to_ne_bytes()).collect();
    let i16s: Vec<u8> = (0..count32)
        .flat_map(|i| (i16::try_from(i % 60_000).unwrap_or(0) - 30_000).to_ne_bytes())
        .collect();
    let plan =
        |from, to| CastPlan::new(from, to, Rounding::NearestEven, None, ScalarMap::default());
    let affine32 = Affine::Float32 {
        offset: 15.0,
        scale: 100.0,
    };
    let affine64 = Affine::Float64 {
        offset: 15.0,
        scale: 100.0,
    };

    let (to16, from16) = (
        plan(DataType::Float32, DataType::Int16)?,
        plan(DataType::Int16, DataType::Float32)?,
    );
    let mut out16 = vec![0u8; count32 * 2];
    let mut out32 = vec![0u8; count32 * 4];
    println!(
        "f32->i16 {:.3} ms",
        median(|| to16.apply(&f32s, &mut out16))?
    );
    println!(
        "f32->i16 fused {:.3} ms",
        median(|| to16.apply_after(affine32, &f32s, &mut out16).map(drop))?
    );
    println!(
        "i16->f32 {:.3} ms",
        median(|| from16.apply(&i16s, &mut out32))?
    );
    println!(
        "i16->f32 fused {:.3} ms",
        median(|| from16.apply_then(&i16s, &mut out32, affine32).map(drop))?
    );

    let (to16, from16) = (
        plan(DataType::Float64, DataType::Int16)?,
        plan(DataType::Int16, DataType::Float64)?,
    );
    let mut out16 = vec![0u8; count64 * 2];
    let mut out64 = vec![0u8; count64 * 8];
    let i16s = &i16s[..count64 * 2];
    println!(
        "f64->i16 {:.3} ms",
        median(|| to16.apply(&f64s, &mut out16))?
    );
    println!(
        "f64->i16 fused {:.3} ms",
        median(|| to16.apply_after(affine64, &f64s, &mut out16).map(drop))?
    );
    println!(
        "i16->f64 {:.3} ms",
        median(|| from16.apply(i16s, &mut out64))?
    );
    println!(
        "i16->f64 fused {:.3} ms",
        median(|| from16.apply_then(i16s, &mut out64, affine64).map(drop))?
    );
    Ok(())
}
