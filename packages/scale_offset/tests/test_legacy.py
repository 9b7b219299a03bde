"""``FixedScaleOffset`` (numcodecs' legacy codec) against numcodecs itself, byte for byte."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_shapes import ConfigurationError, OutOfRangeError, UnsupportedError

numcodecs = pytest.importorskip("numcodecs")
pytest.importorskip("zarr_codec_cast_value")

from zarr_codec_scale_offset.legacy import FixedScaleOffset  # noqa: E402

CASES: list[tuple[str, str, Any, Any]] = [
    ("<f4", "|u1", 1000, 10),
    ("<f4", "<i2", 10.5, 0.1),
    ("<f8", "<i2", -3.25, 100),
    ("<f8", "<u2", 0, 1000.0),
    ("<f8", "<i4", 1e6, 7.5),
    ("<f8", "<f4", 1.5, 1024),
    ("<f4", "|i1", 0, 3),
    ("<f8", "<i8", 2.0, 1e9),
    # Parameters the data type cannot hold exactly, and every float width.
    ("<f8", "<i4", 1000.1, 10.3),
    ("<f4", "<u2", 999.9, 3.3),
    ("<f2", "|u1", 1000, 0.25),
    ("<f2", "<f2", 10, 2),
    ("<f4", "<f4", 0.5, 100),
    ("<f4", "<f8", 1000, 1e3),
    ("<f8", "<f8", -1.5, 1e-3),
    ("<f8", "<u8", 0, 1e12),
]


def _data(dtype: str, seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    values = np.concatenate(
        [rng.normal(1000, 30, 500), rng.uniform(-50, 2000, 500), [0.0, -0.0, 0.5, 1.5, 2.5]]
    )
    return values.astype(dtype)


@pytest.mark.parametrize(("dtype", "astype", "offset", "scale"), CASES)
def test_encode_and_decode_match_numcodecs_byte_for_byte(
    dtype: str, astype: str, offset: Any, scale: Any
) -> None:
    theirs = numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)
    ours = FixedScaleOffset(offset, scale, dtype, astype)
    data = _data(dtype, 1)
    with np.errstate(all="ignore"):
        expected = theirs.encode(data)
    encoded = ours.encode(data)
    assert encoded.dtype == np.dtype(astype)
    assert encoded.tobytes() == np.asarray(expected).tobytes()  # wrap-around included
    assert ours.decode(encoded).tobytes() == np.asarray(theirs.decode(expected)).tobytes()


@pytest.mark.parametrize("astype", ["<f2", "<f4", "<f8"])
@pytest.mark.parametrize("dtype", ["<f4", "<f8"])
def test_nan_infinity_and_overflow_with_a_float_astype_match_numcodecs(
    dtype: str, astype: str
) -> None:
    """NaN and ±Infinity pass through a float ``astype``; overflow gives ±Infinity."""
    theirs = numcodecs.FixedScaleOffset(offset=1, scale=1e3, dtype=dtype, astype=astype)
    ours = FixedScaleOffset(1, 1e3, dtype, astype)
    data = np.array([np.nan, np.inf, -np.inf, 1e30, -1e9, 1.0, 2.5, -0.0], dtype=dtype)
    with np.errstate(all="ignore"):
        expected = theirs.encode(data)
        decoded = theirs.decode(expected)
    encoded = ours.encode(data)
    np.testing.assert_array_equal(encoded, expected)
    assert encoded.dtype == expected.dtype
    np.testing.assert_array_equal(ours.decode(expected), decoded)


def test_json_is_numcodecs_own() -> None:
    theirs = numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f4", astype="|u1")
    ours = FixedScaleOffset.from_json(theirs.get_config(), 2)
    assert ours.to_json(2) == theirs.get_config()
    v3 = ours.to_json(3)
    assert v3["name"] == "numcodecs.fixedscaleoffset"
    assert FixedScaleOffset.from_json(v3, 3) == ours
    with pytest.raises(ConfigurationError):
        FixedScaleOffset.from_json({"id": "fixedscaleoffset", "offset": 1}, 2)


INTEGER_DTYPES = ["|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"]
ASTYPES = [*INTEGER_DTYPES, "<f2", "<f4", "<f8"]


def _integers(dtype: str, seed: int) -> np.ndarray[Any, Any]:
    """The whole range of ``dtype`` (so arithmetic wraps) and small values around zero."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    values = rng.integers(info.min, info.max, 400, dtype=dtype, endpoint=True)
    values[:100] = rng.integers(-60, 60, 100).astype(dtype)
    values[100:104] = [info.min, info.max, 0, 1]
    return values


def _defined(values: np.ndarray[Any, Any], into: str) -> np.ndarray[Any, Any]:
    """Where numpy's conversion of ``values`` into ``into`` is defined: C leaves a float outside
    an integer type's range undefined, and numpy's result then varies with the platform and
    even with the array's length (its vector and scalar loops differ)."""
    if np.dtype(into).kind == "f" or values.dtype.kind in "iu":
        return np.ones(values.shape, dtype=bool)
    info = np.iinfo(into)
    wide = values.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.isfinite(wide) & (wide > info.min - 1) & (wide < info.max + 1)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@pytest.mark.parametrize(("offset", "scale"), [(0, 1), (3, 10), (-7, 3), (1.5, 4), (2, 0.25)])
def test_integer_dtypes_match_numcodecs_where_numpy_is_defined(
    dtype: str, offset: Any, scale: Any
) -> None:
    """numpy's integer arithmetic wraps silently (and a float offset or scale moves it to
    float64); decoding truncates towards zero. Ours is numcodecs' own, element for element."""
    data = _integers(dtype, 7)
    for astype in ASTYPES:
        theirs = numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)
        ours = FixedScaleOffset(offset, scale, dtype, astype)
        with np.errstate(all="ignore"):
            try:
                expected = theirs.encode(data)
            except OverflowError:  # numpy: a Python integer the dtype cannot hold
                with pytest.raises(OutOfRangeError):
                    ours.encode(data)
                continue
            scaled = np.around((data - offset) * scale)
            decoded = theirs.decode(expected)
            unscaled = expected / scale + offset
        encoded = ours.encode(data)
        assert encoded.dtype == expected.dtype, astype
        defined = _defined(scaled, astype)
        assert np.array_equal(encoded[defined], expected[defined]), astype
        ours_decoded = ours.decode(expected)
        assert ours_decoded.dtype == decoded.dtype
        defined = _defined(unscaled, dtype)
        assert np.array_equal(ours_decoded[defined], decoded[defined]), astype


def test_integer_dtypes_wrap_exactly_as_numpy() -> None:
    ours = FixedScaleOffset(1, 2, "|i1", "|i1")
    data = np.array([-128, -1, 0, 63, 64, 127], dtype="i1")
    # (x - 1) * 2 in int8, wrapping: -129 -> 127 -> 254 -> -2 ...
    assert ours.encode(data).tolist() == [-2, -4, -2, 124, 126, -4]
    assert ours.decode(np.array([-3, 3, 5], dtype="i1")).tolist() == [0, 2, 3]  # truncation


def test_unsupported_dtypes_are_refused() -> None:
    with pytest.raises(UnsupportedError):
        FixedScaleOffset(1, 2, "<c8", "<f4")
    with pytest.raises(UnsupportedError):
        FixedScaleOffset(1, 2, "<f8", "|b1")
