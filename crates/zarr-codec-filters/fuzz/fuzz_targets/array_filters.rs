//! numcodecs' array filters (delta, bitround, quantize, astype, packbits): the first byte picks
//! the filter, then any configuration JSON (v3 or v2) and any chunk of any data type, both
//! directions: Ok or Err, never a panic, an out-of-bounds write or a huge allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_filters::{AsType, BitRound, Delta, PackBits, Quantize};
use zarr_codec_shapes::fuzzing::array_codec_config_and_chunk;

fuzz_target!(|data: &[u8]| {
    let Some((&filter, rest)) = data.split_first() else {
        return;
    };
    match filter % 5 {
        0 => array_codec_config_and_chunk::<Delta>(rest),
        1 => array_codec_config_and_chunk::<BitRound>(rest),
        2 => array_codec_config_and_chunk::<Quantize>(rest),
        3 => array_codec_config_and_chunk::<AsType>(rest),
        _ => array_codec_config_and_chunk::<PackBits>(rest),
    }
});
