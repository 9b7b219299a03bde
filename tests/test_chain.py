"""``zarr_codec_runtime.Chain``: whole v3 codec chains without zarr-python, checked against
zarr-python (chunks it writes decode identically, chunks the chain writes read identically),
fused where it can be, into caller arrays, and in batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from zarr_codec_runtime import Chain
from zarr_codec_shapes import (
    BytesCodec,
    ChunkSpec,
    CodecError,
    ConfigurationError,
    get_codec,
)

zarr = pytest.importorskip("zarr")
zarr_codecs = pytest.importorskip("zarr_codecs")

CHUNK = (24, 40)


def zarrs_own() -> Any:
    """zarr-python's own codecs (another cast_value implementation may be installed)."""
    return zarr.config.set(
        {
            "codecs.cast_value": "zarr.codecs.cast_value.CastValue",
            "codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
        }
    )


GZIP = {"name": "gzip", "configuration": {"level": 5}}
BLOSC = {
    "name": "blosc",
    "configuration": {
        "cname": "lz4",
        "clevel": 5,
        "shuffle": "shuffle",
        "typesize": 4,
        "blocksize": 0,
    },
}
QUANTIZE = [
    {"name": "scale_offset", "configuration": {"offset": 10, "scale": 100}},
    {
        "name": "cast_value",
        "configuration": {
            "data_type": "int16",
            "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]},
        },
    },
]


def _bytes(endian: str = "little") -> dict[str, Any]:
    return {"name": "bytes", "configuration": {"endian": endian}}


CHAINS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "bytes": ("float32", [_bytes()]),
    "bytes-big": ("float64", [_bytes("big")]),
    "gzip": ("int32", [_bytes(), GZIP]),
    "blosc-big": ("float32", [_bytes("big"), BLOSC]),
    "quantize-blosc": ("float32", [*QUANTIZE, _bytes(), BLOSC]),
    "quantize-gzip-big": ("float64", [*QUANTIZE, _bytes("big"), GZIP]),
    "uint8": ("uint8", [{"name": "bytes"}, GZIP]),
}


def _data(dtype: str, shape: tuple[int, ...] = (60, 90)) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(3)
    values = rng.normal(10, 20, shape)
    if np.dtype(dtype).kind == "f":
        values[::7, ::5] = np.nan
        return values.astype(dtype)
    return np.abs(values).astype(dtype)


def _fill(dtype: str) -> Any:
    return float("nan") if np.dtype(dtype).kind == "f" else 0


def _write_with_zarr(path: Path, dtype: str, codecs: list[dict[str, Any]]) -> Any:
    array = zarr.create_array(
        store=zarr.storage.LocalStore(path),
        shape=(60, 90),
        chunks=CHUNK,
        dtype=dtype,
        fill_value=_fill(dtype),
        filters=[c for c in codecs if c["name"] in ("scale_offset", "cast_value")],
        serializer=next(c for c in codecs if c["name"] == "bytes"),
        compressors=[c for c in codecs if c["name"] in ("gzip", "blosc")],
    )
    array[...] = _data(dtype)
    return array


def _chunk_files(path: Path) -> dict[tuple[int, ...], Path]:
    return {
        tuple(int(i) for i in p.relative_to(path).parts[1:]): p
        for p in path.rglob("*")
        if p.is_file() and p.parts[-1] != "zarr.json"
    }


@pytest.mark.parametrize("name", CHAINS)
def test_chunks_written_by_zarr_python_decode_identically(name: str, tmp_path: Path) -> None:
    dtype, codecs = CHAINS[name]
    with zarr_codecs.install():  # our codecs in zarr too: the chain is compared with them
        expected = _write_with_zarr(tmp_path / "a", dtype, codecs)[...]
    chain = Chain.from_json(codecs, ChunkSpec(CHUNK, dtype, _fill(dtype)))
    out = np.full((72, 120), 99, dtype=dtype)  # whole chunks, then trimmed to the array
    for (i, j), path in _chunk_files(tmp_path / "a").items():
        slot = out[i * 24 : (i + 1) * 24, j * 40 : (j + 1) * 40]
        decoded = chain.decode(path.read_bytes())
        chain.decode_into(path.read_bytes(), slot)  # straight into the output's slot
        assert decoded.tobytes() == slot.tobytes()
    assert out[:60, :90].tobytes() == np.asarray(expected).tobytes()


@pytest.mark.parametrize("name", CHAINS)
def test_chunks_written_by_the_chain_read_identically_in_zarr_python(
    name: str, tmp_path: Path
) -> None:
    dtype, codecs = CHAINS[name]
    with zarrs_own():
        reference = _write_with_zarr(tmp_path / "a", dtype, codecs)[...]
    chain = Chain.from_json(codecs, ChunkSpec(CHUNK, dtype, _fill(dtype)))
    padded = np.full((72, 120), _fill(dtype), dtype=dtype)
    padded[:60, :90] = _data(dtype)
    for (i, j), path in _chunk_files(tmp_path / "a").items():
        chunk = padded[i * 24 : (i + 1) * 24, j * 40 : (j + 1) * 40]
        path.write_bytes(bytes(chain.encode(chunk)))
    with zarrs_own():
        reread = zarr.open_array(zarr.storage.LocalStore(tmp_path / "a"), mode="r")[...]
    assert reread.tobytes() == np.asarray(reference).tobytes()


def test_scale_offset_and_cast_value_are_fused_and_equal_to_the_pair() -> None:
    dtype, codecs = CHAINS["quantize-blosc"]
    spec = ChunkSpec(CHUNK, dtype, float("nan"))
    chain = Chain.from_json(codecs, spec)
    assert chain.fused and len(chain.array_stages) == 1
    pair = [get_codec(c, 3) for c in QUANTIZE]
    data = _data(dtype, CHUNK)
    step = pair[1].encode(pair[0].encode(data, spec), spec)
    raw = np.frombuffer(get_codec(BLOSC, 3).decode(chain.encode(data)), dtype="<i2")
    assert raw.tobytes() == np.asarray(step).tobytes()
    decoded = pair[0].decode(pair[1].decode(step, spec), spec)
    assert chain.decode(chain.encode(data)).tobytes() == np.asarray(decoded).tobytes()


@pytest.mark.parametrize("name", CHAINS)
def test_batches_equal_single_chunks(name: str) -> None:
    dtype, codecs = CHAINS[name]
    chain = Chain.from_json(codecs, ChunkSpec(CHUNK, dtype, _fill(dtype)))
    chunks = [_data(dtype, (96, 40))[k * 24 : (k + 1) * 24] for k in range(4)]
    encoded = chain.encode_batch(chunks)
    assert [bytes(e) for e in encoded] == [bytes(chain.encode(c)) for c in chunks]
    decoded = chain.decode_batch(encoded)
    assert [d.tobytes() for d in decoded] == [chain.decode(e).tobytes() for e in encoded]
    whole = np.empty((96, 40), dtype=dtype)
    chain.decode_batch_into(encoded, [whole[k * 24 : (k + 1) * 24] for k in range(4)])
    assert whole.tobytes() == b"".join(d.tobytes() for d in decoded)
    # Side by side: each chunk's place in the output is a strided view.
    wide = np.empty((24, 160), dtype=dtype)
    chain.decode_batch_into(encoded, [wide[:, k * 40 : (k + 1) * 40] for k in range(4)])
    assert wide.tobytes() == np.concatenate(decoded, axis=1).tobytes()


def test_json_records_evolved_parameters() -> None:
    blosc = {**BLOSC, "configuration": {**BLOSC["configuration"]}}
    del blosc["configuration"]["typesize"]
    blosc["configuration"]["shuffle"] = "noshuffle"
    chain = Chain.from_json([_bytes(), blosc], ChunkSpec(CHUNK, "float64"))
    assert chain.to_json()[1]["configuration"]["typesize"] == 8  # as zarr-python records
    again = Chain.from_json(chain.to_json(), ChunkSpec(CHUNK, "float64"))
    assert again.to_json() == chain.to_json()


@pytest.mark.parametrize(
    "codecs",
    [
        [GZIP],  # no array -> bytes codec
        [_bytes(), _bytes()],  # two
        [_bytes(), QUANTIZE[0]],  # an array codec after bytes
        [GZIP, _bytes()],  # a bytes codec before
        "bytes",
    ],
)
def test_malformed_chains_are_configuration_errors(codecs: Any) -> None:
    with pytest.raises(ConfigurationError):
        Chain.from_json(codecs, ChunkSpec(CHUNK, "float32"))


def test_bad_chunks_raise_codec_errors() -> None:
    chain = Chain.from_json([_bytes(), GZIP], ChunkSpec(CHUNK, "float32"))
    with pytest.raises(ConfigurationError):
        chain.encode(np.zeros((3, 3), dtype="float32"))
    with pytest.raises(ConfigurationError):
        chain.decode_into(chain.encode(np.zeros(CHUNK, "float32")), np.zeros(CHUNK, "float64"))
    with pytest.raises(CodecError):
        chain.decode(b"not gzip")
    short = Chain.from_json([_bytes()], ChunkSpec(CHUNK, "float32"))
    with pytest.raises(CodecError):
        short.decode(b"\0" * 12)


def test_chunks_of_the_wrong_size_are_corrupt_on_every_path() -> None:
    """A compressed chunk that decodes to too few or too many bytes is refused, whether it is
    decompressed straight into the output or through a buffer."""
    chain = Chain.from_json([_bytes(), GZIP], ChunkSpec(CHUNK, "float32"))
    gzip = get_codec(GZIP, 3)
    short, long = gzip.encode(b"\0" * 100), gzip.encode(b"\0" * (24 * 40 * 4 + 4))
    for data in (short, long):
        with pytest.raises(CodecError):
            chain.decode(data)
        outs = [np.empty(CHUNK, "float32") for _ in range(2)]
        with pytest.raises(CodecError):
            chain.decode_batch_into([data, data], outs)
        wide = np.empty((24, 80), "float32")  # strided places: the buffered path
        with pytest.raises(CodecError):
            chain.decode_batch_into([data, data], [wide[:, :40], wide[:, 40:]])


def test_bytes_codec_json_and_endianness() -> None:
    assert BytesCodec.from_json({"name": "bytes"}, 3) == BytesCodec(None)
    assert BytesCodec("big").to_json(3) == {"name": "bytes", "configuration": {"endian": "big"}}
    with pytest.raises(ConfigurationError):
        BytesCodec.from_json({"name": "bytes", "configuration": {"endian": "middle"}}, 3)
    with pytest.raises(ConfigurationError):
        BytesCodec.from_json({"name": "bytes", "configuration": {"order": "C"}}, 3)
    spec = ChunkSpec((2,), "uint16")
    assert bytes(BytesCodec("big").encode(np.array([1, 2], "u2"), spec)) == b"\0\1\0\2"
    assert bytes(BytesCodec("little").encode(np.array([1, 2], "u2"), spec)) == b"\1\0\2\0"
    with pytest.raises(ConfigurationError):
        BytesCodec(None).encode(np.array([1, 2], "u2"), spec)


def test_pipeline_reads_files_of_a_local_store_straight_into_place(tmp_path: Path) -> None:
    """Uncompressed chunks of a LocalStore are read from their files into the output; a file
    of the wrong size is corrupt, a missing one is the fill value."""
    from zarr_codecs.pipeline import PATH

    with zarr.config.set({"codec_pipeline.path": PATH}):
        array = zarr.create_array(
            store=str(tmp_path / "a"),
            shape=(100,),
            chunks=(10,),
            dtype="float64",
            compressors=None,
            fill_value=-1.0,
        )
        array[:50] = np.arange(50.0)
        values = array[...]
        assert values[:50].tolist() == list(range(50)) and set(values[50:]) == {-1.0}
        out = np.zeros(100, dtype=">f8")  # into another byte order: not as is
        array.get_basic_selection(
            ..., out=zarr.core.buffer.default_buffer_prototype().nd_buffer.from_numpy_array(out)
        )
        assert out.tolist() == values.tolist()
        (tmp_path / "a" / "c" / "2").write_bytes(b"short")
        with pytest.raises(CodecError, match="does not hold exactly 80 bytes"):
            array[...]


def test_pipeline_leaves_a_configured_codec_subclass_to_zarr() -> None:
    """A class the user configured for a name (here a subclass of zarr's BloscCodec) is run
    by zarr, not replaced by ours."""
    from zarr.codecs import BloscCodec
    from zarr.registry import register_codec
    from zarr_codecs.pipeline import PATH

    calls = []

    class CountingBlosc(BloscCodec):
        def _encode_sync(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
            calls.append(1)
            return super()._encode_sync(chunk_bytes, chunk_spec)

    register_codec("blosc", CountingBlosc)
    name = f"{CountingBlosc.__module__}.{CountingBlosc.__qualname__}"
    with zarr.config.set({"codec_pipeline.path": PATH, "codecs.blosc": name}):
        array = zarr.create_array(
            zarr.storage.MemoryStore(),
            shape=(40,),
            chunks=(10,),
            dtype="int32",
            compressors=[BLOSC],
        )
        array[:] = np.arange(40, dtype="int32")
        assert array.metadata.codecs[1].__class__ is CountingBlosc
        assert calls and array[:].tolist() == list(range(40))


def test_chains_pickle_into_a_spawned_process_and_run_there() -> None:
    """A chain (plain, sharded with transpose inside) pickles as its codecs and spec, and the
    copy in a fresh ``spawn`` process encodes exactly as the original does."""
    import multiprocessing
    import pickle

    from zarr_codec_shapes.chunk_spec import ChunkSpec as Spec

    plain = Chain.from_json(
        [
            {"name": "bytes", "configuration": {"endian": "big"}},
            {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
        ],
        Spec((8, 6), "float32", 0),
    )
    sharded = Chain.from_json(
        [
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": [4, 3],
                    "codecs": [
                        {"name": "transpose", "configuration": {"order": [1, 0]}},
                        {"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "gzip", "configuration": {"level": 1}},
                    ],
                },
            }
        ],
        Spec((8, 6), "float32", 0),
    )
    values = np.arange(48, dtype="float32").reshape(8, 6)
    for chain in (plain, sharded):
        copy = pickle.loads(pickle.dumps(chain))
        assert bytes(copy.encode(values)) == bytes(chain.encode(values))
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            stored = pool.apply(_encode_in_worker, (pickle.dumps(chain), values))
        assert stored == bytes(chain.encode(values))
        np.testing.assert_array_equal(chain.decode(stored), values)


def _encode_in_worker(pickled: bytes, values: Any) -> bytes:
    import pickle

    return bytes(pickle.loads(pickled).encode(values))
