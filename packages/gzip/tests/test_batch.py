"""encode_batch / decode_batch (Rust threads, GIL released) and plain calls from Python threads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from byte_samples import varied_chunks
from zarr_codec_gzip import Gzip
from zarr_codec_shapes import ConfigurationError, CorruptInputError, OutputSizeError
from zarr_codec_shapes.testing import (
    check_batch_matches_single,
    check_errors_from_threads,
    check_threads_on_chunk,
    run_in_threads,
)

THREADS = [None, 1, 2, 4]


CHUNKS = varied_chunks()


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("level", [0, 1, 5, 9])
def test_batch_equals_per_chunk(level: int, threads: int | None) -> None:
    encoded, decoded = check_batch_matches_single(Gzip(level), CHUNKS, threads=threads)
    assert all(type(e) is bytes for e in encoded)
    assert decoded == CHUNKS


@pytest.mark.parametrize("threads", THREADS)
def test_batch_accepts_any_buffers(threads: int | None) -> None:
    codec = Gzip(5)
    inputs: list[Any] = [
        b"bytes",
        bytearray(b"bytearray"),
        memoryview(b"memoryview"),
        np.arange(50, dtype=np.int32),
        np.arange(100, dtype=np.float64).reshape(10, 10)[::2, ::3],  # strided
        np.asfortranarray(np.arange(12, dtype=np.int16).reshape(3, 4)),
        np.float32(1.5),
    ]
    expected, _ = check_batch_matches_single(codec, inputs, threads=threads)
    assert codec.encode_batch(tuple(inputs), threads=threads) == expected
    as_buffers = [np.frombuffer(e, np.uint8) for e in expected]
    decoded = codec.decode_batch(as_buffers, threads=threads)
    # Contiguous arrays in memory order (numcodecs' rule), strided views in C order.
    assert decoded == [np.asarray(d).tobytes(order="A") for d in inputs]


@pytest.mark.parametrize("threads", THREADS)
def test_empty_batch(threads: int | None) -> None:
    assert Gzip().encode_batch([], threads=threads) == []
    assert Gzip().decode_batch([], threads=threads) == []


def test_more_threads_than_chunks() -> None:
    codec = Gzip(1)
    assert codec.encode_batch([b"a", b"b"], threads=64) == [codec.encode(b"a"), codec.encode(b"b")]
    assert codec.decode_batch([codec.encode(b"a")], threads=64) == [b"a"]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("position", [0, 31, 63])
def test_a_corrupt_chunk_fails_the_batch(threads: int | None, position: int) -> None:
    codec = Gzip(5)
    encoded = codec.encode_batch(CHUNKS)
    bad = list(encoded)
    bad[position] = bad[position][:-5]  # truncated trailer
    with pytest.raises(CorruptInputError):
        codec.decode_batch(bad, threads=threads)
    bad[position] = b"\x1f\x8b\x09" + encoded[position][3:]  # unknown method
    with pytest.raises(CorruptInputError):
        codec.decode_batch(bad, threads=threads)
    bad[position] = b"not gzip"
    with pytest.raises(CorruptInputError):
        codec.decode_batch(bad, threads=threads)
    # The codec is still fine afterwards (no poisoned thread-local state).
    assert codec.decode_batch(encoded, threads=threads) == CHUNKS


@pytest.mark.parametrize("threads", THREADS)
def test_batch_decode_limit(threads: int | None) -> None:
    largest = max(len(c) for c in CHUNKS)
    encoded = Gzip(5).encode_batch(CHUNKS)
    assert Gzip(max_decoded_size=largest).decode_batch(encoded, threads=threads) == CHUNKS
    with pytest.raises(OutputSizeError):
        Gzip(max_decoded_size=largest - 1).decode_batch(encoded, threads=threads)


def test_batch_rejects_non_buffers_before_working() -> None:
    with pytest.raises(TypeError):
        Gzip().encode_batch([b"a", "not bytes"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        Gzip().decode_batch([Gzip().encode(b"a"), None])  # type: ignore[list-item]


@pytest.mark.parametrize("level", [0, 5, 6, 7, 9])
def test_calls_from_8_python_threads(level: int) -> None:
    """encode, decode and decode_into from 8 threads at once give one thread's results."""
    check_threads_on_chunk(Gzip(level), b"".join(CHUNKS[:16]), repeat=10)


def test_batches_from_8_python_threads() -> None:
    codec = Gzip(3)

    def work() -> bool:
        _, decoded = check_batch_matches_single(codec, CHUNKS, threads=4)
        return decoded == CHUNKS

    assert all(run_in_threads(work, repeat=2))


def test_errors_from_8_python_threads() -> None:
    """Errors raised concurrently are each the right class (no shared error state)."""
    good = Gzip(5).encode(CHUNKS[1])
    assert Gzip(5).decode(good) == CHUNKS[1]
    check_errors_from_threads(Gzip(5), good[:-1], good, CorruptInputError)


@pytest.mark.parametrize("threads", [0, -1])
def test_thread_counts_below_one_are_configuration_errors(threads: int) -> None:
    with pytest.raises(ConfigurationError, match="threads"):
        Gzip().decode_batch([Gzip().encode(b"a")], threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_handles_streams_whose_trailer_misstates_the_total(threads: int) -> None:
    """Multi-member and padded streams (trailer != total size) and empty input, mixed."""
    import gzip

    plain = [b"single" * 100, b"ab" * 50 + b"cd" * 70, b"padded" * 9, b"", b"x"]
    streams = [
        Gzip().encode(plain[0]),
        gzip.compress(b"ab" * 50) + gzip.compress(b"cd" * 70),
        Gzip().encode(plain[2]) + bytes(5),
        b"",
        Gzip(9).encode(b"x"),
    ]
    assert Gzip().decode_batch(streams, threads=threads) == plain
    with pytest.raises(OutputSizeError):
        Gzip(max_decoded_size=100).decode_batch(streams, threads=threads)
