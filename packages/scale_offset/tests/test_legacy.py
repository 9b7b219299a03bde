"""``FixedScaleOffset`` (numcodecs' legacy codec) against numcodecs itself, byte for byte."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec import ConfigurationError, UnsupportedError

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


def test_json_is_numcodecs_own() -> None:
    theirs = numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f4", astype="|u1")
    ours = FixedScaleOffset.from_json(theirs.get_config(), 2)
    assert ours.to_json(2) == theirs.get_config()
    v3 = ours.to_json(3)
    assert v3["name"] == "numcodecs.fixedscaleoffset"
    assert FixedScaleOffset.from_json(v3, 3) == ours
    with pytest.raises(ConfigurationError):
        FixedScaleOffset.from_json({"id": "fixedscaleoffset", "offset": 1}, 2)


def test_integer_dtypes_are_not_supported_yet() -> None:
    with pytest.raises(UnsupportedError, match="not supported yet"):
        FixedScaleOffset(1, 2, "<i4", "|u1")
