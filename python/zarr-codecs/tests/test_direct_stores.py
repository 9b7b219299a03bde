"""Writes straight into zarr-python's ``MemoryStore`` (without its per-chunk copy) and
``LocalStore`` (its chunk files, in Rust) by ``ChainCodecPipeline``.

What the copy protected must still hold: stored chunks share no memory with the caller's array,
and the store holds exactly what zarr's own pipeline stores. Only a plain ``MemoryStore`` is
written directly; a subclass gets its own ``set``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

from zarr.storage import LocalStore, MemoryStore  # noqa: E402
from zarr_codecs.pipeline import PATH  # noqa: E402

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


class _RecordingMemoryStore(MemoryStore):
    """A subclass whose ``set`` does more than the base class."""

    seen: list[str]

    async def set(self, key: str, value: Any, byte_range: Any = None) -> None:
        self.seen.append(key)
        await super().set(key, value, byte_range)


class _RecordingLocalStore(LocalStore):
    """The same for LocalStore."""

    seen: list[str]

    async def set(self, key: str, value: Any) -> None:
        self.seen.append(key)
        await super().set(key, value)


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_a_store_subclass_gets_its_own_set(kind: str, tmp_path: Path) -> None:
    store = _RecordingMemoryStore() if kind == "memory" else _RecordingLocalStore(tmp_path)
    store.seen = []
    _write(store, PATH, None, np.ones((12, 10), dtype=np.float32))
    assert sorted(k for k in store.seen if not k.endswith("zarr.json")) == [
        "c/0/0",
        "c/0/1",
        "c/1/0",
        "c/1/1",
    ]


# -- LocalStore ---------------------------------------------------------------------------------


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "zarr.json"
    }


@pytest.mark.parametrize("compressors", [None, [BLOSC]], ids=["uncompressed", "blosc"])
def test_local_writes_skip_set_and_write_what_zarr_writes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, compressors: Any
) -> None:
    keys: list[str] = []
    original = LocalStore.set

    async def recording(self: LocalStore, key: str, value: Any) -> None:
        keys.append(key)
        await original(self, key, value)

    monkeypatch.setattr(LocalStore, "set", recording)
    data = np.arange(20 * 15, dtype=np.float64).reshape(20, 15)
    data[6:12, 5:10] = 0
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    _write(LocalStore(ours), PATH, compressors, data)
    assert keys == ["zarr.json"]  # the chunks were written by the pipeline
    _write(LocalStore(theirs), DEFAULT, compressors, data)
    assert len(keys) == 1 + 1 + 11
    assert _files(ours) == _files(theirs)
    assert "c/1/1" not in _files(ours)


def test_local_partial_writes_merge_and_empty_chunks_are_deleted(tmp_path: Path) -> None:
    data = np.ones((12, 10), dtype=np.float32)
    stores = {path: LocalStore(tmp_path / path.rsplit(".", 1)[-1]) for path in (DEFAULT, PATH)}
    for path, store in stores.items():
        array = _write(store, path, [BLOSC], data)
        with zarr.config.set({"codec_pipeline.path": path}):
            array[0:6, 0:5] = 0  # back to the fill value: the file is deleted
            array[7:9, 6:8] = 5  # part of a chunk: merged with what the file holds
            array[0:2, 6:10] = np.arange(8, dtype=np.float32).reshape(2, 4)
    ours, theirs = (_files(tmp_path / p.rsplit(".", 1)[-1]) for p in (PATH, DEFAULT))
    assert ours == theirs
    assert "c/0/0" not in ours


def test_a_read_only_local_store_refuses_the_write(tmp_path: Path) -> None:
    data = np.ones((12, 10), dtype=np.float32)
    _write(LocalStore(tmp_path), DEFAULT, None, data)
    errors = []
    for path in (DEFAULT, PATH):
        with zarr.config.set({"codec_pipeline.path": path}):
            array = zarr.open_array(LocalStore(tmp_path, read_only=True))
            with pytest.raises(ValueError, match="read-only") as caught:
                array[...] = data * 2
            errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]
    assert np.array_equal(zarr.open_array(LocalStore(tmp_path))[...], data)
