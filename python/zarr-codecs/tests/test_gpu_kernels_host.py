"""The GPU kernels' source, built for the host, against the Rust CPU codecs, bit for bit.

``zarr_codecs/gpu/array_codecs.cu`` is compiled here by the host C++ compiler (the device build
differs only in where the plan comes from and in using the IEEE intrinsics that never fuse a
multiply and an add; ``-ffp-contract=off`` does the same here). Every pair of the 29 integer
and float types, every rounding mode and out-of-range rule, both directions, ``scalar_map``,
``scale_offset`` and the fused pair run over edge values: every bit pattern of the 8- and
16-bit types, and for wider ones the limits, ties and neighbours of both types, NaN payloads,
infinities, zeros, subnormals and random bits. Each output must equal the CPU codec's bytes
exactly (NaN payloads included), and each element the kernel refuses must make the CPU codec
raise ``OutOfRangeError``.

What this cannot show: that the GPU computes what the host build computes. The device build is
checked by ``tests/test_gpu.py`` on a machine with a GPU (``scripts/gpu-check``).
"""

from __future__ import annotations

import ctypes
import itertools
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr_codecs.gpu
from zarr_codec_cast_value import CastValue
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import ChunkSpec, DataType, OutOfRangeError
from zarr_codecs.gpu.plans import EMULATED_FLOATS, Step, cast_step, scale_offset_step

SOURCE = Path(zarr_codecs.gpu.__file__).with_name("array_codecs.cu")
INTS = ("int2", "int4", "int8", "int16", "int32", "int64")
UINTS = ("uint2", "uint4", "uint8", "uint16", "uint32", "uint64")
FLOATS = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
    "float8_e4m3",
)
TYPES = tuple(dict.fromkeys(INTS + UINTS + FLOATS))
ROUNDINGS = ("nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away")
# How many refused elements are asked of the CPU codec one at a time, per case.
REFUSED_SAMPLE = 24

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs a C++ compiler (g++)")


@pytest.fixture(scope="module")
def host_kernels(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The kernels' source built as a host library (plain C++, no CUDA)."""
    library = tmp_path_factory.mktemp("gpu-host") / "libzc_host.so"
    command = ["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-fno-fast-math", "-shared"]
    command += ["-fPIC", "-x", "c++", str(SOURCE), "-o", str(library)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    lib = ctypes.CDLL(str(library))
    lib.zc_run_host.restype = ctypes.c_uint64
    lib.zc_run_host.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_uint64,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
    ]
    return lib


def run_host(lib: Any, step: Step, source_bits: np.ndarray[Any, Any]) -> tuple[bytes, np.ndarray]:
    """The step over elements given as bytes; returns the output bytes and which were refused."""
    data = np.ascontiguousarray(source_bits)
    count = data.nbytes // step.in_size
    out = np.zeros(count * step.out_size, dtype=np.uint8)
    refused = np.zeros(count, dtype=np.uint8)
    keys = np.array(step.cast.map_keys if step.cast else (), dtype=np.uint64)
    values = np.array(step.cast.map_values if step.cast else (), dtype=np.uint64)
    keys, values = np.append(keys, np.uint64(0)), np.append(values, np.uint64(0))
    c_step = step.c_struct()
    lib.zc_run_host(
        data.ctypes.data,
        out.ctypes.data,
        count,
        ctypes.addressof(c_step),
        keys.ctypes.data,
        values.ctypes.data,
        refused.ctypes.data,
    )
    return out.tobytes(), refused.astype(bool)


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


def compare(
    lib: Any, step: Step, elements: bytes, cpu: Any, label: str, refusals_checked: int = 0
) -> None:
    """The host kernel and the CPU function ``cpu`` (numpy array in, numpy array out) agree on
    every element: equal bytes where the kernel accepts it, ``OutOfRangeError`` where it
    refuses it."""
    source, target = step.source, step.target
    array = np.frombuffer(elements, dtype=source.numpy_dtype)
    out, refused = run_host(lib, step, np.frombuffer(elements, dtype=np.uint8))
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
                f"on the host kernel, {want_bytes[i].tobytes().hex()} on the CPU "
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


def _cast_cases() -> list[Any]:
    cases = []
    for source, target in itertools.product(TYPES, TYPES):
        cases.append(pytest.param(source, target, id=f"{source}-{target}"))
    return cases


@pytest.mark.parametrize(("source", "target"), _cast_cases())
def test_cast_value_matches_the_cpu_for_every_pair_and_mode(
    host_kernels: Any, source: str, target: str
) -> None:
    """Encoding ``source`` arrays to a ``target`` codec type, and decoding ``target``-typed
    codecs back into ``source`` arrays (the same cast run by the other direction's plan), in
    every rounding mode and out-of-range rule."""
    elements = edge_elements(source, target)
    s = DataType.from_name(source)
    wraps = [None, "clamp"] + (["wrap"] if DataType.from_name(target).is_integer else [])
    for rounding, oor in itertools.product(ROUNDINGS, wraps):
        codec = CastValue(target, rounding, oor)
        step = Step(0, cast=cast_step(codec, s, "encode"))

        def cpu(array: Any, codec: CastValue = codec) -> Any:
            return codec.encode(array, ChunkSpec(array.shape, source))

        compare(host_kernels, step, elements, cpu, f"encode {source}->{target} {rounding} {oor}")
    # Decoding: the codec's type is `source` here, the array's `target`.
    wraps = [None, "clamp"] + (["wrap"] if s.is_integer else [])
    for rounding, oor in itertools.product(ROUNDINGS, wraps):
        codec = CastValue(source, rounding, oor)
        step = Step(0, cast=cast_step(codec, DataType.from_name(target), "decode"))

        def cpu_decode(array: Any, codec: CastValue = codec) -> Any:
            return codec.decode(array, ChunkSpec(array.shape, target))

        compare(
            host_kernels, step, elements, cpu_decode, f"decode {source}->{target} {rounding} {oor}"
        )


SCALAR_MAPS = [
    ("float32", "int16", {"encode": [["NaN", -32768], [1.5, 7], [1.5, 8], [-0.0, 3]]}),
    ("float64", "uint8", {"encode": [["NaN", 255], ["Infinity", 254], ["-Infinity", 0]]}),
    ("float32", "float8_e4m3fnuz", {"encode": [["Infinity", "NaN"], [0.0, 1.0]]}),
    ("int32", "float4_e2m1fn", {"encode": [[100, 6.0], [-100, -6.0]]}),
    ("float16", "int4", {"encode": [["NaN", -8], ["+Infinity", 7]]}),
    ("float64", "float8_e8m0fnu", {"encode": [[0.0, "0x7f"], ["-Infinity", 1.0]]}),
]


@pytest.mark.parametrize(("array_type", "codec_type", "mapping"), SCALAR_MAPS)
def test_scalar_map_matches_the_cpu(
    host_kernels: Any, array_type: str, codec_type: str, mapping: dict[str, Any]
) -> None:
    """Keys match by value (every NaN one key, -0 equal to 0), the first repeated key wins,
    and mapped values skip every other rule, as on the CPU."""
    back = [[value, key] for key, value in mapping["encode"]]
    for oor in (None, "clamp"):
        codec = CastValue(codec_type, "nearest-even", oor, {**mapping, "decode": back})
        source = DataType.from_name(array_type)
        step = Step(0, cast=cast_step(codec, source, "encode"))

        def cpu(array: Any, codec: CastValue = codec) -> Any:
            return codec.encode(array, ChunkSpec(array.shape, array_type))

        compare(host_kernels, step, edge_elements(array_type, codec_type), cpu, f"map {oor}")
        decode = Step(0, cast=cast_step(codec, source, "decode"))

        def cpu_decode(array: Any, codec: CastValue = codec) -> Any:
            return codec.decode(array, ChunkSpec(array.shape, array_type))

        elements = edge_elements(codec_type, array_type)
        compare(host_kernels, decode, elements, cpu_decode, f"map decode {oor}")


PARAMETERS = [(0, 1), (3, 2), (-7, 3), (100, -1), (1, 127), ("0x3ff0000000000000", 1)]


def _scale_offset_cases() -> list[Any]:
    names = [n for n in INTS + UINTS if n not in ("int2", "uint2")] + ["float32", "float64"]
    return [pytest.param(name, id=name) for name in names]


def _parameters_for(data_type: DataType) -> list[tuple[Any, Any]]:
    if data_type.is_integer:
        low, high = data_type.integer_range()
        found = [(o, s) for o, s in PARAMETERS if isinstance(o, int) and low <= o <= high]
        found = [(o, s) for o, s in found if low <= s <= high and s != 0]
        return [*found, (high, 1), (low, 1), (0, high), (1, low or 1)]
    return [
        (0.0, 1.0),
        (3.25, 2.5),
        (-1000.1, 10.3),
        (1e300 if data_type.itemsize == 8 else 3e38, 1e-300 if data_type.itemsize == 8 else 1e-30),
        (0.1, -7.0),
    ]


@pytest.mark.parametrize("name", _scale_offset_cases())
def test_scale_offset_matches_the_cpu(host_kernels: Any, name: str) -> None:
    """Integers exactly (every intermediate range-checked, decoding refusing remainders) and
    float32/float64 one rounding per operation, NaN payloads kept, both directions."""
    data_type = DataType.from_name(name)
    elements = edge_elements(name, name)
    for offset, scale in _parameters_for(data_type):
        codec = ScaleOffset(offset, scale)
        for encode in (True, False):
            affine = scale_offset_step(codec, data_type, encode)
            assert affine is not None
            step = Step(1, affine=affine)

            def cpu(array: Any, codec: ScaleOffset = codec, encode: bool = encode) -> Any:
                spec = ChunkSpec(array.shape, name)
                return codec.encode(array, spec) if encode else codec.decode(array, spec)

            compare(host_kernels, step, elements, cpu, f"{name} {offset} {scale} {encode}")


def test_emulated_float_types_are_left_to_the_cpu() -> None:
    """scale_offset of the small float types is computed in float64 with a rounding per
    operation on the CPU; the GPU path has no kernel for them and says so."""
    for name in sorted(EMULATED_FLOATS):
        data_type = DataType.from_name(name)
        offset = 0 if name != "float8_e8m0fnu" else "0x7f"
        assert scale_offset_step(ScaleOffset(offset=offset, scale=1), data_type, True) is None


FUSED = [
    ("float32", "int16", 1000.5, 8.0, "clamp"),
    ("float32", "uint8", -3.0, 0.5, "wrap"),
    ("float64", "int32", 1e5, 1e-3, "clamp"),
    ("float64", "float16", 0.0, 3.0, None),
    ("float32", "float8_e4m3", 2.0, 1.5, "clamp"),
]


@pytest.mark.parametrize(("array_type", "codec_type", "offset", "scale", "oor"), FUSED)
def test_fused_pair_matches_the_cpu(
    host_kernels: Any, array_type: str, codec_type: str, offset: float, scale: float, oor: Any
) -> None:
    """``[scale_offset, cast_value]`` in one kernel, both directions, against the two CPU
    codecs one after the other."""
    data_type = DataType.from_name(array_type)
    so = ScaleOffset(offset, scale)
    for rounding in ROUNDINGS:
        cast = CastValue(codec_type, rounding, oor)
        encode = Step(
            2,
            cast=cast_step(cast, data_type, "encode"),
            affine=scale_offset_step(so, data_type, True),
        )

        def cpu(array: Any, cast: CastValue = cast) -> Any:
            spec = ChunkSpec(array.shape, array_type)
            return cast.encode(so.encode(array, spec), spec)

        compare(
            host_kernels, encode, edge_elements(array_type, codec_type), cpu, f"fused {rounding}"
        )
        decode = Step(
            3,
            cast=cast_step(cast, data_type, "decode"),
            affine=scale_offset_step(so, data_type, False),
        )

        def cpu_decode(array: Any, cast: CastValue = cast) -> Any:
            spec = ChunkSpec(array.shape, array_type)
            return so.decode(cast.decode(array, spec), spec)

        compare(
            host_kernels,
            decode,
            edge_elements(codec_type, array_type),
            cpu_decode,
            f"fused decode {rounding}",
        )
