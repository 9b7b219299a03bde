//! Round trips, JSON, and malformed frames: every lying header is a `CodecError` found before
//! c-blosc runs; decoding arbitrary bytes never panics (proptest).

use proptest::prelude::*;
use zarr_codec_blosc::{
    Blosc, Compressor, Params, Shuffle, decode, decode_into, encode, frame_info,
};
use zarr_codec_shapes::json::ZarrFormat;
use zarr_codec_shapes::{BytesToBytesCodec, Codec, CodecFromJson, ErrorKind};

fn data() -> Vec<u8> {
    (0..20_000u32)
        .flat_map(|i| (i / 5 + i % 3).to_le_bytes())
        .collect()
}

fn params(cname: Compressor, shuffle: Shuffle, typesize: usize) -> Params {
    Blosc::new(cname, 5, Some(shuffle), Some(typesize), 0)
        .expect("valid")
        .params(typesize, 1)
}

#[test]
fn round_trips_every_compressor_and_shuffle() {
    let input = data();
    for cname in [
        Compressor::BloscLz,
        Compressor::Lz4,
        Compressor::Lz4Hc,
        Compressor::Zlib,
        Compressor::Zstd,
    ] {
        for shuffle in [Shuffle::NoShuffle, Shuffle::Shuffle, Shuffle::BitShuffle] {
            for typesize in [1, 2, 4, 8] {
                let frame = encode(&input, &params(cname, shuffle, typesize)).expect("encode");
                assert_eq!(
                    decode(&frame, None).expect("decode"),
                    input,
                    "{cname:?} {shuffle:?}"
                );
                let info = frame_info(&frame).expect("valid frame");
                assert_eq!(info.nbytes, input.len());
                assert_eq!(info.cbytes, frame.len());
            }
        }
    }
}

#[test]
fn empty_and_tiny_inputs() {
    for input in [&b""[..], b"a", b"abc"] {
        let frame = encode(input, &params(Compressor::Lz4, Shuffle::Shuffle, 4)).expect("encode");
        assert_eq!(decode(&frame, None).expect("decode"), input);
    }
}

fn valid_frame() -> Vec<u8> {
    encode(&data(), &params(Compressor::Lz4, Shuffle::Shuffle, 4)).expect("encode")
}

fn kind(input: &[u8]) -> ErrorKind {
    let err = decode(input, None).expect_err("must be rejected");
    let mut out = vec![0u8; 100_000];
    assert_eq!(
        decode_into(input, &mut out)
            .expect_err("decode_into too")
            .kind(),
        err.kind()
    );
    err.kind()
}

#[test]
fn every_truncation_is_rejected() {
    let frame = valid_frame();
    for len in 0..frame.len() {
        assert_eq!(kind(&frame[..len]), ErrorKind::Corrupt, "prefix {len}");
    }
}

#[test]
fn lying_headers_are_rejected_before_c_blosc() {
    let frame = valid_frame();
    let set = |at: usize, bytes: &[u8]| {
        let mut bad = frame.clone();
        bad[at..at + bytes.len()].copy_from_slice(bytes);
        bad
    };
    let cases = [
        set(0, &[0]),                           // version 0
        set(0, &[1]),                           // version 1
        set(2, &[0x08 | frame[2]]),             // reserved flag
        set(2, &[0xE0 | (frame[2] & 0x1F)]),    // compressor code 7
        set(3, &[0]),                           // typesize 0
        set(4, &0x7FFF_FFFFu32.to_le_bytes()),  // nbytes huge
        set(4, &0xFFFF_FFFFu32.to_le_bytes()),  // nbytes negative
        set(8, &[0, 0, 0, 0]),                  // blocksize 0
        set(8, &0x7FFF_FFFFu32.to_le_bytes()),  // blocksize huge
        set(12, &[0, 0, 0, 0]),                 // cbytes 0
        set(12, &0x7FFF_FFFFu32.to_le_bytes()), // cbytes beyond the input
        set(
            12,
            &u32::try_from(frame.len() + 1).expect("small").to_le_bytes(),
        ),
        set(16, &[0, 0, 0, 0]), // first block inside the header
        set(16, &0xFFFF_FFF0u32.to_le_bytes()), // first block past the end
    ];
    for (i, case) in cases.iter().enumerate() {
        assert_eq!(kind(case), ErrorKind::Corrupt, "case {i}");
    }
}

#[test]
fn a_sixteen_byte_header_claiming_two_gib_allocates_nothing() {
    let mut header = vec![2u8, 1, 0x20, 4];
    header.extend_from_slice(&0x7FFF_FFF0u32.to_le_bytes()); // nbytes
    header.extend_from_slice(&0x0001_0000u32.to_le_bytes()); // blocksize
    header.extend_from_slice(&16u32.to_le_bytes()); // cbytes
    assert_eq!(kind(&header), ErrorKind::Corrupt);
}

#[test]
fn claims_beyond_the_compressor_expansion_are_rejected() {
    // A consistent one-block table padded to 1000 bytes: lz4 may claim up to 512:1.
    let frame = |nbytes: u32| {
        let mut frame = vec![2u8, 1, 0x21, 4];
        for field in [nbytes, nbytes, 1000, 20] {
            frame.extend_from_slice(&field.to_le_bytes());
        }
        frame.resize(1000, 0);
        frame
    };
    let info = frame_info(&frame(512 * 1000 + 511)).expect("within the bound");
    assert_eq!(info.nbytes, 512 * 1000 + 511);
    let err = frame_info(&frame(512 * 1001)).expect_err("beyond the bound");
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.to_string().contains("expands at most 512:1"), "{err}");
}

#[test]
fn blosc2_frames_are_named() {
    let mut frame = valid_frame();
    frame[0] = 5;
    let err = decode(&frame, None).expect_err("blosc2");
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("blosc2"), "{err}");
}

#[test]
fn limits_and_small_outputs() {
    let frame = valid_frame();
    assert_eq!(
        decode(&frame, Some(1000)).expect_err("limit").kind(),
        ErrorKind::OutputSize
    );
    let mut guarded = vec![0xEEu8; 80_000 + 16];
    let err = decode_into(&frame, &mut guarded[..79_999]).expect_err("short");
    assert_eq!(err.kind(), ErrorKind::OutputSize);
    assert!(guarded[79_999..].iter().all(|&b| b == 0xEE));
}

#[test]
fn json_forms() {
    let v3 = serde_json::json!({"name": "blosc", "configuration":
        {"cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}});
    let codec = Blosc::from_json(&v3, ZarrFormat::V3).expect("v3");
    assert_eq!(codec.to_json(ZarrFormat::V3).expect("json"), v3);
    let v2 = codec.to_json(ZarrFormat::V2).expect("v2");
    assert_eq!(
        v2,
        serde_json::json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0})
    );
    let auto = Blosc::from_json(
        &serde_json::json!({"id": "blosc", "shuffle": -1}),
        ZarrFormat::V2,
    )
    .expect("auto");
    assert_eq!(auto.shuffle(), None);
    assert!(
        auto.to_json(ZarrFormat::V3).is_err(),
        "unresolved codecs have no v3 form"
    );
    let evolved = auto.evolve(1);
    assert_eq!(
        (evolved.shuffle(), evolved.typesize()),
        (Some(Shuffle::BitShuffle), Some(1))
    );
    for bad in [
        serde_json::json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "blocksize": 0}}),
        serde_json::json!({"name": "blosc", "configuration": {"cname": "lz5", "clevel": 5, "shuffle": "noshuffle", "blocksize": 0}}),
        serde_json::json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 10, "shuffle": "noshuffle", "blocksize": 0}}),
        serde_json::json!({"name": "blosc", "configuration": {"cname": "snappy", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0}}),
        serde_json::json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0, "x": 1}}),
    ] {
        assert_eq!(
            Blosc::from_json(&bad, ZarrFormat::V3)
                .expect_err("bad")
                .kind(),
            ErrorKind::Configuration,
            "{bad}"
        );
    }
    let trait_object: Box<dyn BytesToBytesCodec> = Box::new(codec);
    let spec = zarr_codec_shapes::ChunkSpec::with_default_fill_value(
        vec![data().len()],
        zarr_codec_shapes::DataType::UInt8,
    )
    .expect("spec");
    let frame = trait_object.encode(&data(), &spec).expect("encode");
    assert_eq!(trait_object.decode(&frame, &spec).expect("decode"), data());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(input in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = decode(&input, Some(1 << 20));
    }

    #[test]
    fn decoding_mutated_frames_never_panics(at in 0usize..400, byte in any::<u8>()) {
        let mut frame = encode(&data()[..4000], &params(Compressor::BloscLz, Shuffle::Shuffle, 4)).expect("encode");
        let at = at % frame.len();
        frame[at] = byte;
        let _ = decode(&frame, Some(1 << 20));
    }
}

/// c-blosc reads its room as an `int`: an output buffer of more than 2 GiB must not turn into
/// a negative room (and a header of zeros), whichever shuffle path runs.
#[test]
fn output_buffers_beyond_2_gib_give_the_same_frame() {
    let input = data();
    // Zeroed by the allocator and never touched beyond the frame, so this costs no memory.
    let mut out = vec![0u8; (3usize << 30) + 12_345];
    for shuffle in [Shuffle::NoShuffle, Shuffle::Shuffle, Shuffle::BitShuffle] {
        let params = params(Compressor::Lz4, shuffle, 4);
        let expected = encode(&input, &params).expect("encodes");
        let written = zarr_codec_blosc::encode_into(&input, &params, &mut out).expect("encodes");
        assert_eq!(&out[..written], &expected[..], "{shuffle:?}");
        assert_eq!(decode(&out[..written], None).expect("decodes"), input);
    }
}

/// Near 2 GiB, c-blosc's 32-bit "does the block still fit" sums wrap: such chunks are refused
/// (before any byte of them is read) rather than handed to it.
#[test]
fn chunks_too_close_to_2_gib_are_refused() {
    let input = vec![0u8; i32::MAX as usize - 1000];
    for shuffle in [Shuffle::NoShuffle, Shuffle::Shuffle] {
        let err = encode(&input, &params(Compressor::Lz4, shuffle, 4)).expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
    }
}

#[test]
fn a_thread_per_block_is_recommended() {
    use zarr_codec_shapes::{ChunkSpec, DataType, PartialDecodeCapability, RecommendedConcurrency};
    let spec =
        |n: usize| ChunkSpec::with_default_fill_value(vec![n], DataType::Float32).expect("valid");
    let automatic =
        Blosc::new(Compressor::Lz4, 5, Some(Shuffle::Shuffle), Some(4), 0).expect("valid");
    let explicit =
        Blosc::new(Compressor::Lz4, 5, Some(Shuffle::Shuffle), Some(4), 65536).expect("valid");
    for (codec, elements, threads) in [
        (automatic, 1 << 20, 16),
        (automatic, 10, 1),
        (automatic, 0, 1),
        (explicit, 1 << 18, 16),
    ] {
        assert_eq!(
            codec.recommended_concurrency(&spec(elements)),
            RecommendedConcurrency::new(1, threads)
        );
    }
    assert_eq!(
        automatic.partial_decode_capability(),
        PartialDecodeCapability::NONE
    );
}

#[test]
fn plain_copies_decode_whatever_compressor_they_name() {
    // clevel 0 stores the data as it is (the memcpy flag); the header still names a compressor,
    // which no plain copy needs: snappy (code 2), which this build lacks, must not matter.
    let data = data();
    let params = Blosc::new(Compressor::Lz4, 0, Some(Shuffle::NoShuffle), Some(1), 0)
        .expect("valid")
        .params(1, 1);
    let mut frame = encode(&data, &params).expect("encode");
    assert!(frame_info(&frame).expect("frame").memcpyed);
    frame[2] = (frame[2] & 0x1f) | (2 << 5);
    assert_eq!(frame_info(&frame).expect("frame").compressor, "snappy");
    assert_eq!(decode(&frame, None).expect("plain copy"), data);
    for threads in [1, 4] {
        let mut out = vec![0u8; data.len()];
        let written =
            zarr_codec_blosc::decode_into_threads(&frame, &mut out, threads).expect("plain copy");
        assert_eq!((written, &out), (data.len(), &data));
    }
}

#[test]
fn typesizes_beyond_a_c_int_are_configuration_errors() {
    for typesize in [0usize, 1 << 31, 1 << 40, usize::MAX] {
        let made = Blosc::new(
            Compressor::Lz4,
            5,
            Some(Shuffle::Shuffle),
            Some(typesize),
            0,
        );
        let error = made.expect_err("a typesize no implementation can store");
        assert_eq!(error.kind(), ErrorKind::Configuration, "{typesize}");
    }
    let largest = Blosc::new(
        Compressor::Lz4,
        5,
        Some(Shuffle::Shuffle),
        Some(0x7fff_ffff),
        0,
    )
    .expect("a C int's largest");
    let data: Vec<u8> = (0..255).collect();
    let spec = zarr_codec_shapes::ChunkSpec::with_default_fill_value(
        vec![255],
        zarr_codec_shapes::DataType::UInt8,
    )
    .expect("a spec");
    let encoded = BytesToBytesCodec::encode(&largest, &data, &spec).expect("encoded");
    assert_eq!(
        BytesToBytesCodec::decode(&largest, &encoded, &spec).expect("decoded"),
        data
    );
}
