"""Our pcodec against numcodecs 0.17's ``PCodec`` on the ``pcodec`` 1.1 package: the same bytes
for every number type and configuration, each decoding the other's, the same configuration,
and refusals where numcodecs refuses; corrupt or mismatched files raise ``CorruptInputError``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_pcodec import PCodec as OurCodec
from zarr_codec_pcodec.numcodecs import PCodec
from zarr_codec_shapes import ChunkSpec, CodecError, CorruptInputError, DataType

numcodecs = pytest.importorskip("numcodecs")
theirs_module = pytest.importorskip("numcodecs.pcodec")

DTYPES = ["<u2", "<u4", "<u8", "<i2", "<i4", "<i8", "<f2", "<f4", "<f8"]
CONFIGS: list[dict[str, Any]] = [
    {},
    {"level": 0},
    {"level": 12},
    {"mode_spec": "classic"},
    {"delta_spec": "no_op"},
    {"delta_spec": "try_lookback"},
    {"delta_spec": "try_consecutive", "delta_encoding_order": 2},
    {"delta_encoding_order": 1},  # numcodecs' older form: an order with "auto"
    {"equal_pages_up_to": 1000},
]


def _values(dtype: str, n: int, seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    kind = np.dtype(dtype).kind
    if n == 0:
        return np.zeros(0, dtype=dtype)
    if kind == "f":
        values = (rng.standard_normal(n).cumsum() * 10).astype(dtype)
        if n > 10:
            values[3], values[7] = np.nan, -np.inf
            values[9] = np.finfo(dtype).max
        return values
    info = np.iinfo(dtype)
    walk = rng.integers(-50, 50, size=n).cumsum()
    values = (walk - walk.min() + (0 if kind == "u" else info.min // 2)).astype(dtype)
    if n > 4:
        values[:2] = [info.min, info.max]
    return values


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_bytes_and_values_are_numcodecs(dtype: str, config: dict[str, Any]) -> None:
    ours, theirs = PCodec(**config), theirs_module.PCodec(**config)
    assert ours.get_config() == theirs.get_config()
    for n, seed in ((0, 0), (1, 1), (257, 2), (5000, 3)):
        values = _values(dtype, n, seed)
        encoded = ours.encode(values)
        expected = theirs.encode(values)
        assert encoded == expected, (n, seed)
        if n == 0:
            continue
        decoded = ours.decode(expected)
        assert decoded.dtype == values.dtype and decoded.tobytes() == values.tobytes()
        out = np.empty_like(values)
        assert ours.decode(expected, out=out) is not None
        assert out.tobytes() == values.tobytes()
        assert theirs.decode(encoded).tobytes() == values.tobytes()


def test_multidimensional_and_fortran_arrays_encode_their_memory() -> None:
    values = _values("<f8", 600, 5).reshape(20, 30)
    for array in (values, np.asfortranarray(values)):
        assert PCodec().encode(array) == theirs_module.PCodec().encode(array)


@pytest.mark.parametrize(
    "config",
    [
        {"level": 13},
        {"mode_spec": "dict"},
        {"delta_spec": "no_op", "delta_encoding_order": 1},
        {"paging_spec": "exact"},
    ],
    ids=str,
)
def test_configurations_numcodecs_refuses_are_refused_when_encoding(
    config: dict[str, Any],
) -> None:
    values = _values("<i4", 100, 6)
    with pytest.raises((ValueError, RuntimeError)):
        theirs_module.PCodec(**config).encode(values)
    with pytest.raises(CodecError, match="pcodec"):
        PCodec(**config).encode(values)


def test_types_pcodec_lacks_are_refused() -> None:
    for dtype in ("<u1", "|b1", "<c8"):
        with pytest.raises(CodecError):
            PCodec().encode(np.zeros(4, dtype=dtype))


def test_chunks_check_type_and_count() -> None:
    codec = OurCodec()
    values = _values("<i4", 1000, 7)
    encoded = codec.encode_array(values)
    spec = ChunkSpec((1000,), DataType.INT32)
    np.testing.assert_array_equal(codec.decode(encoded, spec), values)
    for wrong in (ChunkSpec((1000,), DataType.UINT32), ChunkSpec((999,), DataType.INT32)):
        with pytest.raises(CorruptInputError):
            codec.decode(encoded, wrong)
    # pco keeps no checksum: what it can tell is a file cut short.
    for damaged in (encoded[:-3], encoded[:10], b"", encoded[:-1]):
        with pytest.raises(CorruptInputError):
            codec.decode(damaged, spec)
    assert codec.to_json(2) == {"id": "pcodec", **theirs_module.PCodec().get_config()} | {
        "id": "pcodec"
    }
