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

from zarr_codec_scale_offset.migrate import Tolerance, migrate_fixedscaleoffset  # noqa: E402


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


def _float32_array(path: Path) -> None:
    """The common case: float32 data stored as int16 with a fractional offset. numcodecs
    decodes in float64, scale_offset in float32: some elements come back one ulp apart."""
    from zarr.codecs.numcodecs import FixedScaleOffset

    data = (np.random.default_rng(0).random((32, 32)) * 100 + 250).astype("<f4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        array = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=(16, 16),
            dtype="<f4",
            fill_value=273.15,
            filters=[FixedScaleOffset(offset=273.15, scale=100, dtype="<f4", astype="<i2")],
        )
        array[:] = data


def test_a_refusal_says_which_elements_by_how_much_and_why(tmp_path: Path) -> None:
    _float32_array(tmp_path)
    before = (tmp_path / "zarr.json").read_text()
    migration = migrate_fixedscaleoffset(tmp_path, dry_run=False, sample=100)
    assert not migration.safe and not migration.written
    assert (tmp_path / "zarr.json").read_text() == before
    assert not (tmp_path / "zarr.json.before-migrate").exists()
    assert len(migration.mismatches) == len(migration.differences) > 0
    first = migration.differences[0]
    assert 0 < first.differing < first.total == 256 and first.max_ulps == 1
    assert first.max_abs == pytest.approx(3.05e-5, rel=0.01)
    assert first.old != first.new
    line = migration.mismatches[0]
    assert line.startswith(f"{first.key}: {first.differing} of 256 elements differ")
    assert "1 ulp" in line and f"element {list(first.index)}" in line
    assert "float64" in migration.cause and "float32" in migration.cause
    assert "tolerance of 1ulp" in migration.cause


def test_a_stated_tolerance_accepts_the_differences_and_keeps_the_old_metadata(
    tmp_path: Path,
) -> None:
    _float32_array(tmp_path)
    before = (tmp_path / "zarr.json").read_text()
    old_values = np.asarray(zarr.open_array(zarr.storage.LocalStore(tmp_path), mode="r")[:])
    migration = migrate_fixedscaleoffset(
        tmp_path, dry_run=False, sample=100, tolerance=Tolerance.parse("1ulp")
    )
    assert migration.safe and migration.written and migration.chunks_checked == 4
    assert migration.tolerated == migration.differences != []
    assert migration.backup == tmp_path / "zarr.json.before-migrate"
    assert migration.backup.read_text() == before
    # Why they differ, and what was done: no advice to keep the old codec after replacing it.
    assert "float64" in migration.cause and "keep the old codec" not in migration.cause
    assert migration.cause.endswith("within the tolerance of 1 ulp, so the new codecs were written")
    from zarr_codec_cast_value import zarr_python as cast_zarr
    from zarr_codec_scale_offset import zarr_python as scale_zarr

    cast_zarr.register()
    scale_zarr.register()
    try:
        new_values = np.asarray(zarr.open_array(zarr.storage.LocalStore(tmp_path), mode="r")[:])
    finally:
        scale_zarr.unregister()
        cast_zarr.unregister()
    gap = np.abs(new_values.astype("f8") - old_values.astype("f8"))
    assert (gap <= np.spacing(np.abs(old_values)).astype("f8")).all()
    assert (gap > 0).any()  # the tolerance was needed


def test_a_tolerance_too_small_still_refuses(tmp_path: Path) -> None:
    _float32_array(tmp_path)
    migration = migrate_fixedscaleoffset(
        tmp_path, dry_run=False, sample=100, tolerance=Tolerance(absolute=1e-6)
    )
    assert not migration.safe and not migration.written and migration.tolerated == []
    assert migration.cause.endswith("accept them with a tolerance of 1ulp, or keep the old codec")


def test_a_dry_run_within_the_tolerance_says_the_new_codecs_can_replace_the_old(
    tmp_path: Path,
) -> None:
    _float32_array(tmp_path)
    migration = migrate_fixedscaleoffset(tmp_path, sample=100, tolerance=Tolerance(ulps=1))
    assert migration.safe and not migration.written
    assert migration.cause.endswith(
        "within the tolerance of 1 ulp, so the new codecs can replace the old"
    )


def test_tolerances_parse_and_refuse_nonsense() -> None:
    assert Tolerance.parse("1ulp") == Tolerance(ulps=1)
    assert Tolerance.parse(" 3 ulps") == Tolerance(ulps=3)
    assert Tolerance.parse("1e-4") == Tolerance(absolute=1e-4)
    assert str(Tolerance(ulps=2)) == "2 ulps" and str(Tolerance(absolute=0.5)) == "0.5"
    for text in ("", "ulp", "one ulp", "-1ulp"):
        with pytest.raises(ValueError, match="tolerance"):
            Tolerance.parse(text)
    with pytest.raises(ValueError, match="negative"):
        Tolerance(absolute=-1.0)
    with pytest.raises(ValueError, match="exactly one"):
        Tolerance(ulps=1, absolute=1.0)


def test_a_second_migration_keeps_the_first_backup(tmp_path: Path) -> None:
    _legacy_array(tmp_path, "<f8", "<i2", 1000, 10)
    first = (tmp_path / "zarr.json").read_text()
    (tmp_path / "zarr.json.before-migrate").write_text("an earlier backup")
    migration = migrate_fixedscaleoffset(tmp_path, dry_run=False)
    assert migration.backup == tmp_path / "zarr.json.before-migrate.1"
    assert migration.backup.read_text() == first
    assert (tmp_path / "zarr.json.before-migrate").read_text() == "an earlier backup"


def _foreign_implementations(name: str) -> dict[str, Any]:
    """Implementations of ``name`` that neither zarr-python nor this repository ships (test
    partners such as cast-value-rs), as zarr-python's registry holds them."""
    from zarr import registry

    registry._codec_registries[name].lazy_load()
    return {
        key: cls
        for key, cls in registry._codec_registries[name].items()
        if not key.startswith(("zarr.codecs.", "zarr_codec_"))
    }


def test_plain_zarr_python_reads_the_migrated_array_without_a_warning(tmp_path: Path) -> None:
    """With zarr-python and our packages alone (a partner's own cast_value implementation set
    aside for the test), the migrated array opens and reads with no warning at all."""
    from zarr import registry

    values = _legacy_array(tmp_path, "<f8", "<i2", 1000, 10)
    migration = migrate_fixedscaleoffset(tmp_path, dry_run=False)
    assert migration.written
    foreign = {n: _foreign_implementations(n) for n in ("cast_value", "scale_offset")}
    for name, classes in foreign.items():
        for key in classes:
            del registry._codec_registries[name][key]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            read = np.asarray(zarr.open_array(zarr.storage.LocalStore(tmp_path), mode="r")[:])
    finally:
        for name, classes in foreign.items():
            registry._codec_registries[name].update(classes)
    assert read.tobytes() == values.tobytes()


def test_a_second_implementation_is_named_with_the_way_to_choose(tmp_path: Path) -> None:
    """Where another installed package registers a second ``cast_value``, plain zarr-python
    warns; the migration says so, names both and gives the setting that picks one."""
    if not _foreign_implementations("cast_value"):
        pytest.skip("needs a second cast_value implementation (cast-value-rs)")
    _legacy_array(tmp_path, "<f8", "<i2", 1000, 10)
    migration = migrate_fixedscaleoffset(tmp_path)
    assert len(migration.notes) == 1
    note = migration.notes[0]
    assert "2 implementations of 'cast_value'" in note
    assert "zarr.codecs.cast_value.CastValue" in note and "ZARR_CODECS__CAST_VALUE" in note
