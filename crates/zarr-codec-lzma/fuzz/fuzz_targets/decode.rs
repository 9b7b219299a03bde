//! Arbitrary bytes as lzma chunks (xz, any of xz and lzma-alone, raw) and as configuration
//! JSON: Ok or Err, never a panic or a hang, never more output than the limit; any bytes
//! encoded decode back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_lzma::{FilterSpec, Lzma};
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType, fuzzing};

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Lzma>(data);
    let raw_filters = vec![FilterSpec {
        id: 0x21,
        preset: Some(0),
        ..FilterSpec::default()
    }];
    let codecs = [
        Lzma::default(),
        Lzma::new(0, -1, None, None).expect("format 0 decodes"),
        Lzma::new(3, -1, None, Some(raw_filters)).expect("a raw LZMA2 chain"),
    ];
    for codec in &codecs {
        if let Ok(decoded) = codec.decode(data, Some(fuzzing::DECODE_LIMIT)) {
            assert!(decoded.len() <= fuzzing::DECODE_LIMIT);
        }
        fuzzing::decoders(
            data,
            |input, limit| codec.decode(input, limit),
            |input, out| {
                let spec = ChunkSpec::with_default_fill_value(vec![out.len()], DataType::UInt8)?;
                BytesToBytesCodec::decode_into(codec, input, out, &spec)
            },
        );
    }
    let encoded = codecs[0].encode(data).expect("any bytes encode");
    assert_eq!(codecs[0].decode(&encoded, None).as_deref(), Ok(data));
});
