"""Where a buffer lives and where a codec runs, so that device memory never reaches a codec
that cannot read it (it would be read as host memory, or fail deep inside with an unrelated
error).

Devices are named as DLPack names them, lower case: ``"cpu"`` and ``"cuda"`` (and
``"rocm"``, ``"metal"``, ... for the others). A codec says where it runs with a ``devices``
attribute (a set of names); without one it runs on the CPU.
"""

from __future__ import annotations

from typing import Any

from zarr_codec_shapes.errors import DeviceError

__all__ = ["device_of", "require_device", "supported_devices"]

# DLPack's device types (dlpack.h `DLDeviceType`); the host-memory ones are the CPU's.
_DLPACK_DEVICES = {
    1: "cpu",
    2: "cuda",
    3: "cpu",  # kDLCUDAHost: pinned host memory
    4: "opencl",
    7: "vulkan",
    8: "metal",
    9: "vpi",
    10: "rocm",
    11: "cpu",  # kDLROCMHost
    12: "ext_dev",
    13: "cuda",  # kDLCUDAManaged
    14: "oneapi",
    15: "webgpu",
    16: "hexagon",
}

CPU = frozenset({"cpu"})


def device_of(obj: Any) -> str:
    """The device whose memory holds ``obj``'s data: ``"cuda"`` for objects with the CUDA array
    interface (CuPy, Numba, PyTorch on CUDA), the DLPack device of objects that say, ``"cpu"``
    for everything else (bytes, numpy arrays, memoryviews)."""
    if hasattr(obj, "__cuda_array_interface__"):
        return "cuda"
    dlpack_device = getattr(obj, "__dlpack_device__", None)
    if dlpack_device is not None:
        try:
            kind = int(dlpack_device()[0])
        except Exception:  # a broken or exotic implementation: not ours to judge
            return "cpu"
        return _DLPACK_DEVICES.get(kind, f"dlpack device {kind}")
    return "cpu"


def supported_devices(codec: Any) -> frozenset[str]:
    """The devices ``codec`` runs on (its ``devices`` attribute; the CPU alone without one)."""
    devices = getattr(codec, "devices", None)
    return CPU if devices is None else frozenset(devices)


def require_device(devices: frozenset[str], codec_name: str, **buffers: Any) -> None:
    """Raise :class:`DeviceError` for the first of ``buffers`` (named by role) whose memory is
    on none of ``devices``."""
    for role, obj in buffers.items():
        found = device_of(obj)
        if found not in devices:
            where = " or ".join(sorted(devices))
            hint = (
                "copy it to host memory first (cupy.asnumpy), or use zarr_codecs.gpu"
                if found != "cpu"
                else "copy it to the device first (cupy.asarray)"
            )
            raise DeviceError(
                f"{codec_name}: the {role} ({type(obj).__name__}) is in {found} memory, but this "
                f"codec runs on {where}: {hint}"
            )
