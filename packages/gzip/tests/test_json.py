"""Gzip's Zarr v3 and v2 JSON, and its discovery through the ``zarr_codec_shapes.codecs`` entry
point."""

from __future__ import annotations

import json
from typing import Any

import pytest
import zarr_codec_shapes
from zarr_codec_gzip import Gzip
from zarr_codec_shapes import ConfigurationError

LEVELS = range(10)
BAD_LEVELS: list[Any] = [-1, 10, 5.0, True, False, "5", None, [5], 2**64]


@pytest.mark.parametrize("level", LEVELS)
def test_v3_round_trip(level: int) -> None:
    codec = Gzip(level)
    data = codec.to_json(3)
    assert data == {"name": "gzip", "configuration": {"level": level}}
    assert Gzip.from_json(json.loads(json.dumps(data)), 3) == codec
    assert Gzip.from_json({"name": "gzip", "configuration": {"level": level}}, 3) == codec


@pytest.mark.parametrize("level", LEVELS)
def test_v2_round_trip(level: int) -> None:
    codec = Gzip(level)
    data = codec.to_json(2)
    assert data == {"id": "gzip", "level": level}
    assert Gzip.from_json(json.loads(json.dumps(data)), 2) == codec


def test_v2_without_level_is_numcodecs_default_level_1() -> None:
    assert Gzip.from_json({"id": "gzip"}, 2) == Gzip(1)
    assert zarr_codec_shapes.get_codec({"id": "gzip"}) == Gzip(1)


def test_constructor_default_level_is_5() -> None:
    """zarr-python's default; only the v2 JSON form without a level means 1."""
    assert Gzip() == Gzip(5)
    assert Gzip().level == 5


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ({"name": "gzip", "configuration": {"level": 5, "zz_unknown": 1}}, 3),
        ({"name": "gzip", "configuration": {"level": 5, "mtime": 0}}, 3),
        ({"name": "gzip", "configuration": {"level": 5}, "extra": 1}, 3),
        ({"id": "gzip", "level": 5, "zz_unknown": 1}, 2),
        ({"id": "gzip", "level": 5, "mtime": 0}, 2),
    ],
)
def test_unknown_keys_are_rejected(data: dict[str, Any], fmt: zarr_codec_shapes.ZarrFormat) -> None:
    with pytest.raises(ConfigurationError):
        Gzip.from_json(data, fmt)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(data, fmt)


@pytest.mark.parametrize(
    "data",
    [
        {"name": "gzip"},
        {"name": "gzip", "configuration": {}},
    ],
)
def test_v3_requires_level(data: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        Gzip.from_json(data, 3)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(data)


@pytest.mark.parametrize(
    "data",
    [
        {"name": "gzip", "configuration": None},
        {"name": "gzip", "configuration": [5]},
        {"name": "zstd", "configuration": {"level": 5}},
        {"name": 5, "configuration": {"level": 5}},
        {"configuration": {"level": 5}},
        "gzip",
        None,
    ],
)
def test_malformed_v3_json_is_rejected(data: Any) -> None:
    with pytest.raises(ConfigurationError):
        Gzip.from_json(data, 3)


@pytest.mark.parametrize("data", [{"id": "zstd", "level": 5}, {"level": 5}, {"id": None}, "gzip"])
def test_malformed_v2_json_is_rejected(data: Any) -> None:
    with pytest.raises(ConfigurationError):
        Gzip.from_json(data, 2)


@pytest.mark.parametrize("level", BAD_LEVELS, ids=repr)
def test_bad_levels_are_configuration_errors(level: Any) -> None:
    with pytest.raises(ConfigurationError):
        Gzip.from_json({"name": "gzip", "configuration": {"level": level}}, 3)
    if level != -1:  # zlib's default level in v2 (below)
        with pytest.raises(ConfigurationError):
            Gzip.from_json({"id": "gzip", "level": level}, 2)
    with pytest.raises(ConfigurationError):
        Gzip(level)


def test_v2_level_minus_one_is_zlibs_default() -> None:
    """numcodecs hands its level to zlib, where -1 means the default level, 6: arrays with
    ``"level": -1`` exist and must open."""
    assert Gzip.from_json({"id": "gzip", "level": -1}, 2) == Gzip(6)


@pytest.mark.parametrize("limit", [-1, 1.5, True, "10"], ids=repr)
def test_bad_max_decoded_size(limit: Any) -> None:
    with pytest.raises(ConfigurationError):
        Gzip(5, max_decoded_size=limit)


def test_max_decoded_size_is_not_part_of_the_json() -> None:
    codec = Gzip(3, max_decoded_size=1000)
    assert codec.to_json(3) == Gzip(3).to_json(3)
    assert codec.to_json(2) == Gzip(3).to_json(2)
    assert codec != Gzip(3)  # it still changes behaviour, so it is part of the value


def test_entry_point_finds_gzip_in_both_forms() -> None:
    found: list[object] = [
        zarr_codec_shapes.get_codec_class("gzip"),
        zarr_codec_shapes.get_codec_class("gzip", 2),
        zarr_codec_shapes.available_codecs()["gzip"],
    ]
    assert found == [Gzip, Gzip, Gzip]
    v3 = zarr_codec_shapes.get_codec({"name": "gzip", "configuration": {"level": 7}})
    v2 = zarr_codec_shapes.get_codec({"id": "gzip", "level": 7})
    assert v3 == v2 == Gzip(7)
    assert isinstance(v3, Gzip) and isinstance(v2, Gzip)
    assert zarr_codec_shapes.get_codec({"id": "gzip", "level": 7}, zarr_format=2) == Gzip(7)
    assert zarr_codec_shapes.get_codec({"name": "gzip", "configuration": {"level": 7}}, 3) == Gzip(
        7
    )


def test_entry_point_is_declared() -> None:
    from importlib.metadata import entry_points

    found = {
        ep.name: ep.value for ep in entry_points(group=zarr_codec_shapes.registry.ENTRY_POINT_GROUP)
    }
    assert found.get("gzip") == "zarr_codec_gzip:Gzip"
