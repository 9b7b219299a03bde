"""zarr_codecs.install()/uninstall(): our codecs in zarr-python (v3) and numcodecs (v2), and
everything exactly as it was afterwards; the environment variable; nothing without asking."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr
import zarr_codecs
from numcodecs.registry import codec_registry
from zarr.registry import _codec_registries, get_codec_class

V2_IDS = {"gzip", "blosc", "fixedscaleoffset"}


def _state() -> tuple[Any, ...]:
    """Everything install() may touch: zarr's codec config and registries, numcodecs' registry."""
    for name in _codec_registries:
        _codec_registries[name].lazy_load()
    registries = {name: dict(registry) for name, registry in _codec_registries.items()}
    return copy.deepcopy(zarr.config.get("codecs")), registries, dict(codec_registry)


@pytest.fixture(autouse=True)
def _clean() -> Any:
    zarr_codecs.uninstall()
    yield
    zarr_codecs.uninstall()


def _ours(cls: type) -> bool:
    return cls.__module__.startswith("zarr_codec")


def test_install_selects_ours_for_every_name_and_id() -> None:
    installation = zarr_codecs.install()
    assert installation.added == {"zarr", "numcodecs"} == zarr_codecs.installed_parts()
    for binding in zarr_codecs.BINDINGS:
        if binding.zarr_class is not None:  # vlen-array: Zarr v2 object arrays only
            assert _ours(get_codec_class(binding.name)), binding.name
    for binding in zarr_codecs.BINDINGS:
        if binding.v2_id is not None:
            assert _ours(codec_registry[binding.v2_id]), binding.v2_id
    for codec_id in V2_IDS:
        assert _ours(codec_registry[codec_id]), codec_id
        assert _ours(type(numcodecs.get_codec({"id": codec_id, **_V2_CONFIG[codec_id]})))


_V2_CONFIG: dict[str, dict[str, Any]] = {
    "gzip": {"level": 1},
    "blosc": {},
    "fixedscaleoffset": {"offset": 0, "scale": 10, "dtype": "<f8", "astype": "<i2"},
}


def test_uninstall_restores_everything_exactly() -> None:
    before = _state()
    zarr_codecs.install()
    assert _state() != before
    zarr_codecs.uninstall()
    assert _state() == before
    zarr_codecs.uninstall()  # idempotent
    assert _state() == before


def test_install_is_idempotent_and_parts_are_separate() -> None:
    before = _state()
    zarr_codecs.install(numcodecs=False)
    assert zarr_codecs.installed_parts() == {"zarr"}
    assert not _ours(codec_registry["gzip"])
    again = zarr_codecs.install()
    assert again.added == {"numcodecs"}
    zarr_codecs.uninstall()
    assert _state() == before


def test_context_manager_undoes_only_what_it_did() -> None:
    before = _state()
    with zarr_codecs.install() as installation:
        assert installation.parts == {"zarr", "numcodecs"}
        assert _ours(get_codec_class("gzip"))
    assert _state() == before
    zarr_codecs.install()
    during = _state()
    with zarr_codecs.install() as nested:
        assert nested.added == frozenset()
    assert _state() == during  # still installed: the block did not install it
    assert "zarr" in repr(nested)


def test_arrays_read_and_write_through_ours(tmp_path: Any) -> None:
    data = np.linspace(-5, 5, 4096, dtype="float32").reshape(64, 64)
    with zarr_codecs.install():
        array = zarr.create_array(
            store=str(tmp_path / "a.zarr"),
            shape=data.shape,
            chunks=(16, 32),
            dtype="float32",
            filters=[{"name": "scale_offset", "configuration": {"scale": 100}}],
            compressors=[{"name": "gzip", "configuration": {"level": 1}}],
        )
        array[...] = data
        assert all(_ours(type(c)) for c in array.metadata.codecs if c.to_dict()["name"] != "bytes")
    # zarr's own codecs read what ours wrote.
    with zarr.config.set({"codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset"}):
        back = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
        assert not any(_ours(type(c)) for c in back.metadata.codecs)
        np.testing.assert_array_equal(back[...], (data * 100) / 100)


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "ZARR_CODECS_INSTALL"} | env
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=False
    )


_REPORT = """
import sys
print("zarr at startup:", "zarr" in sys.modules)
import zarr
from numcodecs.registry import codec_registry
from zarr.registry import get_codec_class
print("v3:", get_codec_class("gzip").__module__, get_codec_class("scale_offset").__module__)
print("v2:", codec_registry["gzip"].__module__, codec_registry["fixedscaleoffset"].__module__)
"""


def test_environment_variable_installs_on_import_of_zarr() -> None:
    proc = _python(_REPORT, ZARR_CODECS_INSTALL="1")
    assert proc.returncode == 0, proc.stderr
    assert "zarr at startup: False" in proc.stdout  # nothing heavy at interpreter start
    assert "v3: zarr_codec_gzip.zarr_python zarr_codec_scale_offset.zarr_python" in proc.stdout
    assert "v2: zarr_codec_gzip.numcodecs zarr_codec_scale_offset.numcodecs" in proc.stdout
    assert proc.stderr == ""


def test_environment_variable_survives_a_find_spec_before_the_import() -> None:
    """A program that asks whether zarr is installed (``importlib.util.find_spec``) before it
    imports zarr still gets ours: asking is not importing."""
    code = "import importlib.util\nassert importlib.util.find_spec('zarr') is not None\n" + _REPORT
    proc = _python(code, ZARR_CODECS_INSTALL="1")
    assert proc.returncode == 0, proc.stderr
    assert "v3: zarr_codec_gzip.zarr_python zarr_codec_scale_offset.zarr_python" in proc.stdout
    assert "v2: zarr_codec_gzip.numcodecs zarr_codec_scale_offset.numcodecs" in proc.stdout


@pytest.mark.parametrize("value", ["", "0", "no"])
def test_environment_variable_off_changes_nothing(value: str) -> None:
    proc = _python(_REPORT, ZARR_CODECS_INSTALL=value)
    assert proc.returncode == 0, proc.stderr
    assert "v3: zarr.codecs.gzip zarr.codecs.scale_offset" in proc.stdout
    assert "v2: numcodecs.gzip numcodecs.fixedscaleoffset" in proc.stdout


def test_environment_variable_with_a_bad_value_warns_and_installs_nothing() -> None:
    proc = _python(_REPORT, ZARR_CODECS_INSTALL="maybe")
    assert proc.returncode == 0, proc.stderr
    assert "not understood" in proc.stderr
    assert "v3: zarr.codecs.gzip" in proc.stdout


def test_activate_after_zarr_is_imported_installs_at_once() -> None:
    code = (
        "import zarr, numcodecs\n"
        "from zarr_codecs import _autoinstall, installed_parts\n"
        "_autoinstall.activate()\n"
        "print(sorted(installed_parts()))\n"
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['numcodecs', 'zarr']"


def test_having_the_wheels_installed_changes_nothing_and_warns_nothing() -> None:
    # The dev environment also has the third-party cast-value package, which registers a
    # second cast_value with zarr (and makes zarr warn); none of ours is registered for it.
    code = (
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "import zarr, numcodecs\n"
        "from numcodecs.registry import codec_registry\n"
        "from zarr.registry import _codec_registries, get_codec_class\n"
        "for name in ('gzip', 'blosc', 'numcodecs.fixedscaleoffset'):\n"
        "    print(name, get_codec_class(name).__module__)\n"
        "for name in ('cast_value', 'scale_offset'):\n"
        "    _codec_registries[name].lazy_load()\n"
        "    print(name, sorted(c.__module__ for c in _codec_registries[name].values()))\n"
        "ids = ('gzip', 'blosc', 'fixedscaleoffset')\n"
        "print('v2', [codec_registry[i].__module__ for i in ids])\n"
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert "zarr_codec" not in proc.stdout, proc.stdout


def test_usage_counts_what_the_runtime_and_zarr_python_ran() -> None:
    """Chunks our pipeline handled in the runtime, and those it handed to zarr-python's own
    code (a fancy selection), each counted once, and the selections it took whole (the write
    and the read of slices); reset_usage() starts again from zero."""
    zarr_codecs.reset_usage()
    with zarr_codecs.install(pipeline=True):
        array = zarr.create_array(
            zarr.storage.MemoryStore(), shape=(8, 8), chunks=(4, 4), dtype="f4", fill_value=0
        )
        array[...] = np.arange(64, dtype="f4").reshape(8, 8)
        assert array[0:4, 0:8].sum() == sum(range(32))
        array.get_orthogonal_selection(([0, 5], [1, 6]))  # integer arrays: zarr-python's
    assert zarr_codecs.usage() == {
        "runtime_read": 2,
        "runtime_written": 4,
        "zarr_read": 4,
        "zarr_written": 0,
        "selections_read": 1,
        "selections_written": 1,
        "device_read": 0,
        "remote_read": 0,
    }
    zarr_codecs.reset_usage()
    assert set(zarr_codecs.usage().values()) == {0}


def test_the_unpickling_hook_is_there_only_while_something_is_installed() -> None:
    from zarr.core.array import AsyncArray

    hooks = {"__getstate__", "__setstate__"}
    assert not hooks & set(AsyncArray.__dict__)
    with zarr_codecs.install(zarr=False):  # numcodecs alone: v2 arrays resolve ours too
        assert hooks <= set(AsyncArray.__dict__)
    assert not hooks & set(AsyncArray.__dict__)
