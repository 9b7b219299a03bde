"""``python -m benchmarks.zstd_crc32c``: zstd and crc32c, ours against the peers, interleaved.

Four tables, each as ratios over the peer (above 1: ours is faster), in one process:

1. zstd on the four 16 MiB datasets at levels -5/0/1/3/9: compressed size, encode and decode
   against numcodecs (``decode_into`` too), zstandard's throughput beside them.
2. zstd one chunk at a time, 1 KiB to 1 MiB: what a pipeline pays per chunk.
3. zstd over 64 chunks of 256 KiB: numcodecs' loop against ``decode_batch`` (new ``bytes``)
   and ``decode_batch_into`` (the caller's arrays), on 1 and 2 threads.
4. CRC-32C, 64 B to 16 MiB: ours against the crc32c package and google-crc32c.

Each cell is the best of several rounds taking every implementation in turn, so a noisy
neighbour slows both sides of a ratio alike rather than one of them. Quote figures only from
release wheels (``maturin build --release``); the development wheels keep debug assertions.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from zarr_codecs_bench import datasets

from benchmarks.interleaved import best_of

MiB = 1 << 20


def _zstd_calls(data: np.ndarray, level: int) -> tuple[dict[str, Any], bytes, bytes]:
    """numcodecs' and our zstd at ``level`` on ``data``, each way (and ours into a buffer),
    as calls to time; our frame and numcodecs' (the same bytes)."""
    import numcodecs
    from zarr_codec_zstd import Zstd

    ours, theirs = Zstd(level), numcodecs.Zstd(level=level)
    frame, their_frame = ours.encode(data), bytes(theirs.encode(data))
    out = np.empty(data.nbytes, np.uint8)
    calls = {
        "enc numcodecs": lambda: theirs.encode(data),
        "enc ours": lambda: ours.encode(data),
        "dec numcodecs": lambda: theirs.decode(their_frame),
        "dec ours": lambda: ours.decode(frame),
        "dec into": lambda: ours.decode_into(frame, out),
    }
    return calls, frame, their_frame


def _zstd_level_row(name: str, data: np.ndarray, level: int, rounds: int) -> str:
    import zstandard

    calls, frame, their_frame = _zstd_calls(data, level)
    compressor = zstandard.ZstdCompressor(level=level)
    decompressor = zstandard.ZstdDecompressor()
    raw = data.tobytes()
    calls["enc zstandard"] = lambda: compressor.compress(raw)
    calls["dec zstandard"] = lambda: decompressor.decompress(frame)
    t = best_of(calls, rounds, 1)
    mb = data.nbytes / 1e6
    return (
        f"| {name} | {level} | {len(frame) / len(their_frame):.4f} "
        f"| {mb / t['enc numcodecs']:,.0f} | {mb / t['enc ours']:,.0f} "
        f"| {t['enc numcodecs'] / t['enc ours']:.2f}x "
        f"| {mb / t['dec numcodecs']:,.0f} | {mb / t['dec ours']:,.0f} "
        f"| {t['dec numcodecs'] / t['dec ours']:.2f}x "
        f"| {t['dec numcodecs'] / t['dec into']:.2f}x "
        f"| {mb / t['enc zstandard']:,.0f} / {mb / t['dec zstandard']:,.0f} |"
    )


def zstd_levels(rounds: int, levels: list[int]) -> None:
    print(
        "| dataset | level | size ours/numcodecs | encode MB/s numcodecs | ours | ratio "
        "| decode MB/s numcodecs | ours | ratio | into ratio | zstandard enc/dec MB/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in datasets.DATASETS:
        data = datasets.load(name, 16 * MiB)
        for level in levels:
            print(_zstd_level_row(name, data, level, rounds), flush=True)


def _zstd_chunk_row(chunk: np.ndarray, level: int, rounds: int) -> str:
    calls, _, _ = _zstd_calls(chunk, level)
    t = best_of(calls, rounds, max(20, 4 * MiB // chunk.nbytes))
    return (
        f"| {chunk.nbytes:,} B | {level} | {t['enc numcodecs'] * 1e6:.1f} "
        f"| {t['enc ours'] * 1e6:.1f} | {t['enc numcodecs'] / t['enc ours']:.2f}x "
        f"| {t['dec numcodecs'] * 1e6:.1f} | {t['dec ours'] * 1e6:.1f} "
        f"| {t['dec numcodecs'] / t['dec ours']:.2f}x | {t['dec numcodecs'] / t['dec into']:.2f}x |"
    )


def zstd_small_chunks(rounds: int) -> None:
    data = datasets.load("float32_field", 16 * MiB).reshape(-1).view(np.uint8)
    print(
        "\n| chunk | level | encode µs numcodecs | ours | ratio "
        "| decode µs numcodecs | ours | ratio | into ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in (1 << 10, 64 << 10, MiB):
        for level in (0, 3):
            print(_zstd_chunk_row(data[:size].copy(), level, rounds), flush=True)


def _zstd_batch_row(name: str, data: np.ndarray, rounds: int) -> str:
    import numcodecs
    from zarr_codec_zstd import Zstd

    chunks = [bytes(part) for part in np.array_split(data.reshape(-1).view(np.uint8), 64)]
    ours, theirs = Zstd(3), numcodecs.Zstd(level=3)
    frames = ours.encode_batch(chunks)
    outs = [np.empty(len(c), np.uint8) for c in chunks]
    t = best_of(
        {
            "loop": lambda: [theirs.decode(f) for f in frames],
            "batch 1": lambda: ours.decode_batch(frames, threads=1),
            "batch 2": lambda: ours.decode_batch(frames, threads=2),
            "into 1": lambda: ours.decode_batch_into(frames, outs, threads=1),
            "into 2": lambda: ours.decode_batch_into(frames, outs, threads=2),
            "enc loop": lambda: [theirs.encode(c) for c in chunks],
            "enc 2": lambda: ours.encode_batch(chunks, threads=2),
        },
        rounds,
        1,
    )
    loop = t["loop"]
    return (
        f"| {name} | {loop * 1e3:.1f} | {loop / t['batch 1']:.2f}x / {loop / t['batch 2']:.2f}x "
        f"| {loop / t['into 1']:.2f}x / {loop / t['into 2']:.2f}x "
        f"| {t['enc loop'] / t['enc 2']:.2f}x |"
    )


def zstd_batches(rounds: int) -> None:
    print(
        "\n| dataset (64 x 256 KiB, level 3) | numcodecs loop ms | decode_batch 1 / 2 threads "
        "| decode_batch_into 1 / 2 threads | encode_batch 2 threads |"
    )
    print("|---|---:|---:|---:|---:|")
    for name in datasets.DATASETS:
        print(_zstd_batch_row(name, datasets.load(name, 16 * MiB), rounds), flush=True)


def _crc32c_row(data: bytes, rounds: int) -> str:
    import crc32c
    import google_crc32c
    from zarr_codec_crc32c import checksum

    size = len(data)
    t = best_of(
        {
            "ours": lambda: checksum(data),
            "crc32c": lambda: crc32c.crc32c(data),
            "google": lambda: google_crc32c.value(data),
        },
        rounds,
        max(5, 16 * MiB // size),
    )
    return (
        f"| {size:,} | {size / t['ours'] / 1e9:.2f} | {size / t['crc32c'] / 1e9:.2f} "
        f"| {t['crc32c'] / t['ours']:.2f}x | {size / t['google'] / 1e9:.2f} "
        f"| {t['google'] / t['ours']:.2f}x |"
    )


def crc32c_sizes(rounds: int) -> None:
    from zarr_codec_crc32c import ENGINE

    print(f"\nours: {ENGINE}\n")
    print("| bytes | ours GB/s | crc32c package GB/s | ratio | google-crc32c GB/s | ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(1)
    for size in (64, 4096, 64 << 10, MiB, 16 * MiB):
        data = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        print(_crc32c_row(data, rounds), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds per cell")
    parser.add_argument("--levels", default="-5,0,1,3,9", help="zstd levels of table 1")
    parser.add_argument(
        "--only", choices=("levels", "small", "batch", "crc32c"), help="one table only"
    )
    args = parser.parse_args()
    tables: dict[str, Callable[[], None]] = {
        "levels": lambda: zstd_levels(args.rounds, [int(x) for x in args.levels.split(",")]),
        "small": lambda: zstd_small_chunks(args.rounds),
        "batch": lambda: zstd_batches(args.rounds),
        "crc32c": lambda: crc32c_sizes(args.rounds),
    }
    for name, table in tables.items():
        if args.only in (None, name):
            table()


if __name__ == "__main__":
    main()
