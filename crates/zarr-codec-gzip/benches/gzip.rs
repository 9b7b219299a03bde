//! Criterion benches: encode and decode at levels 1, 5 and 9 on a smooth float32 field.
//! (Side-by-side comparisons with the Python peers live in the repository's `benchmarks/`.)

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use zarr_codec_gzip::{Level, decode, decode_into, encode};

/// 4 MiB of a smooth float32 field with a little deterministic noise.
fn field() -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..1_048_576_u32)
        .flat_map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = f64::from((state >> 40) as u32) / f64::from(1u32 << 24) * 1e-3;
            let x = f64::from(i) / 1024.0;
            #[allow(clippy::cast_possible_truncation)]
            let value = (x.sin() * 10.0 + noise) as f32;
            value.to_le_bytes()
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let data = field();
    let mut group = c.benchmark_group("gzip");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    for level in [1, 5, 9] {
        let level = Level::new(level).expect("valid level");
        let encoded = encode(&data, level).expect("encodes");
        group.bench_function(format!("encode/level{}", level.get()), |b| {
            b.iter(|| encode(black_box(&data), level));
        });
        group.bench_function(format!("decode/level{}", level.get()), |b| {
            b.iter(|| decode(black_box(&encoded), None));
        });
        let mut out = vec![0u8; data.len()];
        group.bench_function(format!("decode_into/level{}", level.get()), |b| {
            b.iter(|| decode_into(black_box(&encoded), &mut out));
        });
    }
    group.finish();
}

criterion_group!(gzip, benches);
criterion_main!(gzip);
