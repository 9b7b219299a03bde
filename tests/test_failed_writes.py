"""A write that meets a damaged chunk fails before it stores anything.

A write of ``[8:40, 8:56]`` into a 64 x 64 array of 16 x 16 chunks touches twelve chunks (or
four 32 x 32 shards); the last of them, ``c/2/3`` (the shard ``c/1/1``, whose first inner
chunk), is only partly covered, so the write must merge it with what is stored, and what is
stored there is damaged. A ``MemoryStore`` write goes a chunk at a time here (its groups made
one chunk long), so that nothing but the order of the work keeps the others unwritten.

The write raises our ``CorruptInputError``, and every chunk of the store (every byte of it) is
as it was before: local files, zarr-python's ``MemoryStore`` and an object store, sharded and
not, through the whole-selection path and through zarr-python's batches.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
zarr_codecs = pytest.importorskip("zarr_codecs")
obstore = pytest.importorskip("obstore")

from zarr.storage import LocalStore, MemoryStore, ObjectStore  # noqa: E402
from zarr_codec_shapes import errors as zarr_codecs_errors  # noqa: E402
from zarr_codec_shapes.errors import CorruptInputError  # noqa: E402
from zarr_codecs import _selections  # noqa: E402

SHAPE, CHUNKS, SHARDS = (64, 64), (16, 16), (32, 32)
WRITTEN = (slice(8, 40), slice(8, 56))
GZIP = {"name": "gzip", "configuration": {"level": 5}}


def _local(tmp: Path) -> Any:
    return LocalStore(tmp / "store")


def _memory(tmp: Path) -> Any:
    return MemoryStore()


def _object(tmp: Path) -> Any:
    return ObjectStore(obstore.store.MemoryStore())


STORES: dict[str, Callable[[Path], Any]] = {
    "local": _local,
    "memory": _memory,
    "object": _object,
}


@pytest.fixture(autouse=True)
def _ours() -> Iterator[None]:
    with zarr_codecs.install(pipeline=True):
        yield


def _snapshot(store: Any) -> dict[str, bytes]:
    """Every chunk key's stored bytes (metadata aside)."""

    async def collect() -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        async for key in store.list():
            if key.endswith("zarr.json"):
                continue
            data = await store.get(key, prototype=zarr.core.buffer.default_buffer_prototype())
            found[key] = data.to_bytes()
        return found

    return zarr.core.sync.sync(collect())


def _damage(store: Any, key: str, data: bytes) -> None:
    buffer = zarr.core.buffer.default_buffer_prototype().buffer.from_bytes(data)
    zarr.core.sync.sync(store.set(key, buffer))


def _first_inner_chunk_damaged(shard: bytes) -> bytes:
    """``shard`` with its first inner chunk's bytes overwritten and its index kept (at the
    end: four (offset, length) pairs, then the index's crc32c)."""
    index = shard[-(4 * 16 + 4) : -4]
    offset, length = struct.unpack_from("<QQ", index, 0)
    return shard[:offset] + b"\xa5" * length + shard[offset + length :]


#: The values every array holds before the damage.
EXPECTED = np.arange(np.prod(SHAPE), dtype="<i4").reshape(SHAPE)


def _damaged_array(store: Any, sharded: bool, name: str | None = None) -> tuple[Any, str]:
    """A gzip array of ``EXPECTED`` (in shards where ``sharded``) and the key of its damaged
    chunk: ``c/2/3``, or the shard ``c/1/1`` with its first inner chunk damaged (its index
    intact). The damaged bytes are the store's from then on."""
    layout = {"shards": SHARDS} if sharded else {}
    array = zarr.create_array(
        store, name=name, shape=SHAPE, chunks=CHUNKS, dtype="<i4", compressors=[GZIP], **layout
    )
    array[...] = EXPECTED
    key = (f"{name}/" if name else "") + ("c/1/1" if sharded else "c/2/3")
    stored = _snapshot(store)[key]
    _damage(store, key, _first_inner_chunk_damaged(stored) if sharded else b"not a gzip member")
    return array, key


def _named(key: str, sharded: bool) -> str:
    """The start of the error's message: the chunk's key, in a shard the inner chunk's
    coordinates within it, then the decoder's own words."""
    inner = r"inner chunk \[0, 0\]: " if sharded else ""
    return f"^chunk '{key}': corrupt input: {inner}gzip"


#: Every store, sharded or not, through the whole-selection path and zarr-python's batches.
CASES = [
    pytest.mark.parametrize("sharded", [False, True], ids=["chunks", "shards"]),
    pytest.mark.parametrize("whole", [True, False], ids=["whole selection", "zarr's batches"]),
    pytest.mark.parametrize("kind", STORES),
]


def _each_case(test: Callable[..., None]) -> Callable[..., None]:
    for mark in CASES:
        test = mark(test)
    return test


@_each_case
def test_a_write_meeting_a_damaged_chunk_leaves_every_chunk_as_it_was(
    kind: str, whole: bool, sharded: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = STORES[kind](tmp_path)
    array, key = _damaged_array(store, sharded)
    before = _snapshot(store)
    assert len(before) == (4 if sharded else 16)
    monkeypatch.setattr(_selections, "_GROUP_BYTES", 1)
    if not whole:
        monkeypatch.setattr(_selections, "plan_write", lambda *_: None)
    zarr_codecs.reset_usage()

    values = np.full((32, 48), -7, dtype="<i4")
    with pytest.raises(CorruptInputError, match=_named(key, sharded)):
        array[WRITTEN] = values

    assert _snapshot(store) == before
    used = zarr_codecs.usage()
    assert used["zarr_written"] == 0, used  # the write was ours, and failed
    # What the damage does not reach reads as before.
    reopened = zarr.open_array(store, mode="r")
    np.testing.assert_array_equal(reopened[:32, :32], EXPECTED[:32, :32])


@_each_case
def test_a_read_meeting_a_damaged_chunk_names_it(
    kind: str, whole: bool, sharded: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error is ours, of the decoder's class, its message led by the chunk's key in the
    store (the array's path, then the chunk's key; in a shard, then the inner chunk's
    coordinates), whichever path and store read it."""
    array, key = _damaged_array(STORES[kind](tmp_path), sharded, "group/temperature")
    if not whole:
        monkeypatch.setattr(_selections, "plan_read", lambda *_: None)

    with pytest.raises(CorruptInputError, match=_named(key, sharded)):
        array[...]
    # Chunks the damage does not reach still read.
    np.testing.assert_array_equal(array[:16, :16], EXPECTED[:16, :16])


#: A chain whose encoding fails on a value: `cast_value` to int8 refuses 300 (no
#: `out_of_range` rule), which only encoding the chunk can find.
NARROWING = [{"name": "cast_value", "configuration": {"data_type": "int8"}}]


@_each_case
def test_a_write_with_a_value_that_cannot_be_encoded_leaves_every_chunk_as_it_was(
    kind: str, whole: bool, sharded: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every chunk of a write is encoded before any is stored: the value out of range sits in
    the write's last chunk (or shard), and no chunk before it is stored either."""
    store = STORES[kind](tmp_path)
    layout = {"shards": SHARDS} if sharded else {}
    array = zarr.create_array(
        store,
        shape=SHAPE,
        chunks=CHUNKS,
        dtype="<f4",
        filters=NARROWING,
        compressors=[GZIP],
        fill_value=0,
        **layout,
    )
    array[...] = EXPECTED % 100
    before = _snapshot(store)
    monkeypatch.setattr(_selections, "_GROUP_BYTES", 1)
    if not whole:
        monkeypatch.setattr(_selections, "plan_write", lambda *_: None)

    values = np.full(SHAPE, 5, dtype="<f4")
    values[-1, -1] = 300
    with pytest.raises(zarr_codecs_errors.OutOfRangeError):
        array[...] = values

    assert _snapshot(store) == before
    np.testing.assert_array_equal(zarr.open_array(store, mode="r")[...], EXPECTED % 100)
