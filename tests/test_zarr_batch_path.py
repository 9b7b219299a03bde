"""zarr-python handing our bytes codecs whole batches (``codec_pipeline.batch_size`` > 1).

The adapter then calls the codec's ``encode_batch``/``decode_batch`` once per batch, in one
worker thread, instead of one thread hop per chunk. Arrays must read and write exactly as with
zarr's built-in codecs, with missing chunks (``None`` in a batch) left to the fill value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

from zarr_codec_blosc import Blosc  # noqa: E402
from zarr_codec_blosc.zarr_python import BloscCodec  # noqa: E402
from zarr_codec_gzip import Gzip  # noqa: E402
from zarr_codec_gzip.zarr_python import GzipCodec  # noqa: E402

CODECS = {
    "gzip": (Gzip, "zarr_codec_gzip.zarr_python.GzipCodec", GzipCodec(level=5)),
    "blosc": (Blosc, "zarr_codec_blosc.zarr_python.BloscCodec", BloscCodec(cname="lz4")),
}
BUILTIN = {"gzip": zarr.codecs.GzipCodec(level=5), "blosc": zarr.codecs.BloscCodec(cname="lz4")}


@pytest.fixture
def batch_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """The size of every batch our codecs receive (1 for a single-chunk call)."""
    sizes: dict[str, list[int]] = {"encode_batch": [], "decode_batch": []}
    for cls, _, _ in CODECS.values():
        for method in ("encode_batch", "decode_batch", "encode", "decode"):
            original = getattr(cls, method)
            key = method if method.endswith("batch") else f"{method}_batch"
            batch = method.endswith("batch")

            def spy(
                self: Any,
                chunks: Any,
                *args: Any,
                _k: str = key,
                _b: bool = batch,
                _o: Any = original,
            ) -> Any:
                sizes[_k].append(len(chunks) if _b else 1)
                return _o(self, chunks, *args)

            monkeypatch.setattr(cls, method, spy)
    return sizes


def _data() -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(11)
    data = np.cumsum(rng.normal(size=(64, 48)), axis=0).astype(np.float32)
    data[:16, :12] = -1.0  # one chunk equal to the fill value: not stored
    return data


def _write(path: Path, codec: Any, data: np.ndarray[Any, Any]) -> Any:
    array = zarr.create_array(
        zarr.storage.LocalStore(path),
        shape=data.shape,
        chunks=(16, 12),
        dtype=data.dtype,
        fill_value=-1.0,
        compressors=[codec],
        config={"write_empty_chunks": False},
    )
    array[:] = data
    return array


@pytest.mark.parametrize("name", list(CODECS))
@pytest.mark.parametrize("batch_size", [2, 5, 16])
def test_batches_write_and_read_like_the_builtin(
    tmp_path: Path, batch_calls: dict[str, list[int]], name: str, batch_size: int
) -> None:
    _, path, ours = CODECS[name]
    data = _data()
    config = {f"codecs.{name}": path, "codec_pipeline.batch_size": batch_size}
    with zarr.config.set(config):
        _write(tmp_path / "ours", ours, data)
    _write(tmp_path / "builtin", BUILTIN[name], data)
    stored = sorted(p.relative_to(tmp_path / "ours") for p in (tmp_path / "ours").rglob("c/*/*"))
    assert len(stored) == 15  # 16 chunks, one left to the fill value
    # Every stored chunk was encoded once, in batches as large as zarr's batch size.
    assert sum(batch_calls["encode_batch"]) == 15
    assert max(batch_calls["encode_batch"]) == min(batch_size, 15)

    # Both stores read the same through our batches, with a partial selection as well.
    with zarr.config.set(config):
        for store in ("ours", "builtin"):
            array = zarr.open_array(zarr.storage.LocalStore(tmp_path / store), mode="r")
            np.testing.assert_array_equal(array[:], data)
            np.testing.assert_array_equal(array[5:40, 7:30], data[5:40, 7:30])
    assert max(batch_calls["decode_batch"]) == min(batch_size, 15)
    builtin = zarr.open_array(zarr.storage.LocalStore(tmp_path / "ours"), mode="r")
    np.testing.assert_array_equal(builtin[:], data)


@pytest.mark.parametrize("name", list(CODECS))
def test_a_corrupt_chunk_in_a_batch_raises_our_error(tmp_path: Path, name: str) -> None:
    from zarr_codec_shapes import CodecError

    _, path, ours = CODECS[name]
    with zarr.config.set({f"codecs.{name}": path, "codec_pipeline.batch_size": 8}):
        _write(tmp_path, ours, _data())
        (tmp_path / "c" / "2" / "1").write_bytes(b"not a chunk")
        with pytest.raises(CodecError):
            zarr.open_array(zarr.storage.LocalStore(tmp_path), mode="r")[:]
