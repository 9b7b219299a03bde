"""The GPU path on a GPU: the device kernels and zarr-python's GPU mode, against the CPU.

Everything here needs CuPy and a CUDA device (``pip install "zarr-codecs[gpu]"``); without
them every test skips, saying why. ``scripts/gpu-check`` installs what these need and runs them
on a GPU machine.

- The device build of the array-codec kernels over every case the host build is checked on
  (``array_codec_cases``: every type pair, rounding, out-of-range rule, direction,
  ``scalar_map``, ``scale_offset``, the fused pair), bit for bit with the Rust CPU codecs.
- The constant-plan kernels that reads use, on large random arrays, against the CPU.
- nvCOMP: chunks written by our codecs, numcodecs and ``zstandard`` decompress on the device
  (or, where a CPU check refuses them to nvCOMP, on the CPU) to the original bytes.
- zarr-python's GPU mode with our pipeline: reads of every supported chain equal CPU reads,
  decoded on the device (``usage()["device_read"]``); writes of CuPy arrays read back equal.
"""

from __future__ import annotations

import gzip as python_gzip
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import zarr_codecs
import zarr_codecs.gpu
from array_codec_cases import (
    FUSED,
    PAIRS,
    SCALAR_MAPS,
    SCALE_OFFSET_TYPES,
    Case,
    cast_cases,
    compare,
    fused_cases,
    scalar_map_cases,
    scale_offset_cases,
)
from zarr_codec_cast_value import CastValue
from zarr_codec_gzip import Gzip
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import ChunkSpec, CorruptInputError, DeviceError, OutOfRangeError
from zarr_codec_zstd import Zstd
from zarr_codecs.gpu.plans import Step

REASON = zarr_codecs.gpu.why_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"needs a CUDA GPU: {REASON}")


def run_device(step: Step, source: np.ndarray[Any, Any]) -> tuple[bytes, np.ndarray[Any, Any]]:
    import cupy
    from zarr_codecs.gpu.kernels import run_dynamic

    out, refused = run_dynamic(step, cupy.asarray(source))
    return cupy.asnumpy(out).tobytes(), cupy.asnumpy(refused)


def check(cases: Iterator[Case]) -> None:
    for label, step, elements, cpu in cases:
        compare(run_device, step, elements, cpu, f"device: {label}")


# -- the kernels, case by case ---------------------------------------------------------------


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{s}-{t}" for s, t in PAIRS])
def test_cast_value_on_the_device_matches_the_cpu(source: str, target: str) -> None:
    check(cast_cases(source, target))


@pytest.mark.parametrize(("array_type", "codec_type", "mapping"), SCALAR_MAPS)
def test_scalar_map_on_the_device_matches_the_cpu(
    array_type: str, codec_type: str, mapping: dict[str, Any]
) -> None:
    check(scalar_map_cases(array_type, codec_type, mapping))


@pytest.mark.parametrize("name", SCALE_OFFSET_TYPES)
def test_scale_offset_on_the_device_matches_the_cpu(name: str) -> None:
    check(scale_offset_cases(name))


@pytest.mark.parametrize(("array_type", "codec_type", "offset", "scale", "oor"), FUSED)
def test_fused_pair_on_the_device_matches_the_cpu(
    array_type: str, codec_type: str, offset: float, scale: float, oor: Any
) -> None:
    check(fused_cases(array_type, codec_type, offset, scale, oor))


# -- the device codecs (constant-plan kernels) -------------------------------------------------


def users_floats(count: int, seed: int = 0) -> np.ndarray[Any, Any]:
    """float32 data shaped like users' data: a smooth field, NaN holes, out-of-range spikes
    of both signs (finite: infinities are in the kernel matrix above)."""
    rng = np.random.default_rng(seed)
    values = (np.sin(np.arange(count) / 500.0) * 3000 + rng.normal(0, 5, count)).astype("f4")
    values[rng.integers(0, count, count // 100)] = np.nan
    values[rng.integers(0, count, count // 1000)] = 1e30
    values[rng.integers(0, count, count // 1000)] = -1e30
    return values


#: NaN holes stored as the smallest int16 and read back as NaN, as users configure
#: ``cast_value`` for data with holes (the codec refuses NaN otherwise).
NAN_AS_MIN: dict[str, Any] = {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]}

DEVICE_CODECS = [
    pytest.param(
        CastValue("int16", out_of_range="clamp", scalar_map=NAN_AS_MIN), id="cast-int16-clamp"
    ),
    pytest.param(
        CastValue("uint8", "towards-zero", "wrap", scalar_map={"encode": [["NaN", 0]]}),
        id="cast-uint8-wrap",
    ),
    pytest.param(
        CastValue("int16", out_of_range="clamp", scalar_map={"encode": [["NaN", -32768]]}),
        id="cast-scalar-map",
    ),
    pytest.param(ScaleOffset(1000.5, 8.0), id="scale-offset"),
    pytest.param(
        ScaleOffset(-3.0, 10.0).fuse(
            CastValue("int16", out_of_range="clamp", scalar_map=NAN_AS_MIN)
        ),
        id="fused",
    ),
]


@pytest.mark.parametrize("codec", DEVICE_CODECS)
def test_device_codecs_equal_the_cpu_on_a_large_array(codec: Any) -> None:
    import cupy
    from zarr_codecs.gpu.codecs import on_device

    device = on_device(codec)
    host = users_floats(1 << 20)
    spec = ChunkSpec(host.shape, "float32")
    encoded = device.encode(cupy.asarray(host), spec)
    want = codec.encode(host, spec)
    assert cupy.asnumpy(encoded).tobytes() == want.tobytes()
    decoded = device.decode(encoded, spec)
    assert cupy.asnumpy(decoded).tobytes() == codec.decode(want, spec).tobytes()
    out = cupy.empty_like(decoded)
    assert device.decode_into(encoded, out, spec) == out.nbytes
    assert cupy.asnumpy(out).tobytes() == codec.decode(want, spec).tobytes()


def test_a_refused_element_raises_the_cpu_codecs_error() -> None:
    import cupy
    from zarr_codecs.gpu.codecs import on_device

    codec = CastValue("int8")
    values = np.array([1.0, 2.0, 1000.0, 5.0], dtype="f4")
    spec = ChunkSpec(values.shape, "float32")
    with pytest.raises(OutOfRangeError) as on_cpu:
        codec.encode(values, spec)
    with pytest.raises(OutOfRangeError) as on_gpu:
        on_device(codec).encode(cupy.asarray(values), spec)
    assert str(on_gpu.value) == str(on_cpu.value)


def test_device_codecs_refuse_host_memory() -> None:
    from zarr_codecs.gpu.codecs import on_device

    spec = ChunkSpec((4,), "float32")
    with pytest.raises(DeviceError, match="copy it to the device first"):
        on_device(CastValue("int8")).encode(np.zeros(4, "f4"), spec)


def test_small_float_types_are_computed_as_on_the_cpu() -> None:
    import cupy
    from zarr_codecs.gpu.codecs import on_device

    codec = ScaleOffset(1.5, 2.0)
    values = np.linspace(-100, 100, 1001).astype("f2")
    spec = ChunkSpec(values.shape, "float16")
    got = on_device(codec).encode(cupy.asarray(values), spec)
    assert cupy.asnumpy(got).tobytes() == codec.encode(values, spec).tobytes()


# -- nvCOMP ----------------------------------------------------------------------------------


def compressed_chunks() -> list[tuple[str, bytes, bytes]]:
    """(codec, compressed, original) from our codecs and the peers, as users have them."""
    raw = [users_floats(n, seed=n).tobytes() for n in (1, 1000, 1 << 20)]
    found: list[tuple[str, bytes, bytes]] = []
    for data in raw:
        for level in (1, 3, 19):
            found.append(("zstd", Zstd(level).encode(data), data))
        found.append(("zstd", Zstd(3, checksum=True).encode(data), data))
        found.append(("gzip", Gzip(5).encode(data), data))
        found.append(("gzip", python_gzip.compress(data, 6), data))
    numcodecs = pytest.importorskip("numcodecs")
    zstandard = pytest.importorskip("zstandard")
    data = raw[-1]
    found.append(("zstd", numcodecs.Zstd(5).encode(data), data))
    found.append(("gzip", numcodecs.GZip(1).encode(data), data))
    # A streamed frame states no content size: nvCOMP is not given it (the CPU decodes it).
    stream = zstandard.ZstdCompressor().compressobj()
    found.append(("zstd", stream.compress(data) + stream.flush(), data))
    return found


def test_nvcomp_decodes_what_our_codecs_and_the_peers_write() -> None:
    import cupy
    from zarr_codecs.gpu.decompress import decompress_batch

    chunks = compressed_chunks()
    for name in ("zstd", "gzip"):
        mine = [(data, original) for codec, data, original in chunks if codec == name]
        cpu = Zstd() if name == "zstd" else Gzip()
        outs = decompress_batch(name, [d for d, _ in mine], [len(o) for _, o in mine], cpu)
        for out, (_, original) in zip(outs, mine, strict=True):
            assert cupy.asnumpy(out).tobytes() == original


def test_truncated_chunks_raise_on_the_cpu_path() -> None:
    from zarr_codecs.gpu.decompress import decompress_batch

    data = users_floats(1000).tobytes()
    truncated = Zstd(3).encode(data)[:-7]
    with pytest.raises(CorruptInputError):
        decompress_batch("zstd", [truncated], [len(data)], Zstd())


# -- zarr-python's GPU mode --------------------------------------------------------------------

CHAINS = {
    "bytes": ([], None),
    "bytes-zstd": ([], "zstd"),
    "bytes-gzip": ([], "gzip"),
    "scale_offset-cast_value-bytes-zstd": (["scale_offset", "cast_value"], "zstd"),
    "cast_value-bytes-gzip": (["cast_value"], "gzip"),
    "scale_offset-bytes": (["scale_offset"], None),
}


def _make_array(store: Any, name: str) -> Any:
    import zarr
    from zarr.codecs import BytesCodec, GzipCodec, ZstdCodec

    array_codecs, compressor = CHAINS[name]
    filters: list[Any] = []
    for codec in array_codecs:
        if codec == "scale_offset":
            filters.append(
                {"name": "scale_offset", "configuration": {"offset": -3.0, "scale": 10.0}}
            )
        else:
            filters.append(
                {
                    "name": "cast_value",
                    "configuration": {
                        "data_type": "int16",
                        "out_of_range": "clamp",
                        "scalar_map": NAN_AS_MIN,
                    },
                }
            )
    compressors = {"zstd": [ZstdCodec(level=3)], "gzip": [GzipCodec(level=5)], None: []}[compressor]
    return zarr.create_array(
        store,
        shape=(1000, 700),
        chunks=(256, 256),
        dtype="float32",
        fill_value=np.nan,
        filters=filters,
        serializer=BytesCodec(),
        compressors=compressors,
    )


@pytest.mark.parametrize("name", list(CHAINS))
def test_zarr_gpu_mode_reads_equal_cpu_reads(name: str, tmp_path: Any) -> None:
    import cupy
    import zarr

    with zarr_codecs.install(pipeline=True):
        array = _make_array(zarr.storage.LocalStore(tmp_path / name), name)
        values = users_floats(1000 * 700).reshape(1000, 700)
        values[:, 600:] = np.nan  # chunks left all fill value: not stored
        array[...] = values
        selections = [
            (slice(None), slice(None)),
            (slice(10, 300), slice(250, 690)),
            (5, slice(None)),
        ]
        on_cpu = [array[s] for s in selections]
        zarr_codecs.reset_usage()
        with zarr.config.enable_gpu():
            on_gpu = [array[s] for s in selections]
        assert zarr_codecs.usage()["device_read"] > 0, zarr_codecs.usage()
        for cpu_values, gpu_values in zip(on_cpu, on_gpu, strict=True):
            assert isinstance(gpu_values, cupy.ndarray)
            assert cupy.asnumpy(gpu_values).tobytes() == np.asarray(cpu_values).tobytes()


def test_zarr_gpu_mode_writes_cupy_arrays(tmp_path: Any) -> None:
    import cupy
    import zarr

    with zarr_codecs.install(pipeline=True):
        array = _make_array(zarr.storage.LocalStore(tmp_path), "scale_offset-cast_value-bytes-zstd")
        values = users_floats(1000 * 700).reshape(1000, 700)
        with zarr.config.enable_gpu():
            array[...] = cupy.asarray(values)
            array[10:20, 30:40] = cupy.full((10, 10), 7.5, dtype=cupy.float32)
        expected = _make_array(zarr.storage.MemoryStore(), "scale_offset-cast_value-bytes-zstd")
        expected[...] = values
        expected[10:20, 30:40] = np.full((10, 10), 7.5, dtype="f4")
        assert np.asarray(array[...]).tobytes() == np.asarray(expected[...]).tobytes()


def test_device_bytes_codecs_decode_into_device_memory() -> None:
    import cupy
    from zarr_codecs.gpu.codecs import on_device

    data = users_floats(1 << 18).tobytes()
    for codec in (Zstd(3), Gzip(5)):
        device = on_device(codec)
        encoded = device.encode(data)
        assert cupy.asnumpy(device.decode(encoded)).tobytes() == data
        out = cupy.empty(len(data), dtype=cupy.uint8)
        assert device.decode_into(encoded, out) == len(data)
        assert cupy.asnumpy(out).tobytes() == data
        batch = device.decode_batch([encoded, codec.encode(data[:1000])])
        assert [cupy.asnumpy(b).tobytes() for b in batch] == [data, data[:1000]]


def test_other_device_arrays_are_taken_without_a_copy() -> None:
    """Outputs of other libraries, through the CUDA array interface (PyTorch here)."""
    torch = pytest.importorskip("torch")
    import cupy
    from zarr_codecs.gpu.codecs import on_device

    codec = CastValue("int16", out_of_range="clamp", scalar_map=NAN_AS_MIN)
    values = users_floats(4096)
    spec = ChunkSpec(values.shape, "float32")
    encoded = codec.encode(values, spec)
    out = torch.empty(4096, dtype=torch.float32, device="cuda")
    on_device(codec).decode_into(cupy.asarray(encoded), out, spec)
    assert out.cpu().numpy().tobytes() == codec.decode(encoded, spec).tobytes()
