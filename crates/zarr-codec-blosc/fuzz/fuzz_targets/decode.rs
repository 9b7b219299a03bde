//! Decoding arbitrary frames must return Ok or Err: never crash, over-read or over-allocate.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zarr_codec_blosc::decode(data, Some(1 << 24));
    let mut out = vec![0u8; 4096];
    if let Ok(written) = zarr_codec_blosc::decode_into(data, &mut out) {
        assert!(written <= out.len());
    }
});
