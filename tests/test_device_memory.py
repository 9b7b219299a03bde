"""GPU memory handed to a CPU codec is refused with ``DeviceError``, on every method.

A CPU codec cannot read device memory: without this check such a buffer either fails deep
inside numpy with an unrelated message or, for objects that also export a host pointer, would
be read as host memory. Objects are recognised by the two standard protocols: the CUDA array
interface (CuPy, Numba, PyTorch on CUDA) and ``__dlpack_device__``. The protocol objects
below carry exactly those attributes (a device pointer of 0: nothing may dereference it);
with CuPy and a GPU the same checks also run on real CuPy arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import zarr_codecs.gpu
from zarr_codec_blosc import Blosc
from zarr_codec_cast_value import CastValue
from zarr_codec_crc32c import Crc32c
from zarr_codec_gzip import Gzip
from zarr_codec_runtime import Chain
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import (
    BufferTypeError,
    BytesCodec,
    ChunkSpec,
    DeviceError,
    device_of,
    require_device,
    supported_devices,
)
from zarr_codec_zstd import Zstd


class CudaArray:
    """An object with the CUDA array interface (version 3), as CuPy arrays have."""

    def __init__(self, nbytes: int = 64) -> None:
        self.__cuda_array_interface__ = {
            "shape": (nbytes,),
            "typestr": "|u1",
            "data": (0, False),
            "version": 3,
            "strides": None,
        }


class DLPackArray:
    """An object that names its DLPack device, as every DLPack exporter does."""

    def __init__(self, device_type: int) -> None:
        self.device_type = device_type

    def __dlpack_device__(self) -> tuple[int, int]:
        return (self.device_type, 0)


SPEC = ChunkSpec((8,), "float64")
VALUES = np.arange(8, dtype="<f8")
BYTES_CODECS: dict[str, Any] = {
    "gzip": Gzip(5),
    "zstd": Zstd(3),
    "blosc": Blosc(),
    "crc32c": Crc32c(),
}
ARRAY_CODECS: dict[str, Any] = {
    "cast_value": CastValue("int16", out_of_range="clamp"),
    "scale_offset": ScaleOffset(1.5, 4.0),
}


def device_buffers() -> list[Any]:
    found: list[Any] = [CudaArray(), DLPackArray(2), DLPackArray(13)]
    if zarr_codecs.gpu.available():
        import cupy

        found.append(cupy.zeros(64, dtype=cupy.uint8))
    return found


def _refused(call: Callable[[], Any]) -> DeviceError:
    with pytest.raises(DeviceError) as caught:
        call()
    assert isinstance(caught.value, BufferTypeError)
    assert isinstance(caught.value, TypeError)
    assert "GPU memory" in str(caught.value) or "cuda memory" in str(caught.value)
    return caught.value


@pytest.mark.parametrize("name", list(BYTES_CODECS))
@pytest.mark.parametrize("device", range(len(device_buffers())))
def test_bytes_codecs_refuse_device_memory(name: str, device: int) -> None:
    codec = BYTES_CODECS[name]
    buffer = device_buffers()[device]
    encoded = codec.encode(VALUES.tobytes())
    _refused(lambda: codec.encode(buffer))
    _refused(lambda: codec.decode(buffer))
    _refused(lambda: codec.decode_into(encoded, buffer))
    _refused(lambda: codec.encode_into(buffer, bytearray(4096)))


@pytest.mark.parametrize("name", list(ARRAY_CODECS))
@pytest.mark.parametrize("device", range(len(device_buffers())))
def test_array_codecs_refuse_device_memory(name: str, device: int) -> None:
    codec = ARRAY_CODECS[name]
    buffer = device_buffers()[device]
    encoded = codec.encode(VALUES, SPEC)
    _refused(lambda: codec.encode(buffer, SPEC))
    _refused(lambda: codec.decode(buffer, SPEC))
    _refused(lambda: codec.decode_into(encoded, buffer, SPEC))
    _refused(lambda: codec.encode_into(VALUES, buffer, SPEC))


def test_the_runtime_refuses_device_memory() -> None:
    chain = Chain([BytesCodec(), Zstd(3)], SPEC)
    encoded = chain.encode(VALUES)
    _refused(lambda: chain.decode(CudaArray()))
    _refused(lambda: chain.decode_into(encoded, CudaArray()))
    _refused(lambda: chain.encode(CudaArray()))


def test_host_memory_is_never_taken_for_device_memory() -> None:
    """numpy arrays, bytes and pinned host memory (DLPack's CUDA host type) stay on the CPU."""
    assert device_of(VALUES) == "cpu"
    assert device_of(b"abc") == "cpu"
    assert device_of(memoryview(b"abc")) == "cpu"
    assert device_of(DLPackArray(3)) == "cpu"
    assert device_of(DLPackArray(2)) == "cuda"
    assert device_of(CudaArray()) == "cuda"
    assert device_of(DLPackArray(10)) == "rocm"
    out = np.empty(8, dtype="<f8")
    codec = Zstd(3)
    assert codec.decode_into(codec.encode(VALUES.tobytes()), out) == 64
    np.testing.assert_array_equal(out, VALUES)


def test_codecs_say_where_they_run() -> None:
    for codec in [*BYTES_CODECS.values(), *ARRAY_CODECS.values()]:
        assert supported_devices(codec) == {"cpu"}
    with pytest.raises(DeviceError, match="copy it to the device first"):
        require_device(frozenset({"cuda"}), "a GPU codec", input=VALUES)
    require_device(frozenset({"cuda"}), "a GPU codec", input=CudaArray())
