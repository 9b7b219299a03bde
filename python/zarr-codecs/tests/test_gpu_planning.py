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
import sys

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
