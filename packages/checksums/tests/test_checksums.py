"""The four checksum codecs against numcodecs 0.17: the same bytes both ways, the same JSON,
``repr`` and errors, and ours reading what numcodecs writes (and the other way round)."""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

import zarr_codec_checksums as ours  # noqa: E402
from zarr_codec_checksums import numcodecs as ours_nc  # noqa: E402
from zarr_codec_shapes import ConfigurationError, CorruptInputError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402

#: Chunks shaped like users' data: empty, one byte, odd and even lengths, every byte value,
#: float data with NaN, long runs of one value.
CHUNKS = [
    b"",
    b"\x00",
    b"\xff",
    b"abc",
    bytes(range(256)),
    np.array([1.5, np.nan, -np.inf, 0.0], dtype="<f8").tobytes(),
    np.linspace(-1e3, 1e3, 30_001, dtype="<f4").tobytes(),
    b"\xff" * 100_003,
    np.random.default_rng(1).integers(0, 256, 1 << 20, dtype=np.uint8).tobytes(),
]

#: (ours for numcodecs, numcodecs' own) pairs over every configuration.
PAIRS = [
    (lambda: ours_nc.CRC32(), lambda: numcodecs.CRC32()),
    (lambda: ours_nc.CRC32("end"), lambda: numcodecs.CRC32("end")),
    (lambda: ours_nc.Adler32(), lambda: numcodecs.Adler32()),
    (lambda: ours_nc.Adler32("end"), lambda: numcodecs.Adler32("end")),
    (lambda: ours_nc.Fletcher32(), lambda: numcodecs.Fletcher32()),
    (lambda: ours_nc.JenkinsLookup3(), lambda: numcodecs.JenkinsLookup3()),
    (lambda: ours_nc.JenkinsLookup3(7), lambda: numcodecs.JenkinsLookup3(7)),
    (
        lambda: ours_nc.JenkinsLookup3(2**32 - 1, b"zarr"),
        lambda: numcodecs.JenkinsLookup3(2**32 - 1, b"zarr"),
    ),
]
IDS = [
    "crc32",
    "crc32-end",
    "adler32",
    "adler32-end",
    "fletcher32",
    "jenkins",
    "jenkins-7",
    "jenkins-prefix",
]


@pytest.mark.parametrize(("make_ours", "make_theirs"), PAIRS, ids=IDS)
def test_same_bytes_as_numcodecs_both_ways(make_ours: Any, make_theirs: Any) -> None:
    mine, theirs = make_ours(), make_theirs()
    for chunk in CHUNKS:
        if not chunk and isinstance(theirs, numcodecs.Fletcher32 | numcodecs.JenkinsLookup3):
            continue  # numcodecs' Cython codecs fail on an empty buffer; ours take it
        expected = bytes(theirs.encode(chunk))
        assert bytes(mine.encode(chunk)) == expected, len(chunk)
        assert bytes(mine.decode(expected)) == chunk
        assert bytes(theirs.decode(bytes(mine.encode(chunk)))) == chunk


@pytest.mark.parametrize(("make_ours", "make_theirs"), PAIRS, ids=IDS)
def test_config_and_repr_match_numcodecs(make_ours: Any, make_theirs: Any) -> None:
    mine, theirs = make_ours(), make_theirs()
    config = theirs.get_config()
    if isinstance(config.get("prefix"), np.ndarray):
        config["prefix"] = config["prefix"].tolist()  # numcodecs' own is not JSON
    else:
        assert repr(mine) == repr(theirs)
    assert mine.get_config() == config
    assert json.loads(json.dumps(mine.get_config())) == config
    again = (
        numcodecs.get_codec(dict(config))
        if "prefix" not in config or not config["prefix"]
        else None
    )
    if again is not None:
        assert again.get_config() == theirs.get_config()
    assert type(mine).from_config(dict(config)) == mine


def test_bare_checksums_match_zlib_and_numcodecs() -> None:
    from numcodecs.jenkins import jenkins_lookup3 as theirs_jenkins

    def theirs_fletcher(data: np.ndarray) -> int:  # numcodecs keeps the bare sum in Cython
        return int.from_bytes(bytes(numcodecs.Fletcher32().encode(data))[-4:], "little")

    for chunk in CHUNKS:
        assert ours.crc32(chunk) == zlib.crc32(chunk)
        assert ours.adler32(chunk) == zlib.adler32(chunk)
        if chunk:
            data = np.frombuffer(chunk, dtype=np.uint8)
            assert ours.fletcher32(chunk) == theirs_fletcher(data)
            assert ours.jenkins_lookup3(chunk, 3) == theirs_jenkins(data, 3)


@pytest.mark.parametrize(("make_ours", "make_theirs"), PAIRS, ids=IDS)
def test_damage_raises_what_numcodecs_raises(make_ours: Any, make_theirs: Any) -> None:
    mine = make_ours()
    encoded = bytes(mine.encode(b"zarr chunk bytes"))
    for i in range(len(encoded)):
        damaged = bytearray(encoded)
        damaged[i] ^= 0x01
        with pytest.raises(RuntimeError) as caught:  # numcodecs' class for a mismatch
            mine.decode(bytes(damaged))
        assert isinstance(caught.value, CorruptInputError)
        assert "checksum mismatch" in str(caught.value)
    for short in (b"", b"ab", b"abc"):
        with pytest.raises(ValueError, match="cannot hold a 4-byte checksum"):
            mine.decode(short)


def test_decode_into_a_caller_buffer() -> None:
    data = np.arange(1000, dtype="<u4")
    for codec in (
        ours.Crc32(),
        ours.Adler32(location="end"),
        ours.Fletcher32(),
        ours.JenkinsLookup3(initval=9),
    ):
        out = np.empty_like(data)
        assert codec.decode_into(codec.encode(data), out) == data.nbytes
        np.testing.assert_array_equal(out, data)


def test_api_json_both_formats_and_the_registry() -> None:
    crc = ours.Crc32(location="end")
    assert crc.to_json(3) == {"name": "numcodecs.crc32", "configuration": {"location": "end"}}
    assert crc.to_json(2) == {"id": "crc32", "location": "end"}
    assert ours.Crc32().to_json(2) == {"id": "crc32"}
    jenkins = ours.JenkinsLookup3(initval=5, prefix=b"\x01\x02")
    assert jenkins.to_json(2) == {"id": "jenkins_lookup3", "initval": 5, "prefix": [1, 2]}
    assert ours.JenkinsLookup3().to_json(2) == {
        "id": "jenkins_lookup3",
        "initval": 0,
        "prefix": None,
    }
    assert ours.JenkinsLookup3().to_json(3) == {
        "name": "numcodecs.jenkins_lookup3",
        "configuration": {},
    }
    for codec in (crc, ours.Adler32(), ours.Fletcher32(), jenkins):
        assert get_codec(codec.to_json(3), 3) == codec
        assert get_codec(codec.to_json(2), 2) == codec
        assert type(codec).from_json(codec.to_json(3), 3) == codec
    with pytest.raises(ConfigurationError):
        ours.Crc32(location="middle")  # type: ignore[arg-type]
    for bad in (-1, 2**32, "5"):
        with pytest.raises(ConfigurationError):
            ours.JenkinsLookup3(initval=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        ours_nc.CRC32("middle")  # type: ignore[arg-type]


def test_numcodecs_uses_ours_after_register() -> None:
    ours_nc.register()
    try:
        for config in (
            {"id": "crc32"},
            {"id": "adler32", "location": "end"},
            {"id": "fletcher32"},
            {"id": "jenkins_lookup3", "initval": 1},
        ):
            assert type(numcodecs.get_codec(config)).__module__ == ours_nc.__name__
    finally:
        ours_nc.unregister()
    assert type(numcodecs.get_codec({"id": "crc32"})).__module__.startswith("numcodecs")
