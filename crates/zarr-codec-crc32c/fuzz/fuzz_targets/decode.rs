//! Arbitrary bytes as checksummed chunks and as configuration JSON: Ok or Err, never a panic;
//! what decodes is exactly the data before the checksum, and encoding it again gives the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_crc32c::{CHECKSUM_LEN, Crc32c, Location, decode, decode_into, encode};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{Codec, CodecFromJson};

fuzz_target!(|data: &[u8]| {
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) {
        for format in [ZarrFormat::V3, ZarrFormat::V2] {
            if let Ok(codec) = Crc32c::from_json(&json, format) {
                let again = codec.to_json(format).expect("a parsed codec serializes");
                assert_eq!(Crc32c::from_json(&again, format), Ok(codec));
            }
        }
    }
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
