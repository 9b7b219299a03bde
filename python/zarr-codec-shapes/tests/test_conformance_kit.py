"""The conformance kit: passes on correct codecs, and catches broken ones."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest
from example_codecs import BitNot, XorCrc
from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    BytesBytesCodecBase,
    ChunkSpec,
    CorruptInputError,
    OutputSizeError,
)
from zarr_codec_shapes.testing import (
    ConformanceSuite,
    check_decode_into,
    check_json,
    check_malformed,
    check_overlap,
    check_round_trips,
    check_value_semantics,
)


class TestXorCrcConformance(ConformanceSuite):
    codecs = (XorCrc(), XorCrc(key=0), XorCrc(key=255))
    malformed = (b"", b"abc", b"abcdefgh", XorCrc().encode(b"payload")[:-1])


class TestBitNotConformance(ConformanceSuite):
    codecs = (BitNot(),)


# -- codecs with one defect each: the kit must notice ----------------------------------------


class Identity(BytesBytesCodecBase):
    name: ClassVar[str] = "test.identity"
    codec_id: ClassVar[str | None] = "test_identity"

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def configuration(self) -> dict[str, Any]:
        return {"level": self.level}

    def encode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        return memoryview(data).tobytes(order="A")  # numcodecs: memory order if contiguous

    def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        return bytes(memoryview(data).cast("B"))


def test_kit_passes_a_correct_base_class_codec() -> None:
    check_json(Identity(3))
    check_value_semantics(Identity(3))
    check_round_trips(Identity(3), [ChunkSpec((1,), "float64").data_type])


class DropsLastByte(Identity):
    def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        return super().decode(data)[:-1]


class ForgetsConfig(Identity):
    """Its JSON omits the level, though the level is part of its value."""

    def configuration(self) -> dict[str, Any]:
        return {}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level)


class AcceptsAnything(Identity):
    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Any:
        return cls(level=config.get("level", 1))


class RaisesWrongError(Identity):
    def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        raise RuntimeError("crash")


class Unpicklable(Identity):
    def __reduce__(self) -> Any:
        return (Unpicklable, ())


def test_kit_catches_lossy_round_trip() -> None:
    with pytest.raises(AssertionError, match="changed"):
        check_round_trips(DropsLastByte(), [ChunkSpec((1,), "int32").data_type])


def test_kit_catches_lost_configuration() -> None:
    with pytest.raises(AssertionError):
        check_json(ForgetsConfig(level=5))


def test_kit_catches_unknown_keys_being_accepted() -> None:
    with pytest.raises(AssertionError, match="unknown v3 key"):
        check_json(AcceptsAnything())


def test_kit_catches_a_non_codec_error() -> None:
    with pytest.raises(AssertionError, match="RuntimeError"):
        check_malformed(RaisesWrongError(), [b"x"])


def test_kit_catches_pickle_that_changes_the_value() -> None:
    with pytest.raises(AssertionError):
        check_value_semantics(Unpicklable(level=7))


class OverflowsOutput(Identity):
    def decode_into(self, data: Any, out: Any, spec: ChunkSpec | None = None) -> int:
        out = memoryview(out).cast("B")
        payload = self.decode(data)
        n = min(len(payload), len(out))
        out[:n] = payload[:n]
        return len(payload)  # claims more than it wrote, and never complains


def test_kit_catches_decode_into_without_size_check() -> None:
    with pytest.raises(AssertionError, match="one byte short"):
        check_decode_into(OverflowsOutput(), [ChunkSpec((1,), "uint8").data_type])


class Reverses(Identity):
    """Stores the bytes reversed, and decodes in place one byte at a time: right into separate
    memory, wrong when the output is the input."""

    def encode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        return super().encode(data)[::-1]

    def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        return super().decode(data)[::-1]

    def decode_into(self, data: Any, out: Any, spec: ChunkSpec | None = None) -> int:
        source, target = memoryview(data).cast("B"), memoryview(out).cast("B")
        n = len(source)
        if len(target) < n:
            raise OutputSizeError(n, len(target))
        for i in range(n):
            target[i] = source[n - 1 - i]
        return n


def test_kit_catches_decode_into_that_overlapping_memory_corrupts() -> None:
    check_decode_into(Reverses(), [ChunkSpec((1,), "uint8").data_type])  # fine apart
    with pytest.raises(AssertionError, match="wrong result"):
        check_overlap(Reverses(), [ChunkSpec((1,), "uint8").data_type])


class RefusesLate(Identity):
    """Refuses overlapping memory, but only after writing into it."""

    def decode_into(self, data: Any, out: Any, spec: ChunkSpec | None = None) -> int:
        source, target = memoryview(data).cast("B"), memoryview(out).cast("B")
        if source and target:
            target[0] = source[0] ^ 0xFF
            raise CorruptInputError("overlap")
        return 0


def test_kit_catches_a_refusal_after_writing() -> None:
    with pytest.raises(AssertionError, match="refused after writing"):
        check_overlap(RefusesLate(), [ChunkSpec((1,), "uint8").data_type])


class BadArray(ArrayArrayCodecBase):
    name: ClassVar[str] = "test.bad_array"

    def configuration(self) -> dict[str, Any]:
        return {}

    def encode(self, array: Any, spec: ChunkSpec) -> Any:
        return np.ravel(array)  # loses the shape

    def decode(self, array: Any, spec: ChunkSpec) -> Any:
        return array


def test_kit_catches_array_shape_changes() -> None:
    with pytest.raises(AssertionError, match="shape"):
        check_round_trips(BadArray(), [ChunkSpec((1,), "int16").data_type])


def test_corrupt_input_is_reported_as_codec_error() -> None:
    with pytest.raises(CorruptInputError):
        XorCrc().decode(b"\x00" * 10)
