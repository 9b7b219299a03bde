"""``zarr-codecs check``: a store with one damaged chunk in arrays of every codec of ours (and
a v2 array, and a sharded one whose shard's inner chunk is damaged) reports exactly those chunks
by key with their reasons, exit status 1, and nothing in the same store undamaged; a healthy
store reports none; the store is never written."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

from zarr_codecs import check_store  # noqa: E402
from zarr_codecs.cli import main  # noqa: E402

SHAPE, CHUNKS = (40, 30), (16, 16)  # 3 x 2 chunks, the last row and column partial
GZIP = {"name": "gzip", "configuration": {"level": 5}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": True}}
BLOSC = {
    "name": "blosc",
    "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4},
}
SCALE = {"name": "scale_offset", "configuration": {"offset": 0, "scale": 10}}
CAST = {"name": "cast_value", "configuration": {"data_type": "int32"}}

#: name -> create_array arguments (v3 unless zarr_format says so).
ARRAYS: dict[str, dict[str, Any]] = {
    "gzip": {"compressors": [GZIP]},
    "zstd": {"compressors": [ZSTD]},
    "blosc": {"compressors": [BLOSC]},
    "crc32c": {"compressors": [GZIP, {"name": "crc32c"}]},
    "scale_cast": {"filters": [SCALE, CAST], "compressors": [ZSTD]},
    "sharded": {"shards": (32, 32), "compressors": [GZIP]},
    "v2_zlib": {"zarr_format": 2, "compressors": numcodecs.Zlib(level=3)},
}


def _write(root: Path) -> dict[str, str]:
    """Every array written whole; the key of the chunk each will have damaged."""
    values = (np.arange(np.prod(SHAPE), dtype="float32") / 4).reshape(SHAPE)
    with warnings.catch_warnings():  # v2 arrays' numcodecs codecs lack a v3 spec
        warnings.simplefilter("ignore")
        for name, arguments in ARRAYS.items():
            array = zarr.create_array(
                root, name=name, shape=SHAPE, chunks=CHUNKS, dtype="float32", **arguments
            )
            array[...] = values
    return {name: f"{name}/{'1.0' if name.startswith('v2') else 'c/1/0'}" for name in ARRAYS}


def _damage(root: Path, key: str, sharded: bool) -> None:
    path = root / key
    data = bytearray(path.read_bytes())
    if sharded:  # the first inner chunk's bytes (its index, at the end, kept)
        offset = int.from_bytes(data[-4 * 16 - 4 : -4 * 16 - 4 + 8], "little")
        data[offset : offset + 8] = b"\xa5" * 8
    else:
        data[len(data) // 2 :] = bytes(b ^ 0x5A for b in data[len(data) // 2 :])
    path.write_bytes(bytes(data))


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_every_damaged_chunk_is_found_by_key_and_nothing_else(tmp_path: Path) -> None:
    root = tmp_path / "store.zarr"
    damaged = _write(root)
    healthy = check_store.check_store(str(root))
    assert [r.damaged for r in healthy] == [[]] * len(ARRAYS), healthy
    # 3 x 2 chunks each; the sharded array's 32 x 32 shards: 2 x 1.
    assert {r.path: r.stored for r in healthy} == {name: 6 for name in ARRAYS} | {"sharded": 2}
    for name, key in damaged.items():
        shard_key = "sharded/c/0/0" if name == "sharded" else key
        damaged[name] = shard_key
        _damage(root, shard_key, sharded=name == "sharded")
    before = _snapshot(root)

    reports = check_store.check_store(str(root), threads=2)

    found = {d.key: d.reason for r in reports for d in r.damaged}
    assert set(found) == set(damaged.values()), found
    assert all(reason.split(":")[0].endswith("Error") for reason in found.values()), found
    assert _snapshot(root) == before  # never writes


def test_the_command_reports_exits_1_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "store.zarr"
    damaged = _write(root)
    assert main(["check", "--quiet", str(root)]) == 0
    assert "0 damaged chunk(s)" in capsys.readouterr().out
    _damage(root, damaged["gzip"], sharded=False)

    assert main(["check", str(root)]) == 1
    captured = capsys.readouterr()
    assert f"  {damaged['gzip']}: CorruptInputError" in captured.out, captured.out
    assert "1 damaged chunk(s)" in captured.out
    assert "chunks read" in captured.err  # progress

    assert main(["check", "--json", "--quiet", str(root)]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert [d["key"] for r in reports for d in r["damaged"]] == [damaged["gzip"]]


def test_a_path_that_is_not_a_store_is_a_usage_error(tmp_path: Path) -> None:
    file = tmp_path / "not-a-store"
    file.write_text("x")
    assert main(["check", str(file)]) == 2
