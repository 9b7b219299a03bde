"""Arrays written by unpatched zarr-python with numcodecs, read back by the patched zarr-python
without numcodecs (``scripts/upstream-check``).

``write FOLDER`` runs in the development environment (zarr-python 3.4.2 and numcodecs, neither
patched): one array per codec, Zarr v2 (every numcodecs id, as compressor or filter) and Zarr v3
(zarr's codecs and ``zarr.codecs.numcodecs``). ``read FOLDER`` runs in the check's environment
and compares every array, exactly, with what unpatched zarr-python read back from it when it
wrote it (``<array>.npy``; lossy codecs such as quantize are compared with their result); the
codecs that no package provides without numcodecs are named (:data:`NEEDS_NUMCODECS`), and
reading them must fail with an error naming what to install. Both sides import only numpy and
zarr at module level; the values written come from :func:`values`.

Usage: python scripts/upstream_fixtures.py write|read FOLDER
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

SHAPE = (24, 20)
CHUNKS = (10, 8)

#: Zarr v2 codec ids that no package of ours provides in the codec API's registry. Without
#: numcodecs, reading them must fail clearly. None now: categorize is zarr-codec-vlen's API codec.
#: (json2, msgpack2, pickle and vlen-array have no case: zarr-python 3 has no data type for the
#: object arrays they encode, with numcodecs or without.)
NEEDS_NUMCODECS: tuple[str, ...] = ()
#: Cases whose codec loses precision: compared with the writer's read-back only.
LOSSY = ("quantize", "astype", "numcodecs.Quantize", "numcodecs.AsType")


def values(kind: str) -> np.ndarray[Any, Any]:
    """The values of the arrays of ``kind`` (a numpy dtype string, or "str", "bytes", "labels").

    (No ``vlen-array`` case: zarr-python 3 has no data type for ragged arrays.)"""
    count = SHAPE[0] * SHAPE[1]
    if kind == "str":
        return np.array([f"é{i % 37}-{'x' * (i % 5)}" for i in range(count)], dtype=object).reshape(
            SHAPE
        )
    if kind == "bytes":
        return np.array([bytes(range(i % 9)) for i in range(count)], dtype=object).reshape(SHAPE)
    if kind == "labels":
        return np.array([("a", "bb", "ccc")[i % 3] for i in range(count)], dtype="<U3").reshape(
            SHAPE
        )
    dtype = np.dtype(kind)
    result: np.ndarray[Any, Any]
    if dtype == np.bool_:
        result = np.arange(count) % 3 == 0
    elif dtype.kind == "f":
        result = np.round(np.linspace(-50, 50, count), 1).astype(dtype)
    else:
        result = (np.arange(count) * 7 % 1000).astype(dtype)
    return result.reshape(SHAPE)


def v2_cases() -> dict[str, tuple[str, Any, Any]]:
    """Zarr v2 arrays by name: (values kind, compressor JSON, filters JSON)."""
    f8, i4 = "<f8", "<i4"
    cases: dict[str, tuple[str, Any, Any]] = {
        "none": (i4, None, None),
        "gzip": (i4, {"id": "gzip", "level": 5}, None),
        "zlib": (i4, {"id": "zlib", "level": 3}, None),
        "bz2": (i4, {"id": "bz2", "level": 5}, None),
        "lzma": (i4, {"id": "lzma", "preset": 2}, None),
        "lz4": (i4, {"id": "lz4", "acceleration": 1}, None),
        "zstd": (f8, {"id": "zstd", "level": 3}, None),
        "blosc": (
            i4,
            {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
            None,
        ),
        "blosc-zstd-bitshuffle": (
            f8,
            {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0},
            None,
        ),
        "shuffle": (i4, {"id": "shuffle", "elementsize": 4}, None),
        "base64": (i4, {"id": "base64"}, None),
        "crc32": (i4, {"id": "crc32"}, None),
        "crc32c": (i4, {"id": "crc32c"}, None),
        "adler32": (i4, {"id": "adler32"}, None),
        "fletcher32": (i4, {"id": "fletcher32"}, None),
        "jenkins_lookup3": (i4, {"id": "jenkins_lookup3", "initval": 0, "prefix": None}, None),
        "pcodec": (f8, {"id": "pcodec", "level": 8}, None),
        "zfpy": (f8, {"id": "zfpy", "mode": 4, "tolerance": -1, "rate": -1, "precision": -1}, None),
        "delta": (i4, {"id": "zlib", "level": 1}, [{"id": "delta", "dtype": i4}]),
        "fixedscaleoffset": (
            f8,
            None,
            [{"id": "fixedscaleoffset", "offset": 0, "scale": 10, "dtype": f8, "astype": i4}],
        ),
        "quantize": (f8, None, [{"id": "quantize", "digits": 1, "dtype": f8}]),
        "bitround": (f8, None, [{"id": "bitround", "keepbits": 52}]),
        "astype": (f8, None, [{"id": "astype", "encode_dtype": "<f4", "decode_dtype": f8}]),
        "packbits": ("|b1", None, [{"id": "packbits"}]),
        "vlen-utf8": ("str", {"id": "zstd", "level": 1}, [{"id": "vlen-utf8"}]),
        "vlen-bytes": ("bytes", None, [{"id": "vlen-bytes"}]),
        "categorize": (
            "labels",
            None,
            [{"id": "categorize", "labels": ["a", "bb", "ccc"], "dtype": "<U3", "astype": "|u1"}],
        ),
    }
    return cases


def v3_cases(writing: bool = True) -> dict[str, tuple[str, Callable[[], dict[str, Any]]]]:
    """Zarr v3 arrays by name: (values kind, the create_array keywords, built with unpatched
    zarr-python's classes; only ``writing``)."""
    import zarr.codecs as zc

    zn: Any = None
    if writing:
        import zarr.codecs.numcodecs as zn

    i4, f8 = "<i4", "<f8"
    cases: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
        "bytes": (i4, lambda: {"compressors": None}),
        "gzip": (i4, lambda: {"compressors": [zc.GzipCodec(level=5)]}),
        "zstd": (f8, lambda: {"compressors": [zc.ZstdCodec(level=3, checksum=True)]}),
        "blosc": (i4, lambda: {"compressors": [zc.BloscCodec(cname="lz4", clevel=5)]}),
        "crc32c": (i4, lambda: {"compressors": [zc.Crc32cCodec()]}),
        "transpose": (i4, lambda: {"filters": [zc.TransposeCodec(order=(1, 0))]}),
        "sharding": (f8, lambda: {"shards": (20, 16), "compressors": [zc.ZstdCodec(level=1)]}),
        "vlen-utf8": ("str", dict),
        "vlen-bytes": ("bytes", dict),
    }

    def compressor(name: str) -> Callable[[], dict[str, Any]]:
        return lambda: {"compressors": [getattr(zn, name)()]}

    for name in ("BZ2", "LZ4", "LZMA", "Zlib", "GZip", "Zstd", "Blosc", "Shuffle"):
        cases[f"numcodecs.{name}"] = (i4, compressor(name))
    for name in ("CRC32", "CRC32C", "Adler32", "Fletcher32", "JenkinsLookup3"):
        cases[f"numcodecs.{name}"] = (i4, compressor(name))
    cases["numcodecs.Delta"] = (i4, lambda: {"filters": [zn.Delta(dtype=i4)]})
    cases["numcodecs.FixedScaleOffset"] = (
        f8,
        lambda: {"filters": [zn.FixedScaleOffset(offset=0, scale=10, dtype=f8, astype=i4)]},
    )
    cases["numcodecs.Quantize"] = (f8, lambda: {"filters": [zn.Quantize(digits=1, dtype=f8)]})
    cases["numcodecs.BitRound"] = (f8, lambda: {"filters": [zn.BitRound(keepbits=52)]})
    cases["numcodecs.AsType"] = (
        f8,
        lambda: {"filters": [zn.AsType(encode_dtype="<f4", decode_dtype=f8)]},
    )
    cases["numcodecs.PackBits"] = ("|b1", lambda: {"filters": [zn.PackBits()]})
    cases["numcodecs.PCodec"] = (f8, lambda: {"serializer": zn.PCodec(level=8)})
    cases["numcodecs.ZFPY"] = (
        f8,
        lambda: {"serializer": zn.ZFPY(mode=4, tolerance=-1, rate=-1, precision=-1)},
    )
    return cases


def _dtype(kind: str, data: np.ndarray[Any, Any]) -> Any:
    from zarr.dtype import VariableLengthBytes, VariableLengthUTF8

    return {"str": VariableLengthUTF8(), "bytes": VariableLengthBytes()}.get(kind, data.dtype)


def write(folder: Path) -> None:
    """Every case, written with unpatched zarr-python and numcodecs."""
    import numcodecs
    import zarr

    assert "+" not in zarr.__version__ and "+" not in numcodecs.__version__, "unpatched only"
    for name, (kind, compressor, filters) in v2_cases().items():
        data = values(kind)
        array = zarr.create_array(
            folder / "v2" / name,
            shape=SHAPE,
            chunks=CHUNKS,
            dtype=_dtype(kind, data),
            zarr_format=2,
            compressors=None if compressor is None else numcodecs.get_codec(compressor),
            filters=None if filters is None else [numcodecs.get_codec(f) for f in filters],
            fill_value=None,
        )
        array[...] = data
        _expect(folder / "v2" / name)
    for name, (kind, keywords) in v3_cases().items():
        data = values(kind)
        arguments: dict[str, Any] = {"dtype": _dtype(kind, data), **keywords()}
        array = zarr.create_array(
            folder / "v3" / name, shape=SHAPE, chunks=CHUNKS, zarr_format=3, **arguments
        )
        array[...] = data
        _expect(folder / "v3" / name)
    print(f"wrote {len(v2_cases())} Zarr v2 and {len(v3_cases())} Zarr v3 arrays into {folder}")


def _expect(path: Path) -> None:
    """What unpatched zarr-python reads from ``path``, saved beside it."""
    import zarr

    stored = zarr.open_array(path, mode="r")[...]
    np.save(path.parent / f"{path.name}.npy", stored, allow_pickle=True)


def _same(read: np.ndarray[Any, Any], expected: np.ndarray[Any, Any]) -> bool:
    if expected.dtype == object:
        return read.shape == expected.shape and list(read.flat) == list(expected.flat)
    return bool(np.array_equal(read, expected))


def read(folder: Path) -> int:
    """Every case read back and compared; the number of problems."""
    import zarr

    problems = 0
    names = [("v2", name, kind) for name, (kind, _, _) in v2_cases().items()]
    names += [("v3", name, kind) for name, (kind, _) in v3_cases(writing=False).items()]
    for fmt, name, kind in names:
        path = folder / fmt / name
        if fmt == "v2" and name in NEEDS_NUMCODECS:
            try:
                zarr.open_array(path, mode="r")[...]
            except Exception as err:
                ok = "zarr[numcodecs]" in str(err) or "numcodecs" in str(err)
                print(f"  {fmt} {name:<28} needs numcodecs: {type(err).__name__}: {err}")
                problems += not ok
            else:
                print(f"  {fmt} {name:<28} UNEXPECTEDLY READ without numcodecs")
                problems += 1
            continue
        try:
            got = zarr.open_array(path, mode="r")[...]
            # Written by this check's own writer: its pickles are trusted.
            expected = np.load(path.parent / f"{path.name}.npy", allow_pickle=True)
            same = _same(np.asarray(got), expected) and (
                name in LOSSY or _same(expected, values(kind))
            )
            result = "exact" if same else "DIFFERENT"
        except Exception as err:
            same, result = False, f"FAILED: {type(err).__name__}: {err}"
        print(f"  {fmt} {name:<28} {result}")
        problems += not same
    return problems


def main(arguments: list[str]) -> int:
    if len(arguments) != 2 or arguments[0] not in ("write", "read"):
        print(__doc__)
        return 2
    folder = Path(arguments[1])
    if arguments[0] == "write":
        write(folder)
        return 0
    problems = read(folder)
    print(f"read back: {'all exact' if not problems else f'{problems} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
