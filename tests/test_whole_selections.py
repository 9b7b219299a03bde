"""Whole selections: zarr-python hands a basic selection to ``ChainCodecPipeline`` in one
piece, which cuts it into chunks in Rust (``zarr_codec_runtime.cut_selection``) instead of
zarr-python's per-chunk Python (``zarr_codecs._selections``).

* The cut itself against zarr-python's own indexers: the same chunks in the same order, with
  the same keys (v3 ``default`` and ``v2`` encodings, both separators, Zarr v2), parts, places
  and "complete chunk" flags, over random shapes, chunkings and selections.
* Reads and writes against zarr-python's own pipeline, on a ``LocalStore``, a
  ``MemoryStore`` and an ``FsspecStore`` over local files (what ``dask.array.from_zarr``
  opens), for the layouts users have (v3 with each key encoding, sharded with the
  index at either end, Zarr v2 in C and F order): identical values and identical stored bytes,
  with ``usage()`` showing that every selection was taken whole.
* What it does not take (fancy selections, ``out=``, missing chunks as errors, values of
  another shape or kind) goes to zarr-python's path with the same results.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.core.indexing import BasicIndexer  # noqa: E402
from zarr.storage import LocalStore, MemoryStore  # noqa: E402
from zarr_codec_runtime import cut_selection  # noqa: E402
from zarr_codec_shapes.errors import CorruptInputError  # noqa: E402
from zarr_codecs import _bridge, _selections  # noqa: E402

ZSTD = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}


# -- the cut against zarr-python's indexers ----------------------------------------------------


def _random_axis(rng: np.random.Generator, length: int) -> Any:
    kind = rng.integers(4)
    if kind == 0:
        index = int(rng.integers(length))
        return index - length if rng.integers(2) else index  # negative ones too
    if kind == 1:
        return slice(None)
    start = int(rng.integers(-length, length + 1))
    stop = int(rng.integers(-length, length + 2))
    return slice(start, stop, int(rng.integers(1, 5)) if kind == 3 else None)


def _normal(item: Any, length: int) -> Any:
    """A chunk or output selection item, comparable whatever stop a slice was given."""
    return tuple(range(*item.indices(length))) if isinstance(item, slice) else int(item)


@pytest.mark.parametrize(
    ("zarr_format", "encoding"),
    [
        (3, {"name": "default", "separator": "/"}),
        (3, {"name": "default", "separator": "."}),
        (3, {"name": "v2", "separator": "."}),
        (3, {"name": "v2", "separator": "/"}),
        (2, {"name": "v2", "separator": "."}),
        (2, {"name": "v2", "separator": "/"}),
    ],
)
def test_the_cut_is_zarr_pythons(zarr_format: int, encoding: dict[str, str]) -> None:
    """300 random arrays and selections: every chunk zarr-python's ``BasicIndexer`` visits,
    in its order, with its key, its part of the chunk, its place in the output and its
    "complete chunk" flag, and no other."""
    rng = np.random.default_rng(17)
    for _ in range(300):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(n) for n in rng.integers(1, 30, ndim))
        chunks = tuple(int(n) for n in rng.integers(1, 9, ndim))
        keys: dict[str, Any] = (
            {"chunk_key_encoding": encoding}
            if zarr_format == 3
            else {"chunk_key_encoding": {"name": "v2", "separator": encoding["separator"]}}
        )
        array = zarr.create_array(
            MemoryStore(),
            shape=shape,
            chunks=chunks,
            dtype="u1",
            zarr_format=zarr_format,
            **keys,
        )
        selection = tuple(_random_axis(rng, n) for n in shape)
        indexer = BasicIndexer(selection, shape, array.async_array._chunk_grid)
        metadata = array.metadata
        expected = [
            (
                "p/" + metadata.encode_chunk_key(coords),
                tuple(_normal(s, c) for s, c in zip(chunk_sel, chunks, strict=True)),
                tuple(_normal(s, 10**6) for s in out_sel),
                complete,
            )
            for coords, chunk_sel, out_sel, complete in indexer
        ]
        normalised = [
            d.dim_sel if hasattr(d, "dim_sel") else slice(d.start, d.stop, d.step)
            for d in indexer.dim_indexers
        ]
        found = cut_selection(shape, chunks, normalised, "p/", *_selections._key_encoding(metadata))
        got = [
            (
                key,
                tuple(_normal(s, c) for s, c in zip(chunk_sel, chunks, strict=True)),
                tuple(_normal(s, 10**6) for s in out_sel),
                complete,
            )
            for key, chunk_sel, out_sel, complete in zip(*found.as_lists(), strict=True)
        ]
        assert got == expected, (shape, chunks, selection)


def test_cut_refuses_what_is_not_a_selection_of_the_array() -> None:
    """Errors from our hierarchy, never a crash: indices and slices outside the array,
    negative steps, wrong dimensions, unknown key encodings."""
    from zarr_codec_shapes import CodecError

    bad = [
        ((5,), (2,), [5], "default", "/"),
        ((5,), (2,), [-6], "default", "/"),
        ((5,), (2,), [slice(None, None, -1)], "default", "/"),
        ((5, 5), (2, 2), [0], "default", "/"),
        ((5,), (0,), [0], "default", "/"),
        ((5,), (2,), [0], "custom", "/"),
        ((5,), (2,), [0], "default", ":"),
        ((5,), (2,), [True], "default", "/"),
        ((2**40,), (1,), [slice(None)], "default", "/"),  # more chunks than one call names
    ]
    for shape, chunks, selection, encoding, separator in bad:
        with pytest.raises(CodecError):
            cut_selection(shape, chunks, selection, "", encoding, separator)


# -- reads and writes against zarr-python's pipeline -------------------------------------------

SHAPE, CHUNKS = (37, 29), (8, 6)  # partial chunks on the last row and column
LAYOUTS: dict[str, dict[str, Any]] = {
    "v3 default /": {"compressors": [ZSTD]},
    "v3 default .": {
        "compressors": [ZSTD],
        "chunk_key_encoding": {"name": "default", "separator": "."},
    },
    "v3 v2 keys": {"compressors": [ZSTD], "chunk_key_encoding": {"name": "v2", "separator": "."}},
    "sharded, index at the end": {"shards": (16, 12), "compressors": [ZSTD]},
    "sharded, index at the start": {
        "serializer": {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": list(CHUNKS),
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD],
                "index_codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "crc32c"},
                ],
                "index_location": "start",
            },
        },
        "chunks": (16, 12),
        "compressors": None,
    },
    "v2 C order": {"zarr_format": 2, "compressors": None},
    "v2 F order, / keys": {
        "zarr_format": 2,
        "order": "F",
        "chunk_key_encoding": {"name": "v2", "separator": "/"},
        "compressors": {"id": "zstd", "level": 1},
    },
}
#: Writes in turn: all, a partial row band, a strided block, one element, a scalar over a
#: block, edge chunks only, a block left all fill value (its chunks not stored).
WRITES: list[tuple[Any, str]] = [
    ((slice(None), slice(None)), "array"),
    ((slice(3, 11), slice(None)), "array"),
    ((slice(1, 30, 3), slice(2, 29, 4)), "array"),
    ((5, 7), "array"),
    ((slice(8, 24), slice(0, 12)), "scalar"),
    ((slice(32, 37), slice(24, 29)), "array"),
    ((slice(16, 24), slice(12, 18)), "fill"),
]
READS: list[Any] = [
    (slice(None), slice(None)),
    (slice(5, 33, 2), slice(None, None, 5)),
    (3, slice(None)),
    (slice(None), 28),
    (36, 28),
    (slice(30, 37), slice(20, 29)),
    (Ellipsis,),
]


@contextmanager
def _ours(pipeline: bool) -> Iterator[None]:
    """Our codecs in both runs (so stored bytes can be compared), our pipeline in one."""
    zarr_codecs.reset_usage()
    with zarr_codecs.install(pipeline=pipeline):
        yield


def _store(kind: str, root: Path) -> Any:
    if kind == "fsspec":  # what dask.array.from_zarr opens for a path
        pytest.importorskip("fsspec")
        root.mkdir(parents=True)
        options = {"auto_mkdir": True}  # fsspec's local files make no directories otherwise
        return zarr.storage.FsspecStore.from_url(root.as_uri(), storage_options=options)
    return LocalStore(root) if kind == "local" else MemoryStore()


def _stored(store: Any) -> dict[str, bytes]:
    if isinstance(store, MemoryStore):
        return {k: v.to_bytes() for k, v in store._store_dict.items()}
    root = Path(store.root if isinstance(store, LocalStore) else store.path)
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _run(layout: dict[str, Any], store: Any) -> tuple[list[Any], dict[str, int]]:
    """The writes then the reads on a new array at ``g/a`` of ``store``."""
    rng = np.random.default_rng(3)
    array = zarr.create_array(
        store, name="g/a", shape=SHAPE, chunks=layout.get("chunks", CHUNKS), dtype="f4",
        fill_value=-1.5, **{k: v for k, v in layout.items() if k != "chunks"},
    )  # fmt: skip
    for selection, kind in WRITES:
        target_shape = np.empty(SHAPE)[selection].shape
        if kind == "array":
            array[selection] = rng.standard_normal(target_shape).astype("f4")
        elif kind == "scalar":
            array[selection] = 2.25
        else:
            array[selection] = np.full(target_shape, -1.5, dtype="f4")
    reads = [array[selection] for selection in READS]
    return reads, zarr_codecs.usage()


@pytest.mark.parametrize("store_kind", ["local", "memory", "fsspec"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_reads_and_writes_match_zarr_pythons_pipeline(
    layout: str, store_kind: str, tmp_path: Path
) -> None:
    """The same values read, the same bytes stored (every key), and every selection taken
    whole by ours."""
    with _ours(pipeline=False):
        theirs_store = _store(store_kind, tmp_path / "theirs")
        theirs, _ = _run(LAYOUTS[layout], theirs_store)
    with _ours(pipeline=True):
        ours_store = _store(store_kind, tmp_path / "ours")
        ours, counts = _run(LAYOUTS[layout], ours_store)
    for read, expected in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(read, expected)
        assert type(read) is type(expected)
    assert _stored(ours_store) == _stored(theirs_store)
    assert counts["selections_written"] == len(WRITES), counts
    assert counts["selections_read"] == len(READS), counts
    assert counts["zarr_read"] == counts["zarr_written"] == 0, counts


def test_what_it_does_not_take_goes_to_zarr_python() -> None:
    """Fancy selections, ``out=``, ``read_missing_chunks=False``, values given as a list or
    as a row to broadcast: zarr-python's own path, with zarr-python's results and errors.
    Values of another type are cast as zarr-python casts them."""
    results: list[list[Any]] = []
    for pipeline in (False, True):
        with _ours(pipeline=pipeline):
            array = zarr.create_array(
                MemoryStore(), shape=(6, 8), chunks=(2, 4), dtype="i4", fill_value=0
            )
            array[:] = np.arange(48, dtype="i4").reshape(6, 8)
            with pytest.raises(IndexError):  # zarr-python does not broadcast a row
                array[0:2, :] = np.arange(8, dtype="i4")
            array[0:2, :] = np.arange(16, dtype="f8").reshape(2, 8) * 10  # cast, as zarr does
            array[4, :] = list(range(100, 108))
            found: list[Any] = [
                array[:],
                array.get_orthogonal_selection(([0, 5], slice(None))),
                array.vindex[[1, 2], [3, 4]],
            ]
            out = zarr.core.buffer.default_buffer_prototype().nd_buffer.empty(
                shape=(2, 8), dtype=np.dtype("i4")
            )
            array.get_basic_selection((slice(0, 2), slice(None)), out=out)
            found.append(out.as_numpy_array().copy())
            if _bridge._version(zarr.__version__) >= (3, 4, 2):  # 3.4.0 reads it as fill
                strict = zarr.open_array(
                    array.store, mode="r", config={"read_missing_chunks": False}
                )
                del array.store._store_dict["c/2/0"]
                with pytest.raises(zarr.errors.ChunkNotFoundError) as error:
                    strict[:]
                found.append(re.sub(r"memory://\d+", "memory://", str(error.value)))
            results.append(found)
            if pipeline:
                counts = zarr_codecs.usage()
                assert counts["selections_written"] == 2  # not the list, nor the row
                assert counts["selections_read"] == 1  # array[:] only
    for ours, theirs in zip(results[1], results[0], strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_unhook_puts_zarr_pythons_functions_back() -> None:
    import zarr.core.array as array_module

    assert array_module._get_selection is _bridge._get_selection
    _bridge.unhook()
    try:
        assert array_module._get_selection is not _bridge._get_selection
        with _ours(pipeline=True):
            array = zarr.create_array(MemoryStore(), shape=(4,), chunks=(2,), dtype="u1")
            array[:] = 7
            assert array[:].tolist() == [7] * 4
            assert zarr_codecs.usage()["selections_read"] == 0
    finally:
        _bridge.hook()
    assert array_module._get_selection is _bridge._get_selection


def test_big_endian_arrays_read_in_their_byte_order() -> None:
    """A v3 array stored big-endian reads as zarr-python reads it, ``>f8`` (zarr-python's
    path: the runtime's elements are in this machine's order), found by zarr-python's suite."""
    with _ours(pipeline=True):
        array = zarr.create_array(MemoryStore(), shape=(5,), chunks=(2,), dtype=">f8", fill_value=0)
        array[:] = np.arange(5, dtype=">f8")
        read = array[:]
        assert read.dtype == np.dtype(">f8")
        np.testing.assert_array_equal(read, np.arange(5))
        assert zarr_codecs.usage()["selections_read"] == 0


@pytest.mark.parametrize("layout", ["v3 default /", "sharded, index at the end"])
def test_memory_writes_in_groups_match(layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``MemoryStore`` write stored group by group (here one chunk per group): the same
    values and bytes as zarr-python's, and still one selection taken whole per write."""
    monkeypatch.setattr(_selections, "_GROUP_BYTES", 1)
    with _ours(pipeline=False):
        theirs_store = MemoryStore()
        theirs, _ = _run(LAYOUTS[layout], theirs_store)
    with _ours(pipeline=True):
        ours_store = MemoryStore()
        ours, counts = _run(LAYOUTS[layout], ours_store)
    for read, expected in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(read, expected)
    assert _stored(ours_store) == _stored(theirs_store)
    assert counts["selections_written"] == len(WRITES), counts
    assert counts["runtime_written"] > len(WRITES), counts  # several chunks per write


def test_a_selection_of_too_many_chunks_takes_zarr_pythons_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The runtime cuts at most ``MAX_PARTS`` chunks in one call (2**26, too many to build
    here, so the limit is lowered); a selection of more is handed back and zarr-python cuts
    it, and the runtime's own limit refuses it too."""
    from zarr_codec_shapes.errors import UnsupportedError

    monkeypatch.setattr(_selections, "MAX_CHUNKS", 2)
    with pytest.raises(UnsupportedError, match="more than 67108864 chunks"):
        cut_selection([1 << 14] * 2, [1, 1], [slice(0, 1 << 14, 1)] * 2, "", "default", "/")
    with _ours(pipeline=True):
        array = zarr.create_array(MemoryStore(), shape=(6,), chunks=(2,), dtype="i2")
        array[:] = np.arange(6, dtype="i2")
        assert array[1:5].tolist() == [1, 2, 3, 4]
        counts = zarr_codecs.usage()
    assert counts["selections_read"] == counts["selections_written"] == 0, counts
    assert counts["runtime_read"] == counts["runtime_written"] == 3, counts  # batches, as before


# -- synchronous reads on the caller's thread ---------------------------------------------------


@contextmanager
def _coroutines_through_zarrs_loop() -> Iterator[list[str]]:
    """The names of the coroutines zarr-python's synchronous ``Array`` hands to its event
    loop's thread while the block runs."""
    handed: list[str] = []
    original = _bridge._ORIGINALS["sync"]

    def recording(coro: Any, loop: Any = None, timeout: Any = None) -> Any:
        pending = type(coro) is _bridge._Pending
        handed.append(coro.method.__qualname__ if pending else coro.__qualname__)
        return original(coro, loop=loop, timeout=timeout)

    _bridge._ORIGINALS["sync"] = recording
    try:
        yield handed
    finally:
        _bridge._ORIGINALS["sync"] = original


@pytest.mark.parametrize("store_kind", ["local", "memory", "fsspec"])
def test_synchronous_reads_skip_zarrs_event_loop(store_kind: str, tmp_path: Path) -> None:
    """``array[...]`` on files or a ``MemoryStore`` reads and writes on the caller's thread,
    with the values zarr-python's own pipeline would have; a selection zarr-python must cut
    (fancy indexing) still goes through its loop."""
    values = np.random.default_rng(5).standard_normal((40, 30)).astype("f4")
    with _ours(pipeline=True):
        array = zarr.create_array(
            _store(store_kind, tmp_path / "a"), shape=values.shape, chunks=(7, 8), dtype="f4",
            compressors=[ZSTD], fill_value=np.nan,
        )  # fmt: skip
        array[:] = values
        array[35:, :] = np.nan
        expected = values.copy()
        expected[35:, :] = np.nan
        with _coroutines_through_zarrs_loop() as handed:
            array[1, 2] = expected[1, 2] = 7.5
            array[10:20, ::4] = expected[10:20, ::4] = -2.0
            array.set_basic_selection((slice(None), 29), np.arange(40, dtype="f4"))
            expected[:, 29] = np.arange(40, dtype="f4")
            reads = [array[3, 4], array[2:30:3, 5:], array[:], array[..., -1]]
            np.testing.assert_array_equal(array.vindex[[1, 2], [3, 4]], expected[[1, 2], [3, 4]])
        assert [name for name in handed if "_selection" in name] == [
            "AsyncArray._get_selection"  # the vindex read only
        ]
        for read, selection in zip(
            reads, [(3, 4), (slice(2, 30, 3), slice(5, None)), (Ellipsis,), (Ellipsis, -1)],
            strict=True,
        ):  # fmt: skip
            np.testing.assert_array_equal(read, expected[selection])
        counts = zarr_codecs.usage()
        assert counts["selections_read"] == 4 and counts["selections_written"] == 5, counts


def test_synchronous_reads_from_many_threads() -> None:
    """Threads reading one array at once (dask's threaded scheduler) each get their own
    values, now that the reads run on their threads and not one after another on zarr's."""
    from concurrent.futures import ThreadPoolExecutor

    values = np.arange(64 * 64, dtype="i8").reshape(64, 64)
    with _ours(pipeline=True):
        array = zarr.create_array(
            MemoryStore(), shape=values.shape, chunks=(8, 8), dtype="i8", compressors=[ZSTD]
        )
        array[:] = values
        blocks = [
            (slice(r, r + 16), slice(c, c + 16)) for r in range(0, 64, 16) for c in range(0, 64, 16)
        ]
        with ThreadPoolExecutor(4) as pool:
            for _ in range(5):
                reads = list(pool.map(array.__getitem__, blocks))
                for read, block in zip(reads, blocks, strict=True):
                    np.testing.assert_array_equal(read, values[block])


def test_a_coroutine_read_here_is_closed_not_leaked() -> None:
    """The coroutine zarr-python made for the read, never started, is closed: no "never
    awaited" warning, and errors (a corrupt chunk) reach the caller as they would through
    zarr-python's loop."""
    import gc
    import warnings

    with _ours(pipeline=True):
        array = zarr.create_array(
            MemoryStore(), shape=(8,), chunks=(4,), dtype="u2", compressors=[ZSTD]
        )
        array[:] = np.arange(8, dtype="u2")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                assert array[5] == 5
            gc.collect()
        assert not [w for w in caught if "never awaited" in str(w.message)]
        array.store._store_dict["c/1"] = zarr.core.buffer.cpu.Buffer.from_bytes(b"not zstd")
        with pytest.raises(CorruptInputError, match="zstd"):
            array[5]


def _random_key(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    """Keys users write, and keys zarr-python refuses: integers (negative, out of bounds, numpy
    and bool ones), slices (steps, negative steps, bounds past the ends), Ellipsis, too many."""
    items: list[Any] = []
    for length in shape[: int(rng.integers(0, len(shape) + 2))]:
        kind = int(rng.integers(9))
        if kind <= 2:
            items.append(int(rng.integers(-length - 2, length + 2)))
        elif kind <= 5:
            start = None if rng.integers(3) == 0 else int(rng.integers(-length - 3, length + 3))
            stop = None if rng.integers(3) == 0 else int(rng.integers(-length - 3, length + 3))
            step = None if rng.integers(2) == 0 else int(rng.integers(-2, 5))
            items.append(slice(start, stop, step))
        elif kind == 6:
            items.append(np.int64(rng.integers(length)))
        elif kind == 7:
            items.append(bool(rng.integers(2)))
        else:
            items.append(Ellipsis)
    return items[0] if len(items) == 1 and rng.integers(2) else tuple(items)


def test_getitem_of_integers_and_slices_is_zarr_pythons() -> None:
    """``Array.__getitem__`` reads keys of Python integers and slices without zarr-python's
    indexers: 2000 random keys (and keys it refuses) give zarr-python's own ``__getitem__``'s
    values, type, data type and shape, or its exception."""
    rng = np.random.default_rng(23)
    with _ours(pipeline=True):
        original = _bridge._ORIGINALS["getitem"]
        taken = 0
        for ndim in (1, 2, 3):
            shape = tuple(int(n) for n in rng.integers(1, 12, ndim))
            values = rng.standard_normal(shape).astype("f4")
            array = zarr.create_array(
                MemoryStore(), shape=shape, chunks=tuple(max(1, n // 3) for n in shape),
                dtype="f4", compressors=[ZSTD],
            )  # fmt: skip
            array[...] = values
            for _ in range(700):
                key = _random_key(rng, shape)
                try:
                    expected = original(array, key)
                except Exception as error:  # zarr-python's exception, whatever it is
                    with pytest.raises(type(error)):
                        array[key]
                    continue
                found = array[key]
                taken += _selections.from_key(key, shape) is not None
                assert type(found) is type(expected), key
                assert found.dtype == expected.dtype and found.shape == expected.shape, key
                np.testing.assert_array_equal(found, expected)
    assert taken > 500  # read without zarr-python's indexers


def test_setitem_of_integers_and_slices_is_zarr_pythons() -> None:
    """``Array.__setitem__`` writes keys of Python integers and slices without zarr-python's
    indexers: 1500 random keys with scalars and arrays of the selection's shape (and keys or
    values it refuses) leave the same array as zarr-python's own ``__setitem__``, or raise
    its exception."""
    rng = np.random.default_rng(29)
    with _ours(pipeline=True):
        original = _bridge._ORIGINALS["setitem"]
        taken = 0
        for ndim in (1, 2, 3):
            shape = tuple(int(n) for n in rng.integers(1, 10, ndim))
            chunks = tuple(max(1, n // 3) for n in shape)
            arrays = [
                zarr.create_array(
                    MemoryStore(),
                    shape=shape,
                    chunks=chunks,
                    dtype="i2",
                    compressors=[ZSTD],
                    fill_value=-1,
                )
                for _ in range(2)
            ]
            for _ in range(500):
                key = _random_key(rng, shape)
                try:
                    target = np.empty(shape, dtype="i2")[key]
                except (IndexError, TypeError, ValueError):
                    target = np.empty((2,), dtype="i2")  # a shape zarr-python refuses too
                kind = int(rng.integers(3))
                value: Any = (
                    int(rng.integers(-999, 999))
                    if kind == 0
                    else rng.integers(-999, 999, np.shape(target)).astype(
                        "i2" if kind == 1 else "f8"
                    )
                )
                try:
                    original(arrays[0], key, value)
                except Exception as error:  # zarr-python's exception, whatever it is
                    with pytest.raises(type(error)):
                        arrays[1][key] = value
                    continue
                arrays[1][key] = value
                taken += _selections.from_key(key, shape) is not None
                np.testing.assert_array_equal(arrays[1][...], arrays[0][...])
            assert arrays[0].store._store_dict.keys() == arrays[1].store._store_dict.keys()
    assert taken > 400  # written without zarr-python's indexers


# -- the bridge: only proven zarr-python versions, only functions of the proven shape ------------


@contextmanager
def _unhooked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The bridge taken down for the block, and put back after it (and after what the block
    patched is undone)."""
    _bridge.unhook()
    try:
        yield
    finally:
        _bridge.unhook()
        monkeypatch.undo()
        _bridge.hook()
    assert _bridge._ORIGINALS


@pytest.mark.parametrize("version", ["3.5.0", "3.3.0", "3.4.3.dev4", "4.0.0"])
def test_an_unproven_zarr_python_keeps_its_own_functions_with_one_warning(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another zarr-python version hooks nothing and says why, once; arrays still read and
    write exactly, through zarr-python's selection path and the pipeline's batches."""
    import zarr.core.array as array_module

    with _unhooked(monkeypatch):
        own = array_module._get_selection
        monkeypatch.setattr(zarr, "__version__", version)
        with pytest.warns(RuntimeWarning, match=f"zarr-python {version} is not one") as caught:
            _bridge.hook()
        assert len(caught) == 1
        assert array_module._get_selection is own and not _bridge._ORIGINALS
        with _ours(pipeline=True):
            array = zarr.create_array(MemoryStore(), shape=(6,), chunks=(2,), dtype="i4")
            array[1:5] = np.arange(4, dtype="i4")
            assert array[:].tolist() == [0, 0, 1, 2, 3, 0]
            counts = zarr_codecs.usage()
        assert counts["selections_read"] == counts["selections_written"] == 0, counts
        assert counts["runtime_read"] == 3 and counts["runtime_written"] == 3, counts


def test_a_changed_zarr_python_function_keeps_its_own_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A proven version whose hooked function has another shape (a patched zarr-python, say)
    is left as it is, with the function named in the warning."""
    import zarr.core.array as array_module

    with _unhooked(monkeypatch):

        def sync(coro: Any, loop: Any = None) -> Any:  # no timeout
            raise AssertionError("not called")

        monkeypatch.setattr(array_module, "sync", sync)
        with pytest.warns(RuntimeWarning, match=r"zarr.core.array.sync has changed"):
            _bridge.hook()
        assert not _bridge._ORIGINALS and array_module.sync is sync


def test_the_proven_versions_include_the_installed_one() -> None:
    """The suite runs against each proven version (``scripts/test`` runs it against the oldest
    too): this one is hooked, without a warning."""
    assert _bridge.refusal() is None
    assert _bridge._version(zarr.__version__) in (_bridge.PROVEN[0], _bridge.PROVEN[-1])


def test_a_write_stores_repaired_metadata_first(tmp_path: Path) -> None:
    """zarr-python 3.4.2 stores a repaired metadata document before the first chunk written
    under it (a stored chunk size of 0, read as 1); the synchronous write on the caller's
    thread leaves that to zarr-python's own method, so the repair is stored as it would be."""
    import json

    import zarr.core.array as array_module

    if not hasattr(array_module.AsyncArray, "_store_repaired_document"):
        pytest.skip("this zarr-python stores no repairs")
    root = tmp_path / "a.zarr"
    root.mkdir()
    document = {
        "zarr_format": 2, "shape": [5], "chunks": [0], "dtype": "<i2", "compressor": None,
        "fill_value": 0, "order": "C", "filters": None,
    }  # fmt: skip
    (root / ".zarray").write_text(json.dumps(document))
    with _ours(pipeline=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr-python's warning about the chunk size
        array = zarr.open_array(root, mode="r+")
        array[1:4] = np.array([1, 2, 3], dtype="i2")
        assert array[:].tolist() == [0, 1, 2, 3, 0]
    assert json.loads((root / ".zarray").read_text())["chunks"] == [1]
