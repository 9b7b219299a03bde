//! numcodecs' `fixedscaleoffset`: any configuration JSON (v3 or v2), then any chunk of any data
//! type, both directions: `Ok` or `Err`, never a panic, an over-read or an allocation out of
//! proportion to the input (see `zarr_codec_shapes::fuzzing` for the input's layout).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_scale_offset::FixedScaleOffset;
use zarr_codec_shapes::fuzzing::array_codec_config_and_chunk;

fuzz_target!(|data: &[u8]| array_codec_config_and_chunk::<FixedScaleOffset>(data));
