"""The chunk work alone (the benchmark's bound row) does every chunk's real work: values read
back equal what was written, through both stores' runners (its logic only: never a time)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from zarr_codecs_bench import chunk_work, pipelines

CHUNK = 1024


@pytest.fixture
def data() -> np.ndarray:
    return np.linspace(-3, 90, 8 * CHUNK, dtype=np.float32)


@pytest.mark.parametrize("store_kind", ["memory", "local"])
@pytest.mark.parametrize("label", list(pipelines.COMPRESSORS))
def test_every_row_reads_back_what_it_wrote(
    store_kind: str, label: str, data: np.ndarray, tmp_path: Path
) -> None:
    filters = pipelines.FILTERS.get(label, [])
    compressors = pipelines.COMPRESSORS[label] or []
    work = chunk_work.ChunkWork(store_kind, filters, compressors, data, CHUNK, tmp_path / "a")
    work.fresh()
    work.write()
    work.write()  # over the chunks just written
    values = work.read()
    if filters:  # quantized to a step of 1/200, then float32 arithmetic (ulp 8e-6 at 90)
        assert np.abs(values - data).max() <= 0.5 / 200 + 2e-5
    else:
        np.testing.assert_array_equal(values, data)


def test_local_chunks_are_files_of_the_rows_frames(data: np.ndarray, tmp_path: Path) -> None:
    compressors = pipelines.COMPRESSORS["blosc lz4 shuffle"]
    assert compressors is not None
    work = chunk_work.ChunkWork("local", [], compressors, data, CHUNK, tmp_path / "a")
    work.write()
    chain = chunk_work.chain_for([], compressors, CHUNK, data.dtype)
    frames = chain.encode_batch([data[i : i + CHUNK] for i in range(0, data.size, CHUNK)])
    files = [tmp_path / "a" / "c" / str(index) for index in range(len(frames))]
    assert [f.read_bytes() for f in files] == [bytes(frame) for frame in frames]


def test_the_chain_is_the_one_zarr_makes_of_a_row() -> None:
    chain = chunk_work.chain_for(
        pipelines.FILTERS["quantize int16, blosc"],
        pipelines.COMPRESSORS["quantize int16, blosc"] or [],
        CHUNK,
        np.dtype(np.float32),
    )
    names = [codec["name"] for codec in chain.to_json()]
    assert names == ["scale_offset", "cast_value", "bytes", "blosc"]


def test_data_must_be_whole_chunks(data: np.ndarray, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="whole number of chunks"):
        chunk_work.ChunkWork("memory", [], [], data[:-1], CHUNK, tmp_path)


def test_uncompressed_chunks_kept_in_memory_are_copies(data: np.ndarray, tmp_path: Path) -> None:
    work = chunk_work.ChunkWork("memory", [], [], data, CHUNK, tmp_path)
    work.write()
    assert len(work.stored) == data.size // CHUNK
    assert not any(np.may_share_memory(np.asarray(chunk), data) for chunk in work.stored)
