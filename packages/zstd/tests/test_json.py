"""Zstd's Zarr v3 and v2 JSON (the spec and numcodecs' form) and its discovery through the
``zarr_codec_shapes.codecs`` entry point."""

from __future__ import annotations

import json
from typing import Any

import pytest
import zarr_codec_shapes
from zarr_codec_shapes import ConfigurationError
from zarr_codec_zstd import Zstd


@pytest.mark.parametrize("level", [-131072, -5, 0, 1, 3, 22])
@pytest.mark.parametrize("checksum", [False, True])
def test_v3_round_trip(level: int, checksum: bool) -> None:
    codec = Zstd(level, checksum)
    data = codec.to_json(3)
    # Written either way, as zarr-python writes it: zarrs refuses a zstd configuration
    # without it (the spec only recommends leaving it out when false).
    expected: dict[str, Any] = {"level": level, "checksum": checksum}
    assert data == {"name": "zstd", "configuration": expected}
    assert Zstd.from_json(json.loads(json.dumps(data)), 3) == codec
    # Read without it too (the spec's recommended form).
    if not checksum:
        left_out = {"name": "zstd", "configuration": {"level": level}}
        assert zarr_codec_shapes.get_codec(left_out) == codec


@pytest.mark.parametrize("checksum", [False, True])
def test_v2_is_numcodecs_form(checksum: bool) -> None:
    codec = Zstd(5, checksum)
    assert codec.to_json(2) == {"id": "zstd", "level": 5, "checksum": checksum}
    assert Zstd.from_json(codec.to_json(2), 2) == codec


def test_v2_defaults_and_clamping_follow_numcodecs() -> None:
    assert Zstd.from_json({"id": "zstd"}, 2) == Zstd(0)  # numcodecs' DEFAULT_CLEVEL
    assert Zstd.from_json({"id": "zstd", "level": 3}, 2) == Zstd(3)
    # numcodecs hands any integer to libzstd, which clamps it.
    assert Zstd.from_json({"id": "zstd", "level": 100}, 2) == Zstd(22)
    assert Zstd.from_json({"id": "zstd", "level": -(10**6)}, 2) == Zstd(-131072)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ({"name": "zstd", "configuration": {"level": 23}}, 3),
        ({"name": "zstd", "configuration": {"level": -131073}}, 3),
        ({"name": "zstd", "configuration": {"level": 1.5}}, 3),
        ({"name": "zstd", "configuration": {"level": True}}, 3),
        ({"name": "zstd", "configuration": {"level": "3"}}, 3),
        ({"name": "zstd", "configuration": {"level": 3, "checksum": 1}}, 3),
        ({"name": "zstd", "configuration": {"level": 3, "checksum": "yes"}}, 3),
        ({"name": "zstd", "configuration": {"level": 3, "extra": 1}}, 3),
        ({"name": "zstd", "configuration": {}}, 3),
        ({"name": "zstd"}, 3),
        ({"id": "zstd", "level": "3"}, 2),
        ({"id": "zstd", "level": 3, "checksum": None}, 2),
        ({"id": "zstd", "level": 3, "extra": 1}, 2),
    ],
)
def test_bad_configurations_are_configuration_errors(
    data: dict[str, Any], fmt: zarr_codec_shapes.ZarrFormat
) -> None:
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(data, fmt)


def test_constructor_validates() -> None:
    for bad in (23, -131073, 1.0, None, "1"):
        with pytest.raises(ConfigurationError):
            Zstd(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        Zstd(1, checksum=1)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        Zstd(1, max_decoded_size=-1)


def test_discovered_through_the_entry_point() -> None:
    codec = zarr_codec_shapes.get_codec({"name": "zstd", "configuration": {"level": 1}})
    assert type(codec) is Zstd
