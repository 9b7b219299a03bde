"""pytest plugin for ``scripts/numcodecs-suite``: numcodecs' own tests against our classes.

Before numcodecs' test modules are imported, every numcodecs class we replace (the ``OURS``
table: ``GZip``, ``Zlib``, ``Blosc``, ``Zstd``, ``LZ4``, ``BZ2``, ``LZMA``, the checksums,
``FixedScaleOffset``, the filters ``Shuffle``, ``Delta``, ``BitRound``, ``Quantize``, ``AsType``
and ``PackBits``, and ``VLenUTF8``, ``VLenBytes``, ``VLenArray``, ``Base64``, ``Categorize``,
``JSON``, ``MsgPack``, ``PCodec``, ``ZFPY`` and ``Pickle`` (which honours numcodecs' own
consent to decode), in ``numcodecs`` and in their own modules) and the bare
``numcodecs.jenkins.jenkins_lookup3`` are pointed at ours, and ours are registered for their ids,
so every ``GZip(...)``, ``get_codec({"id": "gzip"})`` and ``eval("GZip(level=3)")`` in those
tests builds one of ours.
The tests that do not exercise these classes are skipped, each with its reason (listed in
:data:`EXCLUDED`).
"""

from __future__ import annotations

from typing import Any

import numcodecs
import numcodecs.astype
import numcodecs.base64
import numcodecs.bitround
import numcodecs.blosc
import numcodecs.bz2
import numcodecs.categorize
import numcodecs.checksum32
import numcodecs.delta
import numcodecs.fixedscaleoffset
import numcodecs.fletcher32
import numcodecs.gzip
import numcodecs.jenkins
import numcodecs.json
import numcodecs.lz4
import numcodecs.lzma
import numcodecs.msgpacks
import numcodecs.packbits
import numcodecs.pcodec
import numcodecs.pickles
import numcodecs.quantize
import numcodecs.shuffle
import numcodecs.vlen
import numcodecs.zfpy
import numcodecs.zlib
import numcodecs.zstd
import pytest
from zarr_codec_blosc.numcodecs import Blosc
from zarr_codec_bz2.numcodecs import BZ2
from zarr_codec_checksums import jenkins_lookup3
from zarr_codec_checksums.numcodecs import CRC32, Adler32, Fletcher32, JenkinsLookup3
from zarr_codec_crc32c.numcodecs import CRC32C
from zarr_codec_filters.numcodecs import AsType, BitRound, Delta, PackBits, Quantize, Shuffle
from zarr_codec_gzip.numcodecs import GZip, Zlib
from zarr_codec_lz4.numcodecs import LZ4
from zarr_codec_lzma.numcodecs import LZMA
from zarr_codec_pcodec.numcodecs import PCodec
from zarr_codec_scale_offset.numcodecs import FixedScaleOffset
from zarr_codec_vlen.numcodecs import (
    JSON,
    Base64,
    Categorize,
    MsgPack,
    Pickle,
    VLenArray,
    VLenBytes,
    VLenUTF8,
)
from zarr_codec_zfpy.numcodecs import ZFPY
from zarr_codec_zstd.numcodecs import Zstd

_NOT_THE_CLASS = (
    "exercises numcodecs.blosc's module functions (compress, decompress, set_nthreads, "
    "_cbuffer_*): numcodecs' own c-blosc binding, not the Blosc class, which is what we replace"
)

#: Test (module::name, parameters ignored) -> why it does not apply to our classes.
EXCLUDED: dict[str, str] = {
    "test_blosc.py::test_compress_blocksize_default": _NOT_THE_CLASS,
    "test_blosc.py::test_compress_blocksize": _NOT_THE_CLASS,
    "test_blosc.py::test_compress_complib": _NOT_THE_CLASS,
    "test_blosc.py::test_compress_metainfo": _NOT_THE_CLASS,
    "test_blosc.py::test_compress_autoshuffle": _NOT_THE_CLASS,
    "test_blosc.py::test_set_nthreads_races_global_context": _NOT_THE_CLASS,
}

OURS: dict[str, Any] = {
    "gzip": (numcodecs.gzip, "GZip", GZip),
    "zlib": (numcodecs.zlib, "Zlib", Zlib),
    "blosc": (numcodecs.blosc, "Blosc", Blosc),
    "zstd": (numcodecs.zstd, "Zstd", Zstd),
    "crc32c": (numcodecs.checksum32, "CRC32C", CRC32C),
    "crc32": (numcodecs.checksum32, "CRC32", CRC32),
    "adler32": (numcodecs.checksum32, "Adler32", Adler32),
    "jenkins_lookup3": (numcodecs.checksum32, "JenkinsLookup3", JenkinsLookup3),
    "fletcher32": (numcodecs.fletcher32, "Fletcher32", Fletcher32),
    "lz4": (numcodecs.lz4, "LZ4", LZ4),
    "bz2": (numcodecs.bz2, "BZ2", BZ2),
    "lzma": (numcodecs.lzma, "LZMA", LZMA),
    "shuffle": (numcodecs.shuffle, "Shuffle", Shuffle),
    "fixedscaleoffset": (numcodecs.fixedscaleoffset, "FixedScaleOffset", FixedScaleOffset),
    "delta": (numcodecs.delta, "Delta", Delta),
    "bitround": (numcodecs.bitround, "BitRound", BitRound),
    "quantize": (numcodecs.quantize, "Quantize", Quantize),
    "astype": (numcodecs.astype, "AsType", AsType),
    "packbits": (numcodecs.packbits, "PackBits", PackBits),
    "vlen-utf8": (numcodecs.vlen, "VLenUTF8", VLenUTF8),
    "vlen-bytes": (numcodecs.vlen, "VLenBytes", VLenBytes),
    "vlen-array": (numcodecs.vlen, "VLenArray", VLenArray),
    "base64": (numcodecs.base64, "Base64", Base64),
    "pickle": (numcodecs.pickles, "Pickle", Pickle),
    "categorize": (numcodecs.categorize, "Categorize", Categorize),
    "json2": (numcodecs.json, "JSON", JSON),
    "msgpack2": (numcodecs.msgpacks, "MsgPack", MsgPack),
    "pcodec": (numcodecs.pcodec, "PCodec", PCodec),
    "zfpy": (numcodecs.zfpy, "ZFPY", ZFPY),
}


def pytest_configure(config: pytest.Config) -> None:
    for codec_id, (module, name, ours) in OURS.items():
        setattr(module, name, ours)
        setattr(numcodecs, name, ours)
        numcodecs.registry.register_codec(ours, codec_id=codec_id)
    numcodecs.jenkins.jenkins_lookup3 = jenkins_lookup3


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # The run is void unless the test modules really hold ours.
        module = getattr(item, "module", None)
        for _, name, ours in OURS.values():
            found = getattr(module, name, ours)
            if found is not ours:
                raise pytest.UsageError(f"{item.nodeid}: {name} is {found!r}, not ours")
        bare = getattr(module, "jenkins_lookup3", jenkins_lookup3)
        if bare is not jenkins_lookup3:
            raise pytest.UsageError(f"{item.nodeid}: jenkins_lookup3 is {bare!r}, not ours")
        function = getattr(item, "originalname", item.name)
        reason = EXCLUDED.get(f"{item.path.name}::{function}")
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=f"not our class: {reason}"))
