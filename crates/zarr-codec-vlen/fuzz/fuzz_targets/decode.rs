//! Arbitrary bytes as vlen-utf8, vlen-bytes, vlen-array, base64, json2 and msgpack2 data, and
//! as configuration JSON: Ok or Err, never a panic or a huge allocation; what decodes encodes
//! back to data that decodes to the same items (json2 and msgpack2: whose encoding is the
//! same again).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_shapes::fuzzing;
use zarr_codec_vlen::{Base64, VlenArray, VlenBytes, VlenUtf8, json2, msgpack2};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<VlenArray>(data);
    if let Ok(items) = VlenBytes.decode(data) {
        let encoded = VlenBytes
            .encode(items.iter().copied())
            .expect("decoded items encode");
        assert_eq!(
            VlenBytes.decode(&encoded).expect("re-encoded items decode"),
            items
        );
    }
    if let Ok(strings) = VlenUtf8.decode(data) {
        let encoded = VlenUtf8
            .encode(strings.iter().copied())
            .expect("decoded strings encode");
        assert_eq!(
            VlenUtf8
                .decode(&encoded)
                .expect("re-encoded strings decode"),
            strings
        );
    }
    if let Ok(arrays) = VlenArray::new("<i4") {
        let _ = arrays.decode(data);
    }
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(value) = json2::read(text, true)
        && let Ok(written) = json2::write(&value, &json2::Style::default())
    {
        let again = json2::read(&written, true).expect("written JSON reads");
        let style = json2::Style::default();
        assert_eq!(json2::write(&again, &style).expect("writes again"), written);
    }
    if let Ok(value) = msgpack2::unpack(data) {
        let packed = msgpack2::pack(&value, msgpack2::Packing::default()).expect("packs");
        let again = msgpack2::unpack(&packed).expect("packed data unpacks");
        let repacked = msgpack2::pack(&again, msgpack2::Packing::default()).expect("packs");
        assert_eq!(repacked, packed);
    }
    if let Ok(plain) = Base64::decode(data) {
        assert_eq!(
            Base64::decode(&Base64::encode(&plain)).expect("base64 round trip"),
            plain
        );
    }
});
