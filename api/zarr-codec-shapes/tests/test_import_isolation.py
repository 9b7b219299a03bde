"""zarr_codec_shapes sits upstream of zarr-python and numcodecs: every one of its modules
imports where neither can be imported, and importing them imports neither."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import zarr_codec_shapes

#: The only modules that may use zarr or numcodecs, and only when their functions are called.
ADAPTERS = {"zarr_codec_shapes.zarr_python", "zarr_codec_shapes.numcodecs"}

_BLOCKED_RUN = """
import importlib, json, sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("zarr", "numcodecs"):
            raise ImportError(f"{name} is blocked in this test")
        return None

sys.meta_path.insert(0, Blocked())
failed = {}
for module in sys.argv[1:]:
    try:
        importlib.import_module(module)
    except Exception as err:
        failed[module] = f"{type(err).__name__}: {err}"
leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("zarr", "numcodecs"))
print(json.dumps({"failed": failed, "leaked": leaked}))
"""


def _modules() -> list[str]:
    found = pkgutil.walk_packages(zarr_codec_shapes.__path__, prefix="zarr_codec_shapes.")
    return ["zarr_codec_shapes", *sorted(m.name for m in found)]


def test_every_module_imports_without_zarr_and_numcodecs() -> None:
    modules = _modules()
    assert set(modules) >= ADAPTERS and "zarr_codec_shapes.v1" in modules
    proc = subprocess.run(
        [sys.executable, "-c", _BLOCKED_RUN, *modules],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(proc.stdout)
    assert report == {"failed": {}, "leaked": []}, report


def test_the_blocker_really_blocks() -> None:
    """The check above is not vacuous: a module that imports zarr fails under it."""
    proc = subprocess.run(
        [sys.executable, "-c", _BLOCKED_RUN, "zarr", "numcodecs.gzip"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert sorted(json.loads(proc.stdout)["failed"]) == ["numcodecs.gzip", "zarr"]
