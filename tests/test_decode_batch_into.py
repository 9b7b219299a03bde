"""``decode_batch_into`` of the bytes-codec wheels (gzip, blosc, zstd, crc32c): a batch of
chunks decoded straight into caller buffers by one call, in parallel with the GIL released
(the shared glue ``zarr_codec_python::decode_batch_into``), exactly as ``decode_into`` chunk
by chunk.

The outputs are written at the same time, so outputs that overlap one another or a chunk are
refused before anything is decoded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_blosc import Blosc
from zarr_codec_crc32c import Crc32c
from zarr_codec_gzip import Gzip
from zarr_codec_shapes import ConfigurationError, CorruptInputError, OutputSizeError
from zarr_codec_zstd import Zstd

CODECS = {
    "gzip": lambda: Gzip(1),
    "blosc-lz4-shuffle": lambda: Blosc("lz4", 5, "shuffle", typesize=4),
    "blosc-zstd-bitshuffle": lambda: Blosc("zstd", 3, "bitshuffle", typesize=8),
    "zstd": lambda: Zstd(3, checksum=True),
    "crc32c": lambda: Crc32c(),
}


@pytest.fixture(params=list(CODECS))
def codec(request: pytest.FixtureRequest) -> Any:
    return CODECS[request.param]()


def _chunks(count: int, size: int) -> list[np.ndarray[Any, Any]]:
    rng = np.random.default_rng(size)
    return [
        (np.cumsum(rng.normal(size=size // 4)) + i).astype(np.float32).view(np.uint8)
        for i in range(count)
    ]


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_equals_decode_into_chunk_by_chunk(codec: Any, threads: int | None) -> None:
    chunks = _chunks(9, 40_000)
    encoded = [codec.encode(c) for c in chunks]
    output = np.zeros((9, 40_000), dtype=np.uint8)  # the outputs: rows of one array
    written = codec.decode_batch_into(encoded, list(output), threads)
    assert written == [40_000] * 9
    for row, chunk, data in zip(output, chunks, encoded, strict=True):
        one = np.zeros(40_000, dtype=np.uint8)
        assert codec.decode_into(data, one) == 40_000
        assert np.array_equal(row, chunk) and np.array_equal(one, chunk)


def test_outputs_larger_than_the_chunk_get_its_length(codec: Any) -> None:
    encoded = [codec.encode(c) for c in _chunks(2, 4_000)]
    outs = [bytearray(5_000), bytearray(4_000)]
    assert codec.decode_batch_into(encoded, outs) == [4_000, 4_000]


def test_empty_batch(codec: Any) -> None:
    assert codec.decode_batch_into([], []) == []


def test_counts_must_match(codec: Any) -> None:
    encoded = [codec.encode(c) for c in _chunks(2, 1_000)]
    with pytest.raises(ConfigurationError, match="2 chunks but 1 outputs"):
        codec.decode_batch_into(encoded, [bytearray(1_000)])


def test_overlapping_outputs_are_refused_before_decoding(codec: Any) -> None:
    encoded = [codec.encode(c) for c in _chunks(2, 1_000)]
    memory = np.full(1_500, 7, dtype=np.uint8)
    with pytest.raises(ConfigurationError, match="overlaps"):
        codec.decode_batch_into(encoded, [memory[:1_000], memory[500:]])
    assert (memory == 7).all()  # nothing was written


def test_an_output_over_a_chunk_is_refused(codec: Any) -> None:
    data = bytearray(codec.encode(_chunks(1, 1_000)[0]))
    with pytest.raises(ConfigurationError, match="overlaps"):
        codec.decode_batch_into([data], [data])


def test_a_small_output_or_a_corrupt_chunk_fails_the_batch(codec: Any) -> None:
    encoded = [codec.encode(c) for c in _chunks(3, 2_000)]
    with pytest.raises(OutputSizeError):
        codec.decode_batch_into(encoded, [bytearray(2_000), bytearray(100), bytearray(2_000)])
    broken = [*encoded[:2], encoded[2][: len(encoded[2]) // 2]]
    with pytest.raises(CorruptInputError):
        codec.decode_batch_into(broken, [bytearray(2_000) for _ in range(3)])


def test_read_only_outputs_are_refused(codec: Any) -> None:
    encoded = [codec.encode(c) for c in _chunks(1, 1_000)]
    with pytest.raises(OutputSizeError, match="read-only"):
        codec.decode_batch_into(encoded, [bytes(1_000)])
