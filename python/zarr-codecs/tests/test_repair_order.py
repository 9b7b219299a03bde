"""``zarr-codecs repair-order``: order-"F" v2 arrays stored transposed by zarr-codecs 0.1.0 are
found and stored again as numcodecs stores them; arrays numcodecs wrote are left alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

import zarr_codecs  # noqa: E402
from zarr_codec_shapes import get_codec  # noqa: E402
from zarr_codecs import repair_order  # noqa: E402
from zarr_codecs.cli import main  # noqa: E402

SOURCE = np.arange(16 * 12, dtype="<i4").reshape(16, 12)
GZIP = {"id": "gzip", "level": 1}
BLOSC = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}


def _write(root: Path, compressor: dict[str, object], *, ours: bool) -> None:
    def create() -> None:
        array = zarr.create_array(
            str(root),
            shape=SOURCE.shape,
            chunks=(8, 6),
            dtype=SOURCE.dtype,
            zarr_format=2,
            order="F",
            compressors=numcodecs.get_codec(dict(compressor)),
        )
        array[...] = SOURCE

    if ours:
        with zarr_codecs.install():
            create()
    else:
        create()


def _store_as_0_1_0(root: Path, compressor: dict[str, object]) -> None:
    """What 0.1.0 stored: each chunk's values in C order, compressed by our codec."""
    codec = get_codec(dict(compressor))
    for chunk in root.glob("[0-9]*"):
        values = np.frombuffer(codec.decode(chunk.read_bytes()), "<i4").reshape(8, 6, order="F")
        chunk.write_bytes(codec.encode(values.tobytes(order="C")))


def _read(root: Path) -> np.ndarray:
    return np.asarray(zarr.open_array(str(root), mode="r")[...])


@pytest.mark.parametrize("compressor", [GZIP, BLOSC], ids=["gzip", "blosc"])
def test_transposed_chunks_are_repaired_once(
    tmp_path: Path, compressor: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--assume-ours"]
    root = tmp_path / "a.zarr"
    _write(root, compressor, ours=True)
    _store_as_0_1_0(root, compressor)
    assert not np.array_equal(_read(root), SOURCE)  # the corruption this repairs

    assert main(["repair-order", str(tmp_path)]) == 0  # a dry run changes nothing
    assert "dry run" in capsys.readouterr().out
    assert not np.array_equal(_read(root), SOURCE)

    assert main(["repair-order", str(tmp_path), "--write", *flags]) == 0
    assert "rewritten in Fortran order: 4 chunk(s)" in capsys.readouterr().out
    np.testing.assert_array_equal(_read(root), SOURCE)

    assert main(["repair-order", str(tmp_path), "--write", *flags]) == 0  # never twice
    assert "already repaired" in capsys.readouterr().out
    np.testing.assert_array_equal(_read(root), SOURCE)


@pytest.mark.parametrize("compressor", [GZIP, BLOSC], ids=["gzip", "blosc"])
def test_chunks_are_only_rewritten_when_the_user_says_so(
    tmp_path: Path, compressor: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    """The bytes of 0.1.0's chunks are those every later zarr-codecs writes (reproducible
    gzip, and blosc's are anyone's): without --assume-ours, --write rewrites nothing, says
    so and exits 1."""
    root = tmp_path / "a.zarr"
    _write(root, compressor, ours=True)
    _store_as_0_1_0(root, compressor)
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    [candidate] = repair_order.find_candidates(tmp_path)
    assert len(candidate.unknown) == 4
    assert repair_order.repair(candidate) == 0
    assert main(["repair-order", str(tmp_path), "--write"]) == 1
    assert "nothing was written: 4 chunk(s)" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before


def test_a_correct_array_written_now_is_not_rewritten_without_assume_ours(tmp_path: Path) -> None:
    """An order-F array the current zarr-codecs wrote (correct, and its gzip chunks without a
    timestamp, as 0.1.0's were) is left as it is by --write."""
    root = tmp_path / "a.zarr"
    _write(root, GZIP, ours=True)
    np.testing.assert_array_equal(_read(root), SOURCE)
    assert main(["repair-order", str(tmp_path), "--write"]) == 1
    np.testing.assert_array_equal(_read(root), SOURCE)


def test_numcodecs_chunks_are_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "a.zarr"
    _write(root, GZIP, ours=False)  # numcodecs' gzip: timestamped headers
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    [candidate] = repair_order.find_candidates(tmp_path)
    assert len(candidate.others) == 4 and not candidate.unknown
    assert main(["repair-order", str(tmp_path), "--write", "--assume-ours"]) == 0
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before
    np.testing.assert_array_equal(_read(root), SOURCE)


def test_arrays_that_cannot_be_affected_are_not_candidates(tmp_path: Path) -> None:
    for name, order, filters in (("c", "C", None), ("filtered", "F", [numcodecs.Delta("<i4")])):
        zarr.create_array(
            str(tmp_path / name),
            shape=SOURCE.shape,
            chunks=(8, 6),
            dtype=SOURCE.dtype,
            zarr_format=2,
            order=order,
            filters=filters,
            compressors=numcodecs.GZip(1),
        )[...] = SOURCE
    assert repair_order.find_candidates(tmp_path) == []
