"""``migrate_fixedscaleoffset``: metadata rewritten only when sampled chunks agree."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
pytest.importorskip("zarr_codec_cast_value")

from zarr_codec_scale_offset.migrate import migrate_fixedscaleoffset  # noqa: E402


def _legacy_array(path: Path, dtype: str, astype: str, offset: Any, scale: Any) -> Any:
    from zarr.codecs.numcodecs import FixedScaleOffset

    data = np.linspace(990, 1010, 40 * 30).reshape(40, 30).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr warns that numcodecs codecs are unstable in v3
        array = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=(16, 16),
            dtype=dtype,
            filters=[FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)],
        )
        array[:] = data
        return np.asarray(zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:])


def test_dry_run_checks_and_writes_nothing(tmp_path: Path) -> None:
    _legacy_array(tmp_path, "<f8", "<i2", 1000, 10)
    before = (tmp_path / "zarr.json").read_text()
    migration = migrate_fixedscaleoffset(tmp_path)
    assert migration.safe and migration.chunks_checked == 6 and not migration.written
    assert (tmp_path / "zarr.json").read_text() == before
    names = [c["name"] if isinstance(c, dict) else c for c in migration.new_codecs]
    assert names[:2] == ["scale_offset", "cast_value"]
    assert migration.new_codecs[1]["configuration"] == {
        "data_type": "int16",
        "out_of_range": "wrap",
    }


def test_migration_rewrites_metadata_and_values_read_the_same(tmp_path: Path) -> None:
    values = _legacy_array(tmp_path, "<f8", "<i2", 1000, 10)
    chunks = {p: p.read_bytes() for p in tmp_path.rglob("c/*/*")}
    migration = migrate_fixedscaleoffset(tmp_path, dry_run=False, sample=100)
    assert migration.written and migration.chunks_checked == len(chunks)
    assert {p: p.read_bytes() for p in tmp_path.rglob("c/*/*")} == chunks  # chunks untouched
    meta = json.loads((tmp_path / "zarr.json").read_text())
    assert [c["name"] for c in meta["codecs"][:2]] == ["scale_offset", "cast_value"]
    from zarr_codec_cast_value import zarr_python as cast_zarr
    from zarr_codec_scale_offset import zarr_python as scale_zarr

    cast_zarr.register()
    scale_zarr.register()
    try:
        after = np.asarray(zarr.open_array(zarr.storage.LocalStore(tmp_path), mode="r")[:])
    finally:
        scale_zarr.unregister()
        cast_zarr.unregister()
    assert after.tobytes() == values.tobytes()


def test_a_chain_the_array_refuses_is_reported_and_nothing_written(tmp_path: Path) -> None:
    """Fill value 0 with offset 1000.1 and scale 3.3 encodes to -3300.33, which cast_value's
    int16 cannot take and give back (its fill value rule): the new chain cannot be used."""
    _legacy_array(tmp_path, "<f4", "<i2", 1000.1, 3.3)
    before = (tmp_path / "zarr.json").read_text()
    migration = migrate_fixedscaleoffset(tmp_path, dry_run=False, sample=100)
    assert not migration.safe and not migration.written
    assert len(migration.mismatches) == 1
    assert "refuse" in migration.mismatches[0] and "fill value" in migration.mismatches[0]
    assert (tmp_path / "zarr.json").read_text() == before


def test_arrays_without_the_codec_are_refused(tmp_path: Path) -> None:
    zarr.create_array(zarr.storage.LocalStore(tmp_path), shape=(4,), chunks=(2,), dtype="f8")
    with pytest.raises(ValueError, match=r"no numcodecs\.fixedscaleoffset"):
        migrate_fixedscaleoffset(tmp_path)
