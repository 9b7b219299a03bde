"""Everything of ours that a cluster sends to its workers pickles, and works in a fresh
``spawn`` process exactly as here: every codec object, the zarr-python and numcodecs adapter
classes' instances, ``Chain`` and the zarr-python pipeline; and a zarr array unpickled where
ours is installed uses ours (``zarr_codecs._unpickling``), while one unpickled elsewhere keeps
what it was pickled with.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zarr_codecs = pytest.importorskip("zarr_codecs")

from quantizing import CAST_INT16_NAN  # noqa: E402
from zarr.core.codec_pipeline import BatchedCodecPipeline  # noqa: E402
from zarr.storage import MemoryStore  # noqa: E402
from zarr_codec_blosc import Blosc  # noqa: E402
from zarr_codec_runtime import Chain  # noqa: E402
from zarr_codec_shapes.bytes_codec import BytesCodec  # noqa: E402
from zarr_codec_shapes.chunk_spec import ChunkSpec  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402
from zarr_codecs.pipeline import ChainCodecPipeline  # noqa: E402

SHAPE = (6, 10)
CAST = CAST_INT16_NAN
FIXED = {
    "name": "numcodecs.fixedscaleoffset",
    "configuration": {"offset": 2, "scale": 100, "dtype": "<f8", "astype": "<i4"},
}
#: Chains covering every codec of ours, as (data type, fill value, array codecs, bytes codecs).
CHAINS: dict[str, tuple[str, Any, list[Any], list[Any]]] = {
    "scale_offset+cast_value+zstd": (
        "float32",
        "NaN",
        [{"name": "scale_offset", "configuration": {"offset": 15, "scale": 100}}, CAST],
        [{"name": "zstd", "configuration": {"level": 3, "checksum": True}}],
    ),
    "blosc unresolved": (
        "float32",
        0,
        [],
        [Blosc("lz4", 5)],  # shuffle and typesize left to the array, as zarr's default
    ),
    "gzip+crc32c": (
        "float64",
        0,
        [],
        [{"name": "gzip", "configuration": {"level": 4}}, {"name": "crc32c"}],
    ),
    "fixedscaleoffset+blosc": (
        "float64",
        0,
        [FIXED],
        [
            {
                "name": "blosc",
                "configuration": {
                    "cname": "zstd",
                    "clevel": 3,
                    "shuffle": "bitshuffle",
                    "typesize": 4,
                    "blocksize": 0,
                },
            }
        ],
    ),
}
#: numcodecs configurations, one for each of our numcodecs classes.
V2_CONFIGS = [
    {"id": "gzip", "level": 5},
    {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2},
    {"id": "zstd", "level": 2},
    {"id": "crc32c"},
    {"id": "fixedscaleoffset", "offset": 2, "scale": 100, "dtype": "<f8", "astype": "<i4"},
]


def _values(data_type: str) -> np.ndarray[Any, Any]:
    values = np.linspace(-50, 120, num=SHAPE[0] * SHAPE[1]).reshape(SHAPE).astype(data_type)
    values[0, :3] = np.nan if data_type.startswith("float") else 0
    values[1, 0] = 1e9  # out of range for int16 after scaling: clamped
    return values


def _codecs(name: str) -> tuple[list[Any], ChunkSpec]:
    data_type, fill, array_codecs, bytes_codecs = CHAINS[name]
    codecs = [get_codec(c, 3) for c in array_codecs]
    codecs.append(BytesCodec("little"))
    codecs.extend(c if isinstance(c, Blosc) else get_codec(c, 3) for c in bytes_codecs)
    return codecs, ChunkSpec(SHAPE, data_type, fill)


def _zarr_adapters(codecs: list[Any]) -> list[Any]:
    """Our zarr-python adapter class instances around ``codecs`` (``bytes`` aside)."""
    by_name = {
        b.name: zarr_codecs.Binding.load(b.zarr_class)
        for b in zarr_codecs.BINDINGS
        if b.zarr_class is not None
    }
    return [by_name[c.name].wrap(c) for c in codecs if c.name != "bytes"]


# -- what a spawned worker does with what it was sent (module level: pickled by name) ----------


def _encode_with_chain(pickled: bytes, values: Any) -> bytes:
    codecs, spec = pickle.loads(pickled)
    return bytes(Chain(codecs, spec).encode(values))


def _stored_with_zarr(pickled: bytes, values: Any) -> tuple[bytes, Any]:
    """The one chunk zarr-python stores for ``values`` through these adapter instances, and
    what it reads back."""
    filters, compressors, fill = pickle.loads(pickled)
    store = MemoryStore()
    array = zarr.create_array(
        store, shape=SHAPE, chunks=SHAPE, dtype=values.dtype, fill_value=fill,
        filters=filters, compressors=compressors,
    )  # fmt: skip
    array[...] = values
    return store._store_dict["c/0/0"].to_bytes(), array[...]


def _numcodecs_round_trip(pickled: bytes, values: Any) -> tuple[bytes, Any]:
    codec = pickle.loads(pickled)
    encoded = bytes(np.asarray(codec.encode(values)).tobytes())
    return encoded, np.asarray(codec.decode(encoded))


def _read_pickled_array(pickled: bytes) -> tuple[str, list[str], Any]:
    """The class of the array's pipeline, its codecs' modules and its values, here."""
    array = pickle.loads(pickled)
    async_array = array._async_array
    modules = [type(c).__module__ for c in async_array.metadata.codecs]
    return type(async_array.codec_pipeline).__name__, modules, array[...]


def _install_pipeline() -> None:
    zarr_codecs.install(pipeline=True)


@pytest.fixture(scope="module")
def worker() -> Iterator[Any]:
    """A fresh ``spawn`` process with nothing installed."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        yield pool


@pytest.fixture(scope="module")
def installed_worker() -> Iterator[Any]:
    """A fresh ``spawn`` process that ran ``install(pipeline=True)``."""
    with multiprocessing.get_context("spawn").Pool(1, initializer=_install_pipeline) as pool:
        yield pool


@pytest.mark.parametrize("name", list(CHAINS))
def test_codec_objects_pickle_and_encode_the_same_in_a_spawned_process(
    name: str, worker: Any
) -> None:
    codecs, spec = _codecs(name)
    for codec in codecs:
        assert pickle.loads(pickle.dumps(codec)) == codec, codec
    values = _values(spec.data_type.name)
    here = bytes(Chain(codecs, spec).encode(values))
    assert worker.apply(_encode_with_chain, (pickle.dumps((codecs, spec)), values)) == here


@pytest.mark.parametrize("name", list(CHAINS))
def test_zarr_adapter_instances_pickle_and_write_the_same_in_a_spawned_process(
    name: str, worker: Any
) -> None:
    """Including blosc before zarr resolved its typesize and shuffle from the array (what
    a user passes to ``create_array``): it has no v3 JSON yet, and pickles all the same."""
    codecs, spec = _codecs(name)
    adapters = _zarr_adapters(codecs)
    for adapter in adapters:
        assert pickle.loads(pickle.dumps(adapter)) == adapter, adapter
    filters = adapters[: len(CHAINS[name][2])]  # the array -> array codecs
    compressors = adapters[len(filters) :]
    values = _values(spec.data_type.name)
    fill = spec.fill_value.item()
    sent = pickle.dumps((filters, compressors, fill))
    there, read_there = worker.apply(_stored_with_zarr, (sent, values))
    here, read_here = _stored_with_zarr(sent, values)
    assert there == here
    np.testing.assert_array_equal(read_there, read_here)


@pytest.mark.parametrize("config", V2_CONFIGS, ids=lambda c: c["id"])
def test_numcodecs_adapter_instances_pickle_and_round_trip_in_a_spawned_process(
    config: dict[str, Any], worker: Any
) -> None:
    with zarr_codecs.install(zarr=False):
        codec = numcodecs.get_codec(dict(config))
    assert type(codec).__module__.startswith("zarr_codec_"), type(codec)
    assert pickle.loads(pickle.dumps(codec)) == codec
    values = _values("float64")
    there = worker.apply(_numcodecs_round_trip, (pickle.dumps(codec), values))
    here = _numcodecs_round_trip(pickle.dumps(codec), values)
    assert there[0] == here[0]
    np.testing.assert_array_equal(there[1], here[1])


def _quantized_array() -> tuple[Any, np.ndarray[Any, Any]]:
    data_type, _, array_codecs, bytes_codecs = CHAINS["scale_offset+cast_value+zstd"]
    values = np.tile(_values(data_type), (4, 4))  # 16 chunks
    array = zarr.create_array(
        MemoryStore(), shape=values.shape, chunks=SHAPE, dtype=data_type, fill_value=np.nan,
        filters=array_codecs, compressors=bytes_codecs,
    )  # fmt: skip
    array[...] = values
    return array, array[...]


def test_the_pipeline_pickles_after_planning_and_reads_in_a_spawned_process(worker: Any) -> None:
    """An array whose ``ChainCodecPipeline`` has planned its chain (compiled plans do not
    pickle) reads in a worker with nothing installed, through that pipeline."""
    with zarr_codecs.install(pipeline=True):
        array, expected = _quantized_array()
        pipeline = array._async_array.codec_pipeline
        assert isinstance(pipeline, ChainCodecPipeline)
        assert pipeline._codecs() is not None and pipeline.__dict__["_chain_cache"]
        restored = pickle.loads(pickle.dumps(pipeline))
        assert list(restored) == list(pipeline)
        sent = pickle.dumps(array)
    kind, modules, values = worker.apply(_read_pickled_array, (sent,))
    assert kind == "ChainCodecPipeline"
    assert all(m.startswith("zarr_codec") for m in modules if "bytes" not in m), modules
    np.testing.assert_array_equal(values, expected)


@pytest.mark.filterwarnings("ignore:Codec 'cast_value' not configured")
def test_arrays_unpickled_where_ours_is_installed_use_ours(
    worker: Any, installed_worker: Any
) -> None:
    """An array opened with zarr-python's own codecs and pipeline (as a dask client without
    ``install()`` sends it) runs ours in an installed worker and zarr's in a bare one, with
    the same values; here, the unpickling hook is there only while ours is installed."""
    assert not zarr_codecs.installed_parts()
    array, expected = _quantized_array()
    assert isinstance(array._async_array.codec_pipeline, BatchedCodecPipeline)
    sent = pickle.dumps(array)

    kind, modules, values = installed_worker.apply(_read_pickled_array, (sent,))
    assert kind == "ChainCodecPipeline"
    assert [m for m in modules if not m.startswith("zarr.codecs.bytes")] == [
        "zarr_codec_scale_offset.zarr_python",
        "zarr_codec_cast_value.zarr_python",
        "zarr_codec_zstd.zarr_python",
    ]
    np.testing.assert_array_equal(values, expected)

    kind, modules, values = worker.apply(_read_pickled_array, (sent,))
    assert kind == "BatchedCodecPipeline"
    # (zarr's default config names no cast_value: with the cast-value package registered
    # too, zarr warns and picks one of the others; never ours, which is not installed)
    assert not any(m.startswith("zarr_codec") for m in modules), modules
    np.testing.assert_array_equal(values, expected)

    with zarr_codecs.install(pipeline=True):
        here = pickle.loads(sent)
        assert isinstance(here._async_array.codec_pipeline, ChainCodecPipeline)
        # Pickled and unpickled under the same installation: nothing is resolved again, so
        # the copy equals the original (zarr-python's own suite checks that).
        assert pickle.loads(pickle.dumps(here)) == here
        ours = pickle.dumps(here)
    again = pickle.loads(sent)
    assert type(again._async_array.codec_pipeline) is BatchedCodecPipeline
    np.testing.assert_array_equal(here[...], again[...])
    # Pickled under ours, unpickled where nothing is installed: kept as it was sent.
    kept = pickle.loads(ours)
    assert isinstance(kept._async_array.codec_pipeline, ChainCodecPipeline)
    np.testing.assert_array_equal(kept[...], expected)


def _register_passthrough() -> None:
    from unregistered_codec import NAME, Passthrough

    zarr.registry.register_codec(NAME, Passthrough)


def test_an_array_whose_codec_the_worker_cannot_name_keeps_what_it_was_sent(
    installed_worker: Any,
) -> None:
    """Re-resolving needs every codec by name; a codec registered only here is not known
    there, so the installed worker keeps the array as pickled (and reads it) rather than
    failing to unpickle it."""
    from unregistered_codec import NAME, Passthrough

    _register_passthrough()
    values = np.arange(60, dtype="float64").reshape(SHAPE)
    array = zarr.create_array(
        MemoryStore(), shape=SHAPE, chunks=(3, 5), dtype="float64", compressors=[Passthrough()]
    )
    array[...] = values
    assert NAME in str(array.metadata.to_dict()["codecs"])
    kind, modules, read = installed_worker.apply(_read_pickled_array, (pickle.dumps(array),))
    assert kind == "BatchedCodecPipeline"  # as sent: nothing was re-resolved
    assert "unregistered_codec" in modules
    np.testing.assert_array_equal(read, values)
