"""The CPU side of the GPU path, which decides what the device gets: no GPU needed.

- Which chunks nvCOMP may be given: only a zstd chunk that is exactly one frame stating its
  decoded size, whose blocks walk to the end (nvCOMP assumes valid input), and only a gzip
  chunk whose header and trailer say so. Everything else is decoded by the CPU codec.
- Which chains have a device plan: ``[array codecs..., bytes, zstd|gzip]`` of ours; anything
  else is left to zarr-python's GPU mode.
- The steps' C rendering: exact hexadecimal floats, 64-bit constants, a map per step.
"""

from __future__ import annotations

import gzip as python_gzip
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from zarr_codec_blosc import Blosc
from zarr_codec_cast_value import CastValue
from zarr_codec_crc32c import Crc32c
from zarr_codec_gzip import Gzip
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import BytesCodec, ChunkSpec, DataType
from zarr_codec_zstd import Zstd
from zarr_codecs.gpu.decompress import gzip_decoded_size, zstd_single_frame_size
from zarr_codecs.gpu.plans import Step, cast_step, scale_offset_step
from zarr_codecs.gpu.reads import plan_for

DATA = np.sin(np.arange(100_000) / 50.0).astype("f4").tobytes()


@pytest.mark.parametrize("size", [0, 1, 255, 256, 257, 65_535, 65_536, 65_792, len(DATA)])
@pytest.mark.parametrize("level", [-5, 1, 3, 19])
@pytest.mark.parametrize("checksum", [False, True])
def test_our_zstd_frames_are_recognised_with_their_size(
    size: int, level: int, checksum: bool
) -> None:
    data = DATA[:size]
    assert zstd_single_frame_size(Zstd(level, checksum).encode(data)) == size


def test_frames_nvcomp_must_not_get_are_refused() -> None:
    frame = Zstd(3).encode(DATA)
    assert zstd_single_frame_size(frame + frame) is None  # two frames
    assert zstd_single_frame_size(frame[:-1]) is None  # truncated
    assert zstd_single_frame_size(frame + b"\0") is None  # trailing bytes
    assert zstd_single_frame_size(b"\0" + frame[1:]) is None  # not zstd
    assert zstd_single_frame_size(b"") is None
    assert zstd_single_frame_size(frame[:5]) is None
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"
    assert zstd_single_frame_size(skippable + frame) is None
    dictionary = bytearray(frame)
    dictionary[4] |= 1  # a dictionary id flag
    assert zstd_single_frame_size(bytes(dictionary)) is None


@pytest.mark.skipif(importlib.util.find_spec("zstandard") is None, reason="needs zstandard")
def test_streamed_frames_without_a_content_size_are_left_to_the_cpu() -> None:
    import zstandard

    stream = zstandard.ZstdCompressor().compressobj()
    streamed = stream.compress(DATA) + stream.flush()
    assert Zstd().decode(streamed) == DATA
    assert zstd_single_frame_size(streamed) is None
    sized = zstandard.ZstdCompressor(write_content_size=True).compress(DATA)
    assert zstd_single_frame_size(sized) == len(DATA)


def test_gzip_chunks_state_their_size() -> None:
    assert gzip_decoded_size(Gzip(5).encode(DATA)) == len(DATA)
    assert gzip_decoded_size(python_gzip.compress(DATA)) == len(DATA)
    assert gzip_decoded_size(b"\x78\x9c" + b"\0" * 20) is None  # zlib, not gzip
    flagged = bytearray(Gzip(5).encode(DATA))
    flagged[3] = 0xE0  # reserved flags
    assert gzip_decoded_size(bytes(flagged)) is None
    assert gzip_decoded_size(b"\x1f\x8b") is None


SPEC = ChunkSpec((256, 256), "float32")


def test_supported_chains_have_a_device_plan() -> None:
    so, cast = ScaleOffset(-3.0, 10.0), CastValue("int16", out_of_range="clamp")
    plan = plan_for([so, cast, BytesCodec(), Zstd(3)], SPEC)
    assert plan is not None
    assert plan.compressor == "zstd"
    assert plan.stored.data_type == DataType.from_name("int16")
    assert plan.stored_bytes == 256 * 256 * 2
    assert len(plan.array_codecs) == 1  # the pair fused into one kernel
    assert plan_for([BytesCodec(), Gzip(5)], SPEC) is not None
    assert plan_for([BytesCodec()], SPEC) is not None
    assert plan_for([cast, BytesCodec()], SPEC) is not None


def test_other_chains_are_left_to_zarr() -> None:
    assert plan_for([BytesCodec(), Blosc()], SPEC) is None  # no nvCOMP blosc
    assert plan_for([BytesCodec(), Crc32c()], SPEC) is None
    assert plan_for([BytesCodec(), Zstd(), Gzip()], SPEC) is None
    assert plan_for([BytesCodec(endian="big"), Zstd()], SPEC) is None
    # CuPy has no bfloat16 arrays to decode into (stored bfloat16 is fine: kernels read bits).
    assert plan_for([BytesCodec()], ChunkSpec((4, 4), "bfloat16")) is None
    assert plan_for([CastValue("bfloat16"), BytesCodec()], SPEC) is not None
    assert plan_for([Zstd()], SPEC) is None


def test_steps_render_exactly_for_nvrtc() -> None:
    f32 = DataType.from_name("float32")
    step = Step(
        2,
        cast=cast_step(CastValue("uint64", out_of_range="wrap"), f32, "encode"),
        affine=scale_offset_step(ScaleOffset(0.1, 3.0), f32, True),
    )
    text = step.defines()
    assert "#define ZC_PLAN_STEP {2, 4, 8, " in text
    assert (0.1).hex() not in text  # float32 parameters: 0.1 rounded to float32 first
    assert float(np.float32(0.1)).hex() in text
    mapped = cast_step(
        CastValue("uint64", scalar_map={"encode": [["NaN", 18446744073709551615]]}), f32, "encode"
    )
    defines = Step(0, cast=mapped).defines()
    assert "#define ZC_PLAN_MAP_VALUES {18446744073709551615ull}" in defines
    assert "#define ZC_PLAN_MAP_KEYS {2143289344}" in defines  # float32 NaN, 0x7fc00000


def test_nothing_of_the_gpu_path_is_imported_without_being_asked() -> None:
    """``import zarr_codecs`` and planning import neither CuPy nor nvCOMP."""
    code = (
        "import sys, zarr_codecs, zarr_codecs.gpu.reads, zarr_codecs.gpu.plans;"
        "assert 'cupy' not in sys.modules and 'nvidia.nvcomp' not in sys.modules"
    )
    import subprocess

    subprocess.run([sys.executable, "-c", code], check=True)


def test_device_codecs_have_the_json_of_what_they_wrap() -> None:
    """``on_device`` needs no GPU to be built; its JSON is the wrapped codec's, and the fused
    pair's is the list of its two codecs' JSON (it had none: AttributeError)."""
    from zarr_codecs.gpu import on_device

    so, cast = ScaleOffset(-3.0, 10.0), CastValue("int16", out_of_range="clamp")
    assert on_device(so).to_json(3) == so.to_json(3)
    assert on_device(cast).to_json(3) == cast.to_json(3)
    assert on_device(Zstd(3)).to_json(3) == Zstd(3).to_json(3)
    fused = on_device(so.fuse(cast))
    assert fused.to_json(3) == [so.to_json(3), cast.to_json(3)]
    again = on_device(ScaleOffset(-3.0, 10.0).fuse(CastValue("int16", out_of_range="clamp")))
    assert fused == again and hash(fused) == hash(again)
    assert fused != on_device(so.fuse(CastValue("int8")))


def test_the_ptx_folder_lasts_the_process_and_is_removed_at_its_exit(tmp_path: Path) -> None:
    """The kernels' PTX files go to one temporary folder per process, kept while the process
    runs (CuPy may read a file after ``load_module``) and removed when it exits (each process
    once left a folder behind in the temporary directory). A forked child makes its own and
    leaves its parent's alone. Needs no CuPy."""
    import subprocess

    code = """
import os, sys
from zarr_codecs.gpu import kernels
folder = kernels._ptx_folder()
assert folder.is_dir() and kernels._ptx_folder() == folder
(folder / "kernel.ptx").write_text("ptx")
pid = os.fork()
if pid == 0:  # the child: its own folder, removed at its exit; the parent's untouched
    print(kernels._ptx_folder(), flush=True)
    sys.exit(0)
os.waitpid(pid, 0)
assert (folder / "kernel.ptx").is_file(), "the child removed its parent's folder"
print(folder)
"""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    child, parent = (Path(line) for line in run.stdout.split())
    assert child != parent and child.parent == parent.parent == tmp_path
    assert list(tmp_path.iterdir()) == [], "a PTX folder was left behind"
