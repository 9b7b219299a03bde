//! Arbitrary bytes as vlen-utf8, vlen-bytes, vlen-array and base64 data, and as configuration
//! JSON: Ok or Err, never a panic or a huge allocation; what decodes encodes back to data that
//! decodes to the same items.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_shapes::fuzzing;
use zarr_codec_vlen::{Base64, VlenArray, VlenBytes, VlenUtf8};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<VlenArray>(data);
    if let Ok(items) = VlenBytes.decode(data) {
        let encoded = VlenBytes.encode(items.iter().copied()).expect("decoded items encode");
        assert_eq!(VlenBytes.decode(&encoded).expect("re-encoded items decode"), items);
    }
    if let Ok(strings) = VlenUtf8.decode(data) {
        let encoded = VlenUtf8.encode(strings.iter().copied()).expect("decoded strings encode");
        assert_eq!(VlenUtf8.decode(&encoded).expect("re-encoded strings decode"), strings);
    }
    if let Ok(arrays) = VlenArray::new("<i4") {
        let _ = arrays.decode(data);
    }
    if let Ok(plain) = Base64::decode(data) {
        assert_eq!(Base64::decode(&Base64::encode(&plain)).expect("base64 round trip"), plain);
    }
});
