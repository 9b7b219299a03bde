"""Chains on chunk files: ``Chain.decode_files_into`` reads and decodes a batch of chunk files
and ``Chain.encode_files`` encodes and writes one, each in Rust in one call (the runtime's
``Plan`` running every wheel's kernels), with the results, files and errors of the in-memory
path and of zarr-python's ``LocalStore``."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from zarr_codec_runtime import Chain
from zarr_codec_shapes import ChunkSpec, CorruptInputError

pytest.importorskip("zarr_codecs")
from kernel_chains import CHUNK, KERNEL_CHAINS, _bytes, _data

#: Chains read and written through the file runners: every kernel chain, and chunks stored as
#: they are (no steps at all).
FILE_CHAINS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    **KERNEL_CHAINS,
    "stored-as-is": ("float64", [_bytes()]),
    "stored-as-is-bytes": ("uint8", [_bytes("big")]),
}
PAGE = 4096


def _chain(name: str) -> Chain:
    dtype, codecs = FILE_CHAINS[name]
    return Chain.from_json(codecs, ChunkSpec(CHUNK, dtype))


def _outputs(chain: Chain, count: int, offset: int) -> tuple[np.ndarray[Any, Any], list[Any]]:
    """``count`` chunk arrays side by side in one buffer whose first byte is ``offset`` bytes
    past a page boundary (16 is where numpy puts large arrays: the file runners take their
    other copy path there), filled with 77."""
    size = chain.spec.num_bytes
    raw = np.zeros(count * size + 2 * PAGE, dtype=np.uint8)
    start = (-raw.ctypes.data) % PAGE + offset
    whole = raw[start : start + count * size].view(chain.spec.numpy_dtype)
    whole[...] = 77
    step = whole.size // count
    return whole, [whole[k * step : (k + 1) * step].reshape(CHUNK) for k in range(count)]


def _write(paths: list[Path], encoded: list[Any]) -> None:
    for path, data in zip(paths, encoded, strict=True):
        path.write_bytes(memoryview(data).cast("B"))


@pytest.mark.parametrize("offset", [0, 16, 48], ids=["page", "page+16", "page+48"])
@pytest.mark.parametrize("name", FILE_CHAINS)
def test_files_decode_as_the_chunks_do_in_memory(name: str, offset: int, tmp_path: Path) -> None:
    chain = _chain(name)
    encoded = chain.encode_batch(_data(FILE_CHAINS[name][0]))
    expected = chain.decode_batch(encoded)
    paths = [tmp_path / str(k) for k in range(len(encoded))]
    _write(paths, encoded)
    whole, outs = _outputs(chain, len(encoded), offset)
    assert chain.decode_files_into(paths, outs) == [True] * len(paths)
    assert whole.tobytes() == b"".join(e.tobytes() for e in expected)


@pytest.mark.parametrize("name", FILE_CHAINS)
def test_files_are_written_as_the_chunks_encode_in_memory(name: str, tmp_path: Path) -> None:
    chain = _chain(name)
    data = _data(FILE_CHAINS[name][0])
    paths = [tmp_path / "c" / "0" / str(k) for k in range(len(data))]  # directories made
    assert chain.encode_files(data, paths)
    expected = [bytes(memoryview(e).cast("B")) for e in chain.encode_batch(data)]
    assert [path.read_bytes() for path in paths] == expected
    # Written again over the old files, as a temporary file each, renamed: none is left.
    assert chain.encode_files([d[::-1].copy() for d in data], paths)
    assert sorted(p.name for p in paths[0].parent.iterdir()) == sorted(p.name for p in paths)
    again = [bytes(memoryview(e).cast("B")) for e in chain.encode_batch([d[::-1] for d in data])]
    assert [path.read_bytes() for path in paths] == again


@pytest.mark.parametrize("offset", [0, 16], ids=["page", "page+16"])
def test_stored_chunks_are_written_from_any_alignment(offset: int, tmp_path: Path) -> None:
    chain = _chain("stored-as-is")
    whole, sources = _outputs(chain, 3, offset)
    whole[...] = np.arange(whole.size)
    paths = [tmp_path / str(k) for k in range(3)]
    assert chain.encode_files(sources, paths)
    assert b"".join(p.read_bytes() for p in paths) == whole.tobytes()


@pytest.mark.parametrize("name", ["stored-as-is", "fused-blosc", "cast-only"])
def test_missing_files_leave_their_outputs_untouched(name: str, tmp_path: Path) -> None:
    chain = _chain(name)
    encoded = chain.encode_batch(_data(FILE_CHAINS[name][0], 4))
    (tmp_path / "a-file").write_bytes(b"")
    (tmp_path / "a-directory").mkdir()
    paths = [
        tmp_path / "0",
        tmp_path / "no-such-file",
        tmp_path / "a-directory",  # as zarr's LocalStore: no chunk
        tmp_path / "a-file" / "under-a-file",
    ]
    _write(paths[:1], encoded[:1])
    _, outs = _outputs(chain, 4, 16)
    assert chain.decode_files_into(paths, outs) == [True, False, False, False]
    assert outs[0].tobytes() == chain.decode(encoded[0]).tobytes()
    assert all((out == 77).all() for out in outs[1:])


@pytest.mark.parametrize("name", ["stored-as-is", "cast-only"])
@pytest.mark.parametrize("change", [-1, 1], ids=["short", "long"])
def test_a_file_of_the_wrong_size_is_corrupt(name: str, change: int, tmp_path: Path) -> None:
    """A chain without a compressor stores chunks of one size: a file of another is corrupt,
    as its bytes are in memory."""
    chain = _chain(name)
    (encoded,) = chain.encode_batch(_data(FILE_CHAINS[name][0], 1))
    stored = bytes(memoryview(encoded).cast("B"))
    stored = stored[:change] if change < 0 else stored + b"\0"
    (tmp_path / "0").write_bytes(stored)
    for offset in (0, 16):
        _, outs = _outputs(chain, 1, offset)
        with pytest.raises(CorruptInputError, match="does not hold exactly"):
            chain.decode_files_into([tmp_path / "0"], outs)
    with pytest.raises(CorruptInputError):
        chain.decode_batch_into([stored], outs)


def test_a_corrupt_file_raises_our_codec_error(tmp_path: Path) -> None:
    chain = _chain("fused-blosc")
    (tmp_path / "0").write_bytes(b"\x02\x01not a chunk" * 3)
    _, outs = _outputs(chain, 1, 16)
    with pytest.raises(CorruptInputError):
        chain.decode_files_into([tmp_path / "0"], outs)


def test_a_file_that_cannot_be_read_raises_oserror_naming_it(tmp_path: Path) -> None:
    chain = _chain("stored-as-is")
    unreadable = tmp_path / ("x" * 300)  # longer than a file name may be
    _, outs = _outputs(chain, 1, 0)
    with pytest.raises(OSError, match="x" * 300) as caught:
        chain.decode_files_into([unreadable], outs)
    assert caught.value.errno == errno.ENAMETOOLONG
    assert caught.value.filename == str(unreadable)


def test_a_file_that_cannot_be_written_raises_oserror_and_leaves_nothing(tmp_path: Path) -> None:
    chain = _chain("fused-blosc")
    (tmp_path / "a-file").write_bytes(b"")
    with pytest.raises(FileExistsError):  # its directory cannot be made, as in zarr's store
        chain.encode_files(_data("float32", 1), [tmp_path / "a-file" / "0"])
    with pytest.raises(OSError, match="x" * 300) as caught:
        chain.encode_files(_data("float32", 1), [tmp_path / ("x" * 300)])
    assert caught.value.errno == errno.ENAMETOOLONG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_the_other_byte_order_alone_runs_in_rust(tmp_path: Path) -> None:
    chain = Chain.from_json([_bytes("big")], ChunkSpec(CHUNK, "int32"))  # a swap step only
    data = _data("int32", 2)
    paths = [tmp_path / "0", tmp_path / "1"]
    assert chain.encode_files(data, paths)
    assert paths[0].read_bytes() == data[0].astype(">i4").tobytes()
    whole, outs = _outputs(chain, 2, 16)
    assert chain.decode_files_into(paths, outs) == [True, True]
    assert whole.tobytes() == b"".join(d.tobytes() for d in data)


def test_chains_without_kernels_leave_files_to_the_python_path(tmp_path: Path) -> None:
    chain = Chain.from_json([_bytes()], ChunkSpec(CHUNK, "int32"))
    chain.__dict__["decode_plan"] = chain.__dict__["encode_plan"] = None  # as if no kernels
    _, outs = _outputs(chain, 1, 0)
    assert chain.decode_files_into([tmp_path / "0"], outs) is None
    assert not chain.encode_files(_data("int32", 1), [tmp_path / "0"])
    assert not (tmp_path / "0").exists()
