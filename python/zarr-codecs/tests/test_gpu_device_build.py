"""The device build of the GPU kernels: every kind of step compiles with NVRTC to PTX.

Needs CuPy and NVRTC (``pip install "zarr-codecs[gpu]"``), not a GPU: this is the part of the
device build that a machine without one can check. Whether the compiled kernels compute what
the CPU codecs compute is ``tests/test_gpu.py``'s work, on a GPU.
"""

from __future__ import annotations

import pytest
from zarr_codec_cast_value import CastValue
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import DataType
from zarr_codecs.gpu.plans import Step, cast_step, scale_offset_step

nvrtc = pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="needs CuPy with NVRTC")
try:
    nvrtc.getVersion()
except Exception as err:  # the library itself is missing
    pytest.skip(f"NVRTC is not usable: {err}", allow_module_level=True)

from zarr_codecs.gpu.kernels import compile_ptx  # noqa: E402

F32 = DataType.from_name("float32")


def steps() -> list[pytest.param]:
    found = []
    for name in ("int4", "uint8", "int64", "float8_e8m0fnu", "float4_e2m1fn", "bfloat16"):
        codec = CastValue(name, "towards-negative", "clamp")
        found.append(pytest.param(Step(0, cast=cast_step(codec, F32, "encode")), id=f"cast-{name}"))
    mapped = CastValue("int16", out_of_range="wrap", scalar_map={"encode": [["NaN", -1]]})
    found.append(pytest.param(Step(0, cast=cast_step(mapped, F32, "encode")), id="scalar-map"))
    for name in ("int32", "uint64", "float32", "float64", "float16", "float8_e8m0fnu"):
        so = scale_offset_step(ScaleOffset(3, 2), DataType.from_name(name), True)
        found.append(pytest.param(Step(1, affine=so), id=f"scale-offset-{name}"))
    so, cast = ScaleOffset(0.5, 4.0), CastValue("uint16", out_of_range="clamp")
    encode = Step(2, cast=cast_step(cast, F32, "encode"), affine=scale_offset_step(so, F32, True))
    decode = Step(3, cast=cast_step(cast, F32, "decode"), affine=scale_offset_step(so, F32, False))
    found += [pytest.param(encode, id="fused-encode"), pytest.param(decode, id="fused-decode")]
    return found


@pytest.mark.parametrize("step", steps())
def test_the_kernel_compiles_for_the_device(step: Step) -> None:
    ptx = compile_ptx(step)
    assert ".entry zc_run" in ptx
    # No fused multiply-add may appear: every operation is rounded on its own, as on the CPU.
    assert "fma." not in ptx
    # Subnormal float32 values are kept, as on the CPU (CuPy's own compile flushes them).
    assert ".ftz" not in ptx


def test_the_run_time_plan_kernel_compiles_for_the_device() -> None:
    ptx = compile_ptx(None)
    assert ".entry zc_run_dynamic" in ptx
    assert ".entry zc_run(" not in ptx  # the constant-plan kernel needs a plan
    assert "fma." not in ptx
    assert ".ftz" not in ptx
