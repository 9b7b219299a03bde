//! Decoding arbitrary frames must return Ok or Err: never crash, over-read or over-allocate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_shapes::fuzzing;

fuzz_target!(|data: &[u8]| {
    fuzzing::decoders(
        data,
        zarr_codec_blosc::decode,
        zarr_codec_blosc::decode_into,
    );
});
