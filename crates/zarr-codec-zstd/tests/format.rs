//! Every frame shape numcodecs and the `zstandard` package write, and hostile input:
//! truncations, lying headers, bad checksums and bombs give errors, never a panic or a
//! large allocation.

use proptest::prelude::*;
use zarr_codec_shapes::{CodecError, ErrorKind, Result};
use zarr_codec_zstd::{Level, decode, decode_into, decoded_size, encode, max_decoded_size};
use zstd_safe::{CCtx, CParameter, InBuffer, OutBuffer, zstd_sys::ZSTD_EndDirective};

fn sample(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i * 7 % 251) ^ (i / 1000)).to_le_bytes()[0])
        .collect()
}

/// A frame as a streaming writer makes it: no content size, one block per `piece`.
fn streamed(data: &[u8], piece: usize, checksum: bool) -> Vec<u8> {
    let mut context = CCtx::create();
    context
        .set_parameter(CParameter::ChecksumFlag(checksum))
        .expect("checksum flag");
    let mut out = vec![0u8; zstd_safe::compress_bound(data.len()) + 1024];
    let mut output = OutBuffer::around(&mut out[..]);
    for part in data.chunks(piece) {
        let mut input = InBuffer::around(part);
        while input.pos() < part.len() {
            context
                .compress_stream2(&mut output, &mut input, ZSTD_EndDirective::ZSTD_e_flush)
                .expect("compress");
        }
        context
            .compress_stream2(
                &mut output,
                &mut InBuffer::around(&[]),
                ZSTD_EndDirective::ZSTD_e_flush,
            )
            .expect("flush");
    }
    while context
        .compress_stream2(
            &mut output,
            &mut InBuffer::around(&[]),
            ZSTD_EndDirective::ZSTD_e_end,
        )
        .expect("end")
        > 0
    {}
    let written = output.pos();
    out.truncate(written);
    out
}

fn skippable(payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x50, 0x2a, 0x4d, 0x18];
    frame.extend_from_slice(&u32::try_from(payload.len()).expect("small").to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

fn kind(result: Result<impl Sized>) -> Option<ErrorKind> {
    result.err().map(|err| err.kind())
}

#[test]
fn streamed_frames_have_no_size_and_still_decode() -> Result<()> {
    let data = sample(300_000);
    let frame = streamed(&data, 10_000, true);
    assert_eq!(decoded_size(&frame)?, None);
    assert!(max_decoded_size(&frame)? >= data.len());
    assert_eq!(decode(&frame, None)?, data);
    assert_eq!(decode(&frame, Some(data.len()))?, data);
    assert_eq!(
        kind(decode(&frame, Some(data.len() - 1))),
        Some(ErrorKind::OutputSize)
    );
    let mut out = vec![0u8; data.len()];
    assert_eq!(decode_into(&frame, &mut out)?, data.len());
    assert_eq!(out, data);
    Ok(())
}

#[test]
fn several_frames_and_skippable_frames_concatenate() -> Result<()> {
    let (a, b) = (sample(5000), sample(70_000));
    let mut input = skippable(b"metadata");
    input.extend(encode(&a, Level::new(1)?, true)?);
    input.extend(skippable(&[]));
    input.extend(streamed(&b, 4096, false));
    input.extend(encode(&[], Level::DEFAULT, false)?);
    let decoded = decode(&input, None)?;
    assert_eq!(decoded, [a.as_slice(), b.as_slice()].concat());
    // Only skippable frames: no content.
    assert_eq!(decode(&skippable(b"x"), None)?, Vec::<u8>::new());
    Ok(())
}

#[test]
fn checksums_are_verified() -> Result<()> {
    let data = sample(100_000);
    let mut frame = encode(&data, Level::new(3)?, true)?;
    let last = frame.len() - 1;
    frame[last] ^= 1; // the checksum's last byte
    let err = decode(&frame, None).expect_err("bad checksum");
    assert!(err.to_string().contains("checksum"), "{err}");
    let mut out = vec![0u8; data.len()];
    assert_eq!(
        kind(decode_into(&frame, &mut out)),
        Some(ErrorKind::Corrupt)
    );
    Ok(())
}

#[test]
fn output_is_bounded_by_the_caller() -> Result<()> {
    let data = sample(10_000);
    let frame = encode(&data, Level::DEFAULT, false)?;
    let mut small = vec![0u8; data.len() - 1];
    assert!(matches!(
        decode_into(&frame, &mut small),
        Err(CodecError::OutputLimit { limit }) if limit == data.len() - 1
    ));
    let mut large = vec![7u8; data.len() + 10];
    assert_eq!(decode_into(&frame, &mut large)?, data.len());
    assert_eq!(&large[..data.len()], &data[..]);
    assert_eq!(large[data.len()..], [7u8; 10]);
    Ok(())
}

#[test]
fn bombs_stop_at_the_limit() {
    // 64 MiB of zeros compresses to a few KiB.
    let zeros = vec![0u8; 64 << 20];
    let frame = streamed(&zeros, 1 << 20, false);
    assert!(frame.len() < 64 << 10);
    assert_eq!(
        kind(decode(&frame, Some(1 << 20))),
        Some(ErrorKind::OutputSize)
    );
}

#[test]
fn garbage_is_refused() {
    let frame = encode(&sample(1000), Level::DEFAULT, true).expect("encode");
    for bad in [
        &b""[..],
        b"\x28\xb5\x2f",
        b"\x28\xb5\x2f\xfd",
        b"not zstd at all",
        &[0u8; 16][..],
    ] {
        assert!(decode(bad, None).is_err(), "{bad:?}");
        assert!(decode_into(bad, &mut [0u8; 64]).is_err(), "{bad:?}");
    }
    let mut trailing = frame.clone();
    trailing.extend_from_slice(b"junk");
    assert!(decode(&trailing, None).is_err());
    for cut in 0..frame.len() {
        assert!(decode(&frame[..cut], None).is_err(), "truncated at {cut}");
    }
}

#[test]
fn a_lying_window_allocates_nothing() {
    // A frame without a content size whose descriptor asks for a 2 GiB window.
    let frame = streamed(&sample(1000), 1000, false);
    let mut lie = frame.clone();
    // Frame header: magic (4), descriptor (1), window descriptor (1) when not single-segment.
    assert_eq!(lie[4] & 0x20, 0, "streamed frames are not single-segment");
    lie[5] = 0xA8; // exponent 21 + 10 = 31
    let decoded = decode(&lie, Some(1 << 20));
    assert!(decoded.is_err() || decoded.as_deref() == Ok(&sample(1000)[..]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn roundtrip(data in proptest::collection::vec(any::<u8>(), 0..20_000), level in -5i64..10, checksum: bool) {
        let frame = encode(&data, Level::new(level)?, checksum)?;
        prop_assert_eq!(decoded_size(&frame)?, Some(data.len()));
        prop_assert_eq!(&decode(&frame, Some(data.len()))?, &data);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode(&data, Some(1 << 20));
        let _ = decode_into(&data, &mut [0u8; 256]);
        let _ = decoded_size(&data);
    }

    #[test]
    fn damaged_frames_fail_cleanly(data in proptest::collection::vec(any::<u8>(), 1..4000), at in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let mut frame = encode(&data, Level::DEFAULT, true)?;
        let i = at.index(frame.len());
        frame[i] ^= flip;
        if let Ok(decoded) = decode(&frame, Some(1 << 20)) {
            // A flip that survives a checksum must have been in a part that does not change
            // the content (a reserved or ignored header bit).
            prop_assert_eq!(decoded, data);
        }
    }
}
