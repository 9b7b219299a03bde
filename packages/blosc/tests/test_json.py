"""Blosc's Zarr v3 and v2 JSON, the resolution of unset typesize/shuffle, and its entry point.

v3 (the spec): ``{"name": "blosc", "configuration": {"cname", "clevel", "shuffle": str,
"typesize", "blocksize"}}``, typesize required unless shuffle is "noshuffle". v2 (numcodecs):
``{"id": "blosc", "cname", "clevel", "shuffle": -1|0|1|2, "blocksize"}``, no typesize, every key
optional with numcodecs' defaults (lz4, 5, byte shuffle, automatic blocks); -1 is numcodecs'
AUTOSHUFFLE, resolved from the item size of the data being encoded.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np
import pytest
import zarr_codec_shapes
from zarr_codec_blosc import COMPRESSORS, Blosc, _blosc
from zarr_codec_shapes import ChunkSpec, ConfigurationError, DataType

SHUFFLES = ["noshuffle", "shuffle", "bitshuffle"]
V2_SHUFFLES = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle", -1: None}
BASE: dict[str, Any] = {
    "cname": "lz4",
    "clevel": 5,
    "shuffle": "shuffle",
    "typesize": 4,
    "blocksize": 0,
}
BASE_V2: dict[str, Any] = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}


def v3(**changes: Any) -> dict[str, Any]:
    config = {**BASE, **changes}
    return {"name": "blosc", "configuration": {k: v for k, v in config.items() if v is not ...}}


def v2(**changes: Any) -> dict[str, Any]:
    config = {**BASE_V2, **changes}
    return {k: v for k, v in config.items() if v is not ...}


# -- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("cname", COMPRESSORS)
@pytest.mark.parametrize("shuffle", SHUFFLES)
@pytest.mark.parametrize("typesize", [1, 2, 4, 8, 255])
def test_v3_round_trip(cname: str, shuffle: str, typesize: int) -> None:
    codec = Blosc(cname, 7, shuffle, typesize, 4096)
    data = codec.to_json(3)
    assert data == {
        "name": "blosc",
        "configuration": {
            "cname": cname,
            "clevel": 7,
            "shuffle": shuffle,
            "typesize": typesize,
            "blocksize": 4096,
        },
    }
    assert Blosc.from_json(json.loads(json.dumps(data)), 3) == codec
    assert zarr_codec_shapes.get_codec(data) == codec


def test_v3_noshuffle_without_typesize() -> None:
    data = v3(shuffle="noshuffle", typesize=...)
    codec = Blosc.from_json(data, 3)
    assert codec == Blosc("lz4", 5, "noshuffle", None, 0)
    assert codec.to_json(3) == data  # typesize stays out, as the spec allows
    assert Blosc.from_json(v3(shuffle="noshuffle"), 3).to_json(3) == v3(shuffle="noshuffle")


@pytest.mark.parametrize("cname", COMPRESSORS)
@pytest.mark.parametrize("shuffle", [0, 1, 2, -1])
@pytest.mark.parametrize("clevel", [0, 1, 9])
def test_v2_round_trip(cname: str, shuffle: int, clevel: int) -> None:
    data = v2(cname=cname, shuffle=shuffle, clevel=clevel, blocksize=65536)
    codec = Blosc.from_json(data, 2)
    assert codec == Blosc(cname, clevel, V2_SHUFFLES[shuffle], None, 65536)
    assert codec.to_json(2) == data
    assert Blosc.from_json(json.loads(json.dumps(codec.to_json(2))), 2) == codec
    assert zarr_codec_shapes.get_codec(data, 2) == codec


def test_v2_drops_typesize() -> None:
    """v2 has no typesize: the data's item size decides it when encoding."""
    assert Blosc("zstd", 3, "shuffle", 8).to_json(2) == v2(cname="zstd", clevel=3)
    assert Blosc.from_json(v2(), 2).typesize is None


def test_v2_defaults_are_numcodecs() -> None:
    """numcodecs' ``Blosc()``: lz4, level 5, byte shuffle, automatic blocks."""
    codec = Blosc.from_json({"id": "blosc"}, 2)
    assert codec == Blosc("lz4", 5, "shuffle", None, 0)
    assert codec.to_json(2) == BASE_V2
    assert zarr_codec_shapes.get_codec({"id": "blosc"}) == codec
    for key, value in [("cname", "zstd"), ("clevel", 1), ("shuffle", 0), ("blocksize", 256)]:
        partial = Blosc.from_json({"id": "blosc", key: value}, 2).to_json(2)
        assert partial == {**BASE_V2, key: value}


def test_constructor_defaults() -> None:
    codec = Blosc()
    assert (codec.cname, codec.clevel, codec.shuffle, codec.typesize, codec.blocksize) == (
        "zstd",
        5,
        None,
        None,
        0,
    )


# -- unresolved shuffle / typesize -----------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "shuffle"),
    [("uint8", "bitshuffle"), ("bool", "bitshuffle"), ("int8", "bitshuffle")]
    + [(t, "shuffle") for t in ("int16", "uint16", "float32", "int64", "complex128")],
)
def test_v2_autoshuffle_resolves_from_the_item_size(dtype: str, shuffle: str) -> None:
    codec = Blosc.from_json(v2(shuffle=-1), 2)
    assert codec.shuffle is None and codec.typesize is None
    array = (np.arange(4000) % 251).astype(dtype)
    encoded = codec.encode(array)
    info = _blosc.frame_info(encoded)
    assert info["typesize"] == array.itemsize
    assert (info["shuffle"], info["bitshuffle"]) == (shuffle == "shuffle", shuffle == "bitshuffle")
    assert encoded == Blosc("lz4", 5, shuffle, array.itemsize).encode(array)
    assert codec.decode(encoded) == array.tobytes()
    # plain bytes have 1-byte items: bit shuffle
    assert codec.encode(array.tobytes()) == Blosc("lz4", 5, "bitshuffle", 1).encode(array)


def test_v2_shuffle_1_takes_typesize_from_the_item_size() -> None:
    codec = Blosc.from_json(v2(shuffle=1), 2)
    array = np.arange(3000, dtype="<f8")
    info = _blosc.frame_info(codec.encode(array))
    assert info["typesize"] == 8 and info["shuffle"] and not info["bitshuffle"]


@pytest.mark.parametrize(
    ("kwargs", "dtype", "typesize", "shuffle"),
    [
        ({}, "uint8", 1, "bitshuffle"),
        ({}, "bool", 1, "bitshuffle"),
        ({}, "int16", 2, "shuffle"),
        ({}, "float32", 4, "shuffle"),
        ({}, "float64", 8, "shuffle"),
        ({}, "complex128", 16, "shuffle"),
        ({"shuffle": "noshuffle"}, "float32", 4, "noshuffle"),
        ({"shuffle": "bitshuffle"}, "int64", 8, "bitshuffle"),
        ({"shuffle": "shuffle"}, "uint8", 1, "shuffle"),
        ({"typesize": 4, "shuffle": "shuffle"}, "uint8", 4, "shuffle"),
        ({"typesize": 2}, "int16", 2, "shuffle"),
    ],
)
def test_evolve_resolves_like_zarr_python(
    kwargs: dict[str, Any], dtype: str, typesize: int, shuffle: str
) -> None:
    """zarr-python's ``BloscCodec.evolve_from_array_spec``: typesize = item size, shuffle =
    bitshuffle for 1-byte items, else byte shuffle; set values are kept."""
    codec = Blosc("zstd", 5, **kwargs)
    evolved = codec.evolve(ChunkSpec((10, 10), dtype))
    assert (evolved.typesize, evolved.shuffle) == (typesize, shuffle)
    assert (evolved.cname, evolved.clevel, evolved.blocksize) == ("zstd", 5, 0)
    assert evolved.to_json(3)["configuration"]["typesize"] == typesize
    assert evolved.evolve(ChunkSpec((3,), "float64")) == evolved  # resolved is final


@pytest.mark.parametrize(
    ("typesize", "dtype", "shuffle"), [(4, "uint8", "bitshuffle"), (1, "float32", "shuffle")]
)
def test_evolve_shuffle_follows_the_item_size_not_the_typesize(
    typesize: int, dtype: str, shuffle: str
) -> None:
    evolved = Blosc("zstd", 5, typesize=typesize).evolve(ChunkSpec((10,), dtype))
    assert (evolved.typesize, evolved.shuffle) == (typesize, shuffle)


def test_every_core_data_type_evolves() -> None:
    for data_type in DataType.ALL:
        if not data_type.v2_code:
            continue
        evolved = Blosc().evolve(ChunkSpec((4,), data_type))
        expected = "bitshuffle" if data_type.itemsize == 1 else "shuffle"
        assert (evolved.typesize, evolved.shuffle) == (data_type.itemsize, expected), data_type


@pytest.mark.parametrize(
    "codec",
    [Blosc(), Blosc(shuffle="shuffle"), Blosc(shuffle="bitshuffle"), Blosc(typesize=4)],
    ids=repr,
)
def test_v3_json_of_an_unresolved_codec_raises(codec: Blosc) -> None:
    with pytest.raises(ConfigurationError, match="evolve"):
        codec.to_json(3)
    assert codec.evolve(ChunkSpec((2,), "int32")).to_json(3)["name"] == "blosc"


def test_v2_json_of_an_unresolved_codec_is_autoshuffle() -> None:
    assert Blosc().to_json(2) == v2(cname="zstd", shuffle=-1)
    assert Blosc(typesize=4).to_json(2) == v2(cname="zstd", shuffle=-1)


# -- rejected configurations -----------------------------------------------------------------

BAD_CNAMES: list[Any] = ["LZ4", "lz5", "", "gzip", "blosc2", 5, None, ["lz4"], {"lz4": 1}]
BAD_CLEVELS: list[Any] = [-1, 10, True, False, 5.0, "5", None, [5], 2**64]
BAD_V3_SHUFFLES: list[Any] = [
    "Shuffle",
    "auto",
    "",
    "byteshuffle",
    0,
    1,
    -1,
    True,
    None,
    ["shuffle"],
]
BAD_TYPESIZES: list[Any] = [0, -1, True, 4.0, "4", [4], 2**64]
BAD_BLOCKSIZES: list[Any] = [-1, 2**31, 1.5, True, "0", None, [0]]


@pytest.mark.parametrize("cname", BAD_CNAMES, ids=repr)
def test_bad_cname(cname: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(cname=cname), 3)
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v2(cname=cname), 2)
    with pytest.raises(ConfigurationError):
        Blosc(cname)


def test_snappy_is_refused_when_not_built() -> None:
    if "snappy" in COMPRESSORS:
        pytest.skip("this build includes snappy")
    with pytest.raises(ConfigurationError, match="snappy"):
        Blosc.from_json(v3(cname="snappy"), 3)
    with pytest.raises(ConfigurationError, match="snappy"):
        Blosc.from_json(v2(cname="snappy"), 2)


@pytest.mark.parametrize("clevel", BAD_CLEVELS, ids=repr)
def test_bad_clevel(clevel: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(clevel=clevel), 3)
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v2(clevel=clevel), 2)
    with pytest.raises(ConfigurationError):
        Blosc("lz4", clevel)


@pytest.mark.parametrize("shuffle", BAD_V3_SHUFFLES, ids=repr)
def test_bad_v3_shuffle(shuffle: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(shuffle=shuffle), 3)
    if shuffle is not None:  # None is "unset" for the constructor
        with pytest.raises(ConfigurationError):
            Blosc("lz4", 5, shuffle)


@pytest.mark.parametrize(
    "shuffle",
    [
        3,
        -2,
        256,
        True,
        False,
        "1",
        "shuffle",
        1.5,
        None,
        1.0,
        [1],
        {"a": 1},
    ],
    ids=repr,
)
def test_bad_v2_shuffle(shuffle: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v2(shuffle=shuffle), 2)


@pytest.mark.parametrize("typesize", BAD_TYPESIZES, ids=repr)
def test_bad_typesize(typesize: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(typesize=typesize), 3)
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(typesize=typesize, shuffle="noshuffle"), 3)
    with pytest.raises(ConfigurationError):
        Blosc("lz4", 5, "shuffle", typesize)


def test_typesize_above_255_is_kept_and_encodes_like_c_blosc() -> None:
    """Any positive typesize is valid metadata; c-blosc shuffles with typesize 1 above 255."""
    codec = Blosc("lz4", 5, "shuffle", 300)
    assert codec.to_json(3)["configuration"]["typesize"] == 300
    data = bytes(range(256)) * 40
    encoded = codec.encode(data)
    assert codec.decode(encoded) == data
    # c-blosc 1.x stores typesize in one byte: above 255 it shuffles (and records) 1.
    assert _blosc.frame_info(encoded)["typesize"] == 1
    assert encoded == Blosc("lz4", 5, "shuffle", 1).encode(data)
    assert encoded != Blosc("lz4", 5, "shuffle", 4).encode(data)
    with pytest.raises(ConfigurationError):
        Blosc("lz4", 5, "shuffle", 0)


@pytest.mark.parametrize("typesize", [256, 300, 65536])
def test_v3_metadata_with_typesize_above_255_is_read(typesize: int) -> None:
    Blosc.from_json(v3(typesize=typesize), 3)


@pytest.mark.parametrize("blocksize", BAD_BLOCKSIZES, ids=repr)
def test_bad_blocksize(blocksize: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(blocksize=blocksize), 3)
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v2(blocksize=blocksize), 2)
    with pytest.raises(ConfigurationError):
        Blosc("lz4", 5, "shuffle", 4, blocksize)


@pytest.mark.parametrize("shuffle", ["shuffle", "bitshuffle"])
def test_v3_typesize_required_with_shuffle(shuffle: str) -> None:
    with pytest.raises(ConfigurationError, match="typesize"):
        Blosc.from_json(v3(shuffle=shuffle, typesize=...), 3)
    with pytest.raises(ConfigurationError, match="typesize"):
        zarr_codec_shapes.get_codec(v3(shuffle=shuffle, typesize=...))


def test_v3_null_typesize_with_shuffle_is_rejected() -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(v3(typesize=None), 3)


@pytest.mark.parametrize("missing", ["cname", "clevel", "shuffle", "blocksize"])
def test_v3_requires_every_other_key(missing: str) -> None:
    config = {k: v for k, v in BASE.items() if k != missing}
    with pytest.raises(ConfigurationError):
        Blosc.from_json({"name": "blosc", "configuration": config}, 3)


def test_v2_typesize_is_read_as_numcodecs_reads_it() -> None:
    """numcodecs' Blosc takes a typesize key (it never writes one): such an array opens, the
    typesize is used for encoding, and the v2 form written back is numcodecs' (no typesize)."""
    codec = Blosc.from_json(v2(typesize=4), 2)
    assert codec.typesize == 4
    assert zarr_codec_shapes.get_codec(v2(typesize=4), 2) == codec
    assert _blosc.frame_info(codec.encode(b"\0" * 64))["typesize"] == 4
    assert "typesize" not in codec.to_json(2)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (v3(zz_unknown=1), 3),
        (v3(nthreads=2), 3),
        (v3(id="blosc"), 3),
        ({**v3(), "extra": 1}, 3),
        (v2(zz_unknown=1), 2),
        (v2(nthreads=1), 2),
    ],
)
def test_unknown_keys_are_rejected(data: dict[str, Any], fmt: zarr_codec_shapes.ZarrFormat) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(data, fmt)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(data, fmt)


@pytest.mark.parametrize(
    "data",
    [
        {"name": "blosc"},
        {"name": "blosc", "configuration": None},
        {"name": "blosc", "configuration": {}},
        {"name": "blosc", "configuration": ["lz4"]},
        {"name": "gzip", "configuration": BASE},
        {"configuration": BASE},
        "blosc",
        None,
    ],
    ids=repr,
)
def test_malformed_v3_json(data: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(data, 3)


@pytest.mark.parametrize(
    "data", [{"id": "gzip"}, {"cname": "lz4"}, {"id": None}, "blosc", None], ids=repr
)
def test_malformed_v2_json(data: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc.from_json(data, 2)


# -- value semantics of what JSON leaves out -------------------------------------------------


def test_max_decoded_size_is_not_part_of_the_json() -> None:
    codec = Blosc("lz4", 5, "shuffle", 4, max_decoded_size=1000)
    assert codec.to_json(3) == Blosc("lz4", 5, "shuffle", 4).to_json(3)
    assert codec.to_json(2) == Blosc("lz4", 5, "shuffle", 4).to_json(2)
    assert codec != Blosc("lz4", 5, "shuffle", 4)  # it changes behaviour: part of the value
    for clone in (copy.copy(codec), copy.deepcopy(codec), pickle.loads(pickle.dumps(codec))):
        assert clone == codec and clone.max_decoded_size == 1000


def test_unresolved_codecs_keep_value_semantics() -> None:
    for codec in (Blosc(), Blosc.from_json(v2(shuffle=-1), 2), Blosc(typesize=3)):
        clone = pickle.loads(pickle.dumps(codec))
        assert clone == codec and hash(clone) == hash(codec)
        assert "Blosc(" in repr(codec)
    assert Blosc() != Blosc(shuffle="shuffle")
    assert Blosc(typesize=None) != Blosc(typesize=1)


@pytest.mark.parametrize("limit", [-1, 1.5, True, "10"], ids=repr)
def test_bad_max_decoded_size(limit: Any) -> None:
    with pytest.raises(ConfigurationError):
        Blosc(max_decoded_size=limit)


# -- registry --------------------------------------------------------------------------------


def test_entry_point_finds_blosc_in_both_forms() -> None:
    found: list[object] = [
        zarr_codec_shapes.get_codec_class("blosc"),
        zarr_codec_shapes.get_codec_class("blosc", 2),
        zarr_codec_shapes.available_codecs()["blosc"],
    ]
    assert found == [Blosc, Blosc, Blosc]
    from_v3 = zarr_codec_shapes.get_codec(v3(cname="zstd", clevel=3))
    from_v2 = zarr_codec_shapes.get_codec(v2(cname="zstd", clevel=3, shuffle=1), zarr_format=2)
    assert isinstance(from_v3, Blosc) and isinstance(from_v2, Blosc)
    assert from_v3 == Blosc("zstd", 3, "shuffle", 4)
    assert from_v2 == Blosc("zstd", 3, "shuffle")
    assert from_v2.evolve(ChunkSpec((1,), "int32")) == from_v3


def test_entry_point_is_declared() -> None:
    from importlib.metadata import entry_points

    found = {
        ep.name: ep.value for ep in entry_points(group=zarr_codec_shapes.registry.ENTRY_POINT_GROUP)
    }
    assert found.get("blosc") == "zarr_codec_blosc:Blosc"
    zarr_eps = {ep.name: ep.value for ep in entry_points(group="zarr.codecs")}
    assert zarr_eps.get("blosc") == "zarr_codec_blosc.zarr_python:BloscCodec"
