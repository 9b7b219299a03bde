"""Case providers for the peers our codecs are measured against.

A :class:`Provider` has a name (what ``--codecs`` selects) and a ``load`` function that imports
what it needs and returns a case factory: ``factory(dataset_name, array) -> list[Case]``. A
provider whose import fails is skipped by the runner with a note, so a missing optional package
never stops a run.

Codec labels name the library ("zlib", "numcodecs", later "zarr-codec-gzip"); groups name the
job ("gzip level=5"), so that the same job done by different libraries lines up in one
comparison. The default baseline of every group is "numcodecs"; the "copy" group holds the
``memcpy`` reference: how fast memory can simply be copied.
"""

import zlib
from collections.abc import Buffer, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from zarr_codecs_bench.harness import OPERATIONS, Case, round_trip_cases

CaseFactory = Callable[[str, npt.NDArray[Any]], list[Case]]

GZIP_LEVELS = (1, 5, 9)
BLOSC_CLEVEL = 5
BLOSC_CNAMES = ("lz4", "zstd", "blosclz")
#: numcodecs' integer shuffle codes by name.
BLOSC_SHUFFLES = {"shuffle": 1, "bitshuffle": 2}


@dataclass(frozen=True)
class Provider:
    """A named source of cases; ``load`` may raise ``ImportError``."""

    name: str
    description: str
    load: Callable[[], CaseFactory]


#: zstd levels measured: a negative (fast) level, the default, and the usual range.
ZSTD_LEVELS = (-5, 0, 1, 3, 9, 19)


def zstd_group(level: int) -> str:
    """The group name shared by every zstd implementation at ``level``."""
    return f"zstd level={level}"


#: The group of every CRC-32C implementation: appending (encode) and checking (decode).
CRC32C_GROUP = "crc32c"


def gzip_group(level: int) -> str:
    """The group name shared by every gzip implementation at ``level``."""
    return f"gzip level={level}"


def blosc_group(cname: str, clevel: int = BLOSC_CLEVEL, shuffle: str = "shuffle") -> str:
    """The group name shared by every blosc implementation with these settings."""
    return f"blosc {cname} clevel={clevel} {shuffle}"


def _memcpy() -> CaseFactory:
    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out = np.empty_like(data)

        def copy() -> None:
            np.copyto(out, data)

        return [
            Case("memcpy", dataset, operation, copy, data.nbytes, "copy", data.nbytes)
            for operation in OPERATIONS
        ]

    return cases


def _zlib() -> CaseFactory:
    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for level in GZIP_LEVELS:
            # wbits=31: the gzip container, the same format as the gzip codec writes.
            def encode(array: npt.NDArray[Any], level: int = level) -> Buffer:
                return zlib.compress(array, level, wbits=31)

            def decode(encoded: Buffer) -> Buffer:
                return zlib.decompress(encoded, wbits=31)

            out += round_trip_cases("zlib", gzip_group(level), dataset, data, encode, decode)
        return out

    return cases


def _numcodecs_levels(
    class_name: str, levels: Sequence[int], group_of: Callable[[int], str]
) -> CaseFactory:
    """numcodecs' codec ``class_name`` at each of ``levels``, in the groups ``group_of``
    names (imported now: a missing numcodecs is a missing provider)."""
    import numcodecs

    codec_class = getattr(numcodecs, class_name)

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for level in levels:
            codec = codec_class(level=level)
            group = group_of(level)
            out += round_trip_cases("numcodecs", group, dataset, data, codec.encode, codec.decode)
        return out

    return cases


def _numcodecs_gzip() -> CaseFactory:
    return _numcodecs_levels("GZip", GZIP_LEVELS, gzip_group)


def _libdeflate() -> CaseFactory:
    import deflate

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for level in GZIP_LEVELS:

            def encode(array: npt.NDArray[Any], level: int = level) -> Buffer:
                return deflate.gzip_compress(array.tobytes(), level)

            out += round_trip_cases(
                "libdeflate", gzip_group(level), dataset, data, encode, deflate.gzip_decompress
            )
        return out

    return cases


#: ISA-L has levels 0-3 only: each gzip level is compared with the nearest ISA-L level.
ISAL_LEVELS = {1: 1, 5: 2, 9: 3}


def _isal() -> CaseFactory:
    from isal import isal_zlib

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for level in GZIP_LEVELS:

            def encode(array: npt.NDArray[Any], level: int = ISAL_LEVELS[level]) -> Buffer:
                return isal_zlib.compress(array, level, wbits=31)

            def decode(encoded: Buffer) -> Buffer:
                return isal_zlib.decompress(encoded, wbits=31)

            out += round_trip_cases("isal", gzip_group(level), dataset, data, encode, decode)
        return out

    return cases


def single_threaded_numcodecs(call: Callable[[Buffer], Any]) -> Callable[[Buffer], Any]:
    """``call`` with numcodecs' blosc threads off, as zarr-python runs it (from worker threads,
    where numcodecs never starts blosc threads; zarr also sets ``use_threads = False``)."""
    from numcodecs import blosc

    def single(data: Buffer) -> Any:
        blosc.use_threads = False
        try:
            return call(data)
        finally:
            blosc.use_threads = None

    return single


def _numcodecs_blosc() -> CaseFactory:
    from numcodecs import Blosc

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for cname in BLOSC_CNAMES:
            for shuffle, code in BLOSC_SHUFFLES.items():
                codec = Blosc(cname=cname, clevel=BLOSC_CLEVEL, shuffle=code)
                group = blosc_group(cname, shuffle=shuffle)
                # Its default: blosc threads (one per core, up to 8) from the main thread.
                out += round_trip_cases(
                    "numcodecs", group, dataset, data, codec.encode, codec.decode
                )
                out += round_trip_cases(
                    "numcodecs 1 thread",
                    group,
                    dataset,
                    data,
                    single_threaded_numcodecs(codec.encode),
                    single_threaded_numcodecs(codec.decode),
                )
        return out

    return cases


MEMCPY = Provider("memcpy", "numpy copy into a preallocated array (reference)", _memcpy)
ZLIB = Provider("zlib", "Python's zlib, gzip container, levels 1/5/9", _zlib)
NUMCODECS_GZIP = Provider("numcodecs-gzip", "numcodecs.GZip, levels 1/5/9", _numcodecs_gzip)
LIBDEFLATE = Provider("libdeflate", "the deflate package (libdeflate), levels 1/5/9", _libdeflate)
ISAL = Provider("isal", "ISA-L via isal, gzip container, levels 1/2/3 for 1/5/9", _isal)
NUMCODECS_BLOSC = Provider(
    "numcodecs-blosc",
    "numcodecs.Blosc lz4/zstd/blosclz, clevel 5, shuffle and bitshuffle",
    _numcodecs_blosc,
)


def _blosc2() -> CaseFactory:
    import blosc2

    codes = {"shuffle": blosc2.Filter.SHUFFLE, "bitshuffle": blosc2.Filter.BITSHUFFLE}

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for cname in BLOSC_CNAMES:
            for shuffle in BLOSC_SHUFFLES:
                codec = getattr(blosc2.Codec, cname.upper())

                def encode(
                    array: npt.NDArray[Any], codec: Any = codec, flt: Any = codes[shuffle]
                ) -> Buffer:
                    return blosc2.compress(array, clevel=BLOSC_CLEVEL, filter=flt, codec=codec)  # type: ignore[no-any-return]

                group = blosc_group(cname, shuffle=shuffle)
                out += round_trip_cases(
                    "python-blosc2", group, dataset, data, encode, blosc2.decompress
                )
        return out

    return cases


BLOSC2 = Provider("python-blosc2", "python-blosc2 (c-blosc2) lz4/zstd/blosclz", _blosc2)


def _numcodecs_zstd() -> CaseFactory:
    return _numcodecs_levels("Zstd", ZSTD_LEVELS, zstd_group)


def _zstandard() -> CaseFactory:
    import zstandard

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        decompressor: Any = zstandard.ZstdDecompressor()
        for level in ZSTD_LEVELS:
            compressor: Any = zstandard.ZstdCompressor(level=level)
            out += round_trip_cases(
                "zstandard",
                zstd_group(level),
                dataset,
                data,
                compressor.compress,
                decompressor.decompress,
            )
        return out

    return cases


def _checksum_cases(
    label: str, dataset: str, data: npt.NDArray[Any], crc: Any, *, bytes_only: bool = False
) -> list[Case]:
    """A CRC-32C function as the crc32c codec: append the checksum, then check and strip it.
    ``bytes_only``: ``crc`` takes ``bytes`` alone (google-crc32c), so checking copies."""
    import struct

    def encode(array: npt.NDArray[Any]) -> bytes:
        raw = array.tobytes()
        return raw + struct.pack("<I", crc(raw))

    def decode(encoded: Buffer) -> memoryview:
        view = memoryview(encoded)
        payload = view[:-4].tobytes() if bytes_only else view[:-4]
        if struct.unpack("<I", view[-4:])[0] != crc(payload):
            raise ValueError("checksum mismatch")
        return view[:-4]

    return round_trip_cases(label, CRC32C_GROUP, dataset, data, encode, decode)


def _crc32c_package() -> CaseFactory:
    import crc32c

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        return _checksum_cases("crc32c package", dataset, data, crc32c.crc32c)

    return cases


def _google_crc32c() -> CaseFactory:
    import google_crc32c

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        return _checksum_cases("google-crc32c", dataset, data, google_crc32c.value, bytes_only=True)

    return cases


def _numcodecs_crc32c() -> CaseFactory:
    from numcodecs import CRC32C

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        codec = CRC32C()
        return round_trip_cases(
            "numcodecs", CRC32C_GROUP, dataset, data, codec.encode, codec.decode
        )

    return cases


NUMCODECS_ZSTD = Provider("numcodecs-zstd", "numcodecs.Zstd, levels -5/0/1/3/9/19", _numcodecs_zstd)
ZSTANDARD = Provider("zstandard", "the zstandard package, levels -5/0/1/3/9/19", _zstandard)
CRC32C_PACKAGE = Provider(
    "crc32c-package", "the crc32c package as the crc32c codec (append, check)", _crc32c_package
)
GOOGLE_CRC32C = Provider(
    "google-crc32c", "google-crc32c as the crc32c codec (append, check)", _google_crc32c
)
NUMCODECS_CRC32C = Provider("numcodecs-crc32c", "numcodecs.CRC32C", _numcodecs_crc32c)

PEERS: tuple[Provider, ...] = (
    MEMCPY,
    ZLIB,
    NUMCODECS_GZIP,
    LIBDEFLATE,
    ISAL,
    NUMCODECS_BLOSC,
    BLOSC2,
    NUMCODECS_ZSTD,
    ZSTANDARD,
    NUMCODECS_CRC32C,
    CRC32C_PACKAGE,
    GOOGLE_CRC32C,
)
