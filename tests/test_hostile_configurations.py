"""10,000 hostile configurations per codec and Zarr format: only ``CodecError``s.

Each configuration is a valid one with one to three mutations (a key's value swapped for a
hostile value, a key dropped or added, the name or the configuration replaced, a non-string
key, values that are not JSON at all). ``get_codec`` must either build a codec or raise a
``CodecError``; a codec it builds must encode and decode a small chunk or raise one. Any other
exception, or a message that says "invalid configuration" twice, fails with the configuration
that caused it. Seeded, so a failure reproduces.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from zarr_codec_shapes import ChunkSpec, CodecError, get_codec

COUNT = 10_000

VALID: dict[str, dict[int, list[Any]]] = {
    "gzip": {
        3: [{"name": "gzip", "configuration": {"level": 5}}],
        2: [{"id": "gzip", "level": 1}],
    },
    "zstd": {
        3: [{"name": "zstd", "configuration": {"level": 3, "checksum": True}}],
        2: [{"id": "zstd", "level": 1, "checksum": False}],
    },
    "crc32c": {
        3: [{"name": "crc32c"}],
        2: [{"id": "crc32c", "location": "start"}],
    },
    "blosc": {
        3: [
            {
                "name": "blosc",
                "configuration": {
                    "cname": "lz4",
                    "clevel": 5,
                    "shuffle": "shuffle",
                    "typesize": 4,
                    "blocksize": 0,
                },
            }
        ],
        2: [{"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}],
    },
    "cast_value": {
        3: [
            {
                "name": "cast_value",
                "configuration": {
                    "data_type": "uint8",
                    "rounding": "nearest-even",
                    "out_of_range": "clamp",
                    "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
                },
            },
            {"name": "cast_value", "configuration": {"data_type": "float16"}},
        ],
        2: [{"id": "cast_value", "data_type": "int16"}],
    },
    "scale_offset": {
        3: [{"name": "scale_offset", "configuration": {"offset": 1.5, "scale": 4}}],
        2: [{"id": "scale_offset", "offset": 0, "scale": 1}],
    },
}

HOSTILE_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    9,
    10,
    2**31,
    2**63,
    2**64,
    -(2**63) - 1,
    10**100,
    0.5,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    5e-324,
    "",
    "x",
    "NaN",
    "-Infinity",
    "0x7fc00000",
    "0x",
    "lz4",
    "zstd",
    "snappy",
    "bitshuffle",
    "uint8",
    "int4",
    "float16",
    "bool",
    "complex64",
    "nearest-even",
    "towards-zero",
    "clamp",
    "wrap",
    "a" * 5000,
    [],
    [1],
    [[1, 2]],
    [["NaN", 0], ["NaN", 1]],
    [[0, 300]],
    [[1e300, 1]],
    [["x", 1]],
    {},
    {"a": 1},
    {"encode": [[1, 2]]},
    {"encode": [[1]]},
    {"encode": "NaN"},
    {"decode": [[1, 2, 3]]},
    b"bytes",
    (1, 2),
    {1: 2},
    {"level": 5, 3: 4},
    {1.5, 2.5},
    object(),
]


def _mutate(rng: random.Random, config: Any, top: bool) -> Any:
    """One mutation of ``config`` (a dict at the top, maybe nested values below)."""
    if not isinstance(config, dict) or rng.random() < 0.05:
        return rng.choice(HOSTILE_VALUES)
    config = dict(config)
    keys = list(config)
    choice = rng.random()
    if keys and choice < 0.45:
        key = rng.choice(keys)
        inner = config[key]
        if isinstance(inner, dict) and rng.random() < 0.6:
            config[key] = _mutate(rng, inner, top=False)
        else:
            config[key] = rng.choice(HOSTILE_VALUES)
    elif keys and choice < 0.65:
        del config[rng.choice(keys)]
    elif choice < 0.85:
        key = rng.choice(["extra", "level", "typesize", "cname", "data_type", "name", "id", "x"])
        config[key] = rng.choice(HOSTILE_VALUES)
    elif choice < 0.95:
        config[rng.choice([1, 2.5, None, b"k", (1,)])] = rng.choice(HOSTILE_VALUES)
    else:
        config = {k: config[k] for k in reversed(keys)}  # order must not matter
    return config


def _spec_for(name: str, rng: random.Random) -> ChunkSpec:
    data_type = rng.choice(["float64", "float32", "int16", "uint8"])
    return ChunkSpec((7,), data_type)


def _exercise(codec: Any, name: str, rng: random.Random) -> None:
    """Encode and decode a small chunk (the codec may refuse it with a CodecError)."""
    if codec.codec_type == "bytes_bytes":
        data = bytes(range(64)) * 3
        codec.decode(codec.encode(data))
        return
    spec = _spec_for(name, rng)
    values = np.array([0, 1.5, -2, 300, np.nan, np.inf, 1e10], dtype=np.float64)
    with np.errstate(all="ignore"):
        array = values.astype(spec.data_type.numpy_dtype)
    codec.decode(codec.encode(array, spec), spec)


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("name", list(VALID))
def test_hostile_configurations_raise_only_codec_errors(name: str, zarr_format: int) -> None:
    rng = random.Random(f"{name}-{zarr_format}")
    bases = VALID[name][zarr_format]
    built = refused = 0
    for _ in range(COUNT):
        config = rng.choice(bases)
        for _ in range(rng.randint(1, 3)):
            config = _mutate(rng, config, top=True)
        try:
            codec = get_codec(config, zarr_format=zarr_format)
            _exercise(codec, name, rng)
            built += 1
        except CodecError as err:
            refused += 1
            message = str(err)
            assert message.count("invalid configuration") <= 1, f"{config!r}: {message}"
        except Exception as err:  # any other exception is the failure
            pytest.fail(f"{name} v{zarr_format} {config!r}: {type(err).__name__}: {err}")
    assert built + refused == COUNT
    assert refused > COUNT // 2  # most mutations make the configuration invalid
