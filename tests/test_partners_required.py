"""The root ``conftest.py``: with ``ZARR_CODECS_PARTNERS=required`` a test partner that cannot
be imported fails its tests (a module's, or one test's) instead of skipping them; GPU packages
may still skip; without the variable, skips stay skips."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SUITE = """
import pytest

def test_one_test_skips() -> None:
    pytest.importorskip("no_such_partner_in_a_test")

def test_gpu_only() -> None:
    pytest.importorskip("cupy_backends.no_such_gpu_module")

def test_runs() -> None:
    assert True
"""

MODULE_SKIP = """
import pytest

pytest.importorskip("no_such_partner_for_a_module")

def test_never_runs() -> None:
    raise AssertionError
"""


def _pytest(tmp_path: Path, required: bool) -> subprocess.CompletedProcess[str]:
    """The two files above run by pytest under the repository's ``conftest.py``."""
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "conftest.py", suite / "conftest.py")
    (suite / "test_partner_in_a_test.py").write_text(SUITE)
    (suite / "test_partner_of_a_module.py").write_text(MODULE_SKIP)
    env = {k: v for k, v in os.environ.items() if k != "ZARR_CODECS_PARTNERS"}
    if required:
        env["ZARR_CODECS_PARTNERS"] = "required"
    command = [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", str(suite)]
    command += ["--rootdir", str(suite), "-c", os.devnull, "--continue-on-collection-errors"]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=suite)


def test_a_missing_partner_fails_where_partners_are_required(tmp_path: Path) -> None:
    run = _pytest(tmp_path, required=True)
    assert run.returncode == 1, run.stdout
    assert "FAILED" in run.stdout and "test_one_test_skips" in run.stdout, run.stdout
    assert "test partner 'no_such_partner_in_a_test' could not be imported" in run.stdout
    assert "test partner 'no_such_partner_for_a_module' could not be imported" in run.stdout
    assert "SKIPPED" in run.stdout and "cupy_backends" in run.stdout  # GPU: still a skip
    assert "1 passed" in run.stdout, run.stdout


def test_without_the_variable_a_missing_partner_is_a_skip(tmp_path: Path) -> None:
    run = _pytest(tmp_path, required=False)
    assert run.returncode == 0, run.stdout
    assert "1 passed, 3 skipped" in run.stdout, run.stdout
