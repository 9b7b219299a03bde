"""encode_batch / decode_batch (Rust threads, GIL released) and plain calls from Python threads."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from zarr_codec_gzip import Gzip
from zarr_codec_shapes import CodecError, ConfigurationError, CorruptInputError, OutputSizeError

THREADS = [None, 1, 2, 4]


def _chunks(count: int = 64) -> list[bytes]:
    """Chunks of different sizes and kinds (empty, random, smooth floats, repeats)."""
    rng = np.random.default_rng(3)
    chunks: list[bytes] = []
    for i in range(count):
        size = int(rng.integers(0, 40_000)) if i % 8 else 0
        kind = i % 4
        if kind == 0:
            chunks.append(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
        elif kind == 1:
            chunks.append(np.sin(np.arange(size // 4) / (i + 1)).astype("<f4").tobytes())
        elif kind == 2:
            chunks.append(bytes([i]) * size)
        else:
            chunks.append((b"chunk %d " % i) * (size // 10))
    return chunks


CHUNKS = _chunks()


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("level", [0, 1, 5, 9])
def test_batch_equals_per_chunk(level: int, threads: int | None) -> None:
    codec = Gzip(level)
    expected = [codec.encode(c) for c in CHUNKS]
    encoded = codec.encode_batch(CHUNKS, threads=threads)
    assert encoded == expected
    assert all(type(e) is bytes for e in encoded)
    decoded = codec.decode_batch(encoded, threads=threads)
    assert decoded == [codec.decode(e) for e in encoded] == CHUNKS


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
    expected = [codec.encode(d) for d in inputs]
    assert codec.encode_batch(inputs, threads=threads) == expected
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


def _run_in_threads(work: Callable[[], object], count: int = 8, repeat: int = 10) -> list[object]:
    barrier = threading.Barrier(count)

    def task() -> list[object]:
        barrier.wait()
        return [work() for _ in range(repeat)]

    with ThreadPoolExecutor(count) as pool:
        futures = [pool.submit(task) for _ in range(count)]
        return [r for f in futures for r in f.result()]


@pytest.mark.parametrize("level", [0, 6, 9])
def test_decode_from_8_python_threads(level: int) -> None:
    codec = Gzip(level)
    data = b"".join(CHUNKS[:16])
    encoded = codec.encode(data)
    results = _run_in_threads(lambda: codec.decode(encoded))
    assert len(results) == 80 and all(r == data for r in results)


def test_encode_from_8_python_threads() -> None:
    codec = Gzip(7)
    data = b"".join(CHUNKS[:16])
    expected = codec.encode(data)
    results = _run_in_threads(lambda: codec.encode(data))
    assert all(r == expected for r in results)


def test_decode_into_from_8_python_threads() -> None:
    codec = Gzip(5)
    data = b"".join(CHUNKS[:8])
    encoded = codec.encode(data)

    def work() -> bytes:
        out = np.empty(len(data), np.uint8)
        assert codec.decode_into(encoded, out) == len(data)
        return out.tobytes()

    assert all(r == data for r in _run_in_threads(work))


def test_batches_from_8_python_threads() -> None:
    codec = Gzip(3)
    expected = codec.encode_batch(CHUNKS, threads=1)

    def work() -> bool:
        encoded = codec.encode_batch(CHUNKS, threads=4)
        return encoded == expected and codec.decode_batch(encoded, threads=4) == CHUNKS

    assert all(_run_in_threads(work, repeat=2))


def test_errors_from_8_python_threads() -> None:
    """Errors raised concurrently are each the right class (no shared error state)."""
    codec = Gzip(5)
    good = codec.encode(CHUNKS[1])
    bad = good[:-1]

    def work() -> tuple[bool, bool]:
        try:
            codec.decode(bad)
        except CorruptInputError:
            failed = True
        except CodecError:
            failed = False
        else:
            failed = False
        return failed, codec.decode(good) == CHUNKS[1]

    assert all(r == (True, True) for r in _run_in_threads(work))


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
