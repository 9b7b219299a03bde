"""String and bytes arrays in ``ChainCodecPipeline``: Zarr v3's ``vlen-utf8`` and ``vlen-bytes``
serializers and Zarr v2 object arrays whose one filter is numcodecs' ``vlen-utf8`` or
``vlen-bytes``, each then through bytes codecs of ours.

The runtime's chains hold fixed-size elements; these chunks hold Python objects. So a batch
runs in two halves: the bytes codecs in Rust on every chunk at once, the GIL released
(``decode_batch``/``encode_batch``), and numcodecs' vlen layout in Rust with the GIL held,
as it makes or reads the ``str`` and ``bytes`` objects. Chunks are placed into the output (a
numpy ``StringDType`` or object array) by numpy, in one assignment each: no intermediate
array of zarr's data type is made, as zarr-python's codec makes one per chunk.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from zarr_codec_shapes.errors import CorruptInputError

from zarr_codecs._arrays import raw
from zarr_codecs._fetching import gather

if TYPE_CHECKING:
    from zarr.core.array_spec import ArraySpec

__all__ = ["LAYOUTS", "StringChain", "Strings", "read", "string_chain", "write"]

#: zarr-python's codec names (v3) and numcodecs' ids (v2) of the vlen layouts this module runs.
LAYOUTS: dict[str, Literal["utf8", "bytes"]] = {"vlen-utf8": "utf8", "vlen-bytes": "bytes"}


@dataclass(frozen=True)
class Strings:
    """The array -> bytes step of a string (``"utf8"``) or bytes (``"bytes"``) array's chain:
    numcodecs' vlen layout."""

    kind: Literal["utf8", "bytes"]


def _vlen() -> Any:
    from zarr_codec_vlen import _vlen as compiled

    return compiled


class StringChain:
    """The chunks of one string or bytes array: ``strings`` then the ``bytes_codecs`` (ours, in
    order), chunks of ``shape`` whose items are stored in ``order`` (a Zarr v2 array's memory
    order; C for Zarr v3)."""

    def __init__(
        self,
        strings: Strings,
        bytes_codecs: Sequence[Any],
        shape: tuple[int, ...],
        order: Literal["C", "F"],
    ) -> None:
        vlen = _vlen()
        self.strings, self.bytes_codecs = strings, tuple(bytes_codecs)
        self.shape, self.order, self.items = shape, order, prod(shape)
        utf8 = strings.kind == "utf8"
        self._decode_items = vlen.decode_utf8 if utf8 else vlen.decode_bytes
        self._encode_items = vlen.encode_utf8 if utf8 else vlen.encode_bytes

    def decode(self, stored: Any) -> np.ndarray[Any, Any]:
        """One stored chunk's items as an object array of the chunk's shape."""
        return self.decode_batch([stored])[0]

    def decode_batch(
        self, stored: Sequence[Any], dtype: np.dtype[Any] | None = None
    ) -> list[np.ndarray[Any, Any]]:
        """Each stored chunk's items as an array of the chunk's shape: of ``dtype`` where it
        is numpy's ``StringDType`` (strings packed straight into it, no ``str`` made), else of
        objects."""
        data: list[Any] = list(stored)
        for codec in reversed(self.bytes_codecs):
            data = _batch(codec, "decode", data)
        packed = dtype is not None and dtype.kind == "T" and self.strings.kind == "utf8"
        vlen = _vlen()
        chunks = []
        for buffer in data:
            count = vlen.item_count(buffer)
            if count != self.items:
                raise CorruptInputError(
                    f"vlen-{self.strings.kind}: a chunk of {count} items, {self.items} expected"
                )
            if packed:
                items = np.empty(self.items, dtype=dtype)
                vlen.decode_utf8_into(buffer, items)
            else:
                items = self._decode_items(buffer)
            chunks.append(items.reshape(self.shape, order=self.order))
        return chunks

    def encode_batch(self, chunks: Sequence[np.ndarray[Any, Any]]) -> list[bytes]:
        """Each chunk (of the chunk's shape: numpy strings, or anything numpy converts to
        objects) stored."""
        data: list[Any] = [self._encode_chunk(np.asarray(chunk)) for chunk in chunks]
        for codec in self.bytes_codecs:
            data = _batch(codec, "encode", data)
        return data

    def _encode_chunk(self, chunk: np.ndarray[Any, Any]) -> bytes:
        flat = chunk.reshape(-1, order=self.order)
        if chunk.dtype.kind == "T" and self.strings.kind == "utf8":
            return bytes(_vlen().encode_utf8_strings(np.ascontiguousarray(flat)))
        return bytes(self._encode_items(flat.astype(object, copy=False)))


def _batch(codec: Any, direction: str, data: list[Any]) -> list[Any]:
    """``data`` through one codec: its batch method (all chunks in Rust at once, the GIL
    released) where it has one."""
    batched = getattr(codec, f"{direction}_batch", None)
    if batched is not None and len(data) > 1:
        return list(batched(data))
    single = getattr(codec, direction)
    return [single(chunk) for chunk in data]


def string_chain(codecs: tuple[Any, ...], spec: ArraySpec) -> StringChain | None:
    """The chain of ``codecs`` (ours: :class:`Strings` then bytes codecs, or a v2 array's
    ``V2Chunks`` of one :class:`Strings` filter) for chunks of ``spec``, or ``None`` where they
    are not a string or bytes array's."""
    from zarr_codecs._from_zarr import V2Chunks

    if len(codecs) == 1 and isinstance(codecs[0], V2Chunks):
        v2 = codecs[0]
        if len(v2.filters) != 1 or not isinstance(v2.filters[0], Strings):
            return None
        compressor = () if v2.compressor is None else (v2.compressor,)
        order: Literal["C", "F"] = "F" if spec.order == "F" else "C"
        return StringChain(v2.filters[0], compressor, tuple(spec.shape), order)
    if not codecs or not isinstance(codecs[0], Strings):
        return None
    return StringChain(codecs[0], codecs[1:], tuple(spec.shape), "C")


def _fill(spec: ArraySpec) -> Any:
    """What zarr-python puts where no chunk is stored: the fill value, or the data type's
    default where there is none (a Zarr v2 array's null)."""
    return spec.dtype.default_scalar() if spec.fill_value is None else spec.fill_value


async def read(
    batch: Sequence[tuple[Any, ...]], chains: Sequence[StringChain], target: np.ndarray[Any, Any]
) -> list[bool]:
    """A batch of zarr-python's ``(getter, spec, part, place, complete)`` items read into
    ``target``: the chunks fetched concurrently, decoded together (the bytes codecs of all of
    them in one call each), each part placed; a missing chunk's place filled as zarr-python
    fills it. Whether each chunk was there."""
    stored = await _fetch(batch)
    present = [i for i, data in enumerate(stored) if data is not None]
    decoded: dict[int, np.ndarray[Any, Any]] = {}
    for group in _groups(present, chains):
        chunks = chains[group[0]].decode_batch([stored[i] for i in group], target.dtype)
        decoded.update(zip(group, chunks, strict=True))
    for index, (_, spec, part, place, _) in enumerate(batch):
        found = decoded.get(index)
        target[place] = _fill(spec) if found is None else found[part]
    return [data is not None for data in stored]


async def write(
    batch: Sequence[tuple[Any, ...]],
    chains: Sequence[StringChain],
    values: np.ndarray[Any, Any],
    write_empty: bool,
) -> None:
    """A batch of zarr-python's ``(setter, spec, part, place, complete)`` items written from
    ``values``: chunks only partly written merged with their old items (fetched and decoded
    first), every chunk encoded before any is stored (a failure stores nothing), chunks left
    all fill value deleted unless ``write_empty``, then stored concurrently."""
    partial = [not complete for *_, complete in batch]
    olds = await _fetch([item if p else None for item, p in zip(batch, partial, strict=True)])
    present = [i for i, data in enumerate(olds) if data is not None]
    decoded: dict[int, np.ndarray[Any, Any]] = {}
    for group in _groups(present, chains):
        olds_decoded = chains[group[0]].decode_batch([olds[i] for i in group], values.dtype)
        decoded.update(zip(group, olds_decoded, strict=True))
    chunks: list[np.ndarray[Any, Any] | None] = []
    for index, (_, spec, part, place, complete) in enumerate(batch):
        chunk = np.asarray(values[place])
        if not complete or chunk.shape != chains[index].shape:
            # zarr calls an edge chunk complete when its part inside the array is: the rest
            # is filled, as zarr-python fills it.
            old = decoded.get(index)
            base = (
                np.full(chains[index].shape, _fill(spec), dtype=values.dtype)
                if old is None
                else old.astype(values.dtype, copy=False)  # ours, fresh: merged in place
            )
            base[part] = chunk
            chunk = base
        empty = not write_empty and spec.prototype.nd_buffer.from_numpy_array(chunk).all_equal(
            spec.fill_value
        )
        chunks.append(None if empty else chunk)
    encoded: dict[int, bytes] = {}
    kept = [i for i, chunk in enumerate(chunks) if chunk is not None]

    def kept_chunk(index: int) -> np.ndarray[Any, Any]:
        chunk = chunks[index]
        assert chunk is not None
        return chunk

    for group in _groups(kept, chains):
        data = chains[group[0]].encode_batch([kept_chunk(i) for i in group])
        encoded.update(zip(group, data, strict=True))

    async def store(index: int) -> None:
        setter, spec, *_ = batch[index]
        if index in encoded:
            await setter.set(spec.prototype.buffer.from_bytes(encoded[index]))
        else:
            await setter.delete()

    await gather(functools.partial(store, index) for index in range(len(batch)))


async def _fetch(batch: Sequence[tuple[Any, ...] | None]) -> list[Any]:
    """Each item's stored bytes (``None``: absent, or no item), fetched concurrently."""

    async def get(item: tuple[Any, ...] | None) -> Any:
        if item is None:
            return None
        getter, spec, *_ = item
        data = await getter.get(prototype=spec.prototype)
        return None if data is None else raw(data)

    return await gather(functools.partial(get, item) for item in batch)


def _groups(indices: Sequence[int], chains: Sequence[StringChain]) -> list[list[int]]:
    """``indices`` grouped by chain (chunks of one shape share one)."""
    groups: dict[int, list[int]] = {}
    for index in indices:
        groups.setdefault(id(chains[index]), []).append(index)
    return list(groups.values())
