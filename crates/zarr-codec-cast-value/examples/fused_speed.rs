//! Times casts with and without a fused affine map, on 16 MiB arrays (median of repeats): a
//! quick probe while tuning the kernels,
//! `cargo run --release -p zarr-codec-cast-value --example fused_speed`. The benchmarks
//! proper, against numpy and the other peers, are in `benchmarks/`.

use std::time::Instant;

use zarr_codec_cast_value::{Affine, CastPlan, Rounding, ScalarMap};
use zarr_codec_shapes::{DataType, Result};

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

/// Times the cast `float -> int16` and back, alone and with `affine` fused, on `floats`
/// (native bytes of the affine map's type) and as many int16 elements from `ints`.
fn probe(affine: Affine, floats: &[u8], ints: &[u8]) -> Result<()> {
    let float = affine.data_type();
    let count = floats.len() / float.size();
    let ints = &ints[..count * 2];
    let plan =
        |from, to| CastPlan::new(from, to, Rounding::NearestEven, None, ScalarMap::default());
    let (encode, decode) = (plan(float, DataType::Int16)?, plan(DataType::Int16, float)?);
    let mut narrow = vec![0u8; count * 2];
    let mut wide = vec![0u8; floats.len()];
    let times = [
        median(|| encode.apply(floats, &mut narrow))?,
        median(|| encode.apply_after(affine, floats, &mut narrow).map(drop))?,
        median(|| decode.apply(ints, &mut wide))?,
        median(|| decode.apply_then(ints, &mut wide, affine).map(drop))?,
    ];
    println!(
        "{float} -> int16: {:.3} ms, fused {:.3} ms; int16 -> {float}: {:.3} ms, fused {:.3} ms",
        times[0], times[1], times[2], times[3]
    );
    Ok(())
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
    let (offset, scale) = (15.0_f32, 100.0_f32);
    probe(Affine::Float32 { offset, scale }, &f32s, &i16s)?;
    let (offset, scale) = (f64::from(offset), f64::from(scale));
    probe(Affine::Float64 { offset, scale }, &f64s, &i16s)
}
