"""The two builds of the compiled core (``zarr_codec_pcodec._native``): the baseline for every
CPU, and on x86-64 release wheels the x86-64-v3 build, chosen at import where the CPU has its
features. Both must give the same bytes and values; ``ZARR_CODEC_PCODEC_BUILD`` chooses."""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import zarr_codec_pcodec
from zarr_codec_pcodec import _native, _pcodec

HAS_V3_BUILD = importlib.util.find_spec("zarr_codec_pcodec._pcodec_x86_64_v3") is not None
CPU_HAS_V3 = _pcodec.x86_64_v3_supported()


def _import_build(variable: str | None) -> subprocess.CompletedProcess[str]:
    """``zarr_codec_pcodec.BUILD`` printed by a fresh interpreter with the variable set."""
    env = {k: v for k, v in os.environ.items() if k != _native.BUILD_VARIABLE}
    if variable is not None:
        env[_native.BUILD_VARIABLE] = variable
    code = "import zarr_codec_pcodec as m; print(m.BUILD, m.ENGINE)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )


def test_the_baseline_module_says_what_it_is() -> None:
    assert _pcodec.BUILD == "baseline"
    assert _pcodec.X86_64_V3_FEATURES == ["avx2", "bmi1", "bmi2", "lzcnt"]
    assert isinstance(CPU_HAS_V3, bool)


def test_the_build_run_is_the_one_this_cpu_and_wheel_allow() -> None:
    chosen = _import_build(None)
    assert chosen.returncode == 0, chosen.stderr
    expected = "x86-64-v3" if HAS_V3_BUILD and CPU_HAS_V3 else "baseline"
    assert chosen.stdout.split()[0] == expected
    assert f"({expected} build)" in chosen.stdout


def test_the_variable_keeps_the_baseline() -> None:
    chosen = _import_build("baseline")
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.split()[0] == "baseline"


def test_a_misspelt_variable_is_refused_by_name() -> None:
    chosen = _import_build("avx2")
    assert chosen.returncode != 0
    assert "ZARR_CODEC_PCODEC_BUILD='avx2'" in chosen.stderr
    assert "'baseline' or 'x86-64-v3'" in chosen.stderr


@pytest.mark.skipif(
    HAS_V3_BUILD or not CPU_HAS_V3, reason="asks for the x86-64-v3 build where it is missing"
)
def test_asking_for_a_missing_x86_64_v3_build_says_so() -> None:
    chosen = _import_build("x86-64-v3")
    assert chosen.returncode != 0
    assert "has no x86-64-v3 build" in chosen.stderr


def _values(dtype: str, n: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(n)
    if np.dtype(dtype).kind == "f":
        values = (rng.standard_normal(n).cumsum() * 10).astype(dtype)
        values[:: max(n // 7, 2)] = np.nan
        values[-1] = -np.inf
        return values
    info = np.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(low, high, n, endpoint=True).astype(dtype)


@pytest.mark.skipif(
    not (HAS_V3_BUILD and CPU_HAS_V3),
    reason="the x86-64-v3 build is in x86-64 release wheels (scripts/build-wheels), run on "
    "CPUs with AVX2 and BMI2",
)
@pytest.mark.parametrize("dtype", ["<u2", "<i4", "<u8", "<f2", "<f4", "<f8"])
@pytest.mark.parametrize("n", [1, 255, 256, 300_000])
def test_both_builds_write_and_read_the_same(dtype: str, n: int) -> None:
    v3 = importlib.import_module("zarr_codec_pcodec._pcodec_x86_64_v3")
    assert v3.BUILD == "x86-64-v3"
    values = _values(dtype, n)
    for config in ('{"id": "pcodec", "level": 8}', '{"id": "pcodec", "level": 3}'):
        encoded = _pcodec.encode(config, 2, values)
        assert v3.encode(config, 2, values) == encoded
        for module in (_pcodec, v3):
            out = np.empty_like(values)
            module.decode_into(encoded, out)
            np.testing.assert_array_equal(out, values)
    assert zarr_codec_pcodec.BUILD == "x86-64-v3"
