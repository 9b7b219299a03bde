"""A read through ``ChainCodecPipeline`` is one call into the runtime, however many chunks it
touches, and so is a write into a ``LocalStore``: the per-chunk work (fetching, decoding,
placing; gathering, merging, encoding, storing) happens in Rust.

The calls are counted with a profiler on every thread (zarr runs its event loop on a thread of
its own), as calls of anything of the runtime's compiled module (``zarr_codec_runtime._runtime``:
its functions, and methods of its ``Plan``, ``Runner``, ``ChunkGrid`` and ``Cut`` objects). For
local files the selection is cut inside that one call; a ``MemoryStore``'s chunks are taken from
its dict by key, so the selection is cut first (``cut``). Sharded arrays (shards of 2 x 2
chunks) count the same way: a read or write of any number of shards is one call too."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
zarr_codecs = pytest.importorskip("zarr_codecs")
from zarr_codec_runtime import _runtime as _compiled  # noqa: E402

BLOSC = {
    "name": "blosc",
    "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4},
}


@contextmanager
def runtime_calls() -> Iterator[list[str]]:
    """The names of the runtime module's functions and methods called on any thread while
    inside."""
    calls: list[str] = []
    lock = threading.Lock()

    def profile(frame: Any, event: str, arg: Any) -> None:
        owner = getattr(arg, "__self__", None)
        if event == "c_call" and (
            _compiled.__name__ in (type(owner).__module__, getattr(owner, "__name__", ""))
        ):
            with lock:
                calls.append(arg.__name__)

    threading.setprofile_all_threads(profile)
    try:
        yield calls
    finally:
        threading.setprofile_all_threads(None)
        sys.setprofile(None)


#: Compressor choices; "sharded" is blosc inside shards of 2 x 2 chunks.
COMPRESSORS: dict[str, Any] = {"none": None, "blosc": [BLOSC], "sharded": [BLOSC]}


def _array(store: Any, chunks: tuple[int, int], compressors: str) -> Any:
    data = np.arange(512 * 512, dtype="float32").reshape(512, 512)
    shards = {"shards": (2 * chunks[0], 2 * chunks[1])} if compressors == "sharded" else {}
    with zarr_codecs.install(pipeline=True):
        array = zarr.create_array(
            store=store,
            shape=data.shape,
            chunks=chunks,
            dtype=data.dtype,
            compressors=COMPRESSORS[compressors],
            **shards,
        )
        array[...] = data
        return zarr.open_array(store, mode="r")


STORES: dict[str, Callable[[Path], Any]] = {
    "local": lambda path: zarr.storage.LocalStore(path),
    "memory": lambda path: zarr.storage.MemoryStore(),
}


@pytest.mark.parametrize("compressors", list(COMPRESSORS))
@pytest.mark.parametrize("store", STORES)
def test_a_read_is_one_runtime_call_whatever_the_chunk_count(
    store: str, compressors: str, tmp_path: Path
) -> None:
    counts = {}
    for chunks in [(256, 256), (64, 64), (32, 16)]:  # 4, 64 and 512 chunks
        array = _array(STORES[store](tmp_path / str(chunks)), chunks, compressors)
        with runtime_calls() as calls:
            array[0, 0]
        assert "plan_chain" in calls, calls  # once per array, at its first read
        expected = np.arange(512 * 512, dtype="float32").reshape(512, 512)
        for name, selection in {
            "whole": np.s_[...],
            "part": np.s_[5:300, 7:501:3],
            "element": np.s_[3, 4],
        }.items():
            with runtime_calls() as calls:
                values = array[selection]
            np.testing.assert_array_equal(values, expected[selection])
            counts[chunks, name] = calls
    once = ["read"] if store == "local" else ["cut", "read"]
    assert all(calls == once for calls in counts.values()), counts


@pytest.mark.parametrize("compressors", list(COMPRESSORS))
@pytest.mark.parametrize("store", STORES)
def test_a_write_is_one_runtime_call(store: str, compressors: str, tmp_path: Path) -> None:
    """Whole chunks, parts of chunks (merged with the old ones in Rust), a scalar written
    everywhere, and chunks left all fill value (not stored): files written in Rust for a
    LocalStore, encoded chunks handed back for any other store."""
    # Elsewhere: the cut; the chunks to merge taken out and encoded first (stored last, so a
    # damaged one fails the write with nothing stored); the rest in groups (one here).
    merging = ["cut", "take", "write_buffers"]
    both = ["cut", "take", "take", "write_buffers", "part", "write_buffers"]
    whole = ["cut", "part", "write_buffers"]
    for chunks in [(256, 256), (32, 16)]:  # 4 and 512 chunks
        path = tmp_path / str(chunks)
        made = STORES[store](path)
        _array(made, chunks, compressors)
        with zarr_codecs.install(pipeline=True):
            writable = zarr.open_array(made, mode="r+")
        writable[0, 0] = 0.0  # the chain planned, once per array
        expected = np.arange(512 * 512, dtype="float32").reshape(512, 512)
        for selection, value in [
            (np.s_[...], expected[::-1].copy()),  # whole chunks
            (np.s_[5:300, 7:501:3], 7.5),
            (np.s_[0:32, 0:32], 0.0),
            (np.s_[100, 200], -1.0),
        ]:
            with runtime_calls() as calls:
                writable[selection] = value
            if store == "local":
                assert calls == ["write_files"], (chunks, selection, calls)
            else:
                assert calls in (whole, merging, both), (chunks, selection, calls)
            expected[selection] = value
        np.testing.assert_array_equal(writable[...], expected)
        # With 32 x 16 chunks the first is all fill value: not stored (its shard is, holding
        # the other three chunks).
        stored = zarr.core.sync.sync(made.exists("c/0/0"))
        assert stored == (chunks == (256, 256) or compressors == "sharded")
