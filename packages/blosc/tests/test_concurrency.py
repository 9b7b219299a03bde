"""Blosc from many threads, in batches, and after ``fork``.

Only c-blosc's context functions are used (no global state), batches run on scoped Rust threads
with the GIL released, and nothing is left running between calls: so threads must give the
single-threaded results, and a forked child must be able to keep working.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from typing import Any

import numpy as np
import pytest
from byte_samples import varied_chunks
from zarr_codec_blosc import Blosc
from zarr_codec_shapes import CodecError, ConfigurationError, CorruptInputError, OutputSizeError
from zarr_codec_shapes.testing import (
    check_batch_matches_single,
    check_errors_from_threads,
    check_threads_on_chunk,
    run_in_threads,
)

THREADS = [None, 1, 2, 4]
CODECS = [
    Blosc("lz4", 5, "shuffle", 4),
    Blosc("zstd", 3, "bitshuffle", 8),
    Blosc("blosclz", 9, "shuffle", 2, blocksize=4096),
    Blosc("zlib", 1, "noshuffle", 1),
    Blosc("lz4hc", 0, "shuffle", 4),
]


CHUNKS = varied_chunks()


# -- batches ---------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("codec", CODECS, ids=repr)
def test_batch_equals_per_chunk(codec: Blosc, threads: int | None) -> None:
    encoded, decoded = check_batch_matches_single(codec, CHUNKS, threads=threads)
    assert all(type(e) is bytes for e in encoded)
    assert decoded == CHUNKS


@pytest.mark.parametrize("threads", THREADS)
def test_batch_accepts_any_buffers(threads: int | None) -> None:
    codec = Blosc("zstd", 5, "shuffle", 4)
    inputs: list[Any] = [
        b"bytes",
        bytearray(b"bytearray" * 50),
        memoryview(b"memoryview" * 50),
        np.arange(500, dtype=np.int32),
        np.arange(1000, dtype=np.float64).reshape(100, 10)[::2, ::3],  # strided
        np.asfortranarray(np.arange(120, dtype=np.int16).reshape(12, 10)),
        np.float32(1.5),
    ]
    expected, _ = check_batch_matches_single(codec, inputs, threads=threads)
    assert codec.encode_batch(tuple(inputs), threads=threads) == expected
    as_buffers = [np.frombuffer(e, np.uint8) for e in expected]
    decoded = codec.decode_batch(as_buffers, threads=threads)
    # Contiguous arrays in memory order (numcodecs' rule), strided views in C order.
    assert decoded == [np.asarray(d).tobytes(order="A") for d in inputs]


def test_unresolved_batch_takes_the_typesize_of_the_first_chunk() -> None:
    """As documented: with typesize unset the whole batch uses the first chunk's item size
    (per-chunk ``encode`` would look at each chunk), so a batch should be of one data type."""
    codec = Blosc("lz4", 5)
    same = [np.arange(1000, dtype="<f8"), np.arange(50, dtype="<f8")]
    assert codec.encode_batch(same) == [codec.encode(a) for a in same]
    mixed = [np.arange(1000, dtype="<f8"), np.arange(1000, dtype="u1")]
    batch = codec.encode_batch(mixed)
    assert batch[1] == Blosc("lz4", 5, "shuffle", 8).encode(mixed[1])
    assert codec.decode_batch(batch) == [a.tobytes() for a in mixed]


@pytest.mark.parametrize("threads", THREADS)
def test_empty_batch(threads: int | None) -> None:
    assert Blosc().encode_batch([], threads=threads) == []
    assert Blosc().decode_batch([], threads=threads) == []


def test_more_threads_than_chunks() -> None:
    codec = Blosc("lz4", 1, "shuffle", 1)
    assert codec.encode_batch([b"a", b"b"], threads=64) == [codec.encode(b"a"), codec.encode(b"b")]
    assert codec.decode_batch([codec.encode(b"a")], threads=64) == [b"a"]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("position", [0, 31, 63])
def test_a_corrupt_chunk_fails_the_batch(threads: int | None, position: int) -> None:
    codec = Blosc("lz4", 5, "shuffle", 4)
    encoded = codec.encode_batch(CHUNKS)
    assert len(encoded[position]) >= 16
    for bad_chunk in (
        encoded[position][:-1],  # truncated
        b"\x02\x01\x29" + encoded[position][3:],  # reserved flag
        encoded[position][:4] + (1 << 31).to_bytes(4, "little") + encoded[position][8:],
        b"not blosc",
        b"",
    ):
        bad = list(encoded)
        bad[position] = bad_chunk
        with pytest.raises(CorruptInputError):
            codec.decode_batch(bad, threads=threads)
    # a chunk whose blocks are garbage: only c-blosc finds out, on a worker thread
    frame = encoded[1]
    assert len(frame) > 200
    garbage = frame[:-100] + bytes(100)
    bad = list(encoded)
    bad[position] = garbage
    try:
        codec.decode(garbage)
    except CodecError:
        with pytest.raises(CodecError):
            codec.decode_batch(bad, threads=threads)
    # The codec is still fine afterwards (no poisoned state).
    assert codec.decode_batch(encoded, threads=threads) == CHUNKS


@pytest.mark.parametrize("threads", THREADS)
def test_batch_decode_limit(threads: int | None) -> None:
    largest = max(len(c) for c in CHUNKS)
    encoded = Blosc("zstd", 5, "shuffle", 4).encode_batch(CHUNKS)
    assert Blosc(max_decoded_size=largest).decode_batch(encoded, threads=threads) == CHUNKS
    with pytest.raises(OutputSizeError):
        Blosc(max_decoded_size=largest - 1).decode_batch(encoded, threads=threads)


@pytest.mark.parametrize("threads", [0, -1])
def test_thread_counts_below_one_are_configuration_errors(threads: int) -> None:
    with pytest.raises(ConfigurationError, match="threads"):
        Blosc().decode_batch([Blosc("lz4", 5, "shuffle", 1).encode(b"a")], threads=threads)
    with pytest.raises(ConfigurationError, match="threads"):
        Blosc("lz4", 5, "shuffle", 1).encode_batch([b"a"], threads=threads)


@pytest.mark.parametrize("codec", CODECS, ids=repr)
@pytest.mark.parametrize("internal", [2, 3, 8])
def test_internal_threads_give_the_single_thread_frames(codec: Blosc, internal: int) -> None:
    """c-blosc's own threads split one chunk's blocks. Decoding gives the same data through
    decode and decode_into; an encoded frame has the same size and content but c-blosc stores
    its blocks in the order the threads finish them, so only one thread is reproducible."""
    data = b"".join(CHUNKS) * 4  # many blocks, so the threads really share the work
    threaded = Blosc(
        codec.cname, codec.clevel, codec.shuffle, codec.typesize, codec.blocksize, threads=internal
    )
    expected = codec.encode(data)
    frame = threaded.encode(data)
    assert len(frame) == len(expected)
    assert codec.decode(frame) == data
    assert threaded.decode(expected) == data
    out = bytearray(len(data))
    assert threaded.decode_into(expected, out) == len(data)
    assert out == data
    assert threaded != codec and threaded.threads == internal and codec.threads == 1


@pytest.mark.parametrize("threads", [0, -1, 1.5, True])
def test_internal_thread_count_must_be_positive(threads: Any) -> None:
    with pytest.raises(ConfigurationError, match="threads"):
        Blosc(threads=threads)


def test_batch_rejects_non_buffers_before_working() -> None:
    with pytest.raises(TypeError):
        Blosc().encode_batch([b"a", "not bytes"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        Blosc().decode_batch([Blosc("lz4", 5, "shuffle", 1).encode(b"a"), None])  # type: ignore[list-item]


# -- Python threads --------------------------------------------------------------------------


@pytest.mark.parametrize("codec", [*CODECS, Blosc("zstd", 5, "shuffle", 4)], ids=repr)
def test_calls_from_8_python_threads(codec: Blosc) -> None:
    """encode, decode and decode_into from 8 threads at once give one thread's results."""
    check_threads_on_chunk(codec, b"".join(CHUNKS[:16]), repeat=10)


def test_different_codecs_from_8_python_threads_at_once() -> None:
    """Threads using different parameters at the same time do not see each other's settings
    (c-blosc's global compressor/shuffle state is never used)."""
    data = b"".join(CHUNKS[:12])
    expected = {codec: codec.encode(data) for codec in CODECS}
    counter = iter(range(1 << 30))
    lock = threading.Lock()

    def work() -> bool:
        with lock:
            codec = CODECS[next(counter) % len(CODECS)]
        encoded = codec.encode(data)
        return encoded == expected[codec] and Blosc().decode(encoded) == data

    assert all(run_in_threads(work, threads=8, repeat=20))


def test_batches_from_8_python_threads() -> None:
    codec = Blosc("lz4", 5, "shuffle", 4)

    def work() -> bool:
        _, decoded = check_batch_matches_single(codec, CHUNKS, threads=4)
        return decoded == CHUNKS

    assert all(run_in_threads(work, repeat=2))


def test_errors_from_8_python_threads() -> None:
    """Errors raised concurrently are each the right class (no shared error state)."""
    codec = Blosc("lz4", 5, "shuffle", 4)
    good = codec.encode(CHUNKS[1])
    assert codec.decode(good) == CHUNKS[1]
    check_errors_from_threads(codec, good[:-1], good, CorruptInputError)


# -- fork ------------------------------------------------------------------------------------


def _os_threads() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_batches_reuse_their_helper_threads() -> None:
    """A batch's helper threads are started once and parked between batches (each ends after
    10 s idle): batches after the first add none."""
    codec = Blosc("zstd", 3, "shuffle", 4)
    codec.decode_batch(codec.encode_batch(CHUNKS, threads=8), threads=8)
    before = _os_threads()
    for _ in range(3):
        assert codec.decode_batch(codec.encode_batch(CHUNKS, threads=8), threads=8) == CHUNKS
    # At most as many: a thread of an earlier test (still being torn down by the kernel) may
    # leave /proc meanwhile, while helpers started per batch would add some.
    assert _os_threads() <= before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.skipif(sys.platform == "darwin", reason="fork without exec is unsafe on macOS")
def test_works_in_a_forked_child() -> None:
    """Use the codec (and its batch threads), fork, and use it again in the child."""
    codecs = [Blosc("lz4", 5, "shuffle", 4), Blosc("zstd", 3, "bitshuffle", 2)]
    data = b"".join(CHUNKS[:16])
    expected = [c.encode(data) for c in codecs]
    batches = [c.encode_batch(CHUNKS, threads=4) for c in codecs]
    for c, batch in zip(codecs, batches, strict=True):
        assert c.decode_batch(batch, threads=4) == CHUNKS

    with warnings.catch_warnings():
        # Python warns when the process has other OS threads: numpy's BLAS, blosc2 (when
        # imported by other test modules) and this codec's batch helpers are parked; the
        # child, which has none of them, starts helpers of its own.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        status = 1
        try:
            ok = all(c.encode(data) == e for c, e in zip(codecs, expected, strict=True))
            ok = ok and all(c.decode(e) == data for c, e in zip(codecs, expected, strict=True))
            ok = ok and all(
                c.encode_batch(CHUNKS, threads=4) == b for c, b in zip(codecs, batches, strict=True)
            )
            ok = ok and all(
                c.decode_batch(b, threads=4) == CHUNKS for c, b in zip(codecs, batches, strict=True)
            )
            try:
                codecs[0].decode(expected[0][:-1])
                ok = False
            except CorruptInputError:
                pass
            status = 0 if ok else 3
        except BaseException:
            status = 2
        finally:
            os._exit(status)

    deadline = time.monotonic() + 60
    while True:
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung (a lock held across fork?)")
        time.sleep(0.01)
    assert os.WIFEXITED(wait_status), f"child died: {wait_status!r}"
    assert os.WEXITSTATUS(wait_status) == 0, {2: "raised", 3: "wrong results"}.get(
        os.WEXITSTATUS(wait_status), "failed"
    )
    # The parent is unaffected.
    assert codecs[0].decode_batch(batches[0], threads=4) == CHUNKS
