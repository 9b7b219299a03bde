"""The ``zarr-codecs`` command, run in process (``main``) and once as the installed script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr
import zarr_codecs
from zarr_codecs import cli, demo, info


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def _clean() -> Any:
    zarr_codecs.uninstall()
    yield
    zarr_codecs.uninstall()


def test_help_lists_every_command_and_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("info", "inspect", "migrate", "repair-order", "repair-complex", "demo"):
        assert command in out
    assert "bench" not in out  # the benchmarks are a development package: zarr-codecs-bench
    assert "exit status" in out and "ZARR_CODECS_INSTALL" in out


def test_no_command_or_a_bad_one_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["frobnicate"], ["bench"], ["demo", "--size", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            cli.main(argv)
        assert exit_info.value.code == 2, argv
        assert "usage: zarr-codecs" in capsys.readouterr().err


def test_info_names_versions_engines_and_registrations(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "info")
    assert status == 0
    assert "zarr-codec-gzip 0.1.0" in out and "libdeflate" in out and "c-blosc 1." in out
    assert "zarr.codecs.gzip.GzipCodec (zarr's own)" in out
    assert "installed into: nothing" in out
    coverage = next(line for line in out.splitlines() if line.startswith("numcodecs ids"))
    missing = coverage.partition("not yet: ")[2]
    for codec_id in ("gzip", "lz4", "delta", "bitround", "quantize", "astype", "packbits"):
        assert codec_id not in missing.split(", "), coverage
    assert all(row.engine != "?" for row in info.collect()), "a wheel without its engine named"
    zarr_codecs.install()
    status, out, _ = run(capsys, "info", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) == {b.name for b in zarr_codecs.BINDINGS}
    assert rows["gzip"]["zarr_v3"] == "zarr_codec_gzip.zarr_python.GzipCodec (ours)"
    assert rows["blosc"]["numcodecs_v2"] == "zarr_codec_blosc.numcodecs.Blosc (ours)"
    assert rows["cast_value"]["numcodecs_v2"].startswith("-")


def _v3_store(root: Path) -> Path:
    data = np.arange(1200, dtype="float32").reshape(30, 40) / 7
    with zarr_codecs.install():
        group = zarr.open_group(str(root), mode="w")
        good = group.create_array(
            "good",
            shape=data.shape,
            chunks=(16, 16),
            dtype="float32",
            fill_value=0,
            filters=[
                {"name": "scale_offset", "configuration": {"offset": 1, "scale": 10}},
                {"name": "cast_value", "configuration": {"data_type": "int16"}},
            ],
            compressors=[
                {
                    "name": "blosc",
                    "configuration": {
                        "cname": "lz4",
                        "clevel": 5,
                        "shuffle": "shuffle",
                        "typesize": 2,
                        "blocksize": 0,
                    },
                }
            ],
        )
        good[...] = data
        group.create_array("sub/plain", shape=(8,), chunks=(4,), dtype="uint8", compressors=None)[
            ...
        ] = 1
    return root


def test_inspect_reports_every_array_and_its_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _v3_store(tmp_path / "store.zarr")
    status, out, _ = run(capsys, "inspect", str(root))
    assert status == 0, out
    assert "good  (Zarr v3, float32, shape (30, 40), chunks (16, 16))" in out
    assert "(float32 -> float32)" in out  # scale_offset
    assert "(float32 -> int16)" in out  # cast_value
    assert "sub/plain  (Zarr v3, uint8" in out
    assert "2 array(s), 0 with problems" in out


def test_inspect_finds_problems_against_the_specs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _v3_store(tmp_path / "store.zarr")
    meta_file = root / "good" / "zarr.json"
    meta = json.loads(meta_file.read_text())
    # NaN has no int16 form and no scalar_map entry, and cast_value's spec says the fill value
    # must survive the cast. And gzip levels stop at 9.
    meta["fill_value"] = "NaN"
    meta["codecs"].append({"name": "gzip", "configuration": {"level": 12}})
    meta["codecs"].insert(0, meta["codecs"].pop(2))  # bytes first: the order is wrong too
    meta_file.write_text(json.dumps(meta))
    status, out, _ = run(capsys, "inspect", str(root))
    assert status == 1, out
    assert "problem: codec 2 (cast_value)" in out  # the fill value NaN cannot be int16
    assert "problem: codec 4 (gzip)" in out
    assert "a array_array codec cannot come here" in out
    assert "1 with problems" in out


def test_inspect_reads_zarr_v2_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    array = zarr.create_array(
        store=str(tmp_path / "v2.zarr"),
        shape=(10,),
        chunks=(5,),
        dtype="float64",
        zarr_format=2,
        filters=[numcodecs.FixedScaleOffset(offset=0, scale=10, dtype="<f8")],
        compressors=_Reversed(),
    )
    array[...] = 1.5
    status, out, _ = run(capsys, "inspect", str(tmp_path / "v2.zarr"))
    assert status == 0, out
    assert "(Zarr v2, <f8" in out
    assert '[ok] {"id":"fixedscaleoffset"' in out
    # No zarr-codec-shapes implementation: listed, not checked.
    assert f'[--] {{"id":"{_Reversed.codec_id}"' in out


class _Reversed(numcodecs.abc.Codec):  # type: ignore[misc]
    """A numcodecs codec no package of ours implements: the bytes in reverse order."""

    codec_id = "zarr-codecs-test-reversed"

    def encode(self, buf: Any) -> bytes:
        return bytes(numcodecs.compat.ensure_bytes(buf))[::-1]

    def decode(self, buf: Any, out: Any = None) -> Any:
        return numcodecs.compat.ndarray_copy(self.encode(buf), out)


numcodecs.register_codec(_Reversed)


def test_inspect_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "inspect", str(tmp_path / "missing"))
    assert status == 2 and "no such directory" in err
    status, _, err = run(capsys, "inspect", str(tmp_path))
    assert status == 2 and "no Zarr arrays found" in err
    (tmp_path / "a-file").write_text("x")
    status, _, err = run(capsys, "inspect", str(tmp_path / "a-file"))
    assert status == 2 and "a file, not a Zarr store" in err


def test_inspect_names_a_truncated_array_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cut-short ``zarr.json`` is reported as a Zarr v3 array whose metadata cannot be read
    (exit status 1), not as "Zarr v0"."""
    zarr.create_array(tmp_path / "s", shape=(4,), chunks=(2,), dtype="uint8")
    document = tmp_path / "s" / "zarr.json"
    document.write_bytes(document.read_bytes()[:40])
    status, out, _ = run(capsys, "inspect", str(tmp_path / "s"))
    assert status == 1, out
    assert "(Zarr v3, unknown" in out and "zarr.json: unreadable" in out, out
    assert "v0" not in out


def test_inspect_names_a_root_array_slash_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An array at the store's root is ``/`` in ``inspect`` as in ``check`` (it was ``.``),
    for Zarr v3 and v2, and when its metadata cannot be read."""
    for zarr_format in (3, 2):
        root = tmp_path / f"v{zarr_format}.zarr"
        zarr.create_array(
            str(root), shape=(4,), chunks=(2,), dtype="uint8", zarr_format=zarr_format
        )[...] = 1
        status, out, _ = run(capsys, "inspect", str(root))
        assert status == 0, out
        assert out.startswith(f"/  (Zarr v{zarr_format}, "), out
        status, out, _ = run(capsys, "check", str(root))
        assert status == 0, out
        assert out.startswith(f"/ (Zarr v{zarr_format}): "), out
    document = tmp_path / "v3.zarr" / "zarr.json"
    document.write_bytes(document.read_bytes()[:40])
    status, out, _ = run(capsys, "inspect", str(tmp_path / "v3.zarr"))
    assert status == 1 and out.startswith("/  (Zarr v3, unknown"), out


def _legacy_store(root: Path) -> Path:
    data = np.linspace(-3, 3, 600).reshape(20, 30)
    array = zarr.create_array(
        store=str(root / "legacy"),
        shape=data.shape,
        chunks=(8, 8),
        dtype="float64",
        filters=[zarr.codecs.numcodecs.FixedScaleOffset(offset=0, scale=100, dtype="<f8")],
        compressors=None,
    )
    array[...] = data
    return root


def test_migrate_is_a_dry_run_until_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _legacy_store(tmp_path / "store")
    meta_file = root / "legacy" / "zarr.json"
    before = meta_file.read_text()
    status, out, _ = run(capsys, "migrate", str(root))
    assert status == 0, out
    assert "safe (dry run)" in out and "run again with --write" in out
    assert meta_file.read_text() == before
    status, out, _ = run(capsys, "migrate", str(root), "--write", "--sample", "3")
    assert status == 0 and "written, 3 chunk(s) compared" in out
    names = [c["name"] for c in json.loads(meta_file.read_text())["codecs"]]
    assert names[:2] == ["scale_offset", "cast_value"]
    status, out, _ = run(capsys, "migrate", str(root))
    assert status == 0 and "nothing to migrate" in out


def test_migrate_gives_reasons_takes_a_tolerance_and_keeps_the_old_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: float32 through fixedscaleoffset to int16 differs by one ulp in some
    elements. The refusal says where, by how much and why; ``--tolerance 1ulp`` accepts it and
    the old metadata stays beside the new."""
    data = (np.random.default_rng(1).random((32, 32)) * 100 + 250).astype("<f4")
    array = zarr.create_array(
        store=str(tmp_path / "f32"),
        shape=data.shape,
        chunks=(16, 16),
        dtype="<f4",
        fill_value=273.15,
        filters=[
            zarr.codecs.numcodecs.FixedScaleOffset(
                offset=273.15, scale=100, dtype="<f4", astype="<i2"
            )
        ],
    )
    array[...] = data
    meta_file = tmp_path / "f32" / "zarr.json"
    before = meta_file.read_text()
    status, out, _ = run(capsys, "migrate", str(tmp_path), "--write")
    assert status == 1 and "NOT safe" in out, out
    assert "elements differ, by at most 3.05e-05 (1 ulp)" in out
    assert "why: float arithmetic: numcodecs decodes in float64" in out
    assert meta_file.read_text() == before
    status, out, _ = run(capsys, "migrate", str(tmp_path), "--write", "--tolerance", "1ulp")
    assert status == 0 and "written" in out and "within 1 ulp: c/" in out, out
    # The reason says what was done, not to keep the old codec.
    assert "keep the old codec" not in out, out
    assert "within the tolerance of 1 ulp, so the new codecs were written" in out, out
    assert "old metadata kept in zarr.json.before-migrate" in out
    assert (tmp_path / "f32" / "zarr.json.before-migrate").read_text() == before
    status, _, err = run(capsys, "migrate", str(tmp_path), "--tolerance", "some")
    assert status == 2 and "tolerance 'some'" in err


def test_migrate_reports_v2_arrays_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numcodecs

    array = zarr.create_array(
        store=str(tmp_path / "v2"),
        shape=(20,),
        chunks=(10,),
        dtype="<f8",
        zarr_format=2,
        filters=[numcodecs.FixedScaleOffset(offset=0, scale=10, dtype="<f8", astype="<i2")],
    )
    array[...] = np.arange(20) / 10
    before = (tmp_path / "v2" / ".zarray").read_text()
    status, out, _ = run(capsys, "migrate", str(tmp_path), "--write")
    assert status == 1, out
    assert "v2: NOT safe" in out and "refused: a Zarr v2 array" in out
    assert "Convert the array to Zarr v3 first" in out
    assert (tmp_path / "v2" / ".zarray").read_text() == before


def test_demo_writes_checks_and_compares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "demo", "--out", str(tmp_path / "demo"), "--repeats", "1")
    assert status == 0, out
    assert out.count(" ok") >= len(demo.CHAINS)
    assert "FAILED" not in out
    assert (tmp_path / "demo" / "blosc.zarr" / "zarr.json").is_file()
    assert zarr_codecs.installed_parts() == frozenset()  # the demo leaves nothing installed
    with demo.zarr_python_own_codecs():  # zarr-python's own codecs read ours
        reread = zarr.open_array(str(tmp_path / "demo" / "gzip.zarr"), mode="r")[...]
    np.testing.assert_allclose(reread, demo.sample(), atol=demo.TOLERANCE)


def test_demo_times_ours_with_our_pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's "ours" is our codecs and our pipeline, as its header says (it once
    timed our codecs through zarr-python's pipeline)."""
    from zarr_codecs.pipeline import PATH

    seen: list[str] = []
    original = demo._write

    def write(path: Path, data: Any, chain: str) -> None:
        seen.append(zarr.config.get("codec_pipeline.path"))
        original(path, data, chain)

    monkeypatch.setattr(demo, "_write", write)
    demo.run_demo(tmp_path, repeats=1, shape=(90, 180))
    # Per chain: ours (untimed, then timed), then zarr-python's own (untimed, then timed).
    assert seen[:2] == [PATH, PATH]
    assert PATH not in seen[2:4]


@pytest.mark.parametrize("pipeline", [False, True])
def test_demo_compares_with_zarr_pythons_own_codecs_even_when_ours_are_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pipeline: bool
) -> None:
    """Installed beforehand (as ``ZARR_CODECS_INSTALL`` does), ours are undone for zarr's
    runs, which the header calls zarr-python's own codecs and pipeline, and put back after
    (they once ran ours there too, and with ``=pipeline`` warned that cast_value had no
    configured implementation)."""
    import warnings

    from zarr_codecs.pipeline import PATH

    seen: list[tuple[str, frozenset[str], str, type[Any]]] = []
    original = demo._write

    def write(path: Path, data: Any, chain: str) -> None:
        from zarr.registry import get_codec_class

        cast_value = get_codec_class("cast_value")
        seen.append((path.name, zarr_codecs.installed_parts(), _pipeline_path(), cast_value))
        original(path, data, chain)

    def _pipeline_path() -> str:
        return str(zarr.config.get("codec_pipeline.path"))

    monkeypatch.setattr(demo, "_write", write)
    zarr_codecs.install(pipeline=pipeline)
    before = zarr_codecs.installed_parts()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        demo.run_demo(tmp_path, repeats=1, shape=(90, 180))
    assert zarr_codecs.installed_parts() == before
    assert (_pipeline_path() == PATH) is pipeline
    theirs = [row for row in seen if "zarr-python" in row[0]]
    assert len(theirs) == 2 * len(demo.CHAINS), seen
    from zarr.codecs.cast_value import CastValue

    for _, parts, path, cast_value in theirs:
        assert parts == frozenset() and path != PATH and cast_value is CastValue, seen


def test_demo_sample_is_deterministic_and_realistic() -> None:
    a, b = demo.sample((90, 180)), demo.sample((90, 180))
    assert a.dtype == np.float32 and a.tobytes() == b.tobytes()
    land = np.isnan(a).mean()
    assert 0.1 < land < 0.6
    assert np.nanmin(a) >= -1.8 and np.nanmax(a) < 35


def test_the_installed_script_runs() -> None:
    script = shutil.which("zarr-codecs", path=str(Path(sys.executable).parent))
    assert script is not None
    proc = subprocess.run([script, "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "zarr-codecs 0.1.0"
