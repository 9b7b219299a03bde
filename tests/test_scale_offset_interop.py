"""zarr-codec-scale-offset against zarr-python 3.4's built-in ``scale_offset``.

* Elements: every integer and float type zarr's built-in supports, many offsets and scales, on
  boundary values and random ones, both directions. Where the two agree the results are equal
  (bit for bit, but NaN payloads, below); each disagreement is named below with the clause of
  the spec that decides it, and ours is checked against an exact reading of that clause.
  Found: zarr's built-in computes int64 in int64 (wrapping silently at its limits), checks
  only the final value of the smaller types (an intermediate beyond the range passes when the
  result is back in it), lets an int64 fill value wrap too, accepts parameters ours refuses
  (``1.0`` and ``true`` for integers, NaN and infinite ones), drops an ``offset`` of -0.0 from
  its JSON, and keeps float16 NaN payloads where ours writes the canonical NaN. They agree on
  the float arithmetic (float32 stays float32, IEEE overflow to ±Infinity), on uint64, on
  inexact division and on which fill values of the smaller types cannot be encoded.
* Arrays: zarr-python writes and reads ``[scale_offset, bytes, gzip]`` and
  ``[scale_offset, cast_value, bytes, gzip]`` arrays with ours (``codecs.scale_offset`` in
  ``zarr.config``, our ``cast_value`` and ``gzip`` for both); arrays written by the built-in
  read back identically with ours and vice versa, with partial chunks and never-written
  chunks, a NaN fill value mapped by cast_value's ``scalar_map`` (the spec's third example)
  among them, and the stored chunks are the same bytes.
* Installing the wheel registers nothing with zarr; ``register()``/``unregister()`` do.
"""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
pytest.importorskip("zarr.codecs.scale_offset")

from zarr.codecs.scale_offset import ScaleOffset as BuiltinScaleOffset  # noqa: E402
from zarr.core.array_spec import ArrayConfig, ArraySpec  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.dtype import get_data_type_from_json  # noqa: E402
from zarr_codec_scale_offset import ScaleOffset  # noqa: E402
from zarr_codec_scale_offset.zarr_python import ScaleOffsetCodec  # noqa: E402
from zarr_codec_shapes import ChunkSpec, ConfigurationError, OutOfRangeError  # noqa: E402

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
DIRECTIONS = ("encode", "decode")

OURS = "zarr_codec_scale_offset.zarr_python.ScaleOffsetCodec"
BUILTIN = "zarr.codecs.scale_offset.ScaleOffset"
#: Our cast_value and gzip for both: the chunks then differ only where scale_offset does.
SHARED = {
    "codecs.cast_value": "zarr_codec_cast_value.zarr_python.CastValueCodec",
    "codecs.gzip": "zarr_codec_gzip.zarr_python.GzipCodec",
}

#: The outcome of one element: an integer, ``float.hex`` of a float ("nan", "inf" and the
#: sign of zero included), or "error".
Outcome = str
ERROR: Outcome = "error"

INTERMEDIATE = (
    'Algorithm: "If any intermediate or final value produced during encoding or decoding is '
    'not representable in that data type, implementations MUST treat this as an error."'
)


@pytest.fixture(scope="module", autouse=True)
def _ours_registered() -> Iterator[None]:
    """Our classes in zarr's registry (what ``register()`` does) without touching the config,
    so each test picks an implementation with ``zarr.config.set``."""
    from zarr.registry import _codec_registries, register_codec
    from zarr_codec_cast_value.zarr_python import CastValueCodec

    register_codec("scale_offset", ScaleOffsetCodec)
    register_codec("cast_value", CastValueCodec)
    yield
    _codec_registries["scale_offset"].pop(OURS, None)
    _codec_registries["cast_value"].pop(SHARED["codecs.cast_value"], None)


# -- running one codec or the other on elements --------------------------------------------------


def _text(value: Any) -> Outcome:
    if isinstance(value, np.ndarray):
        value = value[()]
    if isinstance(value, np.floating | float):
        return float(value).hex()
    return str(int(value))


def _array_spec(data_type: str, shape: tuple[int, ...], fill: Any = 0) -> Any:
    zdtype = get_data_type_from_json(data_type, zarr_format=3)
    return ArraySpec(
        shape=shape,
        dtype=zdtype,
        fill_value=zdtype.cast_scalar(fill),
        config=ArrayConfig.from_dict({}),
        prototype=default_buffer_prototype(),
    )


Runner = Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]


def ours(direction: str, offset: Any, scale: Any) -> Runner:
    codec = ScaleOffset(offset=offset, scale=scale)

    def run(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        spec = ChunkSpec(values.shape, values.dtype.name)
        return codec.encode(values, spec) if direction == "encode" else codec.decode(values, spec)

    run.refused = OutOfRangeError  # type: ignore[attr-defined]
    return run


def builtin(direction: str, offset: Any, scale: Any) -> Runner:
    """zarr's built-in through the sync methods its pipeline calls (see
    ``test_builtin_sync_path_is_its_public_path``)."""
    codec: Any = BuiltinScaleOffset(offset=offset, scale=scale)  # zarr's types: loosely

    def run(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        spec = _array_spec(values.dtype.name, values.shape)
        chunk = default_buffer_prototype().nd_buffer.from_ndarray_like(values)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow notices
            method = codec._encode_sync if direction == "encode" else codec._decode_sync
            out = method(chunk, spec)
        result: np.ndarray[Any, Any] = out.as_ndarray_like()
        return result

    run.refused = ValueError  # type: ignore[attr-defined]
    return run


def outcomes(run: Runner, values: np.ndarray[Any, Any]) -> list[Outcome]:
    """``run`` of each element; one call for the whole array unless some element fails."""
    refused = getattr(run, "refused", ValueError)
    try:
        return [_text(v) for v in run(values)]
    except refused:
        pass
    results = []
    for i in range(len(values)):
        try:
            results.append(_text(run(values[i : i + 1])[0]))
        except refused:
            results.append(ERROR)
    return results


# -- the spec, exactly ------------------------------------------------------------------------


def spec_result(direction: str, x: Any, offset: Any, scale: Any, data_type: str) -> Outcome:
    """Integers exactly, every step range-checked, decoding by true division; floats in the
    type's own arithmetic, one IEEE rounding per operation (numpy scalars of the type)."""
    if data_type in FLOATS:
        t = np.dtype(data_type).type
        xv, ov, sv = t(x), t(offset), t(scale)
        with np.errstate(all="ignore"):
            return _text((xv - ov) * sv if direction == "encode" else xv / sv + ov)
    info = np.iinfo(data_type)
    steps: list[int] = []
    xi, oi, si = int(x), int(offset), int(scale)
    if direction == "encode":
        steps = [xi - oi, (xi - oi) * si]
    else:
        if xi % si:
            return ERROR
        steps = [xi // si, xi // si + oi]
    if all(info.min <= v <= info.max for v in steps):
        return str(steps[-1])
    return ERROR


def wrapped(direction: str, x: Any, offset: Any, scale: Any, data_type: str) -> Outcome:
    """The exact final value reduced modulo 2^bits (two's complement): what fixed-width
    arithmetic that never checks gives."""
    info = np.iinfo(data_type)
    xi, oi, si = int(x), int(offset), int(scale)
    exact = (xi - oi) * si if direction == "encode" else xi // si + oi
    return str((exact - int(info.min)) % (1 << info.bits) + int(info.min))


def explain(
    direction: str, x: Any, offset: Any, scale: Any, data_type: str, theirs: Outcome
) -> str | None:
    """Why zarr's built-in may differ from ours on ``x``, if it is a known disagreement."""
    if data_type in INTS and theirs == wrapped(direction, x, offset, scale, data_type):
        # int64 is computed in int64 (wrapping); smaller types check only the final value.
        return INTERMEDIATE
    return None


# -- the values and parameters ----------------------------------------------------------------


@cache
def int_values(data_type: str) -> np.ndarray[Any, Any]:
    info = np.iinfo(data_type)
    lo, hi = int(info.min), int(info.max)
    edges = {lo, lo + 1, lo + 2, lo // 2, -3, -2, -1, 0, 1, 2, 3, 7, 1000, hi // 2, hi - 1, hi}
    edges |= {hi // 3, hi // 3 * 2, lo // 3, 2**31, -(2**31), 2**32 - 1, 2**62, -(2**62)}
    rng = np.random.default_rng(sum(map(ord, data_type)))
    random = rng.integers(lo, hi, 60, dtype=np.int64 if lo < 0 else np.uint64, endpoint=True)
    values = sorted(v for v in edges if lo <= v <= hi) + [int(v) for v in random]
    return np.array(values, dtype=data_type)


def int_parameters(data_type: str) -> list[tuple[int, int]]:
    info = np.iinfo(data_type)
    lo, hi = int(info.min), int(info.max)
    offsets = [0, 1, -1, 1000, lo, hi, hi // 3, lo + 1]
    scales = [1, 2, -1, -3, 1000, hi, lo, 2**31]
    ok = [v for v in offsets if lo <= v <= hi]
    return [(o, s) for o in ok for s in scales if s and lo <= s <= hi]


@cache
def float_values(data_type: str) -> np.ndarray[Any, Any]:
    fi = np.finfo(data_type)
    dtype = np.dtype(data_type)
    edges = [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 5.0, -10.0, 1304.0, 1e4, -2540.0]
    edges += [float(fi.max), -float(fi.max), float(fi.tiny), float(fi.smallest_subnormal)]
    edges += [float(fi.max) / 2, -float(fi.smallest_subnormal), math.nan, math.inf, -math.inf]
    rng = np.random.default_rng(sum(map(ord, data_type)))
    scaled = rng.standard_normal(60) * 10.0 ** rng.integers(-8, 8, 60)
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(edges), scaled]).astype(dtype)


def float_parameters(data_type: str) -> list[tuple[float, float]]:
    fi = np.finfo(data_type)
    big, tiny = float(fi.max), float(fi.smallest_subnormal)
    offsets = [0.0, -0.0, 5.0, -10.0, 1.5, tiny, big, -big, 1e-3]
    scales = [1.0, 0.1, -2.0, 0.75, 1 / 3, big, tiny, 2.0**-10]
    # As JSON numbers: rounded to the type by both (the fill-value encoding).
    return [(o, s) for o in offsets for s in scales]


# -- elements: the differential -----------------------------------------------------------------


def _differential(data_type: str, direction: str, values: np.ndarray[Any, Any]) -> None:
    parameters = (int_parameters if data_type in INTS else float_parameters)(data_type)
    unexplained: list[str] = []
    for offset, scale in parameters:
        mine = outcomes(ours(direction, offset, scale), values)
        theirs = outcomes(builtin(direction, offset, scale), values)
        for i in np.flatnonzero([a != b for a, b in zip(mine, theirs, strict=True)]):
            x = values[i]
            spec = spec_result(direction, x, offset, scale, data_type)
            why = explain(direction, x, offset, scale, data_type, theirs[i])
            if why is None or mine[i] != spec or spec != ERROR:
                case = f"{direction} offset={offset} scale={scale} x={x!r}"
                unexplained.append(f"{case}: ours {mine[i]}, built-in {theirs[i]}, spec {spec}")
        # Where both accept, the same bits (NaNs aside: see test_float16_nan_payloads).
        both = np.array([a == b != ERROR for a, b in zip(mine, theirs, strict=True)], bool)
        if both.any():
            a = ours(direction, offset, scale)(values[both])
            b = builtin(direction, offset, scale)(values[both])
            keep = ~np.isnan(a) if data_type in FLOATS else np.ones(len(a), bool)
            assert a.dtype == b.dtype == values.dtype
            assert a[keep].tobytes() == b[keep].tobytes(), (direction, offset, scale)
    assert not unexplained, "\n".join(unexplained[:20])


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("data_type", INTS)
def test_integer_elements_against_zarr_builtin(data_type: str, direction: str) -> None:
    """Equal where they agree; where not, ours is the spec's error and theirs the wrapped
    value (test_int64_wraps_in_the_builtin, test_intermediate_values_are_checked)."""
    _differential(data_type, direction, int_values(data_type))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("data_type", FLOATS)
def test_float_elements_against_zarr_builtin(data_type: str, direction: str) -> None:
    """Both compute in the array's type, one IEEE rounding per operation: no disagreement."""
    _differential(data_type, direction, float_values(data_type))


@pytest.mark.parametrize("data_type", INTS + FLOATS)
def test_ours_is_the_spec_on_every_boundary_value(data_type: str) -> None:
    values = int_values(data_type) if data_type in INTS else float_values(data_type)
    parameters = (int_parameters if data_type in INTS else float_parameters)(data_type)
    wrong = []
    for direction in DIRECTIONS:
        for offset, scale in parameters:
            mine = outcomes(ours(direction, offset, scale), values)
            if data_type in FLOATS:  # the parameters as the type holds them
                offset, scale = (float(np.array(v).astype(data_type)) for v in (offset, scale))
            for x, got in zip(values, mine, strict=True):
                expected = spec_result(direction, x, offset, scale, data_type)
                if got != expected:
                    wrong.append(f"{direction} {offset} {scale} {x!r}: {got} != {expected}")
    assert not wrong, "\n".join(wrong[:20])


def test_builtin_sync_path_is_its_public_path() -> None:
    """The differential calls the built-in's ``_encode_sync``; its public (async, batched)
    ``encode`` and ``decode`` give the same."""
    import asyncio

    codec: Any = BuiltinScaleOffset(offset=5, scale=0.1)
    values = float_values("float32")
    spec = _array_spec("float32", values.shape)
    chunk = default_buffer_prototype().nd_buffer.from_ndarray_like(values)
    with np.errstate(all="ignore"):
        (encoded,) = asyncio.run(codec.encode([(chunk, spec)]))
        (decoded,) = asyncio.run(codec.decode([(encoded, spec)]))
    sync = builtin("encode", 5, 0.1)(values)
    assert encoded.as_ndarray_like().tobytes() == sync.tobytes()
    back = builtin("decode", 5, 0.1)(sync)
    assert decoded.as_ndarray_like().tobytes() == back.tobytes()


# -- the disagreements, one by one --------------------------------------------------------------

MIN64, MAX64 = -(2**63), 2**63 - 1


@pytest.mark.parametrize(
    ("direction", "offset", "scale", "x", "theirs"),
    [
        ("encode", 1, 1, MIN64, MAX64),  # MIN - 1
        ("encode", -1, 1, MAX64, MIN64),  # MAX + 1
        ("encode", 0, 2, 2**62, MIN64),  # 2^63
        ("encode", 0, -1, MIN64, MIN64),  # -MIN
        ("encode", MIN64, 1, MAX64, -1),  # 2^64 - 1
        ("decode", 1, 1, MAX64, MIN64),  # MAX + 1
        ("decode", 0, -1, MIN64, MIN64),  # MIN / -1
        ("decode", MAX64, 1, 1, MIN64),
    ],
)
def test_int64_wraps_in_the_builtin(
    direction: str, offset: int, scale: int, x: int, theirs: int
) -> None:
    """Algorithm: "If any intermediate or final value produced during encoding or decoding is
    not representable in that data type, implementations MUST treat this as an error."

    zarr's built-in widens the smaller integer types to int64 and checks the range there, but
    computes int64 itself in int64, which wraps: the results below are silently wrong. Ours
    computes exactly and refuses them (uint64, which the built-in computes with Python
    integers, agrees: see test_uint64_limits_agree)."""
    values = np.array([x], np.int64)
    assert builtin(direction, offset, scale)(values).tolist() == [theirs]
    assert spec_result(direction, x, offset, scale, "int64") == ERROR
    with pytest.raises(OutOfRangeError):
        ours(direction, offset, scale)(values)


@pytest.mark.parametrize(
    ("data_type", "direction", "offset", "scale", "x", "theirs"),
    [
        ("int8", "encode", -1, -1, 127, -128),  # 127 + 1 = 128 (no int8), then -128
        ("int8", "decode", -1, -1, -128, 127),  # -128 / -1 = 128 (no int8), then 127
        ("int16", "encode", -1, -1, 2**15 - 1, -(2**15)),
        ("int32", "decode", -1, -1, -(2**31), 2**31 - 1),
    ],
)
def test_intermediate_values_are_checked(
    data_type: str, direction: str, offset: int, scale: int, x: int, theirs: int
) -> None:
    """Algorithm: "If any intermediate or final value ... is not representable in that data
    type, implementations MUST treat this as an error." An intermediate, not only the result.

    x - offset (encoding) or x / scale (decoding) leaves the range, and multiplying by -1 or
    adding -1 brings it back. zarr's built-in checks the final value only (with these
    parameters it computes in the type itself, wrapping twice into the exact result); ours
    refuses."""
    values = np.array([x], data_type)
    assert builtin(direction, offset, scale)(values).tolist() == [theirs]
    assert spec_result(direction, x, offset, scale, data_type) == ERROR
    with pytest.raises(OutOfRangeError):
        ours(direction, offset, scale)(values)


def test_uint64_limits_agree() -> None:
    """uint64: both exact (the built-in with Python integers)."""
    top = 2**64 - 1
    cases = [
        ("encode", top, 1, top, "0"),
        ("encode", top, 1, top - 1, ERROR),
        ("decode", top, 1, 0, str(top)),
        ("decode", top, 1, 1, ERROR),
        ("encode", 0, 2, 2**63, ERROR),
        ("encode", 0, 2, 2**63 - 1, str(top - 1)),
        ("decode", 0, 2, top, ERROR),  # odd: a remainder
        ("decode", 1, top, top, "2"),
    ]
    for direction, offset, scale, x, expected in cases:
        values = np.array([x], np.uint64)
        assert outcomes(ours(direction, offset, scale), values) == [expected]
        assert outcomes(builtin(direction, offset, scale), values) == [expected]
        assert spec_result(direction, x, offset, scale, "uint64") == expected


def test_inexact_division_is_an_error_in_both() -> None:
    """Decoding: ``out = (in / scale) + offset`` in the data type: 7 / 2 is no integer."""
    for data_type in ("int8", "int64", "uint32", "uint64"):
        values = np.array([6, 7, 8], data_type)
        assert outcomes(ours("decode", 1, 2), values) == ["4", ERROR, "5"]
        assert outcomes(builtin("decode", 1, 2), values) == ["4", ERROR, "5"]


def test_float32_stays_float32_in_both() -> None:
    """ "using the arithmetic semantics of the input array's data type": (1304 - 5) * 0.1 in
    float32 is 129.90001, not float64's 129.9 rounded to float32."""
    values = np.array([1304.0, 15.0], np.float32)
    mine, theirs = ours("encode", 5, 0.1)(values), builtin("encode", 5, 0.1)(values)
    assert mine.dtype == theirs.dtype == np.float32
    assert mine.tobytes() == theirs.tobytes()
    assert mine[0] == (np.float32(1304) - np.float32(5)) * np.float32(0.1) != np.float32(129.9)


@pytest.mark.parametrize(
    ("data_type", "direction", "offset", "scale", "x", "expected"),
    [
        ("float16", "encode", 0, 2, 65504.0, math.inf),
        ("float16", "encode", -16, 1, 65504.0, math.inf),  # 65520 rounds to even: 65536
        ("float16", "encode", -8, 1, 65504.0, 65504.0),
        ("float16", "decode", 0, 0.5, -65504.0, -math.inf),
        ("float32", "encode", -3e38, 1, 3e38, math.inf),
        ("float32", "decode", 3e38, 1, 3e38, math.inf),
        ("float64", "encode", 0, -2, 1.7976931348623157e308, -math.inf),
        ("float64", "decode", 0, 0.5, 1.7976931348623157e308, math.inf),
    ],
)
def test_float_overflow_is_infinity_in_both(
    data_type: str, direction: str, offset: float, scale: float, x: float, expected: float
) -> None:
    """Floats overflow as their IEEE arithmetic does, to ±Infinity, a value of the type."""
    values = np.array([x], data_type)
    want = [_text(np.array(expected, data_type))]
    assert outcomes(ours(direction, offset, scale), values) == want
    assert outcomes(builtin(direction, offset, scale), values) == want


def test_float16_nan_payloads() -> None:
    """Where both accept, the chunks differ in one way: ours computes float16 through float64
    and writes float16's canonical NaN (0x7e00) for every NaN; numpy keeps the payload and the
    sign. The spec says nothing of NaN payloads (IEEE 754 only recommends keeping one); both
    are NaN. float32 and float64 keep payloads in both."""
    bits = np.array([0x7E01, 0xFE00, 0x7D00], np.uint16)
    values = bits.view(np.float16)
    mine = ours("encode", 1.5, -2)(values).view(np.uint16)
    theirs = builtin("encode", 1.5, -2)(values).view(np.uint16)
    assert mine.tolist() == [0x7E00] * 3
    assert theirs.tolist() == [0x7E01, 0xFE00, 0x7F00]
    for data_type, nan in (("float32", 0xFFC00001), ("float64", 0xFFF8000000000001)):
        u = np.dtype(f"u{np.dtype(data_type).itemsize}")
        payload = np.array([nan], u).view(data_type)
        a, b = ours("encode", 1.5, -2)(payload), builtin("encode", 1.5, -2)(payload)
        assert a.view(u).tolist() == b.view(u).tolist() == [nan]


def _create(data_type: str, fill: Any, configuration: dict[str, Any]) -> Any:
    return zarr.create_array(
        zarr.storage.MemoryStore(),
        shape=(4,),
        chunks=(2,),
        dtype=data_type,
        fill_value=fill,
        filters=[{"name": "scale_offset", "configuration": configuration}],
    )


@pytest.mark.parametrize(
    ("data_type", "configuration", "clause"),
    [
        ("int32", {"offset": 1.0}, "integers: a JSON number with no fraction or exponent part"),
        ("int8", {"offset": True}, "integers: a JSON number (true is a boolean)"),
        ("int8", {"scale": True}, "integers: a JSON number (true is a boolean)"),
        ("float32", {"offset": "NaN"}, "Decoding: inverts the encoding (x - NaN is NaN)"),
        ("float64", {"scale": "Infinity"}, "Decoding: inverts the encoding (x * inf)"),
        ("float16", {"scale": 1e10}, "Decoding: inverts the encoding (1e10 is inf in float16)"),
    ],
    ids=repr,
)
def test_parameters_only_the_builtin_accepts(
    data_type: str, configuration: dict[str, Any], clause: str
) -> None:
    """offset and scale: "MUST be encoded to JSON using the Zarr V3 fill value encoding for
    the input array's data type" (v3 core: integers are "a JSON number with no fraction or
    exponent part"), and "The decoding routine inverts the encoding routine", which no
    non-finite parameter allows. zarr's built-in accepts these; ours refuses them when the
    array is created."""
    with zarr.config.set({"codecs.scale_offset": BUILTIN}), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _create(data_type, 0, configuration)
    with zarr.config.set({"codecs.scale_offset": OURS}), pytest.raises(ConfigurationError):
        _create(data_type, 0, configuration)


@pytest.mark.parametrize(
    ("data_type", "configuration"),
    [
        ("int32", {"offset": 1.5}),
        ("uint8", {"offset": 300}),
        ("uint8", {"scale": -1}),
        ("float32", {"scale": 0}),
        ("int16", {"scale": 0}),
    ],
    ids=repr,
)
def test_parameters_both_refuse(data_type: str, configuration: dict[str, Any]) -> None:
    for implementation in (OURS, BUILTIN):
        config = zarr.config.set({"codecs.scale_offset": implementation})
        with config, pytest.raises(ValueError, match=r"scale_offset|representable|scale"):
            _create(data_type, 0, configuration)


def test_fill_value_int64_wraps_in_the_builtin() -> None:
    """Fill value handling: "Implementations MUST transform the fill value as it propagates
    through the codec chain, using the same semantics as the element transformation", and the
    element rule makes MIN - 1 an error. zarr's built-in wraps the int64 fill value to MAX;
    ours refuses the array."""
    configuration = {"offset": 1}
    resolved = BuiltinScaleOffset(**configuration).resolve_metadata(
        _array_spec("int64", (4,), MIN64)
    )
    assert resolved.fill_value == MAX64
    with pytest.raises(ConfigurationError, match="fill value"):
        ScaleOffset(**configuration).resolve(ChunkSpec((4,), "int64", np.int64(MIN64)))
    with zarr.config.set({"codecs.scale_offset": OURS}), pytest.raises(ConfigurationError):
        _create("int64", MIN64, configuration)


@pytest.mark.parametrize(
    ("data_type", "fill", "configuration", "encoded"),
    [
        ("uint16", 1100, {"offset": 1000}, 100),
        ("int8", 5, {"scale": -1}, -5),
        ("uint64", 2**64 - 1, {"offset": 2**64 - 1}, 0),
        ("float32", 15.0, {"offset": 5, "scale": 0.1}, float(np.float32(10) * np.float32(0.1))),
        ("float64", math.nan, {"offset": -10, "scale": 0.1}, math.nan),
        ("float16", 65504.0, {"scale": 2}, math.inf),
        ("float64", -0.0, {"scale": 3}, -0.0),
    ],
    ids=repr,
)
def test_fill_values_agree(data_type: str, fill: Any, configuration: Any, encoded: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = BuiltinScaleOffset(**configuration).resolve_metadata(
            _array_spec(data_type, (4,), fill)
        )
    mine = ScaleOffset(**configuration).resolve(
        ChunkSpec((4,), data_type, np.array(fill, data_type)[()])
    )
    assert _text(np.array(theirs.fill_value, data_type)) == _text(mine.fill_value)
    assert _text(mine.fill_value) == _text(np.array(encoded, data_type))


@pytest.mark.parametrize(
    ("data_type", "fill", "configuration"),
    [("uint8", 0, {"offset": 1}), ("int8", 100, {"scale": 2}), ("int32", 0, {"offset": -(2**31)})],
    ids=repr,
)
def test_fill_values_both_refuse(data_type: str, fill: Any, configuration: Any) -> None:
    """The fill value is encoded like an element: 0 - 1 is no uint8. Both refuse the array."""
    for implementation in (OURS, BUILTIN):
        config = zarr.config.set({"codecs.scale_offset": implementation})
        with config, pytest.raises(ValueError, match=r"fill value|range"):  # noqa: PT012
            array = _create(data_type, fill, configuration)
            array[:] = np.array(fill, data_type)  # the built-in resolves when writing


def test_negative_zero_offset_is_dropped_by_the_builtin() -> None:
    """offset: "A missing offset field encodes the additive identity element". x - 0.0 is x
    for every x, but x - (-0.0) turns -0.0 into +0.0: -0.0 is another offset. zarr's built-in
    writes ``offset: -0.0`` as no offset at all, so an array it writes with it encodes -0.0
    elements as -0.0 when written and as +0.0 once the metadata is read back; ours keeps it."""
    assert BuiltinScaleOffset(offset=-0.0).to_dict() == {"name": "scale_offset"}
    assert ScaleOffset(offset=-0.0).to_json(3) == {
        "name": "scale_offset",
        "configuration": {"offset": -0.0},
    }
    negative_zero = np.array([-0.0])
    assert _text(builtin("encode", -0.0, 1)(negative_zero)[0]) == _text(0.0)
    assert _text(ours("encode", -0.0, 1)(negative_zero)[0]) == _text(0.0)
    assert _text(ours("encode", 0, 1)(negative_zero)[0]) == _text(-0.0)


# -- zarr arrays ----------------------------------------------------------------------------------

CAST_NAN_TO_ZERO = {
    "name": "cast_value",
    "configuration": {
        "data_type": "uint8",
        "rounding": "nearest-even",
        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
    },
}

#: name: (data type, fill value, filters, data of shape (37, 23) the filters accept)
ARRAYS: dict[str, tuple[str, Any, list[dict[str, Any]], Callable[[np.random.Generator], Any]]] = {
    # The spec's third example: [0, 2540] -> [1, 255], NaN -> 0 by cast_value.
    "float64-nan-cast-uint8": (
        "float64",
        math.nan,
        [
            {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
            CAST_NAN_TO_ZERO,
        ],
        lambda rng: np.where(rng.random((37, 23)) < 0.05, np.nan, rng.uniform(0, 2540, (37, 23))),
    ),
    # The second: [1000, 1255] -> [0, 255], then uint8 (the fill value must encode too).
    "uint16-cast-uint8": (
        "uint16",
        1000,
        [
            {"name": "scale_offset", "configuration": {"offset": 1000}},
            {"name": "cast_value", "configuration": {"data_type": "uint8"}},
        ],
        lambda rng: rng.integers(1000, 1256, (37, 23)),
    ),
    # The first.
    "float32": (
        "float32",
        5.0,
        [{"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}}],
        lambda rng: rng.normal(0, 1e4, (37, 23)),
    ),
    "float16-nan": (
        "float16",
        math.nan,
        [{"name": "scale_offset", "configuration": {"offset": 3, "scale": 0.25}}],
        lambda rng: np.where(rng.random((37, 23)) < 0.1, np.nan, rng.normal(0, 100, (37, 23))),
    ),
    "int32": (
        "int32",
        7,
        [{"name": "scale_offset", "configuration": {"offset": -5, "scale": 3}}],
        lambda rng: rng.integers(-(2**29), 2**29, (37, 23)),
    ),
    "int64": (
        "int64",
        -(2**62),
        [{"name": "scale_offset", "configuration": {"offset": -(2**62), "scale": -2}}],
        lambda rng: rng.integers(-(2**63) + 1, 0, (37, 23), endpoint=True),  # all it encodes
    ),
    "uint64": (
        "uint64",
        2**63,
        [{"name": "scale_offset", "configuration": {"offset": 2**63}}],
        lambda rng: rng.integers(2**63, 2**64 - 1, (37, 23), dtype=np.uint64, endpoint=True),
    ),
}
GZIP = {"name": "gzip", "configuration": {"level": 5}}


def _data(name: str) -> np.ndarray[Any, Any]:
    data_type, _, _, make = ARRAYS[name]
    return np.asarray(make(np.random.default_rng(sum(map(ord, name))))).astype(data_type)


def _write(path: Path, implementation: str, name: str) -> None:
    """A (37, 23) array in (8, 5) chunks, partial at the edges, its last 7 rows never written."""
    data_type, fill, filters, _ = ARRAYS[name]
    with zarr.config.set({"codecs.scale_offset": implementation, **SHARED}):
        array = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=(37, 23),
            chunks=(8, 5),
            dtype=data_type,
            fill_value=fill,
            filters=filters,
            compressors=[GZIP],
        )
        array[:30] = _data(name)[:30]


def _read(path: Path, implementation: str) -> tuple[Any, np.ndarray[Any, Any]]:
    with zarr.config.set({"codecs.scale_offset": implementation, **SHARED}):
        array = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        return array, array[:]


def _expected(name: str) -> np.ndarray[Any, Any]:
    """The data through our codecs there and back; the fill value in the unwritten rows."""
    data_type, fill, filters, _ = ARRAYS[name]
    data = _data(name)
    codecs = [ScaleOffset.from_json(filters[0], 3)]
    if len(filters) > 1:
        cast_value = pytest.importorskip("zarr_codec_cast_value")
        codecs.append(cast_value.CastValue.from_json(filters[1], 3))
    specs = [ChunkSpec(data.shape, data_type, np.array(fill, data_type)[()])]
    for codec in codecs[:-1]:
        specs.append(codec.resolve(specs[-1]))
    encoded = data
    for codec, spec in zip(codecs, specs, strict=True):
        encoded = codec.encode(encoded, spec)
    for codec, spec in reversed(list(zip(codecs, specs, strict=True))):
        encoded = codec.decode(encoded, spec)
    expected = np.array(encoded)
    expected[30:] = fill
    return expected


def _chunk_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / "c").rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("name", list(ARRAYS))
def test_arrays_both_ways(tmp_path: Path, name: str) -> None:
    pytest.importorskip("zarr_codec_cast_value")
    pytest.importorskip("zarr_codec_gzip")
    ours_path, builtin_path = tmp_path / "ours.zarr", tmp_path / "builtin.zarr"
    _write(ours_path, OURS, name)
    _write(builtin_path, BUILTIN, name)

    # The same metadata and the same chunk bytes.
    metadata = json.loads((ours_path / "zarr.json").read_text())
    assert metadata == json.loads((builtin_path / "zarr.json").read_text())
    assert metadata["codecs"][0] == ARRAYS[name][2][0]
    chunks = _chunk_files(ours_path)
    assert len(chunks) == 4 * 5, "rows 32-36 were never written: fill value only"
    assert chunks == _chunk_files(builtin_path)

    expected = _expected(name)
    for path in (ours_path, builtin_path):
        for implementation, cls in ((OURS, ScaleOffsetCodec), (BUILTIN, BuiltinScaleOffset)):
            array, values = _read(path, implementation)
            assert type(array.filters[0]) is cls
            assert values.dtype == expected.dtype
            assert np.array_equal(values, expected, equal_nan=True), (path.name, cls)


def test_partial_chunk_padding_is_the_encoded_fill_value(tmp_path: Path) -> None:
    """Fill value handling: the fill value "remains aligned with the data for subsequent
    fill-value-aware codecs": the padding of an edge chunk is the fill value encoded, here
    NaN -> NaN -> 0 by cast_value's scalar_map, as the spec's third example intends."""
    pytest.importorskip("zarr_codec_cast_value")
    name = "float64-nan-cast-uint8"
    _write(tmp_path / "a.zarr", OURS, name)
    with zarr.config.set({"codecs.scale_offset": OURS, **SHARED}):
        array = zarr.open_array(zarr.storage.LocalStore(tmp_path / "a.zarr"), mode="r")
        assert np.isnan(array.fill_value)
        edge = array[:, 20:]  # the last column of chunks holds 3 of 5 columns
        assert not np.isnan(edge[:30]).all()
    raw = _chunk_files(tmp_path / "a.zarr")["c/0/4"]  # rows 0-7, columns 20-24
    chunk = np.frombuffer(gzip.decompress(raw), np.uint8).reshape(8, 5)
    assert (chunk[:, 3:] == 0).all(), "the padding columns are the encoded NaN, 0"
    nan = np.isnan(_data(name)[:8, 20:])
    assert (chunk[:, :3][nan] == 0).all() and (chunk[:, :3][~nan] >= 1).all()


def test_values_the_rules_refuse_fail_the_write() -> None:
    """An element below the offset is "not representable": the write fails in both."""
    for implementation in (OURS, BUILTIN):
        with zarr.config.set({"codecs.scale_offset": implementation}):
            array = _create("uint16", 1000, {"offset": 1000})
            with pytest.raises(ValueError, match="range"):
                array[:] = np.array([1000, 999, 1001, 1002], np.uint16)
    with pytest.raises(OutOfRangeError):
        ours("encode", 1000, 1)(np.array([999], np.uint16))


# -- installing the wheel changes nothing by default ------------------------------------------


def _run(script: str) -> str:
    """Run ``script`` in a fresh interpreter (zarr's registry and config start clean)."""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_installing_the_wheel_registers_nothing_with_zarr() -> None:
    """zarr 3.4's default config names no scale_offset implementation: a second registered
    one would make it warn and pick either, so our wheel has no ``zarr.codecs`` entry point."""
    out = _run(
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "from importlib.metadata import entry_points\n"
        "from zarr.registry import _codec_registries, get_codec_class\n"
        "import zarr, zarr_codec_scale_offset, zarr_codec_scale_offset.zarr_python\n"
        "_codec_registries['scale_offset'].lazy_load()\n"
        "ours = [k for k in _codec_registries['scale_offset'] if k.startswith('zarr_codec')]\n"
        "eps = [e.value for e in entry_points(group='zarr.codecs') if 'scale_offset' in e.value]\n"
        "print(ours, eps, zarr.config.get('codecs', {}).get('scale_offset'), "
        "get_codec_class('scale_offset').__module__)"
    )
    assert out == "[] [] None zarr.codecs.scale_offset"


def test_register_selects_ours_and_unregister_restores_zarr() -> None:
    out = _run(
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "import numpy as np, zarr\n"
        "from zarr.registry import _codec_registries, get_codec_class\n"
        "from zarr_codec_scale_offset import zarr_python as zp\n"
        "before = dict(zarr.config.get('codecs'))\n"
        "zp.register(); zp.register()\n"
        "print(get_codec_class('scale_offset').__module__)\n"
        "a = zarr.create_array(zarr.storage.MemoryStore(), shape=(3,), dtype='int8', "
        "filters=[{'name': 'scale_offset', 'configuration': {'offset': -1, 'scale': -1}}])\n"
        "print(type(a.filters[0]).__name__)\n"
        "try:\n"
        "    a[:] = np.array([1, 2, 127], np.int8)\n"
        "except ValueError as e:\n"
        "    print(type(e).__name__)\n"
        "zp.unregister(); zp.unregister()\n"
        "print(zp.CONFIG_PATH in _codec_registries['scale_offset'], "
        "dict(zarr.config.get('codecs')) == before, get_codec_class('scale_offset').__module__)"
    )
    assert out.splitlines() == [
        "zarr_codec_scale_offset.zarr_python",
        "ScaleOffsetCodec",
        "OutOfRangeError",  # 127 - (-1) = 128: an int8 intermediate the built-in lets pass
        "False True zarr.codecs.scale_offset",
    ]


def test_zarr_config_selects_either_implementation() -> None:
    from zarr.registry import _codec_registries

    assert {BUILTIN, OURS} <= set(_codec_registries["scale_offset"])
    assert zarr.config.get("codecs", {}).get("scale_offset") is None  # zarr names none
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with zarr.config.set({"codecs.scale_offset": BUILTIN}):
            assert zarr.registry.get_codec_class("scale_offset") is BuiltinScaleOffset
        with zarr.config.set({"codecs.scale_offset": OURS}):
            assert zarr.registry.get_codec_class("scale_offset") is ScaleOffsetCodec


def test_zarr_adapter_class() -> None:
    from zarr.abc.codec import ArrayArrayCodec

    assert ArrayArrayCodec in ScaleOffsetCodec.__mro__
    for kwargs in ({"offset": 5, "scale": 0.1}, {}, {"offset": 1000}, {"scale": -2}):
        codec = ScaleOffsetCodec(**kwargs)
        theirs = BuiltinScaleOffset(**kwargs)
        assert codec.to_dict() == json.loads(json.dumps(theirs.to_dict()))
        assert ScaleOffsetCodec.from_dict(theirs.to_dict()) == codec
        assert BuiltinScaleOffset.from_dict(codec.to_dict()) == theirs
    with pytest.raises(ConfigurationError):
        ScaleOffsetCodec(offset=[1])
