//! Arbitrary bytes as frames and as configuration JSON: Ok or Err, never a panic, an
//! out-of-bounds write or an allocation beyond the limit; and the two decoders agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_shapes::fuzzing;
use zarr_codec_zstd::{Zstd, decode, decode_into, decoded_size, max_decoded_size};

const LIMIT: usize = fuzzing::DECODE_LIMIT;

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Zstd>(data);
    let _ = max_decoded_size(data);
    let exact = decoded_size(data);
    match decode(data, Some(LIMIT)) {
        Ok(decoded) => {
            assert!(decoded.len() <= LIMIT);
            if let Ok(Some(size)) = exact {
                assert_eq!(size, decoded.len());
            }
            let mut out = vec![0u8; decoded.len()];
            assert_eq!(decode_into(data, &mut out), Ok(decoded.len()));
            assert_eq!(out, decoded);
        }
        Err(_) => {
            let mut out = vec![0u8; 4096];
            if let Ok(written) = decode_into(data, &mut out) {
                assert!(written <= out.len());
            }
        }
    }
});
