//! Times a few casts on 4 Mi elements (a quick look; the real comparisons are in
//! `benchmarks/`). Run with `cargo run --release --example speed`.

use std::time::Instant;

use zarr_codec::DataType;
use zarr_codec_cast_value::{CastPlan, Rounding, ScalarMap};

fn main() {
    let count = 4 << 20;
    let source: Vec<f64> = (0..count)
        .map(|i| f64::from(u32::try_from(i % 270).unwrap_or(0)) * 0.37)
        .collect();
    let f64_bytes: Vec<u8> = source.iter().flat_map(|v| v.to_ne_bytes()).collect();
    #[allow(clippy::cast_possible_truncation)]
    let f32_bytes: Vec<u8> = source
        .iter()
        .flat_map(|&v| (v as f32).to_ne_bytes())
        .collect();
    for (from, input) in [
        (DataType::Float64, &f64_bytes),
        (DataType::Float32, &f32_bytes),
    ] {
        for to in [
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt64,
            DataType::Float32,
            DataType::Float16,
        ] {
            let plan = CastPlan::new(from, to, Rounding::NearestEven, None, ScalarMap::default())
                .expect("plan");
            let mut output = vec![0u8; count * to.size()];
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let start = Instant::now();
                plan.apply(input, &mut output).expect("cast");
                best = best.min(start.elapsed().as_secs_f64());
            }
            println!("{from} -> {to}: {:.2} ms", best * 1e3);
        }
    }
}
