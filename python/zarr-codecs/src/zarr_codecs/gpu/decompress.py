"""Chunks decompressed on the GPU with nVIDIA's nvCOMP, many in one call, or on the CPU where
nvCOMP cannot be trusted with them.

nvCOMP's zstd and gzip decoders assume valid input (its release notes: they "can only operate
on valid input data"; corrupt input is undefined behaviour). So every chunk is first checked on
the CPU, cheaply and without decompressing: a zstd chunk must be exactly one frame, without a
dictionary, that states its content size, equal to the chunk's decoded size, whose block
headers walk to the end of the data; a gzip chunk must have gzip's header and a trailer whose
size is the chunk's decoded size. A chunk that fails is decoded by our CPU codec (which raises
a clear error for corrupt data) and copied to the device: chosen per chunk, invisibly.

Content checksums of zstd frames are verified only on the CPU path: nvCOMP does not verify
them in raw streams.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from zarr_codecs.gpu import availability

__all__ = [
    "NVCOMP_NAMES",
    "decompress_batch",
    "gzip_decoded_size",
    "stated_size",
    "zstd_single_frame_size",
]

#: Our codec names and nvCOMP's algorithm names for them.
NVCOMP_NAMES = {"zstd": "Zstd", "gzip": "Gzip"}

_ZSTD_MAGIC = 0xFD2FB528


def zstd_single_frame_size(data: bytes | memoryview) -> int | None:
    """The decoded size of ``data`` when it is exactly one zstd frame that nvCOMP can take: no
    dictionary, its content size stated, block headers that end at the end of the data.
    ``None`` otherwise."""
    view = memoryview(data).cast("B")
    n = len(view)
    if n < 6 or int.from_bytes(view[:4], "little") != _ZSTD_MAGIC:
        return None
    descriptor = view[4]
    size_flag, single_segment = descriptor >> 6, (descriptor >> 5) & 1
    checksum, dictionary_flag = (descriptor >> 2) & 1, descriptor & 3
    if descriptor & 0x08 or dictionary_flag:  # a reserved bit, or a dictionary
        return None
    position = 5 + (0 if single_segment else 1)
    size_bytes = (1 if single_segment else 0, 2, 4, 8)[size_flag]
    if size_bytes == 0 or position + size_bytes > n:
        return None  # the content size is not stated
    content_size = int.from_bytes(view[position : position + size_bytes], "little")
    if size_bytes == 2:
        content_size += 256
    position += size_bytes
    while True:
        if position + 3 > n:
            return None
        header = int.from_bytes(view[position : position + 3], "little")
        last, kind, size = header & 1, (header >> 1) & 3, header >> 3
        if kind == 3:  # reserved
            return None
        position += 3 + (1 if kind == 1 else size)  # an RLE block stores one byte
        if last:
            break
    position += 4 if checksum else 0
    return content_size if position == n else None


def gzip_decoded_size(data: bytes | memoryview) -> int | None:
    """The decoded size a gzip chunk states in its trailer (modulo 2**32), when it has gzip's
    header with the deflate method; ``None`` otherwise."""
    view = memoryview(data).cast("B")
    if len(view) < 18 or view[0] != 0x1F or view[1] != 0x8B or view[2] != 8 or view[3] & 0xE0:
        return None
    return int.from_bytes(view[-4:], "little")


def stated_size(name: str, data: Any) -> int | None:
    """The decoded size a chunk of codec ``name`` states (zstd: its frame header, when it is
    one frame nvCOMP can take; gzip: its trailer, modulo 2**32), or ``None``."""
    if name == "zstd":
        return zstd_single_frame_size(data)
    if name == "gzip":
        return gzip_decoded_size(data)
    return None


def _fits_nvcomp(name: str, data: Any, size: int) -> bool:
    if name == "zstd":
        return zstd_single_frame_size(data) == size
    if name == "gzip":
        return gzip_decoded_size(data) == size % (1 << 32)
    return False


def decompress_batch(
    name: str, chunks: Sequence[Any], sizes: Sequence[int], cpu_codec: Any, stream: Any = None
) -> list[Any]:
    """Each of ``chunks`` (host bytes, compressed with codec ``name``) decompressed into a new
    CuPy ``uint8`` array of its size in ``sizes``: the ones nvCOMP can take in one nvCOMP call
    after one copy to the device, the others by ``cpu_codec`` (our CPU codec of that name) and
    then copied. A decoded size that differs from ``sizes`` is ``CorruptInputError``."""
    availability.require()
    import cupy
    from zarr_codec_shapes import CorruptInputError

    outs: list[Any] = [None] * len(chunks)
    on_device = [
        i
        for i, (chunk, size) in enumerate(zip(chunks, sizes, strict=True))
        if size > 0 and name in NVCOMP_NAMES and _fits_nvcomp(name, chunk, size)
    ]
    on_cpu = sorted(set(range(len(chunks))) - set(on_device))
    if on_device:
        decoded = _nvcomp_decode(
            name, [chunks[i] for i in on_device], [sizes[i] for i in on_device], stream
        )
        for i, array in zip(on_device, decoded, strict=True):
            if array is None:  # nvCOMP disagreed with the header: the CPU has the last word
                on_cpu.append(i)
            outs[i] = array
    for i in on_cpu:
        host = np.empty(sizes[i], dtype=np.uint8)
        written = cpu_codec.decode_into(chunks[i], host)
        if written != sizes[i]:
            raise CorruptInputError(f"{name}: a chunk decoded to {written} bytes, not {sizes[i]}")
        outs[i] = cupy.asarray(host)
    return outs


_codecs = threading.local()  # nvCOMP codecs hold scratch state: one per thread


def _codec(nvcomp: Any, name: str, stream: int) -> Any:
    """This thread's nvCOMP codec for ``name`` on ``stream`` (made once)."""
    import cupy

    cache: dict[tuple[str, int, int], Any] = getattr(_codecs, "cache", None) or {}
    _codecs.cache = cache
    key = (name, stream, cupy.cuda.Device().id)
    if key not in cache:
        cache[key] = nvcomp.Codec(
            algorithm=NVCOMP_NAMES[name],
            bitstream_kind=nvcomp.BitstreamKind.RAW,
            device_id=key[2],
            cuda_stream=stream,
        )
    return cache[key]


_ALIGN = 16  # nvCOMP's required alignment is at most this for zstd and gzip


def _aligned_offsets(lengths: Sequence[int]) -> tuple[list[int], int]:
    """Offsets that start each entry on a 16-byte boundary, and the total length."""
    offsets, position = [], 0
    for length in lengths:
        offsets.append(position)
        position += -(-length // _ALIGN) * _ALIGN
    return offsets, max(position, 1)


def _pack(host: Any, chunks: Sequence[Any], offsets: Sequence[int], lengths: Sequence[int]) -> None:
    """Copy each chunk to its offset in ``host`` (pinned memory), by threads for large batches
    (numpy copies release the GIL)."""

    def copy(index: int) -> None:
        start, length = offsets[index], lengths[index]
        host[start : start + length] = np.frombuffer(chunks[index], dtype=np.uint8)

    if sum(lengths) < 32 << 20:
        for index in range(len(chunks)):
            copy(index)
        return
    with ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 1)) as pool:
        list(pool.map(copy, range(len(chunks))))


def _nvcomp_decode(name: str, chunks: list[Any], sizes: list[int], stream: Any) -> list[Any | None]:
    """One nvCOMP call over ``chunks``: packed into one pinned host buffer, copied to the device
    once, decoded into one preallocated device buffer; returns a view per chunk."""
    import cupy
    from nvidia import nvcomp

    stream = stream if stream is not None else cupy.cuda.get_current_stream()
    lengths = [len(memoryview(chunk).cast("B")) for chunk in chunks]
    offsets, total = _aligned_offsets(lengths)
    pinned = cupy.cuda.alloc_pinned_memory(total)
    host = np.frombuffer(pinned, dtype=np.uint8, count=total)
    _pack(host, chunks, offsets, lengths)
    out_offsets, out_total = _aligned_offsets(sizes)
    with stream:
        device = cupy.empty(total, dtype=cupy.uint8)
        device.set(host, stream=stream)
        decoded = cupy.empty(out_total, dtype=cupy.uint8)
        codec = _codec(nvcomp, name, stream.ptr)
        try:
            results = codec.decode(
                nvcomp.as_arrays(device, offsets, lengths, cuda_stream=stream.ptr),
                out=nvcomp.as_arrays(decoded, out_offsets, list(sizes), cuda_stream=stream.ptr),
            )
            decoded_sizes = [int(size) for size in results.buffer_sizes]  # waits for it
        except (RuntimeError, ValueError):
            # nvCOMP refused the batch (an output too small for what a chunk really holds,
            # data it could not decode): every chunk of it goes to the CPU, which says why.
            return [None] * len(chunks)
    # A chunk nvCOMP decoded to another size (a multi-member gzip, say) is None: decoded again
    # on the CPU by the caller.
    return [
        decoded[start : start + size] if got == size else None
        for start, size, got in zip(out_offsets, sizes, decoded_sizes, strict=True)
    ]
