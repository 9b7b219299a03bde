"""``Lzma`` against numcodecs 0.17's ``LZMA`` (Python's ``lzma`` module): the same bytes both
ways for every format, check, preset and filter chain numcodecs users write, the same JSON and
``repr``, and what ``lzma.decompress`` reads read too."""

from __future__ import annotations

import json
import lzma

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_lzma import Lzma  # noqa: E402
from zarr_codec_lzma import numcodecs as ours_nc  # noqa: E402
from zarr_codec_shapes import ConfigurationError, CorruptInputError, OutputSizeError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402

RNG = np.random.default_rng(11)
CHUNKS = [
    b"",
    b"abc",
    b"\x07" * 200_000,
    np.where(RNG.random(30_000) < 0.05, np.nan, np.linspace(0, 1, 30_000)).astype("<f4").tobytes(),
    RNG.integers(0, 256, 20_001, dtype=np.uint8).tobytes(),
    (np.arange(100_000, dtype="<i4") // 17).tobytes(),
]
DELTA_LZMA2 = [
    {"id": lzma.FILTER_DELTA, "dist": 4},
    {"id": lzma.FILTER_LZMA2, "preset": 1},
]
#: numcodecs' configurations: its defaults, its docs' filter chain, and each option.
CONFIGS = [
    {},
    {"preset": 1},
    {"preset": 9 | lzma.PRESET_EXTREME},
    {"check": lzma.CHECK_NONE},
    {"check": lzma.CHECK_CRC32},
    {"check": lzma.CHECK_SHA256, "preset": 3},
    {"filters": DELTA_LZMA2},
    {"format": lzma.FORMAT_ALONE, "preset": 4},
    {"format": lzma.FORMAT_RAW, "filters": DELTA_LZMA2},
    {
        "format": lzma.FORMAT_RAW,
        "filters": [
            {
                "id": lzma.FILTER_LZMA2,
                "preset": 6,
                "dict_size": 1 << 16,
                "lc": 2,
                "mode": lzma.MODE_FAST,
                "mf": lzma.MF_HC4,
                "nice_len": 32,
            }
        ],
    },
]


@pytest.mark.parametrize("config", CONFIGS, ids=[json.dumps(c) for c in CONFIGS])
def test_same_bytes_as_numcodecs_both_ways(config: dict) -> None:
    ours, theirs = ours_nc.LZMA(**config), numcodecs.LZMA(**config)
    # numcodecs writes xz with a filter chain but cannot read it back (Python's lzma refuses
    # filters when decoding anything but raw streams); ours reads it.
    theirs_reads = not ("filters" in config and config.get("format", 1) != lzma.FORMAT_RAW)
    for chunk in CHUNKS:
        expected = bytes(theirs.encode(chunk))
        assert bytes(ours.encode(chunk)) == expected, len(chunk)
        assert bytes(ours.decode(expected)) == chunk
        if theirs_reads:
            assert bytes(theirs.decode(bytes(ours.encode(chunk)))) == chunk


@pytest.mark.parametrize("config", CONFIGS[:3] + CONFIGS[6:9])
def test_config_repr_and_registry(config: dict) -> None:
    ours, theirs = ours_nc.LZMA(**config), numcodecs.LZMA(**config)
    assert ours.get_config() == theirs.get_config()
    assert repr(ours) == repr(theirs)
    assert ours_nc.LZMA.from_config(json.loads(json.dumps(ours.get_config()))) == ours
    codec = Lzma(**config)
    assert get_codec(codec.to_json(2), 2) == codec
    assert get_codec(codec.to_json(3), 3) == codec


def test_json_forms_and_refusals() -> None:
    assert Lzma().to_json(2) == {
        "id": "lzma",
        "format": 1,
        "check": -1,
        "preset": None,
        "filters": None,
    }
    assert Lzma().to_json(3) == {
        "name": "numcodecs.lzma",
        "configuration": {"format": 1, "check": -1},
    }
    refused = [
        {"format": 4},
        {"check": 2},
        {"format": lzma.FORMAT_ALONE, "check": lzma.CHECK_CRC64},
        {"preset": 10},
        {"format": lzma.FORMAT_RAW},
        {"preset": 1, "filters": DELTA_LZMA2},
        {"filters": [{"id": 99}]},
    ]
    for config in refused:
        with pytest.raises(ConfigurationError):
            Lzma(**config)
    ours_nc.register()
    try:
        assert type(numcodecs.get_codec({"id": "lzma"})) is ours_nc.LZMA
    finally:
        ours_nc.unregister()
    assert type(numcodecs.get_codec({"id": "lzma"})) is numcodecs.LZMA


def test_reads_what_python_reads_and_refuses_what_it_refuses() -> None:
    one = lzma.compress(b"first ")
    for data in (one + lzma.compress(b"second"), one + b"garbage longer than a header"):
        assert bytes(Lzma().decode(data)) == lzma.decompress(data, format=lzma.FORMAT_XZ)
    for bad in (one[:-4], one + b"short", b"not xz at all, not at all"):
        with pytest.raises(lzma.LZMAError):
            lzma.decompress(bad, format=lzma.FORMAT_XZ)
        with pytest.raises(CorruptInputError):
            Lzma().decode(bad)
        with pytest.raises(lzma.LZMAError):  # numcodecs' class for it
            ours_nc.LZMA().decode(bad)
    assert (
        bytes(Lzma(format=lzma.FORMAT_AUTO).decode(lzma.compress(b"x", lzma.FORMAT_ALONE))) == b"x"
    )


def test_decoding_is_bounded_and_goes_into_caller_buffers() -> None:
    encoded = Lzma(preset=9).encode(CHUNKS[2])
    with pytest.raises(OutputSizeError):
        Lzma(max_decoded_size=199_999).decode(encoded)
    out = np.empty(200_000, np.uint8)
    assert Lzma().decode_into(encoded, out) == 200_000
    assert out.tobytes() == CHUNKS[2]
    arrays = [np.frombuffer(c, np.uint8) for c in CHUNKS]
    decoded = Lzma().decode_batch(Lzma().encode_batch(arrays))
    assert [bytes(d) for d in decoded] == CHUNKS
