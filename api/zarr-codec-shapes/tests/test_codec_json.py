"""The two JSON forms of a codec, and the checks every codec shares."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_shapes import ConfigurationError, ZarrFormat, check_keys, split_codec_json
from zarr_codec_shapes.codec_json import codec_name_of


def test_v3_forms() -> None:
    assert split_codec_json({"name": "gzip", "configuration": {"level": 1}}, 3) == (
        "gzip",
        {"level": 1},
    )
    assert split_codec_json({"name": "crc32c"}, 3) == ("crc32c", {})
    assert split_codec_json("crc32c", 3) == ("crc32c", {})  # v3.1 short-hand
    assert split_codec_json({"name": "x", "must_understand": False}, 3) == ("x", {})


def test_v2_form() -> None:
    assert split_codec_json({"id": "gzip", "level": 1}, 2) == ("gzip", {"level": 1})


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ({"name": "gzip", "configuration": {}, "level": 1}, 3),
        ({"configuration": {}}, 3),
        ({"name": 3}, 3),
        ({"name": "gzip", "configuration": [1]}, 3),
        ({"name": "gzip", "must_understand": "yes"}, 3),
        ([1, 2], 3),
        ({"name": "gzip"}, 2),
        ("gzip", 2),
        ({"id": "gzip"}, 4),
    ],
)
def test_malformed_codec_json(data: object, fmt: int) -> None:
    with pytest.raises(ConfigurationError):
        split_codec_json(data, fmt)  # type: ignore[arg-type]


def test_codec_name_of_detects_the_form() -> None:
    assert codec_name_of({"id": "zlib", "level": 1}) == ("zlib", 2)
    assert codec_name_of({"name": "gzip"}) == ("gzip", 3)


def test_check_keys() -> None:
    check_keys("gzip", {"level": 1}, required=("level",))
    with pytest.raises(ConfigurationError, match="missing"):
        check_keys("gzip", {}, required=("level",))
    with pytest.raises(ConfigurationError, match=r"unknown.*lvl"):
        check_keys("gzip", {"level": 1, "lvl": 2}, required=("level",))


class Opaque:
    """Not JSON; its repr is the same in every process (pytest-xdist workers compare test ids)."""

    def __repr__(self) -> str:
        return "Opaque()"


@pytest.mark.parametrize(
    ("data", "zarr_format"),
    [
        ({"name": "gzip", "configuration": {"level": 5, 1: 2}}, 3),
        ({"name": "cast_value", "configuration": {"data_type": b"int8"}}, 3),
        ({"name": "x", "configuration": {"a": [1, {2: 3}]}}, 3),
        ({"name": "x", "configuration": {"a": {1, 2}}}, 3),
        ({"name": "x", "configuration": {"a": Opaque()}}, 3),
        ({"id": "fixedscaleoffset", "offset": 1, 3: 4}, 2),
        ({"id": "x", "a": bytearray(b"1")}, 2),
    ],
    ids=repr,
)
def test_configuration_that_is_not_json_is_a_configuration_error(
    data: dict[Any, Any], zarr_format: ZarrFormat
) -> None:
    """Not TypeError from deep inside a codec: every codec sees JSON or nothing."""
    with pytest.raises(ConfigurationError, match="not"):
        split_codec_json(data, zarr_format)


def test_numpy_numbers_are_json_numbers() -> None:
    config = {"a": np.float64(1.5), "b": [np.int32(2), np.bool_(True)], "c": None}
    assert split_codec_json({"name": "x", "configuration": config}, 3) == ("x", config)
