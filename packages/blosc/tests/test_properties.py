"""Property tests: round trips for any bytes and parameters; any input decodes or raises
CodecError (never another exception, never a crash).

Blosc frames carry no checksum, so a mutated frame may decode; when it does, the result must
have the size its (validated) header states, and ``decode``, ``decode_into`` and
``decode_batch`` must agree.
"""

from __future__ import annotations

import struct

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from stream_strategies import mutated, structured_bytes
from zarr_codec_blosc import COMPRESSORS, Blosc, _blosc
from zarr_codec_shapes import CodecError, OutputSizeError

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

cnames = st.sampled_from(COMPRESSORS)
clevels = st.integers(min_value=0, max_value=9)
shuffles = st.sampled_from([None, "noshuffle", "shuffle", "bitshuffle"])
typesizes = st.one_of(st.none(), st.sampled_from([1, 2, 4, 8]), st.integers(1, 255))
blocksizes = st.one_of(
    st.just(0),
    st.integers(min_value=1, max_value=1 << 17),
    st.sampled_from([128, 4096, 65536, 1 << 28, 2**31 - 1]),
)
WORDS = [b"zarr", b"chunk", b"\x00" * 7, b"\xff", b"\x00\x00\x80\x3f"]
# Bytes with some structure (repeats compress, so the match paths of every compressor run).
structured = structured_bytes(WORDS, max_repeats=800, max_words=800)


@st.composite
def codecs(draw: st.DrawFn) -> Blosc:
    return Blosc(draw(cnames), draw(clevels), draw(shuffles), draw(typesizes), draw(blocksizes))


def check_decode(stream: bytes) -> None:
    """decode returns nbytes bytes or raises CodecError; the other decoders agree."""
    codec = Blosc(max_decoded_size=50_000_000)
    try:
        ours = codec.decode(stream)
    except CodecError as err:
        # decode_into and decode_batch refuse it as well (possibly for the output size).
        for call in (
            lambda: codec.decode_into(stream, bytearray(1 << 16)),
            lambda: codec.decode_batch([stream], threads=1),
        ):
            try:
                call()
            except CodecError:
                continue
            raise AssertionError(f"decode raised {err!r} but another decoder accepted") from err
        return
    assert len(ours) == _blosc.frame_info(stream)["nbytes"]
    out = bytearray(len(ours) + 8)
    assert codec.decode_into(stream, out) == len(ours)
    assert bytes(out[: len(ours)]) == ours
    assert codec.decode_batch([stream, stream], threads=2) == [ours, ours]


@SETTINGS
@given(data=structured, codec=codecs())
@example(data=b"", codec=Blosc("lz4", 5, "shuffle", 4))
@example(data=b"\x00", codec=Blosc("zstd", 9, "bitshuffle", 255))
@example(data=b"abc", codec=Blosc("blosclz", 9, "shuffle", 8, 1))
def test_round_trip(data: bytes, codec: Blosc) -> None:
    encoded = codec.encode(data)
    assert codec.decode(encoded) == data
    assert Blosc().decode(encoded) == data  # the frame says all a decoder needs
    assert len(encoded) <= codec.max_encoded_size(len(data))
    info = _blosc.frame_info(encoded)
    assert info["nbytes"] == len(data) and info["cbytes"] == len(encoded)
    out = bytearray(len(data))
    assert codec.decode_into(encoded, out) == len(data) and out == data
    room = bytearray(codec.max_encoded_size(len(data)))
    n = codec.encode_into(data, room)
    assert bytes(room[:n]) == encoded
    assert codec.encode(data) == encoded  # deterministic


@SETTINGS
@given(
    values=st.lists(st.integers(min_value=0, max_value=2**16), max_size=3000),
    dtype=st.sampled_from(["u1", "<i2", ">u2", "<f4", "<i8", "<c16", "?"]),
    codec=codecs(),
)
def test_round_trip_arrays(values: list[int], dtype: str, codec: Blosc) -> None:
    """An unset typesize is the array's item size; an unset shuffle is bit shuffle for a
    typesize of 1, byte shuffle otherwise (numcodecs' AUTOSHUFFLE, which also looks at an
    explicit typesize)."""
    array = np.asarray(values).astype(dtype)
    encoded = codec.encode(array)
    assert codec.decode(encoded) == array.tobytes()
    info = _blosc.frame_info(encoded)
    typesize = codec.typesize or array.itemsize
    if len(values) * array.itemsize >= typesize:  # c-blosc uses typesize 1 for shorter input
        assert info["typesize"] == typesize
    if codec.shuffle is None and not info["memcpyed"]:
        assert info["bitshuffle"] == (typesize == 1)
        assert info["shuffle"] == (typesize > 1)


@SETTINGS
@given(data=st.binary(max_size=2000))
@example(data=b"")
@example(data=b"\x02\x01\x21\x04" + struct.pack("<III", 100, 100, 16))
@example(data=b"\x02\x01\x22\x04" + struct.pack("<III", 4, 4, 20) + b"abcd")
def test_arbitrary_bytes_decode_or_raise_codec_error(data: bytes) -> None:
    check_decode(data)


@SETTINGS
@given(
    version_lz=st.integers(0, 255),
    flags=st.integers(0, 255),
    typesize=st.integers(0, 255),
    nbytes=st.integers(0, 1 << 16),
    blocksize=st.integers(0, 1 << 16),
    body=st.binary(max_size=2000),
    cbytes_delta=st.integers(-4, 4),
)
def test_random_bodies_behind_plausible_headers(
    version_lz: int,
    flags: int,
    typesize: int,
    nbytes: int,
    blocksize: int,
    body: bytes,
    cbytes_delta: int,
) -> None:
    """Random bodies behind headers that are close to valid reach c-blosc, not just the checks."""
    cbytes = max(0, 16 + len(body) + cbytes_delta)
    head = bytes([2, version_lz, flags & ~0x08, typesize]) + struct.pack(
        "<III", nbytes, blocksize, cbytes
    )
    check_decode(head + body)


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """Valid frames of structured data, with any parameters."""
    return draw(codecs()).encode(draw(structured))


mutated_frames = mutated(frames())


@st.composite
def body_mutated_frames(draw: st.DrawFn) -> bytes:
    """Valid header and block table, altered blocks: these always reach c-blosc."""
    data = draw(st.binary(min_size=200, max_size=4000)) * draw(st.integers(1, 8))
    frame = bytearray(draw(codecs()).encode(data))
    if len(frame) <= 64:
        return bytes(frame)
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        at = draw(st.integers(min_value=len(frame) // 4, max_value=len(frame) - 1))
        frame[at] = draw(st.integers(min_value=0, max_value=255))
    return bytes(frame)


@SETTINGS
@given(stream=mutated_frames)
def test_mutated_frames_decode_or_raise_codec_error(stream: bytes) -> None:
    check_decode(stream)


@SETTINGS
@given(stream=body_mutated_frames())
def test_frames_with_altered_blocks_decode_or_raise_codec_error(stream: bytes) -> None:
    check_decode(stream)


@settings(max_examples=100, deadline=None)
@given(stream=mutated_frames, room=st.integers(min_value=0, max_value=30_000))
def test_mutated_frames_into_a_buffer(stream: bytes, room: int) -> None:
    """decode_into never raises anything but CodecError, never writes past its buffer, and
    agrees with decode when it fits."""
    guard = 0x5A
    big = np.full(room + 32, guard, np.uint8)
    out = big[16 : 16 + room]
    try:
        n = Blosc().decode_into(stream, out)
    except OutputSizeError:
        assert (big == guard).all(), "wrote into a buffer it refused as too small"
        return
    except CodecError:
        assert (big[:16] == guard).all() and (big[16 + room :] == guard).all()
        return
    assert (big[:16] == guard).all() and (big[16 + room :] == guard).all()
    assert out[:n].tobytes() == Blosc().decode(stream)
