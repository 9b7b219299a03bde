//! Arbitrary bytes as a pco file, decoded as numcodecs' pcodec decodes (the whole file) and
//! into chunks of each number type and of a few sizes: Ok or Err, never a panic or a huge
//! allocation; and as configuration JSON. What decodes (up to the limit) encodes again to a
//! file of the same numbers, for files of up to 64 KiB of numbers (a few bytes of pco can
//! state millions of equal numbers, which encoding again under ASan would take seconds).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_pcodec::PCodec;
use zarr_codec_shapes::{ArrayToBytesCodec, ChunkSpec, DataType, fuzzing};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<PCodec>(data);
    let decoded = PCodec::decode_all(data, Some(fuzzing::DECODE_LIMIT));
    if let Ok(Some((data_type, bytes))) = decoded
        && bytes.len() <= 1 << 16
    {
        let n = bytes.len() / data_type.size();
        let spec = ChunkSpec::with_default_fill_value(vec![n], data_type).expect("a chunk spec");
        let codec = PCodec::default();
        let again = codec.encode(&bytes, &spec).expect("decoded numbers encode");
        assert_eq!(
            codec
                .decode(&again, &spec)
                .expect("re-encoded numbers decode"),
            bytes
        );
    }
    for data_type in [DataType::UInt16, DataType::Int32, DataType::Float64] {
        for n in [0, 1, 256, 4096] {
            let Ok(spec) = ChunkSpec::with_default_fill_value(vec![n], data_type) else {
                continue;
            };
            let _ = PCodec::default().decode(data, &spec);
        }
    }
});
