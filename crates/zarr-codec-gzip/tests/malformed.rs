//! Malformed input: every case is a `CodecError` (never a panic), and decoding arbitrary bytes
//! never panics (a proptest property).

use proptest::prelude::*;
use zarr_codec_gzip::{Level, decode, decode_into, encode};
use zarr_codec_shapes::ErrorKind;

fn valid_stream() -> (Vec<u8>, Vec<u8>) {
    let data: Vec<u8> = (0..3000u16)
        .map(|i| i.to_le_bytes()[0] ^ i.to_le_bytes()[1])
        .collect();
    let stream = encode(&data, Level::new(6).expect("level")).expect("encode");
    (data, stream)
}

fn corrupt(input: &[u8]) -> ErrorKind {
    let err = decode(input, None).expect_err("must be rejected");
    let mut out = vec![0u8; 10_000];
    let err_into = decode_into(input, &mut out).expect_err("must be rejected by decode_into too");
    assert_eq!(err.kind(), err_into.kind());
    err.kind()
}

#[test]
fn every_truncation_is_rejected() {
    let (_, stream) = valid_stream();
    for len in 1..stream.len() {
        assert_eq!(
            corrupt(&stream[..len]),
            ErrorKind::Corrupt,
            "prefix of {len} bytes"
        );
    }
}

#[test]
fn truncations_decoded_into_a_buffer_of_the_chunks_size_are_corrupt() {
    // What a Zarr reader passes: exactly the decoded size. A body cut in its last bytes fills
    // it exactly, which libdeflate reports as a full buffer, not as truncated input.
    let (data, stream) = valid_stream();
    for len in 1..stream.len() {
        let mut out = vec![0u8; data.len()];
        let err = decode_into(&stream[..len], &mut out).expect_err("must be rejected");
        assert_eq!(
            err.kind(),
            ErrorKind::Corrupt,
            "prefix of {len} bytes: {err}"
        );
    }
    // Output that really is longer than the buffer is still an output-size error.
    let mut short = vec![0u8; data.len() - 1];
    let err = decode_into(&stream, &mut short).expect_err("does not fit");
    assert_eq!(err.kind(), ErrorKind::OutputSize);
}

#[test]
fn flipped_trailer_and_header_fields_are_rejected() {
    let (_, stream) = valid_stream();
    let n = stream.len();
    let mut cases = Vec::new();
    for at in [n - 8, n - 5, n - 4, n - 1] {
        let mut bad = stream.clone();
        bad[at] ^= 0x01; // CRC-32 bytes, then ISIZE bytes
        cases.push(bad);
    }
    let mut bad_magic = stream.clone();
    bad_magic[1] = 0x8c;
    cases.push(bad_magic);
    let mut bad_method = stream.clone();
    bad_method[2] = 7;
    cases.push(bad_method);
    let mut name_without_end = stream[..10].to_vec();
    name_without_end[3] = 0x08; // FNAME, but no NUL anywhere after it
    name_without_end.extend_from_slice(b"name-with-no-terminator");
    cases.push(name_without_end);
    let mut extra_too_long = stream.clone();
    extra_too_long[3] = 0x04; // FEXTRA claiming more bytes than exist
    extra_too_long.splice(10..10, [0xFF, 0xFF]);
    cases.push(extra_too_long);
    let mut body = stream.clone();
    body[12] ^= 0xFF;
    body[13] ^= 0xFF;
    cases.push(body);
    let mut garbage = stream.clone();
    garbage.extend_from_slice(b"garbage");
    cases.push(garbage);
    let mut lone = stream.clone();
    lone.push(0x1f);
    cases.push(lone);
    cases.push(b"\x78\x9c\x03\x00\x00\x00\x00\x01".to_vec()); // a zlib stream
    cases.push(stream[10..n - 8].to_vec()); // raw deflate
    for (i, case) in cases.iter().enumerate() {
        assert_eq!(corrupt(case), ErrorKind::Corrupt, "case {i}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(input in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = decode(&input, Some(1 << 20));
        let mut out = vec![0u8; 1024];
        let _ = decode_into(&input, &mut out);
    }

    #[test]
    fn decoding_mutated_streams_never_panics(at in 0usize..3000, byte in any::<u8>(), cut in 0usize..3000) {
        let (data, mut stream) = valid_stream();
        let at = at % stream.len();
        stream[at] = byte;
        stream.truncate(stream.len() - cut % 16);
        if let Ok(decoded) = decode(&stream, None) {
            // A mutation that still decodes must have passed the CRC: only then is it data.
            prop_assert_eq!(decoded.len(), data.len());
        }
    }

    #[test]
    fn round_trip(data in proptest::collection::vec(any::<u8>(), 0..5000), level in 0u32..=9) {
        let level = Level::new(level).expect("level");
        let encoded = encode(&data, level).expect("encode");
        prop_assert_eq!(decode(&encoded, None).expect("decode"), data);
    }
}
