"""What ``Gzip`` writes (reproducible RFC 1952 members) and what it reads (all Python reads)."""

from __future__ import annotations

import gzip
import struct
import subprocess
import sys
import zlib
from typing import Any

import numpy as np
import pytest
from byte_samples import random_bytes
from zarr_codec_gzip import Gzip
from zarr_codec_shapes import CodecError, CorruptInputError, OutputSizeError

LEVELS = range(10)

FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT = 0x01, 0x02, 0x04, 0x08, 0x10


def _text(size: int) -> bytes:
    words = np.random.default_rng(1).choice([b"zarr", b"chunk", b"codec", b"gzip", b" "], size)
    return b"".join(words.tolist())[:size]


SAMPLES: dict[str, bytes] = {
    "empty": b"",
    "one byte": b"\x00",
    "text": _text(20_000),
    "random": random_bytes(20_000),
    "zeros": bytes(100_000),
    "float field": np.sin(np.linspace(0, 40, 20_000)).astype("<f4").tobytes(),
}


def raw_deflate(data: bytes, level: int = 6) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def member(
    data: bytes,
    *,
    flags: int = 0,
    extra: bytes = b"",
    name: bytes = b"",
    comment: bytes = b"",
    mtime: int = 0,
    xfl: int = 0,
    os_byte: int = 255,
) -> bytes:
    """One gzip member built by hand, with whatever optional header fields ``flags`` names."""
    header = bytearray(b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", mtime))
    header += bytes([xfl, os_byte])
    if flags & FEXTRA:
        header += struct.pack("<H", len(extra)) + extra
    if flags & FNAME:
        header += name + b"\x00"
    if flags & FCOMMENT:
        header += comment + b"\x00"
    if flags & FHCRC:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return bytes(header) + raw_deflate(data) + trailer


# -- what we write ---------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_level_writes_valid_gzip(level: int, name: str) -> None:
    data = SAMPLES[name]
    encoded = Gzip(level).encode(data)
    assert gzip.decompress(encoded) == data
    assert zlib.decompress(encoded, wbits=31) == data
    assert Gzip(level).decode(encoded) == data
    # One member, nothing after its trailer.
    inflater = zlib.decompressobj(wbits=31)
    assert inflater.decompress(encoded) == data
    assert inflater.eof and inflater.unused_data == b""


@pytest.mark.parametrize("level", LEVELS)
def test_header_has_mtime_0_and_no_optional_fields(level: int) -> None:
    encoded = Gzip(level).encode(SAMPLES["text"])
    assert encoded[:3] == b"\x1f\x8b\x08"
    assert encoded[3] == 0, "FLG: no FTEXT, FHCRC, FEXTRA, FNAME or FCOMMENT"
    assert encoded[4:8] == b"\x00\x00\x00\x00", "MTIME must be 0"
    # The deflate data starts right after the 10 fixed bytes; the member ends with the trailer.
    inflater = zlib.decompressobj(wbits=-15)
    assert inflater.decompress(encoded[10:]) == SAMPLES["text"]
    data = SAMPLES["text"]
    assert inflater.unused_data == struct.pack("<II", zlib.crc32(data), len(data))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(SAMPLES))
def test_encoding_is_reproducible(level: int, name: str) -> None:
    data = SAMPLES[name]
    first = Gzip(level).encode(data)
    assert Gzip(level).encode(data) == first
    assert Gzip(level).encode(bytearray(data)) == first
    assert Gzip(level).encode(np.frombuffer(data, np.uint8)) == first
    assert Gzip(level).encode_batch([data, data], threads=2) == [first, first]


def test_encoding_is_reproducible_across_processes() -> None:
    script = (
        "import hashlib, numpy as np\n"
        "from zarr_codec_gzip import Gzip\n"
        "data = np.sin(np.linspace(0, 40, 50_000)).astype('<f8').tobytes() + bytes(5000)\n"
        "for level in range(10):\n"
        "    print(Gzip(level).encode(data).hex())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    data = np.sin(np.linspace(0, 40, 50_000)).astype("<f8").tobytes() + bytes(5000)
    expected = [Gzip(level).encode(data).hex() for level in LEVELS]
    assert result.stdout.split() == expected


def test_levels_give_different_sizes() -> None:
    data = SAMPLES["float field"] + SAMPLES["text"]
    sizes = [len(Gzip(level).encode(data)) for level in LEVELS]
    assert sizes[0] > len(data), "level 0 stores"
    assert max(sizes[1:]) < len(data)
    assert sizes[9] <= sizes[1]


@pytest.mark.parametrize("name", [n for n in SAMPLES if SAMPLES[n]])
def test_level_0_is_stored(name: str) -> None:
    data = SAMPLES[name]
    encoded = Gzip(0).encode(data)
    assert len(encoded) > len(data)
    assert gzip.decompress(encoded) == data
    # Every deflate block is a stored block (BTYPE 00); the first one starts at byte 10.
    assert (encoded[10] >> 1) & 0b11 == 0
    # The data appears verbatim in the stream.
    assert data[:1000] in encoded


def test_empty_input() -> None:
    for level in LEVELS:
        encoded = Gzip(level).encode(b"")
        assert encoded[:2] == b"\x1f\x8b" and len(encoded) >= 18
        assert gzip.decompress(encoded) == b""
        assert zlib.decompress(encoded, wbits=31) == b""
        assert Gzip(level).decode(encoded) == b""
    assert Gzip().decode(b"") == b""
    assert Gzip().decode(bytearray()) == b""
    assert Gzip().decode(np.empty(0, np.uint8)) == b""
    assert Gzip().decode_into(b"", bytearray(0)) == 0
    assert Gzip().decode_into(b"", bytearray(10)) == 0
    assert gzip.decompress(b"") == b""  # the behaviour we match


# -- what we read ----------------------------------------------------------------------------

HEADER_VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "FTEXT": {"flags": FTEXT},
    "FEXTRA": {"flags": FEXTRA, "extra": b"AB\x04\x00data"},
    "FEXTRA empty": {"flags": FEXTRA, "extra": b""},
    "FEXTRA 65535": {"flags": FEXTRA, "extra": bytes(range(256)) * 255 + bytes(255)},
    "FNAME": {"flags": FNAME, "name": b"chunk.bin"},
    "FNAME empty": {"flags": FNAME, "name": b""},
    "FNAME latin-1": {"flags": FNAME, "name": "dätä.bin".encode("latin-1")},
    "FCOMMENT": {"flags": FCOMMENT, "comment": b"written by hand"},
    "FHCRC": {"flags": FHCRC},
    "all": {
        "flags": FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT,
        "extra": b"XY\x00\x00",
        "name": b"a",
        "comment": b"b",
    },
    "mtime, xfl, os": {"mtime": 1_700_000_000, "xfl": 2, "os_byte": 3},
    "reserved flag bits": {"flags": 0xE0},
}


@pytest.mark.parametrize("variant", list(HEADER_VARIANTS))
def test_decode_accepts_optional_header_fields(variant: str) -> None:
    data = SAMPLES["text"]
    stream = member(data, **HEADER_VARIANTS[variant])
    assert gzip.decompress(stream) == data  # Python accepts it, so we must
    assert Gzip().decode(stream) == data
    out = bytearray(len(data))
    assert Gzip().decode_into(stream, out) == len(data) and out == data


def test_decode_ignores_a_wrong_header_crc_as_python_does() -> None:
    data = SAMPLES["text"]
    good = member(data, flags=FHCRC)
    bad = good[:10] + bytes([good[10] ^ 0xFF]) + good[11:]
    assert gzip.decompress(bad) == data
    assert Gzip().decode(bad) == data


def test_decode_python_gzip_output() -> None:
    data = SAMPLES["text"]
    for level in LEVELS:
        assert Gzip().decode(gzip.compress(data, level)) == data
        assert Gzip().decode(gzip.compress(data, level, mtime=0)) == data
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    assert Gzip().decode(compressor.compress(data) + compressor.flush()) == data


MULTI_MEMBER: dict[str, tuple[list[bytes], bytes]] = {
    "two members": ([b"first ", b"second"], b""),
    "ten members": ([bytes([i]) * (i * 100) for i in range(10)], b""),
    "empty members": ([b"", b"x", b"", b""], b""),
    # The last ISIZE equals the whole size: decode's single-member fast path sees it all.
    "empty first member": ([b"", b"data" * 100], b""),
    "last member is the largest": ([b"ab", b"data" * 100], b""),
    "padding after": ([b"abc"], bytes(1)),
    "long padding after": ([b"abc"], bytes(10_000)),
}


@pytest.mark.parametrize("case", list(MULTI_MEMBER))
def test_decode_concatenated_members(case: str) -> None:
    parts, padding = MULTI_MEMBER[case]
    stream = b"".join(Gzip(6).encode(p) for p in parts) + padding
    expected = b"".join(parts)
    assert gzip.decompress(stream) == expected
    assert Gzip().decode(stream) == expected
    out = bytearray(len(expected))
    assert Gzip().decode_into(stream, out) == len(expected) and out == expected
    assert Gzip().decode_batch([stream, stream]) == [expected, expected]


def test_decode_padding_between_members() -> None:
    a, b = SAMPLES["text"], SAMPLES["random"]
    stream = Gzip(1).encode(a) + bytes(7) + member(b, flags=FNAME, name=b"x") + bytes(3)
    assert gzip.decompress(stream) == a + b
    assert Gzip().decode(stream) == a + b


def test_decode_members_from_different_writers() -> None:
    parts = [SAMPLES["text"], SAMPLES["random"], b"", SAMPLES["zeros"]]
    stream = (
        Gzip(9).encode(parts[0])
        + gzip.compress(parts[1], 1)
        + member(parts[2], flags=FCOMMENT, comment=b"c")
        + Gzip(0).encode(parts[3])
    )
    assert gzip.decompress(stream) == b"".join(parts)
    assert Gzip().decode(stream) == b"".join(parts)


def test_decode_multi_member_larger_than_last_isize() -> None:
    """The last member's ISIZE is only a size hint: a small last member must still work."""
    big, small = SAMPLES["zeros"] * 5, b"x"
    stream = Gzip(5).encode(big) + Gzip(5).encode(small)
    assert Gzip().decode(stream) == big + small
    stream = Gzip(5).encode(small) + Gzip(5).encode(big)
    assert Gzip().decode(stream) == small + big


def test_stored_isize_is_checked_not_trusted() -> None:
    """The last ISIZE only sizes the first buffer: a wrong one is a CorruptInputError."""
    data = SAMPLES["text"]
    good = Gzip(5).encode(data)
    for isize in (0, 1, len(data) - 1, len(data) + 1, 0xFFFFFFFF):
        lying = good[:-4] + struct.pack("<I", isize)
        with pytest.raises(CorruptInputError, match="ISIZE"):
            Gzip().decode(lying)
        with pytest.raises(CodecError):
            Gzip().decode_into(lying, bytearray(len(data) + 10))


# -- buffers ---------------------------------------------------------------------------------


def _layouts() -> dict[str, Any]:
    base = np.arange(24 * 16, dtype="<f8").reshape(24, 16) * 1.5
    return {
        "strided": base[::3, 1::2],
        "fortran": np.asfortranarray(base),
        "transposed": base.T,
        "reversed": base[::-1],
        "reversed columns": base[:, ::-1],
        "big-endian": base.astype(">f8"),
        "big-endian strided": base.astype(">f8")[::2, ::3],
        "3-d sliced": np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6)[:, 1:4, ::2],
        "0-d": base[2, 3].reshape(()),
        "scalar": np.float32(2.5),
        "bool": base > 100,
        "uint8 strided": np.arange(1000, dtype=np.uint8)[::7],
        "empty strided": base[:, ::2][:0],
        "strided memoryview": memoryview(np.arange(100, dtype=np.uint8))[::3],
    }


@pytest.mark.parametrize("layout", list(_layouts()))
def test_encode_of_any_layout_equals_encode_of_its_stored_bytes(layout: str) -> None:
    """The bytes stored are numcodecs' choice: memory order for contiguous buffers (Fortran
    order included: Zarr v2 chunks of order "F" are stored so), C order for others."""
    data = _layouts()[layout]
    stored = np.asarray(data).tobytes(order="A")
    codec = Gzip(5)
    assert codec.encode(data) == codec.encode(stored)
    assert codec.decode(codec.encode(data)) == stored
    out = bytearray(codec.max_encoded_size(len(stored)))
    n = codec.encode_into(data, out)
    assert bytes(out[:n]) == codec.encode(stored)
    assert codec.encode_batch([data, stored]) == [codec.encode(stored)] * 2


def test_decode_accepts_any_buffer() -> None:
    data = SAMPLES["text"]
    encoded = Gzip(5).encode(data)
    for view in (
        encoded,
        bytearray(encoded),
        memoryview(encoded),
        np.frombuffer(encoded, np.uint8),
    ):
        assert Gzip().decode(view) == data
    strided = np.zeros(2 * len(encoded), np.uint8)
    strided[::2] = np.frombuffer(encoded, np.uint8)
    assert Gzip().decode(strided[::2]) == data


def test_decode_into_writes_exactly_and_returns_the_length() -> None:
    data = SAMPLES["text"]
    encoded = Gzip(5).encode(data)
    guard = 0xA5
    big = np.full(len(data) + 64, guard, np.uint8)
    out = big[32 : 32 + len(data) + 10]  # ten bytes more than needed
    assert Gzip().decode_into(encoded, out) == len(data)
    assert out[: len(data)].tobytes() == data
    assert (out[len(data) :] == guard).all(), "decode_into wrote past the decoded length"
    assert (big[:32] == guard).all() and (big[32 + len(data) + 10 :] == guard).all()


def test_decode_into_other_buffer_types() -> None:
    data = SAMPLES["float field"]
    encoded = Gzip(5).encode(data)
    as_float = np.empty(len(data) // 4, "<f4")
    assert Gzip().decode_into(encoded, as_float) == len(data)
    assert as_float.tobytes() == data
    as_view = memoryview(bytearray(len(data)))
    assert Gzip().decode_into(encoded, as_view) == len(data)
    assert as_view.tobytes() == data


def test_decode_into_rejects_unusable_outputs() -> None:
    encoded = Gzip(5).encode(b"abc")
    with pytest.raises(OutputSizeError):
        Gzip().decode_into(encoded, b"\x00" * 10)  # read-only
    with pytest.raises(OutputSizeError):
        Gzip().decode_into(encoded, np.zeros(20, np.uint8)[::2])  # not contiguous
    readonly = np.zeros(10, np.uint8)
    readonly.flags.writeable = False
    with pytest.raises(OutputSizeError):
        Gzip().decode_into(encoded, readonly)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("size", [0, 1, 100, 4096, 65_535, 65_536, 300_000])
def test_max_encoded_size_bounds_random_data(level: int, size: int) -> None:
    codec = Gzip(level)
    data = random_bytes(size, seed=size)
    bound = codec.max_encoded_size(size)
    encoded = codec.encode(data)
    assert len(encoded) <= bound
    out = bytearray(bound)
    n = codec.encode_into(data, out)
    assert bytes(out[:n]) == encoded


@pytest.mark.parametrize("level", LEVELS)
def test_max_encoded_size_bounds_compressible_and_tiny_data(level: int) -> None:
    codec = Gzip(level)
    for data in (*SAMPLES.values(), b"a", b"ab" * 3, bytes(range(256)) * 50):
        assert len(codec.encode(data)) <= codec.max_encoded_size(len(data))


def test_max_encoded_size_is_monotonic_and_sane() -> None:
    for level in LEVELS:
        codec = Gzip(level)
        sizes = [codec.max_encoded_size(n) for n in (0, 1, 10, 1000, 10**6, 10**9)]
        assert sizes == sorted(sizes)
        assert sizes[0] >= 18  # header + empty block + trailer
        assert sizes[4] >= 10**6


def test_encode_into_too_small_raises_and_stays_inside() -> None:
    data = random_bytes(10_000)
    encoded = Gzip(5).encode(data)
    guard = 0x5A
    big = np.full(len(encoded) + 64, guard, np.uint8)
    out = big[32 : 32 + len(encoded) - 1]
    with pytest.raises(OutputSizeError):
        Gzip(5).encode_into(data, out)
    assert (big[:32] == guard).all() and (big[32 + len(encoded) - 1 :] == guard).all()
    exact = np.zeros(len(encoded), np.uint8)
    assert Gzip(5).encode_into(data, exact) == len(encoded)
    assert exact.tobytes() == encoded
