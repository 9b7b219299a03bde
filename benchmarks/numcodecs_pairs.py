"""``python -m benchmarks.numcodecs_pairs``: our codecs for numcodecs' ids against numcodecs'
own, interleaved in one process, a family at a time (``--family``).

For each codec of the family (``checksums``: crc32, adler32, fletcher32, jenkins_lookup3;
``lz4``: accelerations 1 and 10; ``bz2``: levels 1 and 9; ``lzma``: xz at presets 1 and 6;
``filters``: shuffle of 4 and 8 bytes, delta, bitround, quantize and astype on float32;
``integer-filters``: delta and astype on int32 counts; ``bit-filters``: packbits on a
boolean mask; ``pcodec``: levels 3 and 8; ``zfpy``: reversible, fixed accuracy and fixed
rate), on the family's datasets (a float32 field, smooth with
noise, as users' chunks are; for the compressors also data they compress well) cut to 4 KiB,
64 KiB, 1 MiB and 16 MiB: encode and decode, ours against numcodecs' class for the same
configuration (above 1: ours is faster), and ours decoding into a caller's buffer, with the
encoded size. Every encoded chunk is checked to be numcodecs' bytes before it is timed.

Each cell is the best of several rounds taking every implementation in turn, so a noisy
neighbour slows both sides of a ratio alike. Quote figures only from release wheels
(``maturin build --release``); the development wheels keep debug assertions.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from zarr_codecs_bench import datasets

from benchmarks.interleaved import best_of

KiB, MiB = 1 << 10, 1 << 20
SIZES = (4 * KiB, 64 * KiB, MiB, 16 * MiB)


def _checksums() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_checksums import numcodecs as ours

    return [
        ("crc32", ours.CRC32(), numcodecs.CRC32()),
        ("adler32", ours.Adler32(), numcodecs.Adler32()),
        ("fletcher32", ours.Fletcher32(), numcodecs.Fletcher32()),
        ("jenkins_lookup3", ours.JenkinsLookup3(), numcodecs.JenkinsLookup3()),
    ]


def _lz4() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_lz4.numcodecs import LZ4

    return [(f"lz4 {a}", LZ4(a), numcodecs.LZ4(a)) for a in (1, 10)]


def _bz2() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_bz2.numcodecs import BZ2

    return [(f"bz2 {level}", BZ2(level), numcodecs.BZ2(level)) for level in (1, 9)]


def _lzma() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_lzma.numcodecs import LZMA

    return [
        (f"lzma {preset}", LZMA(preset=preset), numcodecs.LZMA(preset=preset)) for preset in (1, 6)
    ]


def _filters() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_filters import numcodecs as ours

    return [
        *((f"shuffle {n}", ours.Shuffle(n), numcodecs.Shuffle(n)) for n in (4, 8)),
        ("delta <f4", ours.Delta("<f4"), numcodecs.Delta("<f4")),
        ("bitround 10", ours.BitRound(10), numcodecs.BitRound(10)),
        ("quantize 3", ours.Quantize(3, "<f4"), numcodecs.Quantize(3, "<f4")),
        ("astype <f2", ours.AsType("<f2", "<f4"), numcodecs.AsType("<f2", "<f4")),
    ]


def _integer_filters() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_filters import numcodecs as ours

    return [
        ("delta <i4", ours.Delta("<i4"), numcodecs.Delta("<i4")),
        ("delta <i4 as <i2", ours.Delta("<i4", "<i2"), numcodecs.Delta("<i4", "<i2")),
        ("astype <i8", ours.AsType("<i8", "<i4"), numcodecs.AsType("<i8", "<i4")),
    ]


def _bit_filters() -> list[tuple[str, Any, Any]]:
    import numcodecs
    from zarr_codec_filters.numcodecs import PackBits

    return [("packbits", PackBits(), numcodecs.PackBits())]


def _pcodec() -> list[tuple[str, Any, Any]]:
    from numcodecs.pcodec import PCodec as Theirs
    from zarr_codec_pcodec.numcodecs import PCodec

    return [(f"pcodec {level}", PCodec(level), Theirs(level)) for level in (3, 8)]


def _zfpy() -> list[tuple[str, Any, Any]]:
    from numcodecs.zfpy import ZFPY as Theirs
    from zarr_codec_zfpy.numcodecs import ZFPY

    configs: list[tuple[str, dict[str, Any]]] = [
        ("zfpy reversible", {}),
        ("zfpy tolerance 0.01", {"mode": 4, "tolerance": 0.01}),
        ("zfpy rate 16", {"mode": 2, "rate": 16}),
    ]
    return [(name, ZFPY(**config), Theirs(**config)) for name, config in configs]


#: For each family: (name, ours, numcodecs') for every codec, in numcodecs' configurations,
#: and the datasets it is timed on (compressors on data they compress, and data they do not).
FAMILIES: dict[str, tuple[Callable[[], list[tuple[str, Any, Any]]], tuple[str, ...]]] = {
    "checksums": (_checksums, ("float32_field",)),
    "lz4": (_lz4, ("float32_field", "int32_counts", "uint8_image")),
    "bz2": (_bz2, ("float32_field", "int32_counts")),
    "lzma": (_lzma, ("float32_field", "int32_counts")),
    "filters": (_filters, ("float32_field",)),
    "integer-filters": (_integer_filters, ("int32_counts",)),
    "bit-filters": (_bit_filters, ("bool_mask",)),
    "pcodec": (_pcodec, ("float32_field", "int32_counts")),
    "zfpy": (_zfpy, ("float32_field", "int32_counts")),
}


def _row(name: str, ours: Any, theirs: Any, data: np.ndarray, rounds: int, dataset: str) -> str:
    encoded = bytes(theirs.encode(data))
    if bytes(ours.encode(data)) != encoded:
        raise AssertionError(f"{name}: ours and numcodecs' bytes differ at {data.nbytes} bytes")
    out = np.empty_like(data)
    calls = {
        "enc numcodecs": lambda: theirs.encode(data),
        "enc ours": lambda: ours.encode(data),
        "dec numcodecs": lambda: theirs.decode(encoded),
        "dec ours": lambda: ours.decode(encoded),
        "dec into": lambda: ours.decode(encoded, out=out),
    }
    inner = max(1, (4 * MiB) // data.nbytes)
    t = best_of(calls, rounds, inner)
    gbs = data.nbytes / 1e9
    return (
        f"| {name} | {dataset} | {data.nbytes // KiB} | {len(encoded) / data.nbytes:.3f} | "
        f"{gbs / t['enc numcodecs']:.3g} | "
        f"{gbs / t['enc ours']:.3g} | {t['enc numcodecs'] / t['enc ours']:.2f}x | "
        f"{gbs / t['dec numcodecs']:.3g} | {gbs / t['dec ours']:.3g} | "
        f"{t['dec numcodecs'] / t['dec ours']:.2f}x | "
        f"{t['dec numcodecs'] / t['dec into']:.2f}x |"
    )


def _load(dataset: str) -> np.ndarray:
    """A dataset flattened; ``bool_mask`` is the float32 field above its median (a land/sea
    or valid-data mask, as users pack them)."""
    if dataset == "bool_mask":
        field = datasets.load("float32_field", max(SIZES)).reshape(-1)
        return np.asarray(field > np.median(field))
    return datasets.load(dataset, max(SIZES)).reshape(-1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds per cell")
    parser.add_argument("--family", choices=sorted(FAMILIES), required=True)
    args = parser.parse_args()
    pairs, names = FAMILIES[args.family]
    print(
        "| codec | data | KiB | size ratio | enc numcodecs GB/s | enc ours GB/s | enc ratio | "
        "dec numcodecs GB/s | dec ours GB/s | dec ratio | dec into ratio |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for dataset in names:
        flat = _load(dataset)
        for name, ours, theirs in pairs():
            for size in SIZES:
                chunk = flat[: size // flat.itemsize].copy()
                print(_row(name, ours, theirs, chunk, args.rounds, dataset), flush=True)


if __name__ == "__main__":
    main()
