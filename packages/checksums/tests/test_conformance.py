"""The zarr_codec_shapes conformance kit over the four checksum codecs."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_checksums import Adler32, Crc32, Fletcher32, JenkinsLookup3
from zarr_codec_shapes.testing import ConformanceSuite


def _malformed(codec: Any) -> tuple[Any, ...]:
    valid = codec.encode(b"zarr " * 200)
    return (
        b"",  # shorter than a checksum
        b"\x00\x01\x02",
        valid[:-1],  # truncated
        valid[:-4] + bytes(b ^ 0xFF for b in valid[-4:]),
        bytes([valid[0] ^ 1]) + valid[1:],
        valid + b"\x00",  # a byte after the checksum
        bytearray(valid[:100]),
        memoryview(valid)[1:],
    )


class TestCrc32Conformance(ConformanceSuite):
    codecs = (Crc32(), Crc32(location="end"))
    malformed: ClassVar[tuple[Any, ...]] = _malformed(Crc32())


class TestAdler32Conformance(ConformanceSuite):
    codecs = (Adler32(), Adler32(location="end"))
    malformed: ClassVar[tuple[Any, ...]] = _malformed(Adler32())


class TestFletcher32Conformance(ConformanceSuite):
    codecs = (Fletcher32(),)
    malformed: ClassVar[tuple[Any, ...]] = _malformed(Fletcher32())


class TestJenkinsLookup3Conformance(ConformanceSuite):
    codecs = (JenkinsLookup3(), JenkinsLookup3(initval=3, prefix=b"p"))
    malformed: ClassVar[tuple[Any, ...]] = _malformed(JenkinsLookup3())
