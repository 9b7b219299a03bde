"""Differential fuzzing against numcodecs: mutated gzip streams, blosc frames and zstd frames.

Seeded and bounded (a few thousand inputs per codec, a few seconds). Each input is a real
chunk's encoding with random damage: bits flipped, bytes overwritten, cut short, junk
appended. Whatever numcodecs decodes, ours must decode to the same bytes; whatever it
refuses, ours must refuse with a ``CodecError`` (never another exception, never a crash, never
a decoded chunk). The one listed exception: blosc frames of zero bytes, which numcodecs cannot
read back and ours reads as the empty chunk they are.

numcodecs' blosc is c-blosc, which trusts the frame's own size field: blosc inputs keep that
field equal to the buffer's length, so numcodecs never reads past the buffer it is given.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numcodecs import GZip as NumcodecsGZip
from numcodecs import Zstd as NumcodecsZstd
from numcodecs.blosc import Blosc as NumcodecsBlosc
from zarr_codec_blosc import Blosc
from zarr_codec_gzip import Gzip
from zarr_codec_shapes import CodecError
from zarr_codec_zstd import Zstd

CASES = 3000


def _chunks(rng: np.random.Generator) -> list[bytes]:
    smooth = np.cumsum(rng.normal(size=4096)).astype("<f4").tobytes()
    counts = rng.poisson(5, 3000).astype("<u2").tobytes()
    return [smooth, counts, bytes(500), rng.integers(0, 256, 700, dtype=np.uint8).tobytes(), b""]


def _damage(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if out and kind < 0.4:
            i = rng.randrange(len(out) * 8)
            out[i // 8] ^= 1 << (i % 8)
        elif out and kind < 0.6:
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif out and kind < 0.8:
            del out[rng.randrange(len(out)) :]
        else:
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(out)


def _compare(
    data: bytes,
    reference: Callable[[bytes], Any],
    ours: Callable[[bytes], Any],
    what: str,
    listed: Callable[[bytes], bool] = lambda data: False,
) -> bool:
    """True when the reference decoded ``data``. Where it refuses, ours must refuse with a
    ``CodecError``, unless ``listed(data)``: a known, documented difference."""
    try:
        expected = bytes(memoryview(reference(data)).cast("B"))
    except Exception:  # numcodecs refused it: ours must refuse it with a CodecError
        try:
            ours(data)
        except CodecError:
            return False
        except Exception as err:  # any other exception is the failure
            pytest.fail(f"{what} {data.hex()}: {type(err).__name__}: {err}")
        if not listed(data):
            pytest.fail(f"{what} {data.hex()}: numcodecs refuses it, ours decoded it")
        return False
    try:
        got = bytes(memoryview(ours(data)).cast("B"))
    except Exception as err:
        pytest.fail(f"{what} {data.hex()}: numcodecs decodes it, ours raised {err!r}")
    assert got == expected, f"{what} {data.hex()}: different bytes"
    return True


def test_gzip_against_numcodecs() -> None:
    rng = random.Random(2024)
    chunks = _chunks(np.random.default_rng(7))
    streams = [Gzip(level).encode(c) for c in chunks for level in (1, 6, 9)]
    reference, ours = NumcodecsGZip(), Gzip()
    decoded = 0
    for i in range(CASES):
        data = _damage(rng, rng.choice(streams))
        decoded += _compare(data, reference.decode, ours.decode, f"gzip case {i}")
    assert 0 < decoded < CASES  # both outcomes were exercised


def _zero_length(frame: bytes) -> bool:
    """A frame of zero bytes (nbytes 0): c-blosc returns 0 bytes, which numcodecs takes for an
    error; ours reads it as the empty chunk it is (``test_blosc_interop.test_empty_chunks``)."""
    return struct.unpack_from("<I", frame, 4)[0] == 0


def test_blosc_against_numcodecs() -> None:
    rng = random.Random(2025)
    chunks = _chunks(np.random.default_rng(8))
    frames = [
        Blosc(cname, clevel, shuffle, 4).encode(c)
        for c in chunks
        for cname, clevel, shuffle in (
            ("lz4", 5, "shuffle"),
            ("zstd", 3, "bitshuffle"),
            ("blosclz", 5, "noshuffle"),
            ("lz4", 0, "noshuffle"),  # a plain-copy frame
        )
    ]
    reference, ours = NumcodecsBlosc(), Blosc()
    decoded = 0
    for i in range(CASES):
        data = bytearray(_damage(rng, rng.choice(frames)))
        if len(data) < 16:
            continue
        data[12:16] = struct.pack("<I", len(data))  # c-blosc reads as far as this says
        decoded += _compare(
            bytes(data), reference.decode, ours.decode, f"blosc case {i}", _zero_length
        )
    assert 0 < decoded < CASES


def test_zstd_against_numcodecs() -> None:
    """numcodecs checks a frame's content size and checksum as libzstd does; frames from
    numcodecs and from a streaming writer (no content size) alike."""
    import zstandard

    rng = random.Random(2026)
    chunks = _chunks(np.random.default_rng(9))
    frames = [
        Zstd(level, checksum).encode(c)
        for c in chunks
        for level, checksum in ((1, False), (3, True), (19, True))
    ]
    stream = zstandard.ZstdCompressor(level=3, write_content_size=False, write_checksum=True)
    frames += [stream.compress(c) for c in chunks if c]
    reference, ours = NumcodecsZstd(), Zstd()
    decoded = 0
    for i in range(CASES):
        data = _damage(rng, rng.choice(frames))
        decoded += _compare(data, reference.decode, ours.decode, f"zstd case {i}")
    assert 0 < decoded < CASES
