//! Arbitrary bytes as checksummed chunks of the four codecs and as their configuration JSON:
//! Ok or Err, never a panic; what decodes is exactly the data beside the checksum, encoding
//! it again gives the input, and every encoded chunk decodes back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zarr_codec_checksums::{
    Adler32, CHECKSUM_LEN, Crc32, Fletcher32, JenkinsLookup3, Location, fletcher32,
};
use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType, UninitBytesCodec, fuzzing};

fn check<C: UninitBytesCodec>(codec: &C, data: &[u8]) {
    if let Ok(decoded) = codec.decode_bytes(data, None) {
        assert_eq!(decoded.len() + CHECKSUM_LEN, data.len());
        assert_eq!(codec.encode_bytes(&decoded).as_deref(), Ok(data));
    }
    fuzzing::decoders(
        data,
        |input, limit| codec.decode_bytes(input, limit),
        |input, out| {
            let spec = ChunkSpec::with_default_fill_value(vec![out.len()], DataType::UInt8)?;
            BytesToBytesCodec::decode_into(codec, input, out, &spec)
        },
    );
    let encoded = codec.encode_bytes(data).expect("any bytes encode");
    assert_eq!(codec.decode_bytes(&encoded, None).as_deref(), Ok(data));
}

fuzz_target!(|data: &[u8]| {
    fuzzing::config_round_trip::<Crc32>(data);
    fuzzing::config_round_trip::<Adler32>(data);
    fuzzing::config_round_trip::<Fletcher32>(data);
    fuzzing::config_round_trip::<JenkinsLookup3>(data);
    check(&Crc32::default(), data);
    check(&Adler32::new(Location::End), data);
    check(&Fletcher32, data);
    check(&JenkinsLookup3::new(0x9E37_79B9, Some(b"zarr".to_vec())), data);
    // The lane-parallel sum never reads past its input: any length, any alignment.
    let _ = fletcher32(data.get(1..).unwrap_or_default());
});
