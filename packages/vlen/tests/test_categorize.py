"""numcodecs' ``Categorize`` of ours against numcodecs 0.17's: the same codes and decoded
strings, object and fixed-width arrays, every code type, repeated labels, strings that are no
label, codes that name none, and its configuration, ``repr`` and refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_shapes import OutOfRangeError
from zarr_codec_vlen.numcodecs import Categorize

numcodecs = pytest.importorskip("numcodecs")

LABELS = ["female", "male", "ü", "東京", "", "male"]
WORDS = ["male", "female", "unexpected", "ü", "東京", "", "fem", "malee", "東"]


def _items(dtype: str) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(5)
    words = [WORDS[i] for i in rng.integers(0, len(WORDS), size=301)]
    if dtype == "object":
        values = np.array(words, dtype=object)
        values[7], values[9] = None, 3  # numcodecs compares any object: neither is a label
        return values
    return np.array(words, dtype=dtype)


@pytest.mark.parametrize("astype", ["u1", "<u2", "<i4", "<u8", "<f4", "<f8", "|b1"])
@pytest.mark.parametrize("dtype", ["object", "<U6", ">U8", "<U2"])
def test_codes_and_strings_are_numcodecs(dtype: str, astype: str) -> None:
    items = _items(dtype)
    ours, theirs = Categorize(LABELS, dtype, astype), numcodecs.Categorize(LABELS, dtype, astype)
    encoded = ours.encode(items)
    expected = theirs.encode(items)
    assert encoded.dtype == expected.dtype
    np.testing.assert_array_equal(encoded, expected)
    decoded = ours.decode(expected)
    want = theirs.decode(expected)
    assert decoded.dtype == want.dtype
    np.testing.assert_array_equal(decoded, want)
    out = np.empty_like(want)
    assert ours.decode(expected, out=out) is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("astype", ["u1", "<i2", "<f8"])
def test_codes_that_name_no_label_decode_as_numcodecs(astype: str) -> None:
    codes = np.array([0, 1, 2, 6, 7, 100, 3, 5, 4], dtype=astype)
    if astype == "<f8":
        codes = np.concatenate([codes, [1.5, np.nan, -1.0, np.inf]])
    ours, theirs = Categorize(LABELS, object, astype), numcodecs.Categorize(LABELS, object, astype)
    np.testing.assert_array_equal(ours.decode(codes), theirs.decode(codes))


def test_configuration_repr_and_refusals_are_numcodecs() -> None:
    for labels in (LABELS, ["a"]):
        ours = Categorize(labels, "<U3", astype="<u2")
        theirs = numcodecs.Categorize(labels, "<U3", astype="<u2")
        assert ours.get_config() == theirs.get_config()
        assert repr(ours) == repr(theirs)
    for args in ((["a"], "<i4"), (["a"], object, object)):
        with pytest.raises(TypeError) as theirs_error:
            numcodecs.Categorize(*args)
        with pytest.raises(TypeError) as ours_error:
            Categorize(*args)
        assert str(ours_error.value) == str(theirs_error.value)


def test_more_labels_than_the_code_type_holds_is_refused() -> None:
    labels = [f"l{i}" for i in range(256)]
    with pytest.raises(OverflowError):
        numcodecs.Categorize(labels, object).encode(np.array(["l0"], dtype=object))
    with pytest.raises(OutOfRangeError, match="out of bounds for uint8"):
        Categorize(labels, object).encode(np.array(["l0"], dtype=object))
    codes = Categorize(labels, object, astype="<u2").encode(np.array(["l255", "x"], dtype=object))
    np.testing.assert_array_equal(codes, [256, 0])
