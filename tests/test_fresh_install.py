"""``pip install`` of the bundle into a fresh virtual environment, then the ``zarr-codecs``
commands as the README shows them, each run in a subprocess as a user would.

The wheels are built from this checkout: the compiled ones with maturin in the optimised
``wheel`` profile (what the development environment already compiled, so this is mostly
packaging), the pure-Python ones with ``uv build``. pip then installs the bundle's wheel with
``--find-links`` for ours and the index for zarr-python and numpy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(
    *command: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, check=False, env=env, cwd=cwd
    )


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN))
    assert path is not None, f"{name} is a dev dependency and should be in {BIN}"
    return path


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    for project in ("api/zarr-codec-shapes", "python/zarr-codecs"):
        proc = _run(_tool("uv"), "build", "--wheel", "--out-dir", out, ROOT / project)
        assert proc.returncode == 0, proc.stderr
    listed = _run(sys.executable, ROOT / "scripts" / "list-wheels")
    for package in json.loads(listed.stdout):
        manifest = ROOT / "packages" / package / "Cargo.toml"
        proc = _run(_tool("maturin"), "build", "--profile", "wheel", "-m", manifest, "--out", out)
        assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    assert _run(sys.executable, "-m", "venv", root).returncode == 0
    bundle = next(wheels.glob("zarr_codecs-*.whl"))
    proc = _run(
        root / "bin" / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--find-links",
        wheels,
        f"{bundle}[zarr]",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root


def _cli(venv: Path, *args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    return _run(venv / "bin" / "zarr-codecs", *args, env=environ | env, cwd=venv)


def test_the_bundle_wheel_ships_the_startup_hook(wheels: Path) -> None:
    bundle = next(wheels.glob("zarr_codecs-*.whl"))
    names = zipfile.ZipFile(bundle).namelist()
    assert "zarr_codecs-autoinstall.pth" in names
    assert "zarr_codecs/cli.py" in names
    # The benchmark harness is the development package zarr-codecs-bench, not in the bundle.
    assert not [n for n in names if n.startswith(("zarr_codecs/bench/", "zarr_codecs_bench/"))]


def test_every_wheel_is_installed_at_one_version(venv: Path) -> None:
    proc = _run(venv / "bin" / "python", "-m", "pip", "list", "--format", "json")
    versions = {p["name"]: p["version"] for p in json.loads(proc.stdout)}
    ours = {name: v for name, v in versions.items() if name.startswith("zarr-codec")}
    # The API, the bundle, and every codec wheel under packages/ (each one the bundle needs).
    wheels = {
        tomllib.loads(p.read_text())["project"]["name"]
        for p in (ROOT / "packages").glob("*/pyproject.toml")
    }
    assert set(ours) == {"zarr-codec-shapes", "zarr-codecs", *wheels}
    assert {"zarr-codec-gzip", "zarr-codec-runtime", "zarr-codec-checksums"} <= wheels
    assert set(ours.values()) == {"0.1.0"}
    assert "zarr" in versions


def test_help_and_info(venv: Path) -> None:
    proc = _cli(venv, "--help")
    assert proc.returncode == 0 and "inspect" in proc.stdout
    assert "bench" not in proc.stdout
    proc = _cli(venv, "info")
    assert proc.returncode == 0, proc.stderr
    assert "zarr-codec-blosc 0.1.0" in proc.stdout and "zarr's own" in proc.stdout


def test_doctor_sees_the_wheels_and_their_kernels(venv: Path) -> None:
    proc = _cli(venv, "doctor", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["healthy"] is True
    by_name = {d["distribution"]: d for d in report["distributions"]}
    runtime = by_name["zarr-codec-runtime"]
    # Installed from a wheel file (not an editable build), tagged for this platform.
    assert runtime["source"] in {"wheel", "wheel from a file or URL"}, runtime
    assert runtime["fits"] is True and runtime["tags"][0].startswith("cp312-abi3-")
    from zarr_codecs import doctor

    # Every codec the doctor probes (one per codec the bundle installs: tests/test_doctor.py).
    assert [c["name"] for c in report["codecs"]] == [c.name for c in doctor.CHECKS]
    assert {"gzip", "cast_value", "lz4", "lzma", "shuffle", "fletcher32"} <= {
        c["name"] for c in report["codecs"]
    }
    assert all(c["compiled"] and c["exact"] for c in report["codecs"])


def test_demo_then_inspect_then_migrate(venv: Path, tmp_path: Path) -> None:
    store = tmp_path / "demo"
    proc = _cli(venv, "demo", "--out", store, "--repeats", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAILED" not in proc.stdout and " ok" in proc.stdout
    proc = _cli(venv, "inspect", store)
    assert proc.returncode == 0, proc.stdout
    assert "0 with problems" in proc.stdout
    proc = _cli(venv, "migrate", store)
    assert proc.returncode == 0 and "nothing to migrate" in proc.stdout
    proc = _cli(venv, "inspect", tmp_path / "nowhere")
    assert proc.returncode == 2 and "no such directory" in proc.stderr


def test_the_bundle_has_no_bench(venv: Path) -> None:
    proc = _cli(venv, "bench", "--list")
    assert proc.returncode == 2 and "invalid choice: 'bench'" in proc.stderr
    code = (
        "import importlib.util as iu\n"
        "assert iu.find_spec('zarr_codecs_bench') is None\n"
        "assert iu.find_spec('zarr_codecs.bench') is None\n"
    )
    proc = _run(venv / "bin" / "python", "-c", code, cwd=venv)
    assert proc.returncode == 0, proc.stderr


def test_the_environment_variable_works_from_an_installed_wheel(venv: Path) -> None:
    code = (
        "import zarr\n"
        "from zarr.registry import get_codec_class\n"
        "print(get_codec_class('blosc').__module__)\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "ZARR_CODECS_INSTALL"}
    for value, expected in (("1", "zarr_codec_blosc.zarr_python"), ("0", "zarr.codecs.blosc")):
        proc = _run(
            venv / "bin" / "python", "-c", code, env=environ | {"ZARR_CODECS_INSTALL": value}
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == expected


def test_one_codec_wheel_installs_and_works_alone(
    wheels: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A codec wheel needs only zarr-codec-shapes and numpy: no zarr-python, no numcodecs, no
    other codec, and nothing of ours installs a ``zarr_codec`` module (zarr-python's name)."""
    root = tmp_path_factory.mktemp("alone")
    assert _run(sys.executable, "-m", "venv", root).returncode == 0
    python = root / "bin" / "python"
    proc = _run(
        python, "-m", "pip", "install", "--quiet", "--find-links", wheels, "zarr-codec-gzip"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code = (
        "import importlib.metadata as md, importlib.util as iu\n"
        "from zarr_codec_gzip import Gzip\n"
        "from zarr_codec_shapes import get_codec\n"
        "codec = get_codec({'name': 'gzip', 'configuration': {'level': 5}})\n"
        "assert codec == Gzip(5) and codec.decode(codec.encode(b'x' * 1000)) == b'x' * 1000\n"
        "assert all(iu.find_spec(m) is None for m in ('zarr', 'numcodecs', 'zarr_codec'))\n"
        "names = {d.metadata['Name'] for d in md.distributions()} - {'pip', 'setuptools'}\n"
        "print(sorted(names))\n"
    )
    proc = _run(python, "-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['numpy', 'zarr-codec-gzip', 'zarr-codec-shapes']"
