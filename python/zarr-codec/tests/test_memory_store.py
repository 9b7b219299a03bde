"""Writes into zarr-python's ``MemoryStore`` without its per-chunk copy
(``zarr_codec._memory_store``, used by ``ChainCodecPipeline``).

What the copy protected must still hold: stored chunks share no memory with the caller's array,
and the store holds exactly what zarr's own pipeline stores. Only a plain ``MemoryStore`` is
written directly; a subclass gets its own ``set``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

import zarr_codec._memory_store as memory_store  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.storage import MemoryStore  # noqa: E402
from zarr_codec.zarr_pipeline import PATH  # noqa: E402

DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
#: Byte-identical between our blosc and zarr's (both c-blosc 1.x).
BLOSC = {
    "name": "blosc",
    "configuration": {
        "cname": "lz4",
        "clevel": 5,
        "shuffle": "shuffle",
        "typesize": 8,
        "blocksize": 0,
    },
}


@pytest.fixture
def set_keys(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys written through ``MemoryStore.set`` (which copies its value)."""
    keys: list[str] = []
    original = MemoryStore.set

    async def recording(self: MemoryStore, key: str, value: Any, byte_range: Any = None) -> None:
        keys.append(key)
        await original(self, key, value, byte_range)

    monkeypatch.setattr(MemoryStore, "set", recording)
    return keys


def _write(store: Any, path: str, compressors: Any, data: np.ndarray[Any, Any]) -> Any:
    with zarr.config.set({"codec_pipeline.path": path}):
        array = zarr.create_array(
            store,
            shape=data.shape,
            chunks=(6, 5),
            dtype=data.dtype,
            compressors=compressors,
            fill_value=0,
        )
        array[...] = data
        return array


def _chunks(store: MemoryStore) -> dict[str, bytes]:
    return {
        key: value.to_bytes()
        for key, value in store._store_dict.items()
        if not key.endswith("zarr.json")
    }


@pytest.mark.parametrize("compressors", [None, [BLOSC]], ids=["uncompressed", "blosc"])
def test_writes_skip_the_copy_and_store_what_zarr_stores(
    set_keys: list[str], compressors: Any
) -> None:
    data = np.arange(20 * 15, dtype=np.float64).reshape(20, 15)
    data[6:12, 5:10] = 0  # one chunk of fill values: not stored (write_empty_chunks is off)
    ours = MemoryStore()
    _write(ours, PATH, compressors, data)
    assert set_keys == ["zarr.json"]  # the chunks did not go through MemoryStore.set
    theirs = MemoryStore()
    _write(theirs, DEFAULT, compressors, data)
    assert len(set_keys) == 1 + 1 + 11  # both arrays' metadata, zarr's 11 chunks (12 - 1 empty)
    assert _chunks(ours) == _chunks(theirs)
    assert "c/1/1" not in _chunks(ours)


def test_stored_chunks_share_no_memory_with_the_callers_array() -> None:
    data = np.arange(24 * 10, dtype=np.int32).reshape(24, 10)
    store = MemoryStore()
    array = _write(store, PATH, None, data)
    expected = data.copy()
    for value in store._store_dict.values():
        assert not np.shares_memory(value.as_numpy_array(), data)
    data[...] = -1
    with zarr.config.set({"codec_pipeline.path": PATH}):
        assert np.array_equal(array[...], expected)


def test_overwriting_and_emptying_chunks() -> None:
    data = np.ones((12, 10), dtype=np.float32)
    store = MemoryStore()
    array = _write(store, PATH, None, data)
    assert len(_chunks(store)) == 4
    with zarr.config.set({"codec_pipeline.path": PATH}):
        array[0:6, 0:5] = 0  # back to the fill value: the chunk is deleted
        array[6:12, 5:10] = 7
        assert "c/0/0" not in _chunks(store)
        expected = data.copy()
        expected[0:6, 0:5] = 0
        expected[6:12, 5:10] = 7
        assert np.array_equal(array[...], expected)


def test_a_read_only_store_refuses_the_write_as_zarrs_pipeline_does() -> None:
    data = np.ones((12, 10), dtype=np.float32)
    store = MemoryStore()
    _write(store, DEFAULT, None, data)
    errors = []
    for path in (DEFAULT, PATH):
        with zarr.config.set({"codec_pipeline.path": path}):
            array = zarr.open_array(store.with_read_only(True))
            with pytest.raises(ValueError, match="read-only") as caught:
                array[...] = data * 2
            errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]
    with zarr.config.set({"codec_pipeline.path": PATH}):
        assert np.array_equal(zarr.open_array(store)[...], data)


class _RecordingStore(MemoryStore):
    """A subclass whose ``set`` does more than the base class."""

    seen: list[str]

    async def set(self, key: str, value: Any, byte_range: Any = None) -> None:
        self.seen.append(key)
        await super().set(key, value, byte_range)


def test_a_memory_store_subclass_gets_its_own_set() -> None:
    store = _RecordingStore()
    store.seen = []
    _write(store, PATH, None, np.ones((12, 10), dtype=np.float32))
    assert sorted(k for k in store.seen if not k.endswith("zarr.json")) == [
        "c/0/0",
        "c/0/1",
        "c/1/0",
        "c/1/1",
    ]


def test_views_are_copied_and_bytes_kept() -> None:
    source = np.arange(200, dtype=np.uint8)
    encoded: list[Any] = [memoryview(source[0:40]), b"compressed", None, source[40:200]]
    buffers = memory_store.owned_buffers(encoded, default_buffer_prototype())
    assert buffers[2] is None
    arrays = {i: b.as_numpy_array() for i, b in enumerate(buffers) if b is not None}
    for index, array in arrays.items():
        assert array.tobytes() == bytes(encoded[index])
        assert not np.shares_memory(array, source)
    assert arrays[1].base is not None and bytes(arrays[1].base) == b"compressed"  # not copied
