"""Batches: ``encode_batch``/``decode_batch`` (results as views of one new array) and
``decode_batch_into`` (into the caller's arrays), against chunk-by-chunk calls."""

from __future__ import annotations

import numpy as np
import pytest
from zarr_codec_cast_value import CastValue
from zarr_codec_shapes import ChunkSpec, ConfigurationError, OutOfRangeError, OutputSizeError
from zarr_codec_shapes.testing import check_batch_matches_single

CODEC = CastValue("int16", out_of_range="clamp")
SPEC = ChunkSpec((6, 5), "float32")


def _chunks(count: int = 9) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [(rng.normal(size=(6, 5)) * 20_000).astype(np.float32) for _ in range(count)]


@pytest.mark.parametrize("threads", [None, 1, 2, 5])
def test_batches_equal_chunk_by_chunk(threads: int | None) -> None:
    encoded, decoded = check_batch_matches_single(CODEC, _chunks(), SPEC, threads=threads)
    assert all(e.shape == (6, 5) and e.dtype == np.int16 for e in encoded)
    # The results share one allocation but not their elements.
    decoded[0][...] = 7
    assert not (decoded[1] == 7).all()


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_decode_batch_into_the_slots_of_one_array(threads: int | None) -> None:
    chunks = _chunks(4)
    encoded = CODEC.encode_batch(chunks, SPEC)
    whole = np.full((4, 6, 5), -1.0, dtype=np.float32)
    CODEC.decode_batch_into(encoded, SPEC, list(whole), threads)
    for i, chunk in enumerate(encoded):
        np.testing.assert_array_equal(whole[i], CODEC.decode(chunk, SPEC))


def test_decode_batch_into_checks_its_outputs() -> None:
    encoded = CODEC.encode_batch(_chunks(2), SPEC)
    with pytest.raises(ConfigurationError, match="outputs"):
        CODEC.decode_batch_into(encoded, SPEC, [np.empty((6, 5), np.float32)])
    with pytest.raises(ConfigurationError, match="float32"):
        CODEC.decode_batch_into(encoded, SPEC, [np.empty((6, 5), np.float64)] * 2)
    with pytest.raises(OutputSizeError):
        CODEC.decode_batch_into(encoded, SPEC, [np.empty((6, 4), np.float32)] * 2)
    strided = np.empty((6, 10), np.float32)[:, ::2]
    with pytest.raises(OutputSizeError):
        CODEC.decode_batch_into(encoded, SPEC, [strided, strided])


def test_a_refused_element_fails_the_batch() -> None:
    codec = CastValue("int8")  # no out_of_range: 1000 is an error
    chunks = [np.zeros(3, np.float32), np.array([1.0, 1000.0, 2.0], np.float32)]
    with pytest.raises(OutOfRangeError, match="1000"):
        codec.encode_batch(chunks, ChunkSpec((3,), "float32"), 2)


def test_casting_an_array_onto_itself() -> None:
    """Input and output sharing memory are read from a copy (same-type casts allow it)."""
    codec = CastValue("float32", out_of_range="clamp")
    spec = ChunkSpec((5,), "float32")
    data = np.array([1.5, -2.0, np.inf, 3e38, -0.0], np.float32)
    expected = codec.decode(codec.encode(data, spec), spec)
    codec.decode_into(data, data, spec)
    np.testing.assert_array_equal(data, expected)
    halves = [data[:2].reshape(1, 2), data[2:4].reshape(1, 2)]
    codec.decode_batch_into(halves, ChunkSpec((1, 2), "float32"), halves[::-1])  # swapped
    np.testing.assert_array_equal(data[:4], np.concatenate([expected[2:4], expected[:2]]))


def test_decode_into_a_bfloat16_array() -> None:
    """ml_dtypes arrays export no buffer: outputs are taken through numpy."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    codec = CastValue("float32")
    spec = ChunkSpec((3,), "bfloat16")
    encoded = np.array([1.0, -2.5, 3.0], np.float32)
    out = np.empty(3, dtype=ml_dtypes.bfloat16)
    codec.decode_into(encoded, out, spec)
    assert out.astype(np.float32).tolist() == [1.0, -2.5, 3.0]
    outs = [np.empty(3, dtype=ml_dtypes.bfloat16) for _ in range(2)]
    codec.decode_batch_into([encoded, encoded * 2], spec, outs)
    assert outs[1].astype(np.float32).tolist() == [2.0, -5.0, 6.0]
