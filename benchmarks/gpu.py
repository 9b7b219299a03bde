"""``python -m benchmarks.gpu``: the GPU path against our CPU path and zarr-python's GPU mode.

Needs a CUDA GPU, CuPy and nvCOMP (``pip install "zarr-codecs[gpu]"``; ``scripts/gpu-check``
runs it on a GPU machine). In one process, on one array of float32 data shaped like users'
data (a smooth field with NaN holes and out-of-range spikes), 1 GiB in chunks of 4 MiB by
default, stored in a ``LocalStore``:

1. Whole-array reads, for ``[scale_offset, cast_value, bytes, zstd]`` and ``[bytes, gzip]``:
   our GPU path (``install(pipeline=True)`` and ``zarr.config.enable_gpu()``: decoded on the
   device into CuPy), our CPU path (the same pipeline into numpy) and zarr-python's GPU mode
   (its own pipeline and codecs on the CPU, then a copy to the device). Best of ``--rounds``,
   the paths interleaved; the ratios say how many times faster the GPU path is.
2. The array codecs alone on the device (``[scale_offset, cast_value]`` decoding int16 to
   float32 and encoding back, and ``cast_value`` alone) as a fraction of the memory bandwidth
   a CuPy device-to-device copy reaches in the same run (bytes read plus bytes written).
3. nvCOMP alone: the batch decompression of the zstd and gzip chunks, in GB/s of output.

Never asserts a time: it prints a table (and ``--json`` writes the figures).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

MiB = 1 << 20

CHAINS: dict[str, tuple[list[Any], str]] = {
    "[scale_offset, cast_value, bytes, zstd]": (
        [
            {"name": "scale_offset", "configuration": {"offset": 0.0, "scale": 10.0}},
            {
                "name": "cast_value",
                "configuration": {
                    "data_type": "int16",
                    "out_of_range": "clamp",
                    "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]},
                },
            },
        ],
        "zstd",
    ),
    "[bytes, gzip]": ([], "gzip"),
}


def users_data(elements: int) -> np.ndarray[Any, Any]:
    """float32: a smooth field (values within int16 after scaling by 10), NaN holes,
    out-of-range spikes."""
    rng = np.random.default_rng(0)
    period = np.sin(np.arange(1 << 16, dtype=np.float32) / 700.0) * 3000
    values = np.resize(period, elements)
    values += rng.normal(0, 3, elements).astype(np.float32)
    values[rng.integers(0, elements, elements // 200)] = np.nan
    values[rng.integers(0, elements, elements // 5000)] = 1e9
    return values


def _sync() -> None:
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def best_of(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Seconds of each call: the best of ``rounds``, interleaved (a noisy neighbour slows all
    of a round alike); the device synchronised before the clock stops."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(rounds):
        for name, call in calls.items():
            _sync()
            start = time.perf_counter()
            call()
            _sync()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def make_array(path: Path, chain: str, shape: tuple[int, int], chunks: tuple[int, int]) -> Any:
    import zarr
    from zarr.codecs import BytesCodec, GzipCodec, ZstdCodec

    filters, compressor = CHAINS[chain]
    compressors = [ZstdCodec(level=0)] if compressor == "zstd" else [GzipCodec(level=5)]
    return zarr.create_array(
        zarr.storage.LocalStore(path),
        shape=shape,
        chunks=chunks,
        dtype="float32",
        fill_value=np.nan,
        filters=filters,
        serializer=BytesCodec(),
        compressors=compressors,
    )


def read_table(
    root: Path, data: np.ndarray[Any, Any], chunks: tuple[int, int], rounds: int
) -> dict[str, dict[str, float]]:
    import cupy
    import zarr
    import zarr_codecs

    results: dict[str, dict[str, float]] = {}
    for chain in CHAINS:
        path = root / chain.strip("[]").replace(", ", "-")
        with zarr_codecs.install(pipeline=True):
            array = make_array(path, chain, data.shape, chunks)
            array[...] = data
            expected = array[...]

            def ours_gpu(array: Any = array) -> Any:
                with zarr.config.enable_gpu():
                    return array[...]

            def ours_cpu(array: Any = array) -> Any:
                return array[...]

            zarr_codecs.reset_usage()
            got = ours_gpu()
            assert isinstance(got, cupy.ndarray), type(got)
            assert cupy.asnumpy(got).tobytes() == np.asarray(expected).tobytes()
            device_chunks = zarr_codecs.usage()["device_read"]
            ours = best_of({"ours GPU": ours_gpu, "ours CPU": ours_cpu}, rounds)
        plain = zarr.open_array(zarr.storage.LocalStore(path), mode="r")  # zarr's own

        def zarr_gpu(plain: Any = plain) -> Any:
            with zarr.config.enable_gpu():
                return plain[...]

        try:
            theirs = best_of({"zarr-python GPU mode": zarr_gpu}, rounds)
        except TypeError as err:  # zarr-python's own cast_value takes no device arrays
            print(f"zarr-python's GPU mode cannot read {chain}: {err}", file=sys.stderr)
            theirs = {"zarr-python GPU mode": float("nan")}
        stored = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        results[chain] = {
            **ours,
            **theirs,
            "stored MiB": stored / MiB,
            "device chunks": device_chunks,
        }
    return results


def bandwidth_table(data: np.ndarray[Any, Any], rounds: int) -> dict[str, float]:
    """GB/s (read + written) of a device copy and of the array codecs on the device."""
    import cupy
    from zarr_codec_cast_value import CastValue
    from zarr_codec_scale_offset import ScaleOffset
    from zarr_codec_shapes import ChunkSpec
    from zarr_codecs.gpu.codecs import on_device

    source = cupy.asarray(data)
    copy = cupy.empty_like(source)
    spec = ChunkSpec(data.shape, "float32")
    cast = CastValue("int16", out_of_range="clamp", scalar_map={"encode": [["NaN", -32768]]})
    fused = on_device(ScaleOffset(0.0, 10.0).fuse(cast))
    alone = on_device(cast)
    encoded = fused.encode(source, spec)
    decoded = cupy.empty_like(source)
    n = data.size
    seconds = best_of(
        {
            "device copy": lambda: cupy.copyto(copy, source),
            "fused decode": lambda: fused.decode_into(encoded, decoded, spec),
            "fused encode": lambda: fused.encode_into(source, encoded, spec),
            "cast_value encode": lambda: alone.encode_into(source, encoded, spec),
        },
        rounds,
    )
    moved = {
        "device copy": 8 * n,
        "fused decode": 6 * n,
        "fused encode": 6 * n,
        "cast_value encode": 6 * n,
    }
    return {name: moved[name] / seconds[name] / 1e9 for name in seconds}


def nvcomp_table(root: Path, rounds: int) -> dict[str, float]:
    """nvCOMP's batch decompression of the stored chunks alone, GB/s of decoded output."""
    from zarr_codec_gzip import Gzip
    from zarr_codec_zstd import Zstd
    from zarr_codecs.gpu.decompress import decompress_batch, gzip_decoded_size
    from zarr_codecs.gpu.decompress import zstd_single_frame_size as zstd_size

    found: dict[str, float] = {}
    for name, folder, cpu, size_of in (
        ("zstd", "scale_offset-cast_value-bytes-zstd", Zstd(), zstd_size),
        ("gzip", "bytes-gzip", Gzip(), gzip_decoded_size),
    ):
        files = sorted(p for p in (root / folder).rglob("*") if p.is_file())
        stored = [f.read_bytes() for f in files if f.name != "zarr.json"]
        chunks = [c for c in stored if size_of(c)]
        sizes = [int(size_of(c) or 0) for c in chunks]

        def decode(
            name: str = name, chunks: Any = chunks, sizes: Any = sizes, cpu: Any = cpu
        ) -> Any:
            return decompress_batch(name, chunks, sizes, cpu)

        seconds = best_of({name: decode}, rounds)
        found[f"nvCOMP {name} ({len(chunks)} chunks)"] = sum(sizes) / seconds[name] / 1e9
    return found


def markdown(
    reads: dict[str, dict[str, float]], bandwidth: dict[str, float], nvcomp: dict[str, float]
) -> str:
    lines = [
        "| chain | stored MiB | ours GPU (s) | ours CPU (s) | zarr-python GPU mode (s) |"
        " GPU vs our CPU | GPU vs zarr GPU mode |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for chain, row in reads.items():
        gpu, cpu, theirs = row["ours GPU"], row["ours CPU"], row["zarr-python GPU mode"]
        if theirs != theirs:  # NaN: zarr-python's GPU mode cannot read the chain
            their_time, their_ratio = "refused", "-"
        else:
            their_time, their_ratio = f"{theirs:.3f}", f"{theirs / gpu:.2f}x"
        lines.append(
            f"| `{chain}` | {row['stored MiB']:.0f} | {gpu:.3f} | {cpu:.3f} | {their_time} |"
            f" {cpu / gpu:.2f}x | {their_ratio} |"
        )
    copy = bandwidth["device copy"]
    lines += [
        "",
        "| on the device | GB/s (read + written) | of the copy's |",
        "| --- | --- | --- |",
    ]
    for name, value in bandwidth.items():
        lines.append(f"| {name} | {value:.0f} | {value / copy:.0%} |")
    lines += ["", "| nvCOMP alone | GB/s decoded |", "| --- | --- |"]
    lines += [f"| {name} | {value:.1f} |" for name, value in nvcomp.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024, help="array size (MiB)")
    parser.add_argument("--chunk-mib", type=int, default=4, help="chunk size (MiB)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    import zarr_codecs.gpu

    reason = zarr_codecs.gpu.why_unavailable()
    if reason is not None:
        sys.exit(f"benchmarks.gpu needs a CUDA GPU: {reason}")
    import cupy

    side = 1024  # columns; a 4 MiB float32 chunk is 1024 x 1024
    rows = args.size_mib * MiB // 4 // side
    chunk_rows = args.chunk_mib * MiB // 4 // side
    data = users_data(rows * side).reshape(rows, side)
    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"# {device}: {args.size_mib} MiB float32, chunks of {args.chunk_mib} MiB", flush=True)
    root = Path(tempfile.mkdtemp(prefix="zarr-codecs-gpu-"))
    try:
        reads = read_table(root, data, (chunk_rows, side), args.rounds)
        bandwidth = bandwidth_table(data, args.rounds)
        nvcomp = nvcomp_table(root, args.rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(markdown(reads, bandwidth, nvcomp))
    if args.json is not None:
        figures = {"device": device, "reads": reads, "bandwidth": bandwidth, "nvcomp": nvcomp}
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
