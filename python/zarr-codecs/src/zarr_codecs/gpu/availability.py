"""Whether this machine can run the GPU path: CuPy importable and a CUDA device present."""

from __future__ import annotations

from functools import cache

from zarr_codec_shapes import UnsupportedError

__all__ = ["GpuUnavailableError", "available", "why_unavailable"]


class GpuUnavailableError(UnsupportedError):
    """The GPU path was asked for where it cannot run (no CuPy, no CUDA device or driver)."""


@cache
def why_unavailable() -> str | None:
    """``None`` when CuPy imports and sees at least one CUDA device; otherwise why not."""
    try:
        import cupy
    except ImportError as err:
        return f"CuPy is not installed (pip install 'zarr-codecs[gpu]'): {err}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # CUDARuntimeError and friends: no driver, no device
        return f"no usable CUDA device: {err}"
    return None if count > 0 else "no CUDA device"


def available() -> bool:
    """Whether the GPU path can run here."""
    return why_unavailable() is None


def require() -> None:
    """Raise :class:`GpuUnavailableError` saying why, unless the GPU path can run."""
    reason = why_unavailable()
    if reason is not None:
        raise GpuUnavailableError(f"zarr_codecs.gpu cannot run here: {reason}")
