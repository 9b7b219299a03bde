"""The ``zarr-codecs-bench`` command (formerly ``zarr-codecs bench``), run in process (``main``)
and once as the installed script."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from zarr_codecs_bench import run

QUICK = ["--size", "0.01", "--repeats", "1", "--min-time", "0", "--datasets", "uint8_image"]


def test_runs_with_progress_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "bench.png"
    status = run.main([*QUICK, "--codecs", "zlib", "--plot", str(plot)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "| uint8_image | encode | gzip level=1 | zlib |" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "[1/1] done" in err  # progress on a non-terminal: one line per dataset


def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--codecs", "nope"], ["--size", "0"], ["frobnicate"]):
        with pytest.raises(SystemExit) as exit_info:
            run.main(argv)
        assert exit_info.value.code == 2, argv
        assert "usage: zarr-codecs-bench" in capsys.readouterr().err


def test_plot_without_matplotlib_is_refused_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    status = run.main([*QUICK, "--codecs", "zlib", "--plot", str(tmp_path / "x.png")])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert "zarr-codecs-bench: error: --plot needs matplotlib" in err


def test_the_installed_script_runs() -> None:
    script = shutil.which("zarr-codecs-bench", path=str(Path(sys.executable).parent))
    assert script is not None
    proc = subprocess.run([script, "--list"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "dataset  uint8_image" in proc.stdout and "provider zlib" in proc.stdout
