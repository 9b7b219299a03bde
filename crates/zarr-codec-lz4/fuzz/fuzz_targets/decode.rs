//! Arbitrary bytes as lz4 chunks and as configuration JSON: Ok or Err, never a panic, never a
//! write past the declared size; what decodes is exactly the declared size, and any bytes
//! encoded decode back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_lz4::{Lz4, decode, declared_len, encode};
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType, fuzzing};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Lz4>(data);
    if let Ok(decoded) = decode(data, Some(fuzzing::DECODE_LIMIT)) {
        assert_eq!(Ok(decoded.len()), declared_len(data));
    }
    fuzzing::decoders(
        data,
        decode,
        |input, out| {
            let spec = ChunkSpec::with_default_fill_value(vec![out.len()], DataType::UInt8)?;
            BytesToBytesCodec::decode_into(&Lz4::default(), input, out, &spec)
        },
    );
    let encoded = encode(data, 1).expect("any bytes encode");
    assert_eq!(decode(&encoded, None).as_deref(), Ok(data));
});
