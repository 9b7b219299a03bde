//! Arbitrary bytes as checksummed chunks and as configuration JSON: Ok or Err, never a panic;
//! what decodes is exactly the data before the checksum, and encoding it again gives the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_crc32c::{CHECKSUM_LEN, Crc32c, Location, decode, decode_into, encode};
use zarr_codec_shapes::fuzzing;

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Crc32c>(data);
    for location in [Location::End, Location::Start] {
        if let Ok(decoded) = decode(data, location) {
            assert_eq!(decoded.len() + CHECKSUM_LEN, data.len());
            assert_eq!(encode(&decoded, location), data);
            let mut out = vec![0u8; decoded.len()];
            assert_eq!(decode_into(data, location, &mut out), Ok(decoded.len()));
        }
        let encoded = encode(data, location);
        assert_eq!(decode(&encoded, location).as_deref(), Ok(data));
    }
});
