"""Malformed blosc frames: every one raises a ``zarr_codec_shapes.CodecError`` subclass, nothing
else.

A c-blosc 1.x frame is a 16-byte header (version, versionlz, flags, typesize, then nbytes,
blocksize and cbytes as little-endian int32) followed, unless the blocks are stored
("memcpyed"), by a table of int32 block starts and the compressed blocks. Blosc has no checksum,
so a frame whose body is altered can still decode (to other bytes); what must never happen is a
crash, an over-read, a write past the output, a huge allocation, or an exception that is not a
``CodecError``. The structural lies (sizes, block table, version, reserved bits, unknown
compressors) are refused outright, before c-blosc sees the frame.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from byte_samples import random_bytes
from peak_rss import peak_rss_growth
from zarr_codec_blosc import COMPRESSORS, Blosc, _blosc
from zarr_codec_shapes import (
    CodecError,
    CorruptInputError,
    OutputSizeError,
    UnsupportedError,
)
from zarr_codec_shapes.testing import check_decoded_or_rejected, check_rejected, check_truncations

HEADER_LEN = 16
FLAG_SHUFFLE, FLAG_MEMCPYED, FLAG_BITSHUFFLE, FLAG_RESERVED, FLAG_DONT_SPLIT = 1, 2, 4, 8, 16
COMPRESSOR_CODES = {"blosclz": 0, "lz4": 1, "snappy": 2, "zlib": 3, "zstd": 4}


def _smooth(count: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    field = np.sin(np.arange(count) / 50) * 100 + np.cumsum(rng.normal(0, 0.01, count))
    return field.astype("<f4").tobytes()


DATA = _smooth(2000)  # 8000 bytes
TEXT = b"".join(np.random.default_rng(3).choice([b"zarr ", b"chunk ", b"codec "], 2000).tolist())
FRAMES: dict[str, bytes] = {
    "memcpyed (level 0)": Blosc("lz4", 0, "shuffle", 4).encode(DATA[:1000]),
    "memcpyed (tiny input)": Blosc("zstd", 5, "shuffle", 4).encode(DATA[:100]),
    "memcpyed (random data)": Blosc("lz4", 9, "noshuffle", 1).encode(random_bytes(600)),
    "blosclz split": Blosc("blosclz", 5, "shuffle", 4).encode(DATA),
    "blosclz one stream": Blosc("blosclz", 9, "noshuffle", 1).encode(TEXT),
    "lz4 shuffle": Blosc("lz4", 5, "shuffle", 4).encode(DATA),
    "lz4hc bitshuffle": Blosc("lz4hc", 9, "bitshuffle", 4).encode(DATA),
    "zlib shuffle": Blosc("zlib", 5, "shuffle", 8).encode(DATA),
    "zstd bitshuffle": Blosc("zstd", 5, "bitshuffle", 2).encode(DATA),
    "zstd 32 blocks": Blosc("zstd", 5, "noshuffle", 4, blocksize=256).encode(TEXT[:8000]),
    "lz4 32 blocks": Blosc("lz4", 5, "shuffle", 4, blocksize=256).encode(DATA),
}
DECODED = {name: Blosc().decode(frame) for name, frame in FRAMES.items()}
COMPRESSED = [name for name, frame in FRAMES.items() if not _blosc.frame_info(frame)["memcpyed"]]
LARGE_DATA = _smooth(25_000, seed=1) + random_bytes(20_000, seed=2)
LARGE = Blosc("lz4", 5, "shuffle", 4, blocksize=4096).encode(LARGE_DATA)

FIELDS = {  # name: (offset, width)
    "version": (0, 1),
    "versionlz": (1, 1),
    "flags": (2, 1),
    "typesize": (3, 1),
    "nbytes": (4, 4),
    "blocksize": (8, 4),
    "cbytes": (12, 4),
}


def with_field(frame: bytes, field: str, value: int) -> bytes:
    at, width = FIELDS[field]
    return frame[:at] + value.to_bytes(width, "little") + frame[at + width :]


def field(frame: bytes, name: str) -> int:
    at, width = FIELDS[name]
    return int.from_bytes(frame[at : at + width], "little")


def header(
    nbytes: int,
    cbytes: int,
    *,
    blocksize: int | None = None,
    flags: int = FLAG_SHUFFLE,
    typesize: int = 4,
    version: int = 2,
) -> bytes:
    """A 16-byte c-blosc 1.x header with whatever it is told."""
    blocksize = nbytes if blocksize is None else blocksize
    return bytes([version, 1, flags, typesize]) + struct.pack("<III", nbytes, blocksize, cbytes)


def one_block_frame(stream: bytes, nbytes: int, *, compressor: int = 0, typesize: int = 1) -> bytes:
    """A hand-built frame of one block holding one compressed stream (no shuffle, no split)."""
    body = struct.pack("<I", HEADER_LEN + 4) + struct.pack("<i", len(stream)) + stream
    flags = compressor << 5
    return header(nbytes, HEADER_LEN + len(body), flags=flags, typesize=typesize) + body


def assert_rejected(
    stream: bytes, kind: type[CodecError] = CodecError, room: int = 100_000
) -> None:
    """decode, decode_into (``room`` bytes) and decode_batch (after a good frame) all raise
    ``kind``."""
    check_rejected(Blosc(), stream, kind, room=room, batch_with=FRAMES["lz4 shuffle"], threads=2)


def assert_bytes_or_codec_error(stream: bytes, *, allowed: set[bytes] | None = None) -> None:
    """Blosc cannot tell some alterations from data: decoding may succeed, with ``nbytes``
    bytes (or one of ``allowed``), or raise a ``CodecError``; every decoder must agree."""
    decoded = check_decoded_or_rejected(
        Blosc(), stream, room=100_000, batch_with=FRAMES["lz4 shuffle"], threads=2
    )
    if decoded is not None:
        assert len(decoded) == field(stream, "nbytes")
        if allowed is not None:
            assert decoded in allowed, "decoded to other bytes"


def test_corpus_frames_are_what_they_claim() -> None:
    for name, frame in FRAMES.items():
        info = _blosc.frame_info(frame)
        assert info["memcpyed"] == name.startswith("memcpyed"), name
        assert info["cbytes"] == len(frame) and info["nbytes"] == len(DECODED[name])
    for name in ("zstd 32 blocks", "lz4 32 blocks"):
        assert _blosc.frame_info(FRAMES[name])["blocksize"] == 256
    assert len(LARGE) > 50_000 and int(_blosc.frame_info(LARGE)["blocksize"]) < len(LARGE_DATA)


# -- truncation ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FRAMES))
def test_every_truncation(name: str) -> None:
    check_truncations(Blosc(), FRAMES[name], CorruptInputError, threads=2)


def test_sampled_truncations_of_a_large_frame() -> None:
    rng = np.random.default_rng(5)
    ends = {*range(0, 40), *range(len(LARGE) - 40, len(LARGE))}
    ends |= {int(e) for e in rng.integers(1, len(LARGE), 300)}
    check_truncations(Blosc(), LARGE, CorruptInputError, ends=sorted(ends), threads=2)
    for end in sorted(ends)[::20]:
        assert_rejected(LARGE[:end], CorruptInputError)


# -- header fields ---------------------------------------------------------------------------

EXTREMES = {1: (0, 0xFF), 4: (0, 0xFFFFFFFF, 0x7FFFFFFF)}
#: Header fields whose extreme values c-blosc cannot tell from data in some frames: versionlz
#: is ignored for stored blocks, typesize only steers the (un)shuffle, flags 0 may re-read a
#: stream with another compressor. Everything else must be refused.
UNDETECTABLE = {("versionlz", 0), ("versionlz", 0xFF), ("typesize", 0xFF), ("flags", 0)}


@pytest.mark.parametrize("name", list(FRAMES))
@pytest.mark.parametrize(
    ("field_name", "value"),
    [
        (f, v)
        for f, (_, width) in FIELDS.items()
        for v in EXTREMES[width]
        if (f, v) != ("nbytes", 0)
    ],
)
def test_header_field_extremes(name: str, field_name: str, value: int) -> None:
    stream = with_field(FRAMES[name], field_name, value)
    if (field_name, value) in UNDETECTABLE:
        assert_bytes_or_codec_error(stream)
    else:
        assert_rejected(stream, CodecError)


@pytest.mark.parametrize("name", list(FRAMES))
def test_header_field_extremes_are_refused_before_c_blosc(name: str) -> None:
    """The size fields are checked by the validator, whose message names the problem."""
    frame = FRAMES[name]
    for field_name in ("nbytes", "blocksize", "cbytes"):
        for value in (0xFFFFFFFF, 0x80000000):
            with pytest.raises(CorruptInputError, match="negative"):
                _blosc.frame_info(with_field(frame, field_name, value))
    with pytest.raises(CorruptInputError, match="version 0"):
        _blosc.frame_info(with_field(frame, "version", 0))
    # Neither c-blosc 1.x's nor blosc2's version: damage, not an unsupported format.
    with pytest.raises(CorruptInputError, match=r"neither a c-blosc 1\.x frame"):
        _blosc.frame_info(with_field(frame, "version", 234))
    with pytest.raises(UnsupportedError, match="blosc2"):
        _blosc.frame_info(with_field(frame, "version", 4))
    with pytest.raises(CorruptInputError, match="reserved"):
        _blosc.frame_info(with_field(frame, "flags", 0xFF))
    with pytest.raises(CorruptInputError, match="typesize 0"):
        _blosc.frame_info(with_field(frame, "typesize", 0))


@pytest.mark.parametrize("name", list(FRAMES))
def test_nbytes_zero_with_a_body_is_rejected(name: str) -> None:
    assert_rejected(with_field(FRAMES[name], "nbytes", 0), CorruptInputError)


@pytest.mark.parametrize("name", list(FRAMES))
@pytest.mark.parametrize("delta", [-8, -4, -1, 1, 4, 8, 1000])
def test_nbytes_lies(name: str, delta: int) -> None:
    frame = FRAMES[name]
    assert_rejected(with_field(frame, "nbytes", field(frame, "nbytes") + delta), CorruptInputError)


@pytest.mark.parametrize("name", list(FRAMES))
@pytest.mark.parametrize("delta", [-100, -8, -4, -1, 1, 4, 1000])
def test_cbytes_lies(name: str, delta: int) -> None:
    frame = FRAMES[name]
    cbytes = field(frame, "cbytes")
    assert_rejected(with_field(frame, "cbytes", cbytes + delta), CorruptInputError)
    if delta < 0:  # the bytes cut off the frame are still there: still not a frame
        assert_rejected(with_field(frame, "cbytes", cbytes + delta) + b"\x00" * 8)


@pytest.mark.parametrize("name", list(FRAMES))
def test_bytes_after_the_frame_are_ignored(name: str) -> None:
    """What c-blosc and numcodecs do: cbytes says where the frame ends."""
    frame = FRAMES[name]
    for tail in (b"\x00", b"junk", FRAMES["lz4 shuffle"]):
        assert Blosc().decode(frame + tail) == DECODED[name]
    if name in COMPRESSED:  # cbytes may cover padding after the last block
        padded = with_field(frame, "cbytes", len(frame) + 3) + bytes(3)
        assert Blosc().decode(padded) == DECODED[name]


@pytest.mark.parametrize("name", list(FRAMES))
@pytest.mark.parametrize("blocksize_delta", [-1, 1])
def test_blocksize_lies(name: str, blocksize_delta: int) -> None:
    frame = FRAMES[name]
    value = field(frame, "blocksize") + blocksize_delta
    stream = with_field(frame, "blocksize", value)
    if name.startswith("memcpyed"):  # stored blocks: the block size changes nothing
        assert_bytes_or_codec_error(stream, allowed={DECODED[name]})
    else:
        assert_bytes_or_codec_error(stream)


# -- the block start table -------------------------------------------------------------------


def _table(frame: bytes) -> tuple[int, int]:
    info = _blosc.frame_info(frame)
    nblocks = -(-int(info["nbytes"]) // int(info["blocksize"]))
    return nblocks, HEADER_LEN + 4 * nblocks


@pytest.mark.parametrize("name", COMPRESSED)
@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize(
    "target",
    [
        "zero",
        "in header",
        "header end",
        "table start",
        "last table byte",
        "three before end",
        "frame end",
        "past end",
        "int32 max",
        "negative",
        "minus one",
    ],
)
def test_block_start_outside_the_frame(name: str, where: str, target: str) -> None:
    frame = FRAMES[name]
    nblocks, table_end = _table(frame)
    block = 0 if where == "first" else nblocks - 1
    value = {
        "zero": 0,
        "in header": 8,
        "header end": HEADER_LEN - 1,
        "table start": HEADER_LEN,
        "last table byte": table_end - 1,
        "three before end": len(frame) - 3,
        "frame end": len(frame),
        "past end": len(frame) + 100,
        "int32 max": 0x7FFFFFFF,
        "negative": 0x80000000,
        "minus one": 0xFFFFFFFF,
    }[target]
    at = HEADER_LEN + 4 * block
    stream = frame[:at] + struct.pack("<I", value) + frame[at + 4 :]
    assert_rejected(stream, CorruptInputError)
    with pytest.raises(CorruptInputError, match="block"):
        _blosc.frame_info(stream)


@pytest.mark.parametrize("name", ["zstd 32 blocks", "lz4 32 blocks"])
def test_block_starts_pointing_at_other_blocks(name: str) -> None:
    """Inside the frame but wrong: c-blosc reads another block's stream, or fails."""
    frame = FRAMES[name]
    nblocks, _ = _table(frame)
    starts = list(struct.unpack_from(f"<{nblocks}I", frame, HEADER_LEN))
    for table in (starts[::-1], [starts[0]] * nblocks, [starts[-1]] * nblocks, [*starts[1:], 0]):
        stream = (
            frame[:HEADER_LEN] + struct.pack(f"<{nblocks}I", *table) + frame[4 * nblocks + 16 :]
        )
        if 0 in table:
            assert_rejected(stream, CorruptInputError)
        else:
            assert_bytes_or_codec_error(stream)


def test_table_larger_than_the_frame() -> None:
    """nbytes / blocksize blocks whose table alone does not fit in cbytes."""
    frame = FRAMES["zstd 32 blocks"]
    for blocksize in (1, 2, 16, 64):
        with pytest.raises(CorruptInputError, match=r"table|block"):
            Blosc().decode(with_field(frame, "blocksize", blocksize))


# -- block bodies ----------------------------------------------------------------------------


def test_hand_built_frame_decodes() -> None:
    """The control for the bodies below: a real blosclz stream in a frame built by hand."""
    data = (b"zarr chunk " * 400)[:4096]
    real = Blosc("blosclz", 5, "noshuffle", 1).encode(data)
    stream = real[HEADER_LEN + 8 :]
    assert struct.unpack_from("<i", real, HEADER_LEN + 4)[0] == len(stream)
    assert Blosc().decode(one_block_frame(stream, len(data))) == data


@pytest.mark.parametrize("run", [1, 3, 16, 17, 255, 5000, 100_000])
@pytest.mark.parametrize("tail", [b"", b"\x00", b"\x00\x00\x00"], ids=["", "0", "000"])
def test_blosclz_run_of_ff_length_bytes(run: int, tail: bytes) -> None:
    """A long match whose length bytes (0xFF: 'more follows') run off the end of the stream."""
    literal = b"\x0azarr chunk "  # an 11-byte literal run, as blosclz writes it
    stream = literal + b"\xe0" + b"\xff" * run + tail
    assert_rejected(one_block_frame(stream, 4096), CorruptInputError)
    assert_rejected(one_block_frame(b"\xff" * run + tail, 4096), CorruptInputError)


@pytest.mark.parametrize("compressor", ["blosclz", "lz4", "zlib", "zstd"])
@pytest.mark.parametrize(
    "stream",
    [b"", b"\x00", b"\xff" * 64, b"\x1f" + b"a" * 32, random_bytes(300), bytes(300)],
    ids=["empty", "zero", "ff", "short literal", "random", "zeros"],
)
def test_garbage_streams(compressor: str, stream: bytes) -> None:
    frame = one_block_frame(stream, 4096, compressor=COMPRESSOR_CODES[compressor])
    assert_rejected(frame, CorruptInputError)


@pytest.mark.parametrize("stream_len", [-1, -100, 0x7FFFFFFF, 1 << 20])
def test_stream_length_word_lies(stream_len: int) -> None:
    real = FRAMES["blosclz one stream"]
    start = struct.unpack_from("<I", real, HEADER_LEN)[0]
    stream = real[:start] + struct.pack("<i", stream_len) + real[start + 4 :]
    assert_rejected(stream, CorruptInputError)


# -- flags and compressor codes --------------------------------------------------------------


@pytest.mark.parametrize("name", list(FRAMES))
def test_reserved_flag_is_refused(name: str) -> None:
    frame = FRAMES[name]
    stream = with_field(frame, "flags", field(frame, "flags") | FLAG_RESERVED)
    assert_rejected(stream, CorruptInputError)
    with pytest.raises(CorruptInputError, match="reserved"):
        Blosc().decode(stream)


@pytest.mark.parametrize("name", list(FRAMES))
@pytest.mark.parametrize("code", [5, 6, 7])
def test_unknown_compressor_codes(name: str, code: int) -> None:
    frame = FRAMES[name]
    stream = with_field(frame, "flags", (field(frame, "flags") & 0x1F) | (code << 5))
    assert_rejected(stream, CorruptInputError)
    with pytest.raises(CorruptInputError, match=f"compressor code {code}"):
        Blosc().decode(stream)


@pytest.mark.parametrize("name", COMPRESSED)
def test_snappy_frames_are_unsupported(name: str) -> None:
    if "snappy" in COMPRESSORS:
        pytest.skip("this build includes snappy")
    frame = FRAMES[name]
    stream = with_field(frame, "flags", (field(frame, "flags") & 0x1F) | (2 << 5))
    assert_rejected(stream, UnsupportedError)
    with pytest.raises(UnsupportedError, match="snappy"):
        Blosc().decode(stream)


@pytest.mark.parametrize("name", COMPRESSED)
def test_other_compressor_codes_decode_or_raise(name: str) -> None:
    frame = FRAMES[name]
    for code in (0, 1, 3, 4):
        assert_bytes_or_codec_error(
            with_field(frame, "flags", (field(frame, "flags") & 0x1F) | code << 5)
        )


@pytest.mark.parametrize("flags", range(256))
def test_every_flags_byte(flags: int) -> None:
    for name in ("lz4 shuffle", "memcpyed (level 0)", "zstd 32 blocks"):
        stream = with_field(FRAMES[name], "flags", flags)
        if flags & FLAG_RESERVED or flags >> 5 > 4:
            assert_rejected(stream, CorruptInputError)
        else:
            assert_bytes_or_codec_error(stream)


# -- other formats ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", [3, 4, 5])
def test_blosc2_versions_are_unsupported_with_a_clear_message(version: int) -> None:
    stream = with_field(FRAMES["lz4 shuffle"], "version", version)
    assert_rejected(stream, UnsupportedError)
    with pytest.raises(UnsupportedError, match="blosc2"):
        Blosc().decode(stream)


@pytest.mark.parametrize("version", [6, 0x7F, 0xEA, 0xFF])
def test_versions_of_neither_format_are_corrupt(version: int) -> None:
    """Random bytes (version 234, say) are damage: the message says the frame is neither
    format's, rather than send the user looking for a blosc2 file."""
    stream = with_field(FRAMES["lz4 shuffle"], "version", version)
    assert_rejected(stream, CorruptInputError)
    with pytest.raises(CorruptInputError, match=r"neither a c-blosc 1\.x frame"):
        Blosc().decode(stream)


@pytest.mark.parametrize("version", [0, 1])
def test_older_format_versions_are_corrupt(version: int) -> None:
    """c-blosc 1.21 (and so numcodecs) refuses every format version but 2."""
    assert_rejected(with_field(FRAMES["lz4 shuffle"], "version", version), CorruptInputError)


def test_a_real_blosc2_chunk_is_unsupported() -> None:
    blosc2 = pytest.importorskip("blosc2")
    for data, typesize in [(DATA, 4), (b"abcd" * 100, 4), (random_bytes(5000), 1), (b"", 1)]:
        chunk = bytes(blosc2.compress(data, typesize=typesize))
        assert chunk[0] >= 3
        assert_rejected(chunk, UnsupportedError)
        with pytest.raises(UnsupportedError, match="blosc2"):
            Blosc().decode(chunk)


@pytest.mark.parametrize(
    "stream",
    [
        b"\x1f\x8b\x08\x00" + bytes(20),  # gzip
        b"\x28\xb5\x2f\xfd" + bytes(20),  # zstd frame
        b"\x04\x22\x4d\x18" + bytes(20),  # lz4 frame
        b"\x78\x9c" + bytes(20),  # zlib
        b"not a blosc frame",
        bytes(16),
        b"\xff" * 16,
        b"\xff" * 1000,
    ],
)
def test_other_formats_are_corrupt(stream: bytes) -> None:
    assert_rejected(stream, CodecError)


# -- empty input -----------------------------------------------------------------------------


def test_empty_input() -> None:
    """b"" is not a frame (c-blosc encodes b"" as a 16-byte frame, which decodes to b"")."""
    for empty in (b"", bytearray(), memoryview(b""), np.empty(0, np.uint8)):
        with pytest.raises(CorruptInputError, match="16-byte header"):
            Blosc().decode(empty)
        with pytest.raises(CorruptInputError):
            Blosc().decode_into(empty, bytearray(10))
    with pytest.raises(CorruptInputError):
        Blosc().decode_batch([FRAMES["lz4 shuffle"], b""])
    with pytest.raises(CorruptInputError):
        _blosc.frame_info(b"")


@pytest.mark.parametrize("cname", COMPRESSORS)
@pytest.mark.parametrize("shuffle", ["noshuffle", "shuffle", "bitshuffle"])
def test_empty_frame_round_trip(cname: str, shuffle: str) -> None:
    codec = Blosc(cname, 5, shuffle, 4)
    encoded = codec.encode(b"")
    assert len(encoded) == HEADER_LEN and field(encoded, "nbytes") == 0
    assert codec.decode(encoded) == b""
    assert codec.decode_into(encoded, bytearray(0)) == 0
    assert codec.decode_batch([encoded, encoded]) == [b"", b""]
    assert Blosc(max_decoded_size=0).decode(encoded) == b""


# -- output buffers and limits ---------------------------------------------------------------


@pytest.mark.parametrize("name", list(FRAMES))
def test_decode_into_one_byte_short_writes_nothing_outside(name: str) -> None:
    frame, expected = FRAMES[name], DECODED[name]
    guard = 0xA5
    big = np.full(len(expected) + 64, guard, np.uint8)
    out = big[32 : 32 + len(expected) - 1]
    with pytest.raises(OutputSizeError):
        Blosc().decode_into(frame, out)
    assert (big == guard).all(), "decode_into wrote into a buffer it refused"
    exact = big[32 : 32 + len(expected)]
    assert Blosc().decode_into(frame, exact) == len(expected)
    assert exact.tobytes() == expected
    assert (big[:32] == guard).all() and (big[32 + len(expected) :] == guard).all()
    roomy = big[32:]
    big[32:] = guard
    assert Blosc().decode_into(frame, roomy) == len(expected)
    assert (big[32 + len(expected) :] == guard).all(), "wrote past the decoded length"


@pytest.mark.parametrize("name", list(FRAMES))
def test_decode_into_empty_and_unusable_outputs(name: str) -> None:
    frame = FRAMES[name]
    for out in (bytearray(0), np.empty(0, np.uint8)):
        with pytest.raises(OutputSizeError):
            Blosc().decode_into(frame, out)
    with pytest.raises(OutputSizeError):
        Blosc().decode_into(frame, bytes(100_000))  # read-only
    with pytest.raises(OutputSizeError):
        Blosc().decode_into(frame, np.zeros(200_000, np.uint8)[::2])  # strided
    frozen = np.zeros(100_000, np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(OutputSizeError):
        Blosc().decode_into(frame, frozen)


@pytest.mark.parametrize("name", list(FRAMES))
def test_max_decoded_size_boundary(name: str) -> None:
    frame, expected = FRAMES[name], DECODED[name]
    assert Blosc(max_decoded_size=len(expected)).decode(frame) == expected
    with pytest.raises(OutputSizeError):
        Blosc(max_decoded_size=len(expected) - 1).decode(frame)
    with pytest.raises(OutputSizeError):
        Blosc(max_decoded_size=len(expected) - 1).decode_batch([frame], threads=2)
    with pytest.raises(OutputSizeError):
        Blosc(max_decoded_size=0).decode(frame)


@pytest.mark.parametrize("name", list(FRAMES))
def test_encode_into_too_small_raises_and_stays_inside(name: str) -> None:
    data = DECODED[name]
    codec = Blosc("zstd", 5, "shuffle", 4)
    encoded = codec.encode(data)
    guard = 0x5A
    big = np.full(len(encoded) + 64, guard, np.uint8)
    with pytest.raises(OutputSizeError):
        codec.encode_into(data, big[32 : 32 + len(encoded) - 1])
    assert (big == guard).all()
    exact = big[32 : 32 + len(encoded)]
    assert codec.encode_into(data, exact) == len(encoded) and exact.tobytes() == encoded
    assert (big[:32] == guard).all() and (big[32 + len(encoded) :] == guard).all()
    assert len(encoded) <= codec.max_encoded_size(len(data))


def test_input_without_a_buffer_is_a_type_error() -> None:
    """Objects without a buffer are a caller bug, not a codec verdict."""
    with pytest.raises(TypeError):
        Blosc().decode("0201")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Blosc().decode(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Blosc().decode_batch([FRAMES["lz4 shuffle"], None])  # type: ignore[list-item]


# -- headers that claim huge sizes -----------------------------------------------------------

GIB2 = 2**31
HUGE = GIB2 - 1 - HEADER_LEN  # the largest nbytes the validator lets through


def _huge_table_frame(compressor: int) -> bytes:
    """152 bytes whose block table is consistent with nbytes = 2 GiB - 17."""
    blocksize = 1 << 28
    nblocks = -(-HUGE // blocksize)
    table_end = HEADER_LEN + 4 * nblocks
    body = struct.pack(f"<{nblocks}I", *[table_end] * nblocks) + struct.pack("<i", 100) + bytes(100)
    flags = FLAG_SHUFFLE | compressor << 5
    return header(HUGE, HEADER_LEN + len(body), blocksize=blocksize, flags=flags) + body


HUGE_HEADERS = {
    "nbytes 2 GiB": header(GIB2, HEADER_LEN),
    "nbytes 2 GiB - 17, memcpyed": header(HUGE, HEADER_LEN, flags=FLAG_MEMCPYED),
    "nbytes 2 GiB - 17, compressed": header(HUGE, HEADER_LEN, blocksize=1 << 28),
    "nbytes 2 GiB - 16": header(HUGE + 1, HEADER_LEN, flags=FLAG_MEMCPYED),
    "nbytes 4 GiB - 1": header(0xFFFFFFFF, HEADER_LEN),
}


@pytest.mark.parametrize("name", list(HUGE_HEADERS))
def test_huge_headers_are_refused(name: str) -> None:
    assert_rejected(HUGE_HEADERS[name], CorruptInputError, room=16)
    with pytest.raises(CorruptInputError):
        _blosc.frame_info(HUGE_HEADERS[name])


@pytest.mark.parametrize("compressor", [0, 1, 3, 4])
def test_tiny_frame_claiming_2_gib_is_refused(compressor: int) -> None:
    """Its header and table are consistent; the expansion bound refuses it before c-blosc."""
    frame = _huge_table_frame(compressor)
    with pytest.raises(CorruptInputError, match="expands at most"):
        _blosc.frame_info(frame)
    assert_rejected(frame, CodecError, room=16)
    with pytest.raises(CorruptInputError):
        Blosc().decode(frame)


#: The expansion bound of each compressor code (blosclz, lz4, snappy, zlib, zstd).
EXPANSION = {0: 512, 1: 512, 2: 512, 3: 2048, 4: 65536}


def _padded_one_block_frame(nbytes: int, cbytes: int, compressor: int) -> bytes:
    """A frame with a consistent one-block table, padded to ``cbytes``."""
    body = struct.pack("<I", HEADER_LEN + 4) + bytes(cbytes - HEADER_LEN - 4)
    flags = FLAG_SHUFFLE | compressor << 5
    return header(nbytes, cbytes, blocksize=min(nbytes, 1 << 28), flags=flags) + body


@pytest.mark.parametrize("compressor", list(EXPANSION))
def test_expansion_bound_is_exact(compressor: int) -> None:
    """A claim up to the bound passes validation; one block more than it is refused."""
    cbytes, ratio = 1000, EXPANSION[compressor]
    largest = cbytes * ratio + ratio - 1  # nbytes // ratio == cbytes
    info = _blosc.frame_info(_padded_one_block_frame(largest, cbytes, compressor))
    assert info["nbytes"] == largest
    with pytest.raises(CorruptInputError, match="expands at most"):
        _blosc.frame_info(_padded_one_block_frame(largest + 1, cbytes, compressor))


@pytest.mark.parametrize("cname", COMPRESSORS)
@pytest.mark.parametrize("blocksize", [0, 1 << 16, 1 << 24])
def test_expansion_bound_admits_the_most_compressible_data(cname: str, blocksize: int) -> None:
    """Zeros at the highest level are as compressible as data gets; they still decode."""
    data = bytes(32 << 20)
    frame = Blosc(cname, 9, "shuffle", 8, blocksize).encode(data)
    assert Blosc().decode(frame) == data


PEAK_RSS_IMPORTS = """
import struct
from zarr_codec_shapes import CodecError
from zarr_codec_blosc import Blosc
"""
WARM_UP = 'Blosc().decode_batch([Blosc("lz4", 5, "shuffle", 4).encode(b"x" * 1000)] * 2)'


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="measures /proc peak RSS")
def test_huge_headers_allocate_nothing() -> None:
    frames = [*HUGE_HEADERS.values(), *(_huge_table_frame(c) for c in (0, 1, 3, 4))]
    setup = f"frames = {frames!r}"
    work = """
        for frame in frames:
            for call in (
                lambda: Blosc().decode(frame),
                lambda: Blosc().decode_into(frame, bytearray(16)),
                lambda: Blosc().decode_batch([frame] * 4, threads=4),
            ):
                try:
                    call()
                except CodecError:
                    pass
                else:
                    raise SystemExit("decoded a lying header")
    """
    growth = peak_rss_growth(setup, work, imports=PEAK_RSS_IMPORTS, warm_up=WARM_UP)
    assert growth < 30_000_000, f"peak RSS grew by {growth} bytes rejecting 2 GiB headers"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="measures /proc peak RSS")
def test_peak_rss_measurement_sees_a_real_allocation() -> None:
    """The control for the peak-memory test: a 100 MB decode is seen as 100 MB."""
    setup = 'frame = Blosc("lz4", 1, "shuffle", 4).encode(bytes(100_000_000))'
    work = "assert len(Blosc().decode(frame)) == 100_000_000"
    growth = peak_rss_growth(setup, work, imports=PEAK_RSS_IMPORTS, warm_up=WARM_UP)
    assert 90_000_000 < growth < 250_000_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses RLIMIT_AS")
def test_tiny_frame_claiming_2_gib_under_an_address_space_limit() -> None:
    """A tiny frame with a consistent block table claiming 2 GiB is refused by the expansion
    bound before anything is reserved, so even a 1 GiB address-space limit sees a CodecError."""
    script = textwrap.dedent(f"""
        import resource, struct
        from zarr_codec_shapes import CodecError
        from zarr_codec_blosc import Blosc
        Blosc().decode(Blosc("lz4", 5, "shuffle", 4).encode(b"x" * 1000))
        with open("/proc/self/status") as status:
            size = next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmSize:"))
        limit = size + (1 << 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            Blosc().decode({_huge_table_frame(4)!r})
        except CodecError:
            print("CodecError")
        except MemoryError:
            print("MemoryError")
    """)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "CodecError", result.stdout
