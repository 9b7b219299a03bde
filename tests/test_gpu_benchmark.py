"""``benchmarks.gpu`` without a GPU: it says so and exits; its table computes the ratios the
issue asks for (a GPU machine produces the figures themselves, see ``scripts/gpu-check``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import zarr_codecs.gpu

from benchmarks.gpu import markdown


@pytest.mark.skipif(zarr_codecs.gpu.available(), reason="a GPU is here: the benchmark would run")
def test_without_a_gpu_the_benchmark_says_why() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.gpu", "--size-mib", "8"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 1
    assert "benchmarks.gpu needs a CUDA GPU" in done.stderr


def test_the_table_gives_ratios_and_fractions_of_the_copy_bandwidth() -> None:
    reads = {
        "[bytes, gzip]": {
            "ours GPU": 0.05,
            "ours CPU": 0.4,
            "zarr-python GPU mode": 2.0,
            "stored MiB": 700.0,
            "device chunks": 256,
        },
        "[cast_value, bytes]": {
            "ours GPU": 0.05,
            "ours CPU": 0.1,
            "zarr-python GPU mode": float("nan"),
            "stored MiB": 500.0,
            "device chunks": 256,
        },
    }
    bandwidth = {"device copy": 4000.0, "fused decode": 3000.0}
    text = markdown(reads, bandwidth, {"nvCOMP zstd (256 chunks)": 120.0})
    assert "| `[bytes, gzip]` | 700 | 0.050 | 0.400 | 2.000 | 8.00x | 40.00x |" in text
    assert "| `[cast_value, bytes]` | 500 | 0.050 | 0.100 | refused | 2.00x | - |" in text
    assert "| fused decode | 3000 | 75% |" in text
    assert "| nvCOMP zstd (256 chunks) | 120.0 |" in text
