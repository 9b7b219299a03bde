"""Our zfpy against numcodecs 0.17's ``ZFPY`` on zfpy 1.0.1: the same bytes for every mode,
number type and dimensionality, each decoding the other's streams to the same values, the same
configuration and ``repr``; streams of another chunk, cut short or with parameters numcodecs
never writes raise ``CorruptInputError``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_shapes import ChunkSpec, CodecError, CorruptInputError, DataType
from zarr_codec_zfpy import Zfpy
from zarr_codec_zfpy.numcodecs import ZFPY

numcodecs = pytest.importorskip("numcodecs")
theirs_module = pytest.importorskip("numcodecs.zfpy")
zfpy = pytest.importorskip("zfpy")

CONFIGS: list[dict[str, Any]] = [
    {},  # reversible
    {"mode": 4, "tolerance": 0.01},
    {"mode": 4, "tolerance": 0},
    {"mode": 2, "rate": 8},
    {"mode": 2, "rate": 3.5},
    {"mode": 3, "precision": 12},
    {"mode": 3, "precision": 0},
    {"mode": 2},  # rate -1: reversible
]
SHAPES = [(1,), (37,), (9, 13), (4, 4), (3, 5, 7), (2, 3, 5, 6)]


def _values(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    field = rng.standard_normal(shape).cumsum(axis=-1) * 10
    if np.dtype(dtype).kind == "i":
        return (field * 100).astype(dtype)
    return field.astype(dtype)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("dtype", ["<f4", "<f8", "<i4", "<i8"])
def test_bytes_and_values_are_numcodecs(dtype: str, config: dict[str, Any]) -> None:
    ours, theirs = ZFPY(**config), theirs_module.ZFPY(**config)
    assert ours.get_config() == theirs.get_config()
    assert repr(ours) == repr(theirs)
    for seed, shape in enumerate(SHAPES):
        values = _values(dtype, shape, seed)
        encoded = ours.encode(values)
        assert encoded == theirs.encode(values), shape
        want = theirs.decode(encoded)
        got = ours.decode(encoded)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
        out = np.empty_like(want)
        ours.decode(encoded, out=out)
        assert out.tobytes() == want.tobytes()


def test_refusals_are_numcodecs() -> None:
    values = _values("<f8", (4, 5), 0)
    for array in (np.asfortranarray(values), values[:, ::2]):
        with pytest.raises(ValueError, match="F order"):
            theirs_module.ZFPY().encode(array)
        with pytest.raises(ValueError, match="F order"):
            ZFPY().encode(array)
    with pytest.raises(TypeError, match="none numpy arrays"):
        ZFPY().encode(b"abc")
    with pytest.raises(TypeError, match="Unknown dtype"):
        ZFPY().encode(np.zeros(4, dtype="<u2"))  # zfpy's refusal of types zfp lacks
    for array in (np.zeros((2,) * 5), np.zeros((0, 4))):
        with pytest.raises(CodecError):
            ZFPY().encode(array)


def test_chunks_check_the_streams_type_and_shape() -> None:
    codec = Zfpy()
    values = _values("<f8", (8, 8), 1)
    encoded = codec.encode_array(values)
    spec = ChunkSpec((8, 8), DataType.FLOAT64)
    np.testing.assert_array_equal(codec.decode(encoded, spec), values)
    for wrong in (
        ChunkSpec((64,), DataType.FLOAT64),
        ChunkSpec((4, 16), DataType.FLOAT64),
        ChunkSpec((8, 8), DataType.INT64),
    ):
        with pytest.raises(CorruptInputError):
            codec.decode(encoded, wrong)
    for damaged in (b"", encoded[:5], encoded[:16], encoded[: len(encoded) // 2]):
        with pytest.raises(CorruptInputError):
            codec.decode(damaged, spec)


def test_a_zero_dimensional_chunk_is_one_value() -> None:
    """zfp holds no array of no dimensions (zfpy refuses one): ours stores a zero-dimensional
    chunk as one value in one dimension, and reads it back into the chunk."""
    codec = Zfpy()
    encoded = codec.encode_array(np.array(2.5))
    assert encoded == codec.encode_array(np.array([2.5]))
    assert codec.decode(encoded, ChunkSpec((), DataType.FLOAT64)) == 2.5
