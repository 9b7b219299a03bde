"""The array-codec kernels on the device: compiled per :class:`~zarr_codecs.gpu.plans.Step`
with NVRTC, once per process (nothing is kept between processes), and launched over CuPy
arrays. CuPy loads each kernel's PTX from a file in a temporary folder of the process's own,
removed when the process exits.

``--fmad=false`` keeps every float operation rounded on its own, as the CPU codecs compute
(the source uses the ``__*_rn`` intrinsics too); denormals are kept (``-ftz=false``) and
division is IEEE (``-prec-div=true``).

The kernels are compiled here, with these options alone, and CuPy loads the PTX: CuPy's own
``RawModule(code=...)`` appends ``-ftz=true`` to every NVRTC compile, which flushes subnormal
float32 values to zero (found on the first GPU run: a float32 subnormal cast to float64 came
back as zero, where the CPU codecs keep it).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from contextlib import nullcontext
from functools import lru_cache
from pathlib import Path
from typing import Any

from zarr_codecs.gpu.plans import Step

__all__ = ["OPTIONS", "compile_ptx", "device_source", "launch", "load_module", "run_dynamic"]

SOURCE_PATH = Path(__file__).with_name("array_codecs.cu")
OPTIONS = ("--std=c++17", "--fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true")
THREADS = 256


@lru_cache(maxsize=1)
def _source() -> str:
    return SOURCE_PATH.read_text(encoding="utf-8")


def device_source(step: Step) -> str:
    """The CUDA source of ``step``'s kernel: its plan as ``#define`` lines, then the codecs."""
    return step.defines() + _source()


def compile_ptx(step: Step | None, arch: str = "compute_90") -> str:
    """``step``'s kernel (``None``: the run-time-plan kernel alone) compiled to PTX by NVRTC:
    needs CuPy and NVRTC, no GPU (what the tests use to check the device build where there is
    no device)."""
    return _nvrtc_ptx(_source() if step is None else device_source(step), arch)


def _nvrtc_ptx(source: str, arch: str) -> str:
    """``source`` compiled to PTX for ``arch`` by NVRTC with :data:`OPTIONS` and no others."""
    from cupy_backends.cuda.libs import nvrtc

    program = nvrtc.createProgram(source, "array_codecs.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(program, [*OPTIONS, f"-arch={arch}"])
        except nvrtc.NVRTCError as err:
            raise RuntimeError(f"NVRTC: {err}\n{nvrtc.getProgramLog(program)}") from None
        ptx: str | bytes = nvrtc.getPTX(program)
    finally:
        nvrtc.destroyProgram(program)
    return ptx.decode() if isinstance(ptx, bytes) else ptx


def _ptx_folder() -> Path:
    """This process's folder for PTX files, made at first use and removed when the process
    exits. It stays until then: CuPy reads a module's file when a function is first asked of
    it on a device, which may be later than :func:`load_module`."""
    return _process_folder(os.getpid())


@lru_cache(maxsize=1)
def _process_folder(pid: int) -> Path:
    """The folder of process ``pid`` (a forked child makes its own, and never removes its
    parent's)."""
    folder = Path(tempfile.mkdtemp(prefix="zarr-codecs-ptx-"))
    atexit.register(_remove_folder, folder, pid)
    return folder


def _remove_folder(folder: Path, pid: int) -> None:
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def load_module(source: str) -> Any:
    """A CuPy module of ``source`` for the current device, compiled with :data:`OPTIONS` alone
    (see the module's notes on ``-ftz``) and loaded from PTX."""
    import cupy

    arch = f"compute_{cupy.cuda.Device().compute_capability}"
    ptx = _nvrtc_ptx(source, arch)
    name = hashlib.sha256(f"{arch}\0{source}".encode()).hexdigest()[:32]
    path = _ptx_folder() / f"{name}.ptx"
    if not path.exists():
        temporary = path.with_suffix(".tmp")
        temporary.write_text(ptx, encoding="utf-8")
        temporary.replace(path)
    return cupy.RawModule(path=str(path))


@lru_cache(maxsize=512)
def _kernel(step: Step) -> Any:
    return load_module(device_source(step)).get_function("zc_run")


@lru_cache(maxsize=16)
def _multiprocessors(device: int) -> int:
    """The device's multiprocessor count (asked once: ``Device.attributes`` reads them all)."""
    import cupy

    runtime = cupy.cuda.runtime
    return int(runtime.deviceGetAttribute(runtime.cudaDevAttrMultiProcessorCount, device))


def launch(step: Step, source: Any, target: Any, stream: Any = None) -> Any:
    """Run ``step`` over the bytes of the CuPy array ``source`` into those of ``target``
    (C-contiguous, on the current device). Returns a one-element device array holding the
    index of the first element the codec refused, or the element count when none was; the
    caller reads it when it needs to know (a read waits for the kernel)."""
    import cupy

    count = source.nbytes // step.in_size
    failed = cupy.full(1, count, dtype=cupy.uint64)
    if count == 0:
        return failed
    blocks = min(-(-count // THREADS), _multiprocessors(cupy.cuda.Device().id) * 32)
    kernel = _kernel(step)
    with stream if stream is not None else nullcontext():
        kernel((blocks,), (THREADS,), (source, target, cupy.uint64(count), failed))
    return failed


@lru_cache(maxsize=1)
def _dynamic_kernel() -> Any:
    return load_module(_source()).get_function("zc_run_dynamic")


def run_dynamic(step: Step, source: Any) -> tuple[Any, Any]:
    """``step`` over the bytes of the CuPy array ``source`` with the kernel that reads its plan
    at run time (one build for every plan: what the tests use over the whole matrix of cases).
    Returns the output bytes and, per element, whether it was refused (CuPy arrays)."""
    import cupy
    import numpy as np

    count = source.nbytes // step.in_size
    out = cupy.zeros(count * step.out_size, dtype=cupy.uint8)
    refused = cupy.zeros(count, dtype=cupy.uint8)
    if count == 0:
        return out, refused.astype(bool)
    plan = cupy.asarray(np.frombuffer(bytes(step.c_struct()), dtype=np.uint8))
    keys = cupy.asarray(np.array([*(step.cast.map_keys if step.cast else ()), 0], np.uint64))
    values = cupy.asarray(np.array([*(step.cast.map_values if step.cast else ()), 0], np.uint64))
    blocks = min(-(-count // THREADS), 65535)
    args = (source, out, cupy.uint64(count), plan, keys, values, refused)
    _dynamic_kernel()((blocks,), (THREADS,), args)
    return out, refused.astype(bool)
