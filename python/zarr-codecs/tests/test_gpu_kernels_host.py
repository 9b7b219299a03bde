"""The GPU kernels' source, built for the host, against the Rust CPU codecs, bit for bit.

``zarr_codecs/gpu/array_codecs.cu`` is compiled here by the host C++ compiler (the device build
differs only in where the plan comes from and in using the IEEE intrinsics that never fuse a
multiply and an add; ``-ffp-contract=off`` does the same here) and run over the cases of
``array_codec_cases`` (every pair of the 26 integer and float types, every rounding and
out-of-range rule, both directions, ``scalar_map``, ``scale_offset`` and the fused pair, on edge
values). Each output must equal the CPU codec's bytes exactly, NaN payloads included, and each
element the kernel refuses must make the CPU codec raise ``OutOfRangeError``.

What this cannot show: that the GPU computes what the host build computes. The device build is
checked by ``tests/test_gpu.py`` on a machine with a GPU (``scripts/gpu-check``).
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr_codecs.gpu
from array_codec_cases import (
    FUSED,
    PAIRS,
    SCALAR_MAPS,
    SCALE_OFFSET_TYPES,
    cast_cases,
    compare,
    fused_cases,
    scalar_map_cases,
    scale_offset_cases,
)
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import DataType
from zarr_codecs.gpu.plans import EMULATED_FLOATS, Step, scale_offset_step

SOURCE = Path(zarr_codecs.gpu.__file__).with_name("array_codecs.cu")

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
    lib.zc_run_host.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_uint64] + [ctypes.c_void_p] * 4
    return lib


def run_host(
    lib: Any, step: Step, source: np.ndarray[Any, Any]
) -> tuple[bytes, np.ndarray[Any, Any]]:
    """``step`` over elements given as bytes: the output bytes and which elements it refused."""
    data = np.ascontiguousarray(source)
    count = data.nbytes // step.in_size
    out = np.zeros(count * step.out_size, dtype=np.uint8)
    refused = np.zeros(count, dtype=np.uint8)
    keys = np.array([*(step.cast.map_keys if step.cast else ()), 0], dtype=np.uint64)
    values = np.array([*(step.cast.map_values if step.cast else ()), 0], dtype=np.uint64)
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


def check(lib: Any, cases: Any) -> None:
    for label, step, elements, cpu in cases:
        compare(partial(run_host, lib), step, elements, cpu, label)


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{s}-{t}" for s, t in PAIRS])
def test_cast_value_matches_the_cpu_for_every_pair_and_mode(
    host_kernels: Any, source: str, target: str
) -> None:
    check(host_kernels, cast_cases(source, target))


@pytest.mark.parametrize(("array_type", "codec_type", "mapping"), SCALAR_MAPS)
def test_scalar_map_matches_the_cpu(
    host_kernels: Any, array_type: str, codec_type: str, mapping: dict[str, Any]
) -> None:
    check(host_kernels, scalar_map_cases(array_type, codec_type, mapping))


@pytest.mark.parametrize("name", SCALE_OFFSET_TYPES)
def test_scale_offset_matches_the_cpu(host_kernels: Any, name: str) -> None:
    check(host_kernels, scale_offset_cases(name))


@pytest.mark.parametrize(("array_type", "codec_type", "offset", "scale", "oor"), FUSED)
def test_fused_pair_matches_the_cpu(
    host_kernels: Any, array_type: str, codec_type: str, offset: float, scale: float, oor: Any
) -> None:
    check(host_kernels, fused_cases(array_type, codec_type, offset, scale, oor))


def test_every_small_float_type_gets_scale_offset_parameters() -> None:
    """The emulated float types are each checked with several parameters (a guard against
    a parameter list the types all refuse)."""
    from array_codec_cases import _parameters_for

    for name in sorted(EMULATED_FLOATS):
        assert len(_parameters_for(DataType.from_name(name))) >= 3, name
        step = scale_offset_step(ScaleOffset(0, 2.0), DataType.from_name(name), True)
        assert step.affine_kind == 3


def test_every_case_is_run() -> None:
    """The shared cases cover what the module docstring says (a guard against a generator
    that silently yields nothing)."""
    # Encoding to int8: three out-of-range rules; decoding from float32: no "wrap".
    assert len(list(cast_cases("float32", "int8"))) == 5 * 3 + 5 * 2
    assert len(PAIRS) == 26 * 26


def _constant_plan_steps() -> list[Any]:
    """Steps of every kind, as the device gets them (their ``#define`` rendering)."""
    from zarr_codec_cast_value import CastValue
    from zarr_codecs.gpu.plans import cast_step

    f32, i16 = DataType.from_name("float32"), DataType.from_name("int16")
    mapped = CastValue("int16", "towards-zero", "wrap", {"encode": [["NaN", -1], [2.5, 7]]})
    so, cast = ScaleOffset(0.1, -3.0), CastValue("uint8", "nearest-away", "clamp")
    steps = [
        ("cast float32->bfloat16", Step(0, cast=cast_step(CastValue("bfloat16"), f32, "encode"))),
        ("cast scalar_map", Step(0, cast=cast_step(mapped, f32, "encode"))),
        ("cast int16<-int4", Step(0, cast=cast_step(CastValue("int4"), i16, "decode"))),
        ("scale_offset int16", Step(1, affine=scale_offset_step(ScaleOffset(-7, 3), i16, True))),
        ("scale_offset float32", Step(1, affine=scale_offset_step(so, f32, False))),
        (
            "scale_offset bfloat16",
            Step(1, affine=scale_offset_step(so, DataType.from_name("bfloat16"), True)),
        ),
        (
            "fused",
            Step(2, cast=cast_step(cast, f32, "encode"), affine=scale_offset_step(so, f32, True)),
        ),
    ]
    return [pytest.param(step, id=name) for name, step in steps]


@pytest.mark.parametrize("step", _constant_plan_steps())
def test_constant_plans_mean_what_the_run_time_plan_means(
    host_kernels: Any, step: Step, tmp_path: Path
) -> None:
    """The ``#define`` rendering the device kernels are compiled with (field order, hex
    floats, 64-bit constants, the map) gives the same bytes as the run-time structure the
    other tests use."""
    defines = tmp_path / "plan.h"
    defines.write_text(step.defines())
    library = tmp_path / "libzc_constant.so"
    command = ["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-shared", "-fPIC"]
    command += ["-include", str(defines), "-x", "c++", str(SOURCE), "-o", str(library)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    constant = ctypes.CDLL(str(library))
    constant.zc_run_host_constant.restype = ctypes.c_uint64
    constant.zc_run_host_constant.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_uint64]
    constant.zc_run_host_constant.argtypes += [ctypes.c_void_p]
    source = np.frombuffer(
        np.random.default_rng(7).integers(0, 256, 4096 * step.in_size, dtype=np.uint8).tobytes(),
        dtype=np.uint8,
    )
    count = source.size // step.in_size
    out = np.zeros(count * step.out_size, dtype=np.uint8)
    refused = np.zeros(count, dtype=np.uint8)
    constant.zc_run_host_constant(source.ctypes.data, out.ctypes.data, count, refused.ctypes.data)
    want, want_refused = run_host(host_kernels, step, source)
    np.testing.assert_array_equal(refused.astype(bool), want_refused)
    assert out.tobytes() == want
