"""The cases every build of the GPU array-codec kernels is checked on, against the Rust CPU
codecs, bit for bit: every pair of the integer and float types in every rounding mode and
out-of-range rule and both directions, ``scalar_map``, ``scale_offset`` and the fused pair,
over edge values (every bit pattern of the 8- and 16-bit types; for wider ones the limits,
ties and neighbours of both types, NaN payloads, infinities, zeros, subnormals and random
bits). Shared by the host build's tests (``python/zarr-codecs/tests``) and the GPU's
(``tests/test_gpu.py``), which differ only in how a step is run.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import numpy as np
import pytest
from zarr_codec_cast_value import ROUNDING_MODES, CastValue
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import ChunkSpec, CodecError, DataType, OutOfRangeError
from zarr_codecs.gpu.plans import Step, cast_step, scale_offset_step

# Every integer and float type (the ones cast_value and scale_offset are defined for), from
# the API's own list.
INTS = tuple(d.name for d in DataType.ALL if d.is_integer and d.integer_range()[0] < 0)
UINTS = tuple(d.name for d in DataType.ALL if d.is_integer and d.integer_range()[0] == 0)
FLOATS = tuple(d.name for d in DataType.ALL if d.is_float)
TYPES = INTS + UINTS + FLOATS
PAIRS = list(itertools.product(TYPES, TYPES))
ROUNDINGS = tuple(ROUNDING_MODES)
# How many refused elements are asked of the CPU codec one at a time, per case.
REFUSED_SAMPLE = 24

#: One case: a label, the step, the source elements as bytes, and the CPU function to match.
Case = tuple[str, Step, bytes, Callable[[Any], Any]]


# -- edge values -------------------------------------------------------------------------------


def _unsigned(size: int) -> type[np.unsignedinteger[Any]]:
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]


def _all_patterns(data_type: DataType) -> np.ndarray[Any, Any]:
    """Every value of a type of at most 16 bits, as its stored bytes."""
    count = 1 << data_type.bits
    patterns = np.arange(count, dtype=np.uint64)
    if data_type.is_integer and data_type.integer_range()[0] < 0 and data_type.bits < 8:
        # Sub-byte signed values are stored sign-extended to the byte.
        patterns = np.where(patterns >= count // 2, patterns + (256 - count), patterns)
    return patterns.astype(_unsigned(data_type.itemsize))


@cache
def edge_elements(source: str, target: str) -> bytes:
    """Elements of ``source`` where a cast to ``target`` changes behaviour, as bytes."""
    s, t = DataType.from_name(source), DataType.from_name(target)
    if s.bits <= 16:
        return _all_patterns(s).tobytes()
    magnitudes: set[float] = {0.5 * k for k in range(1, 16)}
    magnitudes |= {2.0**p + d for p in range(-1100, 1025, 7) for d in (0,)}
    magnitudes |= {float(2**p + d) for p in (7, 8, 15, 16, 31, 32, 53, 63, 64) for d in (-1, 0, 1)}
    for dt in (s, t):
        if dt.is_integer:
            low, high = dt.integer_range()
            magnitudes |= {float(v) for v in (high, high + 1, -low, -low + 1) if v > 0}
            magnitudes |= {v + 0.5 for v in (0.0, 1.0, float(high) - 1, float(high))}
    if t.bits <= 16 and t.is_float:
        ladder = np.sort(cpu_values_as_float64(t))
        magnitudes |= set(ladder.tolist()) | set(((ladder[1:] + ladder[:-1]) / 2).tolist())
    magnitudes = {m for m in magnitudes if np.isfinite(m) and m > 0}
    values = sorted(magnitudes | {-m for m in magnitudes})
    if s.is_integer:
        low, high = s.integer_range()
        ints = {int(v) for v in values if low <= v <= high}
        ints |= {v + d for v in ints for d in (-1, 1) if low <= v + d <= high}
        ints |= {low, high, 0}
        elements = np.array(sorted(ints), dtype=s.numpy_dtype)
    else:
        dtype = s.numpy_dtype
        with np.errstate(over="ignore"):
            near = np.array(values, dtype=np.float64).astype(dtype)
        near = near[np.isfinite(near)]
        elements = np.concatenate(
            [
                near,
                np.nextafter(near, np.array(np.inf, dtype)),
                np.nextafter(near, np.array(-np.inf, dtype)),
                np.array([0.0, -0.0, np.inf, -np.inf], dtype=dtype),
            ]
        )
        finfo = np.finfo(dtype)
        tiny = np.array([finfo.smallest_subnormal, finfo.smallest_normal, finfo.max], dtype)
        elements = np.concatenate([elements, tiny, -tiny]).astype(dtype)
        unsigned = _unsigned(s.itemsize)
        quiet = {4: 0x7FC00000, 8: 0x7FF8000000000000}[s.itemsize]
        nans = [quiet, quiet | 1, quiet + 0x1234, quiet >> 1 | 1]  # quiet and signalling
        nans += [n | (1 << (s.itemsize * 8 - 1)) for n in nans]  # negative ones
        elements = np.concatenate([elements.view(unsigned), np.array(nans, dtype=unsigned)])
    rng = np.random.default_rng(len(source) * 31 + len(target))
    random_bits = rng.integers(0, 1 << 63, size=512, dtype=np.uint64) * 2 + 1
    random_bits = random_bits.astype(_unsigned(s.itemsize))
    return np.concatenate([np.asarray(elements).view(_unsigned(s.itemsize)), random_bits]).tobytes()


@cache
def cpu_values_as_float64(data_type: DataType) -> np.ndarray[Any, Any]:
    """Every finite value of a small float type, as float64 (through our CPU codec)."""
    array = np.frombuffer(_all_patterns(data_type).tobytes(), dtype=data_type.numpy_dtype)
    wide = CastValue("float64").encode(array, ChunkSpec(array.shape, data_type.name))
    return wide[np.isfinite(wide)]


# -- comparing with the CPU ----------------------------------------------------------------------


#: Runs a step over elements given as bytes (a ``uint8`` array): the output bytes, and a
#: boolean array of the elements it refused.
Runner = Callable[[Step, np.ndarray[Any, Any]], tuple[bytes, np.ndarray[Any, Any]]]


def compare(run: Runner, step: Step, elements: bytes, cpu: Any, label: str) -> None:
    """The kernel (``run``) and the CPU function ``cpu`` (numpy array in, numpy array out)
    agree on every element: equal bytes where the kernel accepts it, ``OutOfRangeError`` from
    the CPU where the kernel refuses it."""
    source, target = step.source, step.target
    array = np.frombuffer(elements, dtype=source.numpy_dtype)
    out, refused = run(step, np.frombuffer(elements, dtype=np.uint8))
    got = np.frombuffer(out, dtype=np.uint8).reshape(len(array), target.itemsize)
    accepted = ~refused
    if accepted.any():
        try:
            want = np.asarray(cpu(array[accepted]))
        except OutOfRangeError as err:
            pytest.fail(f"{label}: the CPU codec refused what the kernel accepted: {err}")
        want_bytes = np.frombuffer(want.tobytes(), dtype=np.uint8).reshape(-1, target.itemsize)
        differs = np.nonzero((want_bytes != got[accepted]).any(axis=1))[0]
        if len(differs):
            i = differs[0]
            element = array[accepted][i : i + 1].view(_unsigned(source.itemsize))[0]
            pytest.fail(
                f"{label}: element 0x{int(element):x} gave {got[accepted][i].tobytes().hex()} "
                f"from the kernel, {want_bytes[i].tobytes().hex()} on the CPU "
                f"({len(differs)} of {accepted.sum()} differ)"
            )
    indices = np.nonzero(refused)[0]
    if len(indices):
        sample = np.unique(
            np.concatenate([indices[: REFUSED_SAMPLE // 2], indices[-REFUSED_SAMPLE // 2 :]])
        )
        for i in sample:
            with pytest.raises(OutOfRangeError):
                cpu(array[i : i + 1])
        with pytest.raises(OutOfRangeError):
            cpu(array)


def cast_cases(source: str, target: str) -> Iterator[Case]:
    """Encoding ``source`` arrays with a ``target`` codec, and decoding arrays of ``target``
    from a ``source`` codec (the same cast, by the other direction's plan), in every rounding
    mode and out-of-range rule."""
    elements = edge_elements(source, target)
    s, t = DataType.from_name(source), DataType.from_name(target)
    for rounding, oor in itertools.product(ROUNDINGS, [None, "clamp", "wrap"]):
        if oor == "wrap" and not t.is_integer:
            continue
        codec = CastValue(target, rounding, oor)

        def cpu(array: Any, codec: CastValue = codec) -> Any:
            return codec.encode(array, ChunkSpec(array.shape, source))

        step = Step(0, cast=cast_step(codec, s, "encode"))
        yield f"encode {source}->{target} {rounding} {oor}", step, elements, cpu
    for rounding, oor in itertools.product(ROUNDINGS, [None, "clamp", "wrap"]):
        if oor == "wrap" and not s.is_integer:
            continue
        codec = CastValue(source, rounding, oor)

        def cpu_decode(array: Any, codec: CastValue = codec) -> Any:
            return codec.decode(array, ChunkSpec(array.shape, target))

        step = Step(0, cast=cast_step(codec, t, "decode"))
        yield f"decode {source}->{target} {rounding} {oor}", step, elements, cpu_decode


SCALAR_MAPS = [
    ("float32", "int16", {"encode": [["NaN", -32768], [1.5, 7], [1.5, 8], [-0.0, 3]]}),
    ("float64", "uint8", {"encode": [["NaN", 255], ["Infinity", 254], ["-Infinity", 0]]}),
    ("float32", "float8_e4m3fnuz", {"encode": [["Infinity", "NaN"], [0.0, 1.0]]}),
    ("int32", "float4_e2m1fn", {"encode": [[100, 6.0], [-100, -6.0]]}),
    ("float16", "int4", {"encode": [["NaN", -8], ["+Infinity", 7]]}),
    ("float64", "float8_e8m0fnu", {"encode": [[0.0, "0x7f"], ["-Infinity", 1.0]]}),
]


def scalar_map_cases(array_type: str, codec_type: str, mapping: dict[str, Any]) -> Iterator[Case]:
    """Keys match by value (every NaN one key, -0 equal to 0), the first repeated key wins,
    mapped values skip every other rule; both directions, with and without ``clamp``."""
    back = [[value, key] for key, value in mapping["encode"]]
    source = DataType.from_name(array_type)
    for oor in (None, "clamp"):
        codec = CastValue(codec_type, "nearest-even", oor, {**mapping, "decode": back})

        def cpu(array: Any, codec: CastValue = codec) -> Any:
            return codec.encode(array, ChunkSpec(array.shape, array_type))

        def cpu_decode(array: Any, codec: CastValue = codec) -> Any:
            return codec.decode(array, ChunkSpec(array.shape, array_type))

        encode = Step(0, cast=cast_step(codec, source, "encode"))
        decode = Step(0, cast=cast_step(codec, source, "decode"))
        yield f"map encode {oor}", encode, edge_elements(array_type, codec_type), cpu
        yield f"map decode {oor}", decode, edge_elements(codec_type, array_type), cpu_decode


SCALE_OFFSET_TYPES = [n for n in INTS + UINTS if n not in ("int2", "uint2")] + list(FLOATS)
_PARAMETERS = [(0, 1), (3, 2), (-7, 3), (100, -1), (1, 127)]
# Offsets and scales for the small float types, each kept where the type holds it; the large
# ones overflow (to infinity, or refused where the type has none).
_SMALL_FLOAT_PARAMETERS = [
    (0, 1.0),
    (0.5, 2.0),
    (-1.5, 0.5),
    (1.0, -3.0),
    (-3.0, 4.0),
    (100.0, 0.25),
    (-60000.0, 2.0),
    (448.0, 1.0),
    (0, 0.125),
    (2.0, 0.5),
]


def _parameters_for(data_type: DataType) -> list[tuple[Any, Any]]:
    if data_type.is_integer:
        low, high = data_type.integer_range()
        found = [(o, s) for o, s in _PARAMETERS if low <= o <= high and low <= s <= high]
        return [*found, (high, 1), (low, 1), (0, high), (1, low or 1)]
    if data_type.itemsize >= 4:
        huge, tiny = (1e300, 1e-300) if data_type.itemsize == 8 else (3e38, 1e-30)
        return [(0.0, 1.0), (3.25, 2.5), (-1000.1, 10.3), (huge, tiny), (0.1, -7.0)]
    found = []
    for offset, scale in _SMALL_FLOAT_PARAMETERS:
        try:
            ScaleOffset(offset, scale).bind(data_type)
        except CodecError:  # the type cannot hold one of them
            continue
        found.append((offset, scale))
    return found


def scale_offset_cases(name: str) -> Iterator[Case]:
    """Integers exactly (every intermediate range-checked, decoding refusing remainders),
    float32/float64 with one rounding per operation and NaN payloads kept, the other float
    types in float64 rounded to the type after each operation; both directions."""
    data_type = DataType.from_name(name)
    elements = edge_elements(name, name)
    for offset, scale in _parameters_for(data_type):
        codec = ScaleOffset(offset, scale)
        for encode in (True, False):
            affine = scale_offset_step(codec, data_type, encode)

            def cpu(array: Any, codec: ScaleOffset = codec, encode: bool = encode) -> Any:
                spec = ChunkSpec(array.shape, name)
                return codec.encode(array, spec) if encode else codec.decode(array, spec)

            label = f"scale_offset {name} {offset} {scale} encode={encode}"
            yield label, Step(1, affine=affine), elements, cpu


FUSED = [
    ("float32", "int16", 1000.5, 8.0, "clamp"),
    ("float32", "uint8", -3.0, 0.5, "wrap"),
    ("float64", "int32", 1e5, 1e-3, "clamp"),
    ("float64", "float16", 0.0, 3.0, None),
    ("float32", "float8_e4m3", 2.0, 1.5, "clamp"),
]


def fused_cases(
    array_type: str, codec_type: str, offset: float, scale: float, oor: str | None
) -> Iterator[Case]:
    """``[scale_offset, cast_value]`` as one step, both directions, against the two CPU codecs
    one after the other, in every rounding mode."""
    data_type = DataType.from_name(array_type)
    so = ScaleOffset(offset, scale)
    for rounding in ROUNDINGS:
        cast = CastValue(codec_type, rounding, oor)

        def cpu(array: Any, cast: CastValue = cast) -> Any:
            spec = ChunkSpec(array.shape, array_type)
            return cast.encode(so.encode(array, spec), spec)

        def cpu_decode(array: Any, cast: CastValue = cast) -> Any:
            spec = ChunkSpec(array.shape, array_type)
            return so.decode(cast.decode(array, spec), spec)

        encode = Step(
            2,
            cast=cast_step(cast, data_type, "encode"),
            affine=scale_offset_step(so, data_type, True),
        )
        decode = Step(
            3,
            cast=cast_step(cast, data_type, "decode"),
            affine=scale_offset_step(so, data_type, False),
        )
        yield f"fused encode {rounding}", encode, edge_elements(array_type, codec_type), cpu
        yield f"fused decode {rounding}", decode, edge_elements(codec_type, array_type), cpu_decode


def all_cases() -> Iterator[Case]:
    """Every case above, in one stream (what a GPU run goes through)."""
    for source, target in PAIRS:
        yield from cast_cases(source, target)
    for mapped in SCALAR_MAPS:
        yield from scalar_map_cases(*mapped)
    for name in SCALE_OFFSET_TYPES:
        yield from scale_offset_cases(name)
    for fused in FUSED:
        yield from fused_cases(*fused)
