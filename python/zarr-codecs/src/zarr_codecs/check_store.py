"""``zarr-codecs check``: every stored chunk of every array of a Zarr store read and decoded,
each damaged one reported with its key and the decoder's reason.

A chunk (a shard, for sharded arrays) is read as zarr-python reads the region it covers, with
our pipeline installed, so every codec zarr-python can open is checked and checksums (crc32c,
blosc's and zstd's own) are verified where the chain has them. A chunk that is not stored is not
damage: Zarr reads it as the fill value; those are counted. The store is opened read-only:
checking never writes.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import product
from typing import Any, Literal

__all__ = ["ArrayCheck", "Damaged", "check_store", "render"]


@dataclass(frozen=True)
class Damaged:
    """A stored chunk that could not be read: its key and why."""

    key: str
    reason: str


@dataclass
class ArrayCheck:
    """What checking one array found."""

    path: str
    zarr_format: int
    #: Chunks (shards, for sharded arrays) in the array's grid.
    chunks: int
    #: Of those, how many are stored (the rest read as the fill value).
    stored: int = 0
    damaged: list[Damaged] = field(default_factory=list)


def _store(location: Any) -> Any:
    """A read-only store for ``location``: a directory, a URL (through fsspec) or a store."""
    from zarr.storage import FsspecStore, LocalStore

    if not isinstance(location, str):
        return location
    if "://" in location:
        return FsspecStore.from_url(location, read_only=True)
    return LocalStore(location, read_only=True)


def _arrays(store: Any) -> Iterator[tuple[str, Literal[2, 3]]]:
    """The path and Zarr format of every array in ``store``, v2 and v3 alike (a v3 group does
    not list a v2 array under it, so the keys are read instead), in path order."""
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync

    async def found() -> list[tuple[str, Literal[2, 3]]]:
        arrays: list[tuple[str, Literal[2, 3]]] = []
        async for key in store.list():
            name = key.rsplit("/", 1)[-1]
            path = key[: -len(name)].rstrip("/")
            if name == ".zarray":
                arrays.append((path, 2))
            elif name == "zarr.json":
                data = await store.get(key, prototype=default_buffer_prototype())
                try:
                    document = json.loads(data.to_bytes()) if data is not None else {}
                except ValueError:
                    document = {}  # a damaged document: zarr-python will say so for arrays
                if isinstance(document, dict) and document.get("node_type") == "array":
                    arrays.append((path, 3))
        return sorted(arrays)

    return iter(sync(found()))


def _stored_keys(array: Any) -> set[str]:
    from zarr.core.sync import sync

    async def listed() -> set[str]:
        prefix = f"{array.path}/" if array.path else ""
        return {key async for key in array.store.list_prefix(prefix)}

    return sync(listed())


def _grid(array: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape of what is stored as one object (a shard or a chunk), and how many per
    dimension."""
    size = tuple(array.shards or array.chunks)
    return size, tuple(math.ceil(n / s) for n, s in zip(array.shape, size, strict=True))


def check_array(
    array: Any, threads: int, progress: Callable[[int, int], None] | None = None
) -> ArrayCheck:
    """Every stored chunk of ``array`` read; ``progress(done, stored)`` after each."""
    size, counts = _grid(array)
    metadata = array.metadata
    report = ArrayCheck(array.path or "/", metadata.zarr_format, math.prod(counts))
    stored = _stored_keys(array)
    prefix = f"{array.path}/" if array.path else ""
    work: list[tuple[str, tuple[slice, ...]]] = []
    for coords in product(*(range(n) for n in counts)):
        key = prefix + metadata.encode_chunk_key(coords)
        if key in stored:
            region = tuple(
                slice(c * s, min((c + 1) * s, n))
                for c, s, n in zip(coords, size, array.shape, strict=True)
            )
            work.append((key, region))
    report.stored = len(work)
    done, lock = [0], threading.Lock()

    def read(item: tuple[str, tuple[slice, ...]]) -> Damaged | None:
        key, region = item
        try:
            array[region]
        except Exception as error:  # any failure to read a stored chunk is what we report
            return Damaged(key, f"{type(error).__name__}: {error}")
        finally:
            if progress is not None:
                with lock:
                    done[0] += 1
                    progress(done[0], len(work))
        return None

    with ThreadPoolExecutor(max(1, threads)) as pool:
        report.damaged = [found for found in pool.map(read, work) if found is not None]
    return report


def check_store(
    location: Any, *, threads: int = 4, progress: Callable[[str, int, int], None] | None = None
) -> list[ArrayCheck]:
    """Every array of the Zarr store at ``location`` (a path, a URL zarr-python opens, or a
    store) checked; ``progress(array path, chunks done, chunks stored)`` as it goes."""
    import zarr

    import zarr_codecs

    store = _store(location)
    with zarr_codecs.install(pipeline=True):
        reports = []
        for path, zarr_format in _arrays(store):
            array = zarr.open_array(store=store, path=path, zarr_format=zarr_format, mode="r")

            def advance(done: int, stored: int, path: str = array.path or "/") -> None:
                if progress is not None:
                    progress(path, done, stored)

            reports.append(check_array(array, threads, advance))
    return reports


def render(reports: list[ArrayCheck]) -> str:
    """The reports as text: one line per array, one per damaged chunk, a summary."""
    lines = []
    for report in reports:
        state = f"{len(report.damaged)} damaged" if report.damaged else "ok"
        lines.append(
            f"{report.path} (Zarr v{report.zarr_format}): {report.stored} of {report.chunks} "
            f"chunks stored, {state}"
        )
        lines.extend(f"  {damaged.key}: {damaged.reason}" for damaged in report.damaged)
    damaged = sum(len(report.damaged) for report in reports)
    lines.append(f"{len(reports)} array(s), {damaged} damaged chunk(s)")
    return "\n".join(lines)
