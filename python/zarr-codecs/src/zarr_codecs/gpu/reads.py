"""zarr-python's GPU mode on our pipeline: a batch of chunks decoded on the device into the
CuPy array zarr reads into.

zarr-python's own GPU mode (``zarr.config.enable_gpu()``) runs every codec on the CPU and then
copies the result to the device. Here, for chains of the form ``[array codecs..., bytes,
compressor?]``, the stored bytes go to the device compressed, nvCOMP decompresses them there
(batched over the whole batch; chunks nvCOMP cannot be trusted with are decoded by the CPU codec,
see :mod:`zarr_codecs.gpu.decompress`), and the array codecs run as kernels. Anything else
(sharding, transpose, crc32c, blosc, big-endian bytes, Zarr v2 arrays) is not planned here: the
pipeline then hands the batch to zarr-python, which behaves as its GPU mode does today.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from zarr_codec_shapes import BytesCodec, ChunkSpec, CorruptInputError

from zarr_codecs._arrays import chunk_spec, same_chunks
from zarr_codecs._direct_stores import local_files
from zarr_codecs.gpu.codecs import DeviceArrayCodec, cupy_has
from zarr_codecs.gpu.decompress import NVCOMP_NAMES, decompress_batch

__all__ = ["DevicePlan", "holds_device_memory", "plan_for", "read_batch", "read_into", "to_host"]


@dataclass(frozen=True)
class DevicePlan:
    """How a chunk of one chain decodes on the device: its decompression (codec name and our
    CPU codec of it, or none), the stored elements' spec, and the array codecs in decoding
    order, each with the spec of the array it decodes to."""

    compressor: str | None
    cpu_compressor: Any
    stored: ChunkSpec
    array_codecs: tuple[tuple[DeviceArrayCodec, ChunkSpec], ...]
    spec: ChunkSpec

    @property
    def stored_bytes(self) -> int:
        count = 1
        for n in self.stored.shape:
            count *= n
        return count * self.stored.data_type.itemsize


def plan_for(codecs: Sequence[Any], spec: ChunkSpec) -> DevicePlan | None:
    """The device plan of a chain of our codec objects for chunks like ``spec``, or ``None``
    when part of it has no device path."""
    array_codecs: list[Any] = []
    position = 0
    while position < len(codecs) and getattr(codecs[position], "codec_type", "") == "array_array":
        codec = codecs[position]
        following = codecs[position + 1] if position + 1 < len(codecs) else None
        fused = getattr(codec, "fuse", None)
        pair = fused(following) if fused is not None and following is not None else None
        if pair is not None:
            array_codecs.append(pair)
            position += 2
        else:
            array_codecs.append(codec)
            position += 1
    if position >= len(codecs) or type(codecs[position]) is not BytesCodec:
        return None
    bytes_codec = codecs[position]
    rest = list(codecs[position + 1 :])
    if len(rest) > 1 or (rest and rest[0].name not in NVCOMP_NAMES):
        return None
    compressor = rest[0] if rest else None
    if compressor is not None and type(compressor).__module__.split(".")[0] not in (
        "zarr_codec_zstd",
        "zarr_codec_gzip",
    ):
        return None
    devices: list[tuple[DeviceArrayCodec, ChunkSpec]] = []
    current = spec
    try:
        for codec in array_codecs:
            device = DeviceArrayCodec(codec)
            devices.append((device, current))
            current = codec.resolve(current)
    except Exception:  # no kernels for this codec or these types: zarr's path
        return None
    endian = getattr(bytes_codec, "endian", "little")
    if current.data_type.itemsize > 1 and endian not in ("little", None):
        return None
    # Each array codec decodes into a new CuPy array of its decoded type: CuPy must have it.
    if any(not cupy_has(decoded.data_type) for _, decoded in devices) or not cupy_has(
        spec.data_type
    ):
        return None
    return DevicePlan(
        compressor=None if compressor is None else compressor.name,
        cpu_compressor=compressor,
        stored=current,
        array_codecs=tuple(reversed(devices)),
        spec=spec,
    )


def read_into(
    plan: DevicePlan,
    chunks: Sequence[Any],
    chunk_selections: Sequence[Any],
    out_selections: Sequence[Any],
    target: Any,
    fill_value: Any,
) -> list[bool]:
    """Decode ``chunks`` (stored bytes on the host; ``None`` for a missing chunk) on the device
    and write each chunk's selection into the CuPy array ``target``. Returns which chunks were
    there."""

    present = [i for i, chunk in enumerate(chunks) if chunk is not None]
    for i, chunk in enumerate(chunks):
        if chunk is None:
            target[out_selections[i]] = fill_value
    if not present:
        return [False] * len(chunks)
    size = plan.stored_bytes
    group = max(1, GROUP_BYTES // max(size, 1))
    for first in range(0, len(present), group):
        _decode_group(
            plan, chunks, present[first : first + group], chunk_selections, out_selections, target
        )
    return [chunk is not None for chunk in chunks]


def _device_dtype(spec: ChunkSpec) -> Any:
    """A CuPy dtype of the stored elements' size: the type itself where CuPy has it, otherwise
    unsigned integers of its width (the kernels read bits)."""
    dtype = spec.data_type.numpy_dtype
    if dtype.type.__module__ == "numpy":
        return dtype
    return np.dtype(f"u{spec.data_type.itemsize}")


#: Stored bytes decoded together: bounds the device memory a read takes beyond its output
#: (compressed, decompressed and decoded copies of one group at a time).
GROUP_BYTES = 1 << 30


def _decode_group(
    plan: DevicePlan,
    chunks: Sequence[Any],
    present: Sequence[int],
    chunk_selections: Sequence[Any],
    out_selections: Sequence[Any],
    target: Any,
) -> None:
    import cupy

    size = plan.stored_bytes
    if plan.compressor is None:
        for i in present:
            if len(memoryview(chunks[i]).cast("B")) != size:
                raise CorruptInputError(
                    f"a stored chunk holds {len(memoryview(chunks[i]).cast('B'))} bytes, "
                    f"not the {size} of its elements"
                )
        stored = cupy.asarray(np.concatenate([np.frombuffer(chunks[i], np.uint8) for i in present]))
    else:
        parts = decompress_batch(
            plan.compressor,
            [chunks[i] for i in present],
            [size] * len(present),
            plan.cpu_compressor,
        )
        stored = parts[0] if len(parts) == 1 else cupy.concatenate(parts)
    # The array codecs are elementwise: each runs once over every chunk of the group.
    array = stored.view(_device_dtype(plan.stored))
    for codec, spec in plan.array_codecs:
        array = codec.decode(array, spec)
    decoded = array.reshape((len(present), *plan.spec.shape))
    for k, i in enumerate(present):
        target[out_selections[i]] = decoded[k][chunk_selections[i]]


def holds_device_memory(buffer: Any) -> bool:
    """Whether zarr's buffer holds device memory (zarr-python's GPU mode: CuPy arrays)."""
    return hasattr(buffer.as_ndarray_like(), "__cuda_array_interface__")


def to_host(buffer: Any) -> Any:
    """A host copy of a device buffer, as zarr's CPU ``NDBuffer``."""
    import cupy
    from zarr.core.buffer import cpu

    return cpu.NDBuffer.from_ndarray_like(cupy.asnumpy(buffer.as_ndarray_like()))


async def read_batch(
    codecs: Sequence[Any] | None, batch: Sequence[Any], out: Any, drop_axes: tuple[int, ...]
) -> list[bool] | None:
    """zarr-python's GPU mode: a pipeline's batch (zarr-python's read items) decoded on the
    device into ``out`` (a CuPy array), or ``None`` (nothing written) where part of the chain
    (``codecs``, ours) has no device path."""
    if codecs is None or drop_axes or not batch:
        return None
    spec = batch[0][1]
    if spec.order != "C" or not all(same_chunks(item[1], spec) for item in batch):
        return None
    ours = chunk_spec(spec)
    plan = None if ours is None else plan_for(codecs, ours)
    if plan is None:
        return None
    files = local_files([item[0] for item in batch])
    if files is not None:  # read by threads, without a task per chunk
        chunks: list[Any] = await asyncio.to_thread(_read_files, files)
    else:
        from zarr.core.buffer import default_buffer_prototype

        from zarr_codecs import _fetching

        host = default_buffer_prototype()

        async def fetch(item: Any) -> Any:
            found = await item[0].get(prototype=host)
            return None if found is None else found.as_numpy_array()

        chunks = await _fetching.gather(functools.partial(fetch, item) for item in batch)
    return await asyncio.to_thread(
        read_into,
        plan,
        chunks,
        [item[2] for item in batch],
        [item[3] for item in batch],
        out.as_ndarray_like(),
        spec.fill_value,
    )


def _read_files(paths: Sequence[str]) -> list[bytes | None]:
    """Each file's bytes (``None`` where there is none), read by a pool of threads."""

    def read(path: str) -> bytes | None:
        try:
            with open(path, "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

    with ThreadPoolExecutor(max_workers=min(32, (os.cpu_count() or 1) * 2)) as pool:
        return list(pool.map(read, paths))
