"""``zarr-codecs demo``: write a real Zarr v3 store through our codecs, read it back with
zarr-python, check every value, and compare size and speed with zarr-python's own codecs.

The sample is embedded as code: a deterministic sea-surface-temperature-like field (float32,
degrees Celsius, smooth large-scale structure plus eddies and noise) with NaN over land, which
is also the fill value. It is stored as ``[scale_offset, cast_value(int16), bytes, <compressor>]``
to a thousandth of a degree, NaN mapped to a reserved integer, with blosc and with gzip.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from zarr_codecs._install import install, installed_parts, uninstall

__all__ = ["CHAINS", "DemoResult", "run_demo", "sample"]

SHAPE = (720, 1440)  # a quarter-degree global grid
CHUNKS = (180, 360)
OFFSET, SCALE = 15, 1000  # stored as thousandths of a degree around 15 C
NAN_CODE = -32768  # the int16 that NaN (land, and the fill value) is stored as
#: The largest error scale_offset + cast_value may make: half a step, plus float32 rounding.
TOLERANCE = 0.5 / SCALE + 4e-6

_QUANTIZE: list[dict[str, Any]] = [
    {"name": "scale_offset", "configuration": {"offset": OFFSET, "scale": SCALE}},
    {
        "name": "cast_value",
        "configuration": {
            "data_type": "int16",
            "rounding": "nearest-even",
            "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", NAN_CODE]], "decode": [[NAN_CODE, "NaN"]]},
        },
    },
]

#: The chains the demo writes: label -> (filters, compressors).
CHAINS: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "blosc": (
        _QUANTIZE,
        [
            {
                "name": "blosc",
                "configuration": {
                    "cname": "zstd",
                    "clevel": 5,
                    "shuffle": "bitshuffle",
                    "typesize": 2,
                    "blocksize": 0,
                },
            }
        ],
    ),
    "gzip": (_QUANTIZE, [{"name": "gzip", "configuration": {"level": 5}}]),
}


def sample(shape: tuple[int, int] = SHAPE, seed: int = 20261129) -> npt.NDArray[np.float32]:
    """The demo field: deterministic for a given shape and seed."""
    rng = np.random.default_rng(seed)
    rows, cols = shape
    lat = np.linspace(-89.875, 89.875, rows)[:, None]
    lon = np.linspace(0.0, 360.0, cols, endpoint=False)[None, :]
    rad = np.pi / 180
    field = 28.0 * np.cos(lat * rad) ** 2 - 1.5  # warm tropics, cold poles
    field = field + 1.5 * np.sin(3 * lon * rad + 2 * np.sin(lat * 4 * rad))  # gyres
    for _ in range(40):  # eddies
        y, x = rng.uniform(-70, 70), rng.uniform(0, 360)
        size, strength = rng.uniform(2, 8), rng.normal(0, 1.2)
        dx = (lon - x + 180) % 360 - 180
        field = field + strength * np.exp(-((lat - y) ** 2 + dx**2) / (2 * size**2))
    field = field + rng.normal(0, 0.05, shape)  # sensor noise
    field = np.maximum(field, -1.8)  # sea water freezes
    land = np.zeros(shape, dtype=bool)  # soft-edged continents from a few blobs
    for _ in range(12):
        y, x = rng.uniform(-60, 75), rng.uniform(0, 360)
        ry, rx = rng.uniform(8, 30), rng.uniform(10, 45)
        dx = (lon - x + 180) % 360 - 180
        land |= ((lat - y) / ry) ** 2 + (dx / rx) ** 2 < 1 + 0.2 * np.sin(lon * rad * 7)
    land |= lat < -78  # Antarctica
    out: npt.NDArray[np.float32] = np.asarray(field, dtype=np.float32)
    out[land] = np.nan
    return out


@dataclass
class DemoResult:
    """One chain's figures: ours and zarr-python's own."""

    chain: str
    stored_bytes: int
    raw_bytes: int
    write_ours: float
    write_theirs: float | None
    read_ours: float
    read_theirs: float | None
    max_error: float
    nan_exact: bool
    same_as_theirs: bool | None  # zarr's own reads ours identically (None: not available)
    note: str = ""

    @property
    def ok(self) -> bool:
        """Whether the values check out."""
        return self.max_error <= TOLERANCE and self.nan_exact and self.same_as_theirs is not False


def _time(fn: Callable[[], object], repeats: int) -> float:
    """Median seconds of ``repeats`` calls after one untimed call (imports, compiled plans and
    thread pools are set up once per process, for zarr-python's codecs as for ours).

    A timer of its own: the benchmark harness is a development package, not part of the bundle.
    """
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _write(path: Path, data: npt.NDArray[np.float32], chain: str) -> None:
    import zarr

    filters, compressors = CHAINS[chain]
    array = zarr.create_array(
        store=zarr.storage.LocalStore(path),
        shape=data.shape,
        chunks=CHUNKS,
        dtype="float32",
        fill_value=np.nan,
        filters=filters,
        serializer={"name": "bytes", "configuration": {"endian": "little"}},
        compressors=compressors,
        overwrite=True,
    )
    array[...] = data


def _read(path: Path) -> npt.NDArray[Any]:
    import zarr

    array = zarr.open_array(zarr.storage.LocalStore(path, read_only=True), mode="r")
    return np.asarray(array[...])


def _stored_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and p.name != "zarr.json")


def _measure(
    chain: str,
    data: npt.NDArray[np.float32],
    root: Path,
    repeats: int,
    ours: Callable[[], AbstractContextManager[object]],
    theirs: Callable[[], AbstractContextManager[object]],
) -> DemoResult:
    path, their_path = root / f"{chain}.zarr", root / f"{chain}-zarr-python.zarr"
    with ours():
        write_ours = _time(lambda: _write(path, data, chain), repeats)
        read_ours = _time(lambda: _read(path), repeats)
        decoded = _read(path)
    nan_exact = bool(np.array_equal(np.isnan(decoded), np.isnan(data)))
    finite = ~np.isnan(data)
    error = np.abs(decoded[finite].astype(np.float64) - data[finite].astype(np.float64))
    result = DemoResult(
        chain,
        _stored_bytes(path),
        data.nbytes,
        write_ours,
        None,
        read_ours,
        None,
        float(error.max()) if error.size else 0.0,
        nan_exact,
        None,
    )
    try:
        with theirs():
            result.write_theirs = _time(lambda: _write(their_path, data, chain), repeats)
            result.read_theirs = _time(lambda: _read(their_path), repeats)
            result.same_as_theirs = bool(np.array_equal(_read(path), decoded, equal_nan=True))
    except ImportError as err:  # zarr's built-in cast_value needs the cast-value-rs package
        result.note = f"zarr-python's own codecs unavailable here: {err}"
    return result


def run_demo(
    out: Path | None = None, *, repeats: int = 3, shape: tuple[int, int] = SHAPE
) -> tuple[Path, list[DemoResult]]:
    """Write, read and check every chain; the store's root and the figures. The store is
    kept under ``out`` (created) or in a fresh temporary directory."""
    import zarr  # noqa: F401  (a clear ImportError before any work when zarr is missing)

    root = Path(tempfile.mkdtemp(prefix="zarr-codecs-demo-")) if out is None else Path(out)
    root.mkdir(parents=True, exist_ok=True)
    data = sample(shape)
    results = [
        _measure(chain, data, root, repeats, _ours, zarr_python_own_codecs) for chain in CHAINS
    ]
    return root, results


def _ours() -> AbstractContextManager[object]:
    return install(numcodecs=False, pipeline=True)


#: zarr-python's own codec classes for the demo's names, and its own pipeline.
_ZARR_PYTHON_OWN = {
    "codecs.cast_value": "zarr.codecs.cast_value.CastValue",
    "codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
    "codecs.blosc": "zarr.codecs.blosc.BloscCodec",
    "codecs.gzip": "zarr.codecs.gzip.GzipCodec",
    "codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline",
}


@contextmanager
def zarr_python_own_codecs() -> Iterator[None]:
    """zarr-python's built-in codecs and pipeline for the demo's names, whatever else is
    installed: what :func:`zarr_codecs.install` put in place (called, or through
    ``ZARR_CODECS_INSTALL``) is undone for the block and put back after it."""
    import zarr

    parts = installed_parts()
    uninstall()
    try:
        with zarr.config.set(_ZARR_PYTHON_OWN):
            yield
    finally:
        install(zarr="zarr" in parts, numcodecs="numcodecs" in parts, pipeline="pipeline" in parts)


def remove(root: Path) -> None:
    """Delete a demo store."""
    shutil.rmtree(root, ignore_errors=True)


def _ms(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e3:.0f} ms"


def _ratio(theirs: float | None, ours: float) -> str:
    return "" if theirs is None else f" ({theirs / ours:.2f}x)"


def render(root: Path, results: list[DemoResult], shape: tuple[int, int] = SHAPE) -> str:
    """The demo's report."""
    rows, cols = shape
    lines = [
        f"zarr-codecs demo: a sea-surface-temperature field, {rows} x {cols} float32 "
        f"({rows * cols * 4 / 2**20:.1f} MiB), NaN over land and as fill value, "
        f"chunks {CHUNKS[0]} x {CHUNKS[1]}",
        f"stored as [scale_offset(offset={OFFSET}, scale={SCALE}), cast_value(int16, NaN -> "
        f"{NAN_CODE}), bytes, <compressor>] in {root}",
        "ours: zarr_codecs.install(pipeline=True) (our codecs and codec pipeline); zarr: "
        "zarr-python's own codecs and pipeline",
        "",
        f"{'compressor':10} {'stored':>10} {'ratio':>6}  {'write: ours (vs zarr)':24} "
        f"{'read: ours (vs zarr)':24} {'max error':>10}  check",
    ]
    for r in results:
        check = "ok" if r.ok else "FAILED"
        details = []
        if not r.nan_exact:
            details.append("NaN positions differ")
        if r.max_error > TOLERANCE:
            details.append(f"error above {TOLERANCE:.2g}")
        if r.same_as_theirs is False:
            details.append("zarr-python's own codecs read different values")
        lines.append(
            f"{r.chain:10} {r.stored_bytes / 2**20:8.2f} MiB {r.raw_bytes / r.stored_bytes:5.1f}x  "
            f"{_ms(r.write_ours) + _ratio(r.write_theirs, r.write_ours):24} "
            f"{_ms(r.read_ours) + _ratio(r.read_theirs, r.read_ours):24} "
            f"{r.max_error:10.2e}  {check}" + (f" ({'; '.join(details)})" if details else "")
        )
        if r.note:
            lines.append(f"  note: {r.note}")
    lines += [
        "",
        "ratio: raw float32 bytes over stored bytes. (Nx): zarr-python's own codecs' time over "
        "ours, median of the runs (above 1 means ours is faster). max error: largest "
        f"|decoded - original| (at most {TOLERANCE:.2g}: half a thousandth of a degree).",
    ]
    return "\n".join(lines)
