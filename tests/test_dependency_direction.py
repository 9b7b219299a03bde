"""Dependencies point one way: the API packages depend on neither zarr-python, numcodecs nor
pyo3; codec wheels depend on zarr-codec at the same version."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_rust_api_crate_has_no_pyo3_in_its_tree() -> None:
    tree = subprocess.run(
        ["cargo", "tree", "-p", "zarr-codec", "--edges", "normal,build", "--prefix", "none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "zarr-codec v" in tree
    assert "pyo3" not in tree and "numpy" not in tree


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_codec_crates_have_no_pyo3_in_their_trees() -> None:
    for manifest in sorted(ROOT.glob("crates/zarr-codec-*/Cargo.toml")):
        name = tomllib.loads(manifest.read_text())["package"]["name"]
        if name == "zarr-codec-python":
            continue  # the glue is the one crate that is about Python
        tree = subprocess.run(
            ["cargo", "tree", "-p", name, "--edges", "normal,build", "--prefix", "none"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "pyo3" not in tree, name


def test_python_api_package_requires_neither_zarr_nor_numcodecs() -> None:
    project = tomllib.loads((ROOT / "python/zarr-codec/pyproject.toml").read_text())["project"]
    names = [
        dep.split(">")[0].split("=")[0].split("<")[0].strip() for dep in project["dependencies"]
    ]
    assert "zarr" not in names and "numcodecs" not in names


def test_every_wheel_pins_zarr_codec_at_the_workspace_version() -> None:
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    wheels = sorted(ROOT.glob("packages/*/pyproject.toml"))
    assert wheels
    for pyproject in wheels:
        deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
        assert f"zarr-codec=={version}" in deps, pyproject
