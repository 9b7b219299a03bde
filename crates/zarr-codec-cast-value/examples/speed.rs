//! Times a few casts on 4 Mi elements (a quick look; the real comparisons are in
//! `benchmarks/`). Run with `cargo run --release --example speed`.

use std::time::Instant;

use zarr_codec_cast_value::{CastPlan, Rounding, ScalarMap};
use zarr_codec_shapes::DataType;

fn main() {
    let count = 4 << 20;
    // SCALE=1e15 times the values (all in [0, 100) by default).
    let scale: f64 = std::env::var("SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let source: Vec<f64> = (0..count)
        .map(|i| (f64::from(u32::try_from(i % 270).unwrap_or(0)) * 0.37 - 50.0) * scale)
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
            DataType::Float32,
            DataType::Float16,
        ] {
            let plan = CastPlan::new(from, to, Rounding::NearestEven, None, ScalarMap::default())
                .expect("plan");
            let mut output = vec![0u8; count * to.size()];
            if let Err(err) = plan.apply(input, &mut output) {
                println!("{from} -> {to}: {err}");
                continue;
            }
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let start = Instant::now();
                plan.apply(input, &mut output).expect("cast");
                best = best.min(start.elapsed().as_secs_f64());
            }
            println!("{from} -> {to}: {:.2} ms", best * 1e3);
        }
    }
    // Integer to float (the decode direction of float -> int codecs).
    let ints: Vec<i64> = (0..count)
        .map(|i| i64::try_from(i % 30_000).unwrap_or(0))
        .collect();
    for (from, to) in [
        (DataType::Int16, DataType::Float32),
        (DataType::UInt16, DataType::Float32),
        (DataType::Int32, DataType::Float32),
        (DataType::UInt32, DataType::Float32),
        (DataType::Int32, DataType::Float64),
        (DataType::UInt64, DataType::Float32),
        (DataType::Int64, DataType::Float32),
        (DataType::Int64, DataType::Float64),
    ] {
        let size = from.size();
        let input: Vec<u8> = ints
            .iter()
            .flat_map(|v| v.to_ne_bytes()[..size].to_vec())
            .collect();
        let plan = CastPlan::new(from, to, Rounding::NearestEven, None, ScalarMap::default())
            .expect("plan");
        let mut output = vec![0u8; count * to.size()];
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let start = Instant::now();
            plan.apply(&input, &mut output).expect("cast");
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!("{from} -> {to}: {:.2} ms", best * 1e3);
    }
    // Two threads on the two halves of one cast, into an output already touched.
    let plan = CastPlan::new(
        DataType::Float32,
        DataType::Int16,
        Rounding::NearestEven,
        None,
        ScalarMap::default(),
    )
    .expect("plan");
    let mut output = vec![0u8; count * 2];
    for threads in [1, 2] {
        let mut best = f64::INFINITY;
        for _ in 0..9 {
            let start = Instant::now();
            let half_in = f32_bytes.len() / threads;
            let half_out = output.len() / threads;
            std::thread::scope(|scope| {
                for (source, target) in f32_bytes.chunks(half_in).zip(output.chunks_mut(half_out)) {
                    let plan = &plan;
                    scope.spawn(move || plan.apply(source, target).expect("cast"));
                }
            });
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "float32 -> int16 on {threads} thread(s), warm output: {:.2} ms",
            best * 1e3
        );
    }
}
