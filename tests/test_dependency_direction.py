"""Dependencies point one way: the API packages depend on neither zarr-python, numcodecs nor
pyo3; codec wheels depend on zarr-codec-shapes at the same version."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_rust_api_crate_has_no_pyo3_in_its_tree() -> None:
    tree = subprocess.run(
        ["cargo", "tree", "-p", "zarr-codec-shapes", "--edges", "normal,build", "--prefix", "none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "zarr-codec-shapes v" in tree
    assert "pyo3" not in tree and "numpy" not in tree


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_codec_crates_have_no_pyo3_in_their_trees() -> None:
    for manifest in sorted(ROOT.glob("crates/zarr-codec-*/Cargo.toml")):
        name = tomllib.loads(manifest.read_text())["package"]["name"]
        if name == "zarr-codec-python":
            continue  # the glue is the one crate that is about Python
        # --manifest-path: zarr-codec-zarrs is a workspace of its own
        command = ["cargo", "tree", "--manifest-path", str(manifest), "-p", name]
        tree = subprocess.run(
            [*command, "--edges", "normal,build", "--prefix", "none"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "pyo3" not in tree, name


def test_python_api_package_requires_neither_zarr_nor_numcodecs() -> None:
    project = tomllib.loads((ROOT / "api/zarr-codec-shapes/pyproject.toml").read_text())["project"]
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
        assert f"zarr-codec-shapes=={version}" in deps, pyproject


def test_nothing_of_ours_installs_a_zarr_codec_module() -> None:
    """zarr-python's own ``zarr-codec`` distribution owns the import name ``zarr_codec``; two
    distributions writing one import directory break each other's installs."""
    assert importlib.util.find_spec("zarr_codec") is None
    folders = [
        *ROOT.glob("api/*/src/*"),
        *ROOT.glob("python/*/src/*"),
        *ROOT.glob("packages/*/python/*"),
    ]
    assert folders and not [f for f in folders if f.name == "zarr_codec"]
    for pyproject in sorted(ROOT.glob("packages/*/pyproject.toml")):
        module = tomllib.loads(pyproject.read_text())["tool"]["maturin"]["module-name"]
        assert module.split(".")[0] != "zarr_codec", pyproject


def _layer_of_module() -> dict[str, int]:
    """Our top-level Python modules by layer, bottom up: the API (``api/``), the wheels
    (``packages/``), the bundle and the benchmark harness (``python/``)."""
    layers = {"api": 0, "packages": 1, "python": 2}
    found: dict[str, int] = {}
    for folder, layer in layers.items():
        pattern = "*/python/*/__init__.py" if folder == "packages" else "*/src/*/__init__.py"
        for init in (ROOT / folder).glob(pattern):
            found[init.parent.name] = layer
    return found


def test_every_import_points_down_the_folders() -> None:
    """No module of a lower folder imports one of a higher folder (``api/`` < ``packages/`` <
    ``python/``): the API imports no wheel, no wheel imports the bundle."""
    import ast

    layer_of = _layer_of_module()
    assert {"zarr_codec_shapes", "zarr_codec_runtime", "zarr_codecs"} <= layer_of.keys()
    upward: list[str] = []
    for module, layer in layer_of.items():
        roots = list(ROOT.glob(f"*/*/src/{module}")) + list(ROOT.glob(f"*/*/python/{module}"))
        for source in (path for root in roots for path in root.rglob("*.py")):
            for node in ast.walk(ast.parse(source.read_text())):
                names = (
                    [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom) and node.level == 0
                    else []
                )
                for name in names:
                    top = name.split(".")[0]
                    if layer_of.get(top, -1) > layer:
                        upward.append(f"{source.relative_to(ROOT)} imports {name}")
    assert not upward, upward
