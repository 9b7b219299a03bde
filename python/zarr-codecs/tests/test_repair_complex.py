"""``zarr-codecs repair-complex``: Zarr v3 big-endian complex arrays whose chunks our pipeline
stored with the real and imaginary parts exchanged are found and stored again as the ``bytes``
codec's spec says (checked with zarr-python's own pipeline); chunks zarr-python's gzip wrote
are left alone.

What the old pipeline stored for values ``v`` is exactly what a correct writer stores for ``v``
with the parts exchanged, so zarr-python's own pipeline writes the damaged arrays here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

from zarr_codecs import repair_complex  # noqa: E402
from zarr_codecs.cli import main  # noqa: E402

SHAPE, CHUNKS = (12, 10), (4, 5)
BIG = {"name": "bytes", "configuration": {"endian": "big"}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": True}}
GZIP = {"name": "gzip", "configuration": {"level": 1}}


def _values(dtype: str) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(5)
    parts = rng.normal(size=(2, *SHAPE)) * 1000
    return (parts[0] + 1j * parts[1]).astype(dtype)


def _exchanged(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return values.imag + 1j * values.real


def _write(root: Path, values: np.ndarray[Any, Any], **layout: Any) -> None:
    """zarr-python's own pipeline writes ``values`` (a missing chunk left for the fill)."""
    array = zarr.create_array(
        str(root), shape=SHAPE, chunks=CHUNKS, dtype=values.dtype, fill_value=1 - 2j, **layout
    )
    array[:, :] = values
    array[:4, :5] = array.fill_value  # one chunk (or inner chunk) left unwritten


def _read(root: Path) -> np.ndarray[Any, Any]:
    return np.asarray(zarr.open_array(str(root), mode="r")[...])


def _expected(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    expected = values.copy()
    expected[:4, :5] = 1 - 2j
    return expected


LAYOUTS = {
    "zstd": {"serializer": BIG, "compressors": [ZSTD]},
    "transpose-crc32c": {
        "filters": [{"name": "transpose", "configuration": {"order": [1, 0]}}],
        "serializer": BIG,
        "compressors": [{"name": "crc32c"}],
    },
    "sharded-end": {"shards": (8, 10), "serializer": BIG, "compressors": [ZSTD]},
    "sharded-start": {
        "shards": {"shape": (12, 10), "index_location": "start"},
        "serializer": BIG,
        "compressors": [GZIP],
    },
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_exchanged_parts_are_put_back_once(tmp_path: Path, dtype: str, layout: str) -> None:
    root = tmp_path / "data.zarr"
    values = _values(dtype)
    _write(root, _exchanged(values), **LAYOUTS[layout])
    assert not np.array_equal(_read(root), _expected(values))

    [found] = repair_complex.find_candidates(tmp_path)
    assert found.path == root and found.data_type == dtype and found.unknown
    assert main(["repair-complex", str(tmp_path)]) == 0  # dry run
    assert main(["repair-complex", str(tmp_path), "--write"]) == 1  # not without assume-ours
    assert not np.array_equal(_read(root), _expected(values))

    assert main(["repair-complex", str(tmp_path), "--write", "--assume-ours"]) == 0
    got = _read(root)
    assert got.tobytes() == _expected(values).tobytes()
    assert (root / repair_complex.MARKER).exists()
    # Never twice: a second run leaves the repaired chunks as they are.
    assert main(["repair-complex", str(tmp_path), "--write", "--assume-ours"]) == 0
    assert _read(root).tobytes() == got.tobytes()


def test_gzip_chunks_zarr_wrote_are_left_alone(tmp_path: Path, capsys: Any) -> None:
    root = tmp_path / "data.zarr"
    values = _values("complex64")
    _write(root, values, serializer=BIG, compressors=[GZIP])  # numcodecs' gzip: timestamps
    [found] = repair_complex.find_candidates(tmp_path)
    assert found.others and not found.unknown
    assert main(["repair-complex", str(tmp_path), "--write", "--assume-ours"]) == 0
    assert _read(root).tobytes() == _expected(values).tobytes()
    assert "correct as stored" in capsys.readouterr().out


@pytest.mark.parametrize(
    "layout",
    [
        {
            "dtype": "complex64",
            "serializer": {"name": "bytes", "configuration": {"endian": "little"}},
        },
        {"dtype": "float64", "serializer": BIG},
        {"dtype": "complex64", "serializer": BIG, "zarr_format": 2},
    ],
)
def test_other_arrays_are_not_candidates(tmp_path: Path, layout: dict[str, Any]) -> None:
    if layout.get("zarr_format") == 2:
        layout = {"dtype": ">c8", "zarr_format": 2}
    zarr.create_array(str(tmp_path / "a.zarr"), shape=SHAPE, chunks=CHUNKS, **layout)[...] = 1
    assert repair_complex.find_candidates(tmp_path) == []
    assert "nothing to repair" in repair_complex.render([], write=False, rewritten={})
