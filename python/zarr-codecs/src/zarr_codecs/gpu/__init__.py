"""Our codecs on an NVIDIA GPU, with CuPy: chunks decoded on the device, bit for bit as on the CPU.

Nothing here imports CuPy or nvCOMP until a GPU function is called, so ``import
zarr_codecs.gpu`` works everywhere; :func:`available` says whether this machine can run it.
Install the extra for the GPU libraries: ``pip install "zarr-codecs[gpu]"``.
"""

from __future__ import annotations

from zarr_codecs.gpu.availability import GpuUnavailableError, available, why_unavailable
from zarr_codecs.gpu.codecs import on_device

__all__ = ["GpuUnavailableError", "available", "on_device", "why_unavailable"]
