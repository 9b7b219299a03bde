"""Frames as others write them (numcodecs, the ``zstandard`` package's one-shot, streaming and
multi-frame output), bounded decoding and batch calls."""

from __future__ import annotations

import io
import pickle

import numcodecs
import numpy as np
import pytest
import zstandard
from zarr_codec_shapes import CorruptInputError, OutputSizeError
from zarr_codec_zstd import Zstd

DATA = np.linspace(0, 1000, 200_000, dtype="f4").tobytes()


def streamed(data: bytes, piece: int, **kwargs: object) -> bytes:
    """What ``zstandard``'s streaming writer makes: no content size, a block per flush."""
    out = io.BytesIO()
    with zstandard.ZstdCompressor(**kwargs).stream_writer(out, closefd=False) as writer:  # type: ignore[arg-type]
        for start in range(0, len(data), piece):
            writer.write(data[start : start + piece])
            writer.flush()
    return out.getvalue()


@pytest.mark.parametrize("level", [-5, 0, 1, 3, 9, 19])
@pytest.mark.parametrize("checksum", [False, True])
def test_numcodecs_reads_ours_and_we_read_numcodecs(level: int, checksum: bool) -> None:
    ours = Zstd(level, checksum)
    theirs = numcodecs.Zstd(level=level, checksum=checksum)
    assert bytes(theirs.decode(ours.encode(DATA))) == DATA
    assert ours.decode(theirs.encode(DATA)) == DATA


@pytest.mark.parametrize("level", [-5, 0, 1, 3, 9, 19, 100])
@pytest.mark.parametrize("checksum", [False, True])
def test_same_frames_as_numcodecs(level: int, checksum: bool) -> None:
    """The same libzstd release as numcodecs (1.5.6): byte for byte the same frames."""
    assert numcodecs.zstd.VERSION_NUMBER == 10506
    theirs = numcodecs.Zstd(level=level, checksum=checksum)
    ours = Zstd.from_json(theirs.get_config(), 2)
    assert ours.encode(DATA) == bytes(theirs.encode(DATA))


@pytest.mark.parametrize("checksum", [False, True])
def test_streaming_writer_frames_decode(checksum: bool) -> None:
    frame = streamed(DATA, 10_000, level=3, write_checksum=checksum)
    assert Zstd().compiled.decoded_size(frame) is None
    assert Zstd().decode(frame) == DATA
    out = bytearray(len(DATA))
    assert Zstd().decode_into(frame, out) == len(DATA)
    assert out == DATA
    assert Zstd().decode_batch([frame, frame]) == [DATA, DATA]


def test_several_frames_and_skippable_frames() -> None:
    compressor = zstandard.ZstdCompressor(level=1)
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"hello"
    data = compressor.compress(DATA[:1000]) + skippable + streamed(DATA[1000:], 50_000)
    assert Zstd().decode(data) == DATA
    out = np.empty(len(DATA), "u1")
    assert Zstd().decode_batch_into([data], [out]) == [len(DATA)]
    assert out.tobytes() == DATA


def test_damaged_checksum_is_corrupt_input() -> None:
    frame = bytearray(Zstd(3, checksum=True).encode(DATA))
    frame[-1] ^= 0x01
    with pytest.raises(CorruptInputError, match="checksum"):
        Zstd().decode(frame)
    with pytest.raises(CorruptInputError):
        Zstd().decode_batch([frame])


def test_bounded_decoding() -> None:
    frame = Zstd(3).encode(DATA)
    with pytest.raises(OutputSizeError):
        Zstd(max_decoded_size=len(DATA) - 1).decode(frame)
    assert Zstd(max_decoded_size=len(DATA)).decode(frame) == DATA
    with pytest.raises(OutputSizeError):
        Zstd().decode_into(frame, bytearray(len(DATA) - 1))
    bomb = streamed(bytes(64 << 20), 1 << 20, level=1)
    assert len(bomb) < 64 << 10
    with pytest.raises(OutputSizeError):
        Zstd(max_decoded_size=1 << 20).decode(bomb)


def test_a_content_size_lie_is_refused_before_allocating() -> None:
    # Single-segment frame claiming 2**60 bytes, then one empty last raw block.
    lie = b"\x28\xb5\x2f\xfd\xe0" + (1 << 60).to_bytes(8, "little") + b"\x01\x00\x00"
    with pytest.raises(CorruptInputError, match="more than"):
        Zstd().decode(lie)
    with pytest.raises(CorruptInputError):
        Zstd().decode_batch([lie])


def test_batches_and_pickles() -> None:
    codec = Zstd(5, checksum=True)
    chunks = [DATA[i : i + 40_000] for i in range(0, len(DATA), 40_000)]
    encoded = codec.encode_batch(chunks, threads=2)
    assert encoded == [codec.encode(c) for c in chunks]
    assert codec.decode_batch(encoded, threads=2) == chunks
    assert pickle.loads(pickle.dumps(codec)) == codec
    assert repr(codec) == "Zstd(level=5, checksum=True)"
