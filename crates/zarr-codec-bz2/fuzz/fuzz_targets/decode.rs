//! Arbitrary bytes as bz2 chunks and as configuration JSON: Ok or Err, never a panic or a hang,
//! never more output than the limit; any bytes encoded decode back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_bz2::{Bz2, decode, encode};
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType, fuzzing};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Bz2>(data);
    if let Ok(decoded) = decode(data, Some(fuzzing::DECODE_LIMIT)) {
        assert!(decoded.len() <= fuzzing::DECODE_LIMIT);
    }
    fuzzing::decoders(data, decode, |input, out| {
        let spec = ChunkSpec::with_default_fill_value(vec![out.len()], DataType::UInt8)?;
        BytesToBytesCodec::decode_into(&Bz2::default(), input, out, &spec)
    });
    let encoded = encode(data, 1).expect("any bytes encode");
    assert_eq!(decode(&encoded, None).as_deref(), Ok(data));
});
