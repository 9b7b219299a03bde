//! Decoding arbitrary bytes must return Ok or Err, never panic, and never write out of bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_shapes::fuzzing;

fuzz_target!(|data: &[u8]| {
    fuzzing::decoders(data, zarr_codec_gzip::decode, zarr_codec_gzip::decode_into);
});
