//! Interop and format rules, with flate2 (`miniz_oxide`) as an independent gzip implementation.

use std::io::{Read, Write};

use flate2::Compression;
use zarr_codec_gzip::{Gzip, Level, decode, decode_into, encode, max_encoded_size};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{BytesToBytesCodec, Codec, CodecError, CodecFromJson, ErrorKind};

fn sample(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (((i * 7) ^ (i >> 5)) % 61).to_le_bytes()[0])
        .collect()
}

fn level(n: u32) -> Level {
    Level::new(n).expect("valid level")
}

fn flate2_gzip(data: &[u8], builder: flate2::GzBuilder) -> Vec<u8> {
    let mut encoder = builder.write(Vec::new(), Compression::new(6));
    encoder.write_all(data).expect("write");
    encoder.finish().expect("finish")
}

#[test]
fn round_trips_and_flate2_reads_ours() {
    for n in 0..=9 {
        for len in [0, 1, 100, 70_000] {
            let data = sample(len);
            let encoded = encode(&data, level(n)).expect("encode");
            assert_eq!(decode(&encoded, None).expect("decode"), data);
            let mut theirs = Vec::new();
            flate2::read::GzDecoder::new(encoded.as_slice())
                .read_to_end(&mut theirs)
                .expect("flate2 decodes ours");
            assert_eq!(theirs, data);
        }
    }
}

#[test]
fn encoding_is_reproducible_with_a_fixed_header() {
    let data = sample(10_000);
    let a = encode(&data, level(5)).expect("encode");
    let b = encode(&data, level(5)).expect("encode");
    assert_eq!(a, b);
    assert_eq!(&a[..4], &[0x1f, 0x8b, 8, 0], "magic, deflate, no flags");
    assert_eq!(&a[4..8], &[0, 0, 0, 0], "mtime 0");
}

#[test]
fn reads_optional_header_fields_from_flate2() {
    let data = sample(5_000);
    let builder = flate2::GzBuilder::new()
        .filename("chunk.bin")
        .comment("a comment")
        .extra(vec![1, 2, 3, 4])
        .mtime(1_700_000_000);
    let stream = flate2_gzip(&data, builder);
    assert_eq!(decode(&stream, None).expect("decode"), data);
}

#[test]
fn reads_header_crc_and_ignores_its_value_like_python() {
    let data = sample(300);
    let mut stream = encode(&data, level(1)).expect("encode");
    stream[3] |= 0x02; // FHCRC: two bytes follow the fixed header
    stream.splice(10..10, [0xAB, 0xCD]);
    assert_eq!(decode(&stream, None).expect("decode"), data);
}

#[test]
fn reads_several_members_and_zero_padding() {
    let (a, b) = (sample(1000), vec![42u8; 5000]);
    let mut stream = encode(&a, level(9)).expect("encode");
    stream.extend_from_slice(&[0, 0, 0]);
    stream.extend(flate2_gzip(&b, flate2::GzBuilder::new()));
    stream.extend_from_slice(&[0; 9]);
    let expected = [a.as_slice(), b.as_slice()].concat();
    assert_eq!(decode(&stream, None).expect("decode"), expected);
    let mut out = vec![0u8; expected.len()];
    assert_eq!(
        decode_into(&stream, &mut out).expect("decode_into"),
        expected.len()
    );
    assert_eq!(out, expected);
}

#[test]
fn empty_input_is_empty_output() {
    assert_eq!(decode(&[], None).expect("decode"), Vec::<u8>::new());
    assert_eq!(decode_into(&[], &mut []).expect("decode_into"), 0);
}

#[test]
fn decode_into_never_writes_past_its_buffer() {
    let data = sample(4096);
    let stream = encode(&data, level(5)).expect("encode");
    let mut guarded = vec![0xEEu8; 4096 + 64];
    let err = decode_into(&stream, &mut guarded[..4095]).expect_err("one byte short");
    assert_eq!(err.kind(), ErrorKind::OutputSize);
    assert!(
        guarded[4095..].iter().all(|&b| b == 0xEE),
        "wrote past the buffer"
    );
}

#[test]
fn a_bomb_fails_fast_into_a_small_buffer_and_under_a_limit() {
    let bomb = encode(&vec![0u8; 100_000_000], level(9)).expect("encode");
    assert!(bomb.len() < 200_000);
    let mut small = [0u8; 4096];
    let err = decode_into(&bomb, &mut small).expect_err("too big");
    assert_eq!(err, CodecError::OutputLimit { limit: 4096 });
    let err = decode(&bomb, Some(1_000_000)).expect_err("over the limit");
    assert_eq!(err.kind(), ErrorKind::OutputSize);
}

#[test]
fn max_encoded_size_bounds_incompressible_data() {
    let noise: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13).to_le_bytes()[0])
        .collect();
    for n in [0, 1, 9] {
        let bound = max_encoded_size(noise.len(), level(n)).expect("bound");
        let encoded = encode(&noise, level(n)).expect("encode");
        assert!(encoded.len() <= bound);
        let mut out = vec![0u8; bound];
        let written = zarr_codec_gzip::encode_into(&noise, level(n), &mut out).expect("fits");
        assert_eq!(&out[..written], encoded.as_slice());
        let err =
            zarr_codec_gzip::encode_into(&noise, level(n), &mut out[..10]).expect_err("small");
        assert_eq!(err.kind(), ErrorKind::OutputSize);
    }
}

#[test]
fn json_forms() {
    let v3 = serde_json::json!({"name": "gzip", "configuration": {"level": 7}});
    let codec = Gzip::from_json(&v3, ZarrFormat::V3).expect("v3");
    assert_eq!(codec.level().get(), 7);
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), v3);
    let v2 = serde_json::json!({"id": "gzip", "level": 7});
    assert_eq!(Gzip::from_json(&v2, ZarrFormat::V2).expect("v2"), codec);
    assert_eq!(codec.to_json(ZarrFormat::V2).expect("json"), v2);
    let default_v2 = Gzip::from_json(&serde_json::json!({"id": "gzip"}), ZarrFormat::V2);
    assert_eq!(default_v2.expect("numcodecs default").level().get(), 1);
    // zlib's -1 (its default level, 6) is a level numcodecs writes and reads.
    let zlib_default = Gzip::from_json(
        &serde_json::json!({"id": "gzip", "level": -1}),
        ZarrFormat::V2,
    );
    assert_eq!(zlib_default.expect("level -1").level().get(), 6);
    for bad in [-2, 10, i64::MAX] {
        let json = serde_json::json!({"id": "gzip", "level": bad});
        assert!(Gzip::from_json(&json, ZarrFormat::V2).is_err(), "{json}");
    }
    for bad in [
        serde_json::json!({"name": "gzip", "configuration": {}}),
        serde_json::json!({"name": "gzip"}),
        serde_json::json!({"name": "gzip", "configuration": {"level": 10}}),
        serde_json::json!({"name": "gzip", "configuration": {"level": -1}}),
        serde_json::json!({"name": "gzip", "configuration": {"level": 5.0}}),
        serde_json::json!({"name": "gzip", "configuration": {"level": "5"}}),
        serde_json::json!({"name": "gzip", "configuration": {"level": 5, "lvl": 1}}),
        serde_json::json!({"name": "zlib", "configuration": {"level": 5}}),
    ] {
        let err = Gzip::from_json(&bad, ZarrFormat::V3).expect_err("invalid");
        assert_eq!(err.kind(), ErrorKind::Configuration, "{bad}");
    }
    let err = Gzip::from_json(
        &serde_json::json!({"id": "gzip", "level": 3, "x": 1}),
        ZarrFormat::V2,
    );
    assert_eq!(
        err.expect_err("unknown v2 key").kind(),
        ErrorKind::Configuration
    );
}

#[test]
fn trait_object_use() {
    let codec: Box<dyn BytesToBytesCodec> = Box::new(Gzip::new(level(3)));
    let data = sample(1234);
    let spec = zarr_codec_shapes::ChunkSpec::with_default_fill_value(
        vec![data.len()],
        zarr_codec_shapes::DataType::UInt8,
    )
    .expect("spec");
    let encoded = codec.encode(&data, &spec).expect("encode");
    assert_eq!(codec.decode(&encoded, &spec).expect("decode"), data);
    assert_eq!(codec.name(), "gzip");
}
