"""numcodecs' ``JSON`` (``json2``) and ``MsgPack`` (``msgpack2``) of ours against numcodecs
0.17's: the same bytes for arrays of every kind of object those codecs take (nested lists and
dicts, big integers, NaN and infinities, non-ASCII and control characters, bytes), under
every encoder option, the same values decoded, and the same refusals."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zarr_codec_shapes import CorruptInputError, OutOfRangeError
from zarr_codec_vlen.numcodecs import JSON, MsgPack

numcodecs = pytest.importorskip("numcodecs")

SCALARS = [
    None,
    True,
    False,
    0,
    -1,
    127,
    128,
    -33,
    2**31,
    -(2**63),
    2**64 - 1,
    0.0,
    -0.0,
    0.1,
    1e16,
    1e-5,
    1.5e300,
    5e-324,
    float("nan"),
    float("inf"),
    -float("inf"),
    "",
    "ascii",
    "ü\u00e9\u6771\U0001f642",
    'quote" back\\ slash/ \n\r\t\b\f \x00\x1f\x7f',
    "x" * 40,
    "y" * 70000,
]
NESTED = [
    [1, [2, [3, []]]],
    {"b": 1, "a": {"z": [1.5, None], "ü": "v"}},
    {},
    [],
    (1, "two"),
]


def _array(values: list[Any], shape: tuple[int, ...] | None = None) -> np.ndarray[Any, Any]:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array if shape is None else array.reshape(shape)


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    if isinstance(want, list | tuple):
        return type(got) is type(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict):
        return list(got.items()) == list(want.items()) or (
            list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
        )
    return type(got) is type(want) and got == want


def _assert_same_arrays(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any]) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype != object:
        assert got.tobytes() == want.tobytes()
        return
    for g, w in zip(got.reshape(-1), want.reshape(-1), strict=True):
        assert _same(g, w), (g, w)


JSON_OPTIONS = [
    {},
    {"indent": 2},
    {"indent": "\t", "sort_keys": False},
    {"indent": 0},
    {"ensure_ascii": False},
    {"separators": (" , ", " : ")},
    {"sort_keys": False, "encoding": "utf-16"},
    {"skipkeys": True},
]


@pytest.mark.parametrize("options", JSON_OPTIONS)
def test_json_writes_and_reads_as_numcodecs(options: dict[str, Any]) -> None:
    ours, theirs = JSON(**options), numcodecs.JSON(**options)
    assert repr(ours) == repr(theirs)
    assert ours.get_config() == theirs.get_config()
    arrays = [
        _array(SCALARS),
        _array(NESTED[1:3] * 2, (2, 2)),
        np.arange(12, dtype="<i4").reshape(3, 4),
        np.array([0.1, np.nan, -np.inf, 1e300], dtype="<f8"),
        np.array(["a", "ü"], dtype="<U1"),
        np.array(5.5),
    ]
    for array in arrays:
        encoded = ours.encode(array)
        assert encoded == theirs.encode(array)
        _assert_same_arrays(ours.decode(encoded), theirs.decode(encoded))


def test_json_refuses_what_python_json_refuses() -> None:
    for array in (_array([{1j: 1}]), _array([np.int64(3)]), _array([b"x"])):
        with pytest.raises(TypeError):
            numcodecs.JSON().encode(array)
        with pytest.raises(TypeError):
            JSON().encode(array)
    strict_nan = _array([float("nan")])
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        numcodecs.JSON(allow_nan=False).encode(strict_nan)
    with pytest.raises(OutOfRangeError, match="out of range float values are not JSON compliant"):
        JSON(allow_nan=False).encode(strict_nan)
    for text in (b"", b"[1,", b'["a\nb","|O",[1]]', b'[1,"|O",[1]] x'):
        with pytest.raises(json.JSONDecodeError):
            numcodecs.JSON().decode(text)
        with pytest.raises(CorruptInputError):
            JSON().decode(text)
    # Not numcodecs' layout: numcodecs fails with KeyError or numpy's errors, ours says so.
    for text in (b'{"a":1}', b"[1]", b'[1,"|O",[-1]]', b'[1,"|O","x"]'):
        with pytest.raises(CorruptInputError, match="layout"):
            JSON().decode(text)


MSGPACK_OPTIONS = [
    {},
    {"use_single_float": True},
    {"use_bin_type": False},
    {"raw": True},
]


@pytest.mark.parametrize("options", MSGPACK_OPTIONS)
def test_msgpack_packs_and_unpacks_as_numcodecs(options: dict[str, Any]) -> None:
    ours, theirs = MsgPack(**options), numcodecs.MsgPack(**options)
    assert repr(ours) == repr(theirs)
    assert ours.get_config() == theirs.get_config()
    scalars = [v for v in SCALARS if v != 1.5e300 or not options.get("use_single_float")]
    with_bytes = [*scalars, b"", b"\x00\xff" * 20, bytearray(b"ba"), b"z" * 300]
    arrays = [
        _array(with_bytes),
        _array([{"k": [1, 2.5, None]}, {"a": b"x"}, [], {}]),
        np.arange(20, dtype="<u8").reshape(4, 5) * 2**59,
        np.array([0.1, np.nan, -np.inf], dtype="<f4"),
        np.array([True, False]),
    ]
    for array in arrays:
        encoded = ours.encode(array)
        assert encoded == theirs.encode(array)
        try:
            want = theirs.decode(encoded)
        except UnicodeDecodeError:  # bytes packed as raw strings, read back as text
            with pytest.raises(CorruptInputError, match="UTF-8"):
                ours.decode(encoded)
            continue
        _assert_same_arrays(ours.decode(encoded), want)


def test_msgpack_refuses_what_msgpack_refuses() -> None:
    for array in (_array([2**64]), _array([-(2**63) - 1])):
        with pytest.raises(OverflowError):
            numcodecs.MsgPack().encode(array)
        with pytest.raises(OverflowError):
            MsgPack().encode(array)
    for array in (_array([np.int64(3)]), _array([object()])):
        with pytest.raises(TypeError):
            numcodecs.MsgPack().encode(array)
        with pytest.raises(TypeError):
            MsgPack().encode(array)
    too_large = _array([1.5e300])
    with pytest.raises(OverflowError):
        numcodecs.MsgPack(use_single_float=True).encode(too_large)
    with pytest.raises(OutOfRangeError, match="too large"):
        MsgPack(use_single_float=True).encode(too_large)
    good = numcodecs.MsgPack().encode(_array(["a"]))
    for data in (good[:-1], good + b"\x00", b"\x81\x01\x02", b"\xc1"):
        with pytest.raises(ValueError, match=r"incomplete|extra data|map key|^$"):
            numcodecs.MsgPack().decode(data)
        with pytest.raises(CorruptInputError):
            MsgPack().decode(data)


_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
)
_trees = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_trees, min_size=1, max_size=6))
def test_any_tree_matches_numcodecs(values: list[Any]) -> None:
    array = _array(values)
    for ours, theirs in ((JSON(), numcodecs.JSON()), (MsgPack(), numcodecs.MsgPack())):
        try:
            expected = theirs.encode(array)
        except (ValueError, TypeError) as error:  # numpy cannot hold some nestings
            with pytest.raises(type(error)):
                ours.encode(array)
            continue
        assert ours.encode(array) == expected
        try:
            want = theirs.decode(expected)
        except (ValueError, TypeError):
            continue
        _assert_same_arrays(ours.decode(expected), want)
