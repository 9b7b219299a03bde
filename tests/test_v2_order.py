"""Zarr v2 arrays in order "C" and "F", every writer x every reader, every v2 codec we replace.

numcodecs stores a chunk of a v2 array in the array's memory order: Fortran order for
``order="F"``. A compressor that serialised chunks in C order instead stored every chunk
transposed, which only a reader of the same mistake could undo. Here each array is written
by ours (``zarr_codecs.install()``), by ours with our pipeline (``install(pipeline=True)``) and
by zarr-python with numcodecs' own codecs, and read back by all three; every cell must give
the source values, and every writer must store the same chunk payloads (the compressor
undone with numcodecs' own class), for every data type numcodecs takes, datetime64 and
timedelta64 included.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.storage import LocalStore  # noqa: E402

Array = npt.NDArray[Any]

SHAPE, CHUNKS = (13, 11), (6, 4)  # partial edge chunks
WHO = ("ours", "pipeline", "numcodecs")
DTYPES = ("<f4", "<f8", "<i2", "|u1", "|b1", "<M8[ns]", "<m8[s]")
COMPRESSORS: dict[str, dict[str, Any]] = {
    "gzip": {"id": "gzip", "level": 1},
    "blosc-lz4-shuffle": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
    "blosc-zstd-bitshuffle": {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2},
    "blosc-autoshuffle": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1},
}
FILTERED = {"id": "fixedscaleoffset", "offset": 100, "scale": 10, "dtype": "<f8", "astype": "<i2"}


def _source(dtype: str) -> Array:
    """Values whose every element differs, so any transposition shows."""
    count = int(np.prod(SHAPE))
    kind = np.dtype(dtype).kind
    if kind == "b":
        values: Array = (np.arange(count) * 7919 % 3 == 0).reshape(SHAPE)
    elif kind in "Mm":
        values = (np.arange(count, dtype="i8") * 86_400_000_007 - 5).view(dtype).reshape(SHAPE)
    else:
        values = (np.arange(count) % 251 + 3).astype(dtype).reshape(SHAPE)
        if kind == "f":
            values = values + np.float32(0.25)
    return np.asarray(values, dtype=dtype)


@contextmanager
def _using(who: str) -> Iterator[None]:
    if who == "numcodecs":
        assert not zarr_codecs.installed_parts()
        yield
        return
    with zarr_codecs.install(pipeline=who == "pipeline"):
        yield


def _write(root: Path, who: str, data: Array, order: str, compressor: Any, filters: Any) -> None:
    with _using(who):
        array = zarr.create_array(
            LocalStore(root),
            shape=data.shape,
            chunks=CHUNKS,
            dtype=data.dtype,
            zarr_format=2,
            order=order,
            compressors=numcodecs.get_codec(dict(compressor)),
            filters=[numcodecs.get_codec(dict(f)) for f in filters],
            fill_value=None,
        )
        expected = "zarr_codec" if who != "numcodecs" else "numcodecs"
        assert type(array.metadata.compressor).__module__.startswith(expected)
        array[...] = data


def _read(root: Path, who: str) -> Array:
    with _using(who):
        values: Array = zarr.open_array(LocalStore(root), mode="r")[...]
        return values


def _payloads(root: Path) -> dict[str, bytes]:
    """Each chunk file with the compressor undone by numcodecs' own class."""
    meta = json.loads((root / ".zarray").read_text())
    config = dict(meta["compressor"])
    codec = {"gzip": numcodecs.GZip, "blosc": numcodecs.Blosc}[config.pop("id")](**config)
    return {
        p.name: bytes(codec.decode(p.read_bytes()))
        for p in sorted(root.iterdir())
        if not p.name.startswith(".")
    }


def _cases() -> Iterator[Any]:
    for name, dtype, order in itertools.product(COMPRESSORS, DTYPES, "CF"):
        yield pytest.param(name, dtype, order, False, id=f"{name}-{dtype}-{order}")
    for name, order in itertools.product(("gzip", "blosc-lz4-shuffle"), "CF"):
        yield pytest.param(name, "<f8", order, True, id=f"fixedscaleoffset-{name}-{order}")


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., dict[str, Path]]:
    base = tmp_path_factory.mktemp("orders")

    def write_all(name: str, dtype: str, order: str, filtered: bool) -> dict[str, Path]:
        data = _source(dtype)
        filters = [FILTERED] if filtered else []
        written = {}
        for who in WHO:
            root = base / f"{name}-{dtype.replace('[', '_').strip(']')}-{order}-{filtered}-{who}"
            if not root.exists():
                _write(root, who, data, order, COMPRESSORS[name], filters)
            written[who] = root
        return written

    return write_all


@pytest.mark.parametrize(("name", "dtype", "order", "filtered"), list(_cases()))
def test_every_writer_and_reader_agree(
    roots: Callable[..., dict[str, Path]], name: str, dtype: str, order: str, filtered: bool
) -> None:
    written = roots(name, dtype, order, filtered)
    data = _source(dtype)
    expected = np.around((data - 100) * 10) / 10 + 100 if filtered else data
    for writer, reader in itertools.product(WHO, WHO):
        values = _read(written[writer], reader)
        assert values.dtype == data.dtype, (writer, reader)
        assert values.tobytes() == np.asarray(expected, dtype=data.dtype).tobytes(), (
            f"written by {writer}, read by {reader}: values differ"
        )
    payloads = {who: _payloads(root) for who, root in written.items()}
    assert payloads["ours"] == payloads["numcodecs"] == payloads["pipeline"]


def test_fortran_chunks_are_stored_in_fortran_order(tmp_path: Path) -> None:
    """The stored bytes of a full chunk are that chunk in Fortran order, as numcodecs stores
    them (checked directly, not only by reading back)."""
    data = _source("<i2")
    _write(tmp_path, "ours", data, "F", COMPRESSORS["gzip"], [])
    stored = numcodecs.GZip().decode((tmp_path / "0.0").read_bytes())
    chunk = data[: CHUNKS[0], : CHUNKS[1]]
    assert bytes(stored) == chunk.tobytes(order="F") != chunk.tobytes(order="C")
