//! Arbitrary bytes as shuffled chunks, element sizes from the first byte, and as configuration
//! JSON: Ok or Err, never a panic; unshuffling undoes shuffling exactly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_filters::Shuffle;
use zarr_codec_shapes::{UninitBytesCodec, fuzzing};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Shuffle>(data);
    let Some((&width, chunk)) = data.split_first() else {
        return;
    };
    let codec = Shuffle::new(i64::from(width) - 1);
    if let Ok(decoded) = codec.decode_bytes(chunk, None) {
        assert_eq!(codec.encode_bytes(&decoded).as_deref(), Ok(chunk));
    }
    if let Ok(encoded) = codec.encode_bytes(chunk) {
        assert_eq!(codec.decode_bytes(&encoded, None).as_deref(), Ok(chunk));
    }
});
