//! Arbitrary bytes as a zfp stream, decoded as numcodecs' zfpy decodes (the whole stream,
//! bounded) and into chunks of a few types and shapes: Ok or Err, never a panic, a read
//! beyond the input or a huge allocation (zfp reads without bounds checks: this is what the
//! padded copy guards); and as configuration JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_shapes::{ArrayToBytesCodec, ChunkSpec, DataType, fuzzing};
use zarr_codec_zfpy::Zfpy;

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Zfpy>(data);
    let _ = Zfpy::decode_any(data, Some(1 << 20));
    for (shape, data_type) in [
        (vec![16], DataType::Float64),
        (vec![8, 8], DataType::Float32),
        (vec![3, 5, 7], DataType::Int32),
        (vec![2, 2, 2, 2], DataType::Int64),
    ] {
        if let Ok(spec) = ChunkSpec::with_default_fill_value(shape, data_type) {
            let _ = Zfpy::default().decode(data, &spec);
        }
    }
});
