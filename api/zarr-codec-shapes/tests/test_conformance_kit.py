"""The conformance kit: passes on correct codecs, and catches broken ones."""

from __future__ import annotations

import threading
import time
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
    check_batch_matches_single,
    check_decode_into,
    check_decoded_or_rejected,
    check_errors_from_threads,
    check_json,
    check_malformed,
    check_overlap,
    check_rejected,
    check_round_trips,
    check_threads_on_chunk,
    check_truncations,
    check_value_semantics,
    decode_calls,
    run_in_threads,
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


# -- the checks on chunks of the author's choosing ------------------------------------------

STREAM = XorCrc().encode(b"zarr chunk " * 40)


def test_run_in_threads_runs_every_call_at_once() -> None:
    threads: set[int] = set()

    def work() -> int:
        threads.add(threading.get_ident())
        return 7

    assert run_in_threads(work, threads=4, repeat=3) == [7] * 12
    assert len(threads) == 4


def test_run_in_threads_raises_what_a_thread_raised() -> None:
    def work() -> None:
        raise CorruptInputError("from a thread")

    with pytest.raises(CorruptInputError, match="from a thread"):
        run_in_threads(work, threads=2, repeat=1)


def test_kit_passes_correct_codecs_on_their_own_chunks() -> None:
    check_threads_on_chunk(XorCrc(), b"zarr" * 100)
    array = np.arange(12, dtype=np.int16).reshape(3, 4)
    check_threads_on_chunk(BitNot(), array, ChunkSpec(array.shape, "int16"))
    check_errors_from_threads(XorCrc(), STREAM[:-1], STREAM, CorruptInputError)
    encoded, decoded = check_batch_matches_single(Identity(), [b"a", b"", b"bcd"])
    assert encoded == decoded == [b"a", b"", b"bcd"]
    arrays = [array, array.T, array[::2]]
    check_batch_matches_single(BitNot(), arrays, ChunkSpec(array.shape, "int16"))
    check_truncations(XorCrc(), STREAM, CorruptInputError)
    check_rejected(XorCrc(), STREAM[1:], CorruptInputError, room=1000, batch_with=STREAM)
    assert check_decoded_or_rejected(XorCrc(), STREAM, room=1000) == b"zarr chunk " * 40
    assert check_decoded_or_rejected(XorCrc(), STREAM[:-1], room=1000) is None


def test_decode_calls_are_decode_decode_into_and_a_batch() -> None:
    calls = dict(decode_calls(Identity(), b"abc", room=10, batch_with=b"xyz"))
    assert list(calls) == ["decode", "decode_into", "decode_batch"]
    assert all(call() == b"abc" for call in calls.values())


class SharedScratch(Identity):
    """Decodes through one scratch buffer shared by every call: right alone, wrong when calls
    overlap (each empties and refills what the others are filling)."""

    def __init__(self, level: int = 1) -> None:
        super().__init__(level)
        self.scratch = bytearray()

    def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        self.scratch.clear()
        for byte in memoryview(data).cast("B"):
            self.scratch.append(byte)
            time.sleep(0)  # let another thread in, as a compiled codec releasing the GIL would
        return bytes(self.scratch)


def test_kit_catches_state_shared_between_threads() -> None:
    check_threads_on_chunk(SharedScratch(), b"zarr" * 8, threads=1)  # fine alone
    with pytest.raises(AssertionError, match="differ from one thread"):
        check_threads_on_chunk(SharedScratch(), b"zarr" * 8)


class SharedErrorState(Identity):
    """Keeps the last error on the codec, not on the call: one thread's failure leaks into
    another's call, and a failure can be cleared by another thread before it is raised."""

    def __init__(self, level: int = 1) -> None:
        super().__init__(level)
        self.error: str | None = None

    def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
        raw = super().decode(data)
        if raw.startswith(b"bad"):
            self.error = "bad input"
        time.sleep(0.001)
        error, self.error = self.error, None
        if error:
            raise CorruptInputError(error)
        return raw


def test_kit_catches_error_state_shared_between_threads() -> None:
    check_errors_from_threads(SharedErrorState(), b"bad", b"good", threads=1)  # fine alone
    with pytest.raises(AssertionError, match="went wrong"):
        check_errors_from_threads(SharedErrorState(), b"bad", b"good")


def test_kit_catches_an_error_of_the_wrong_class_from_threads() -> None:
    with pytest.raises(AssertionError, match="not OutputSizeError"):
        check_errors_from_threads(XorCrc(), STREAM[:-1], STREAM, OutputSizeError, threads=2)


class ReorderedBatch(Identity):
    def encode_batch(self, chunks: Any, *args: Any) -> list[Any]:
        return super().encode_batch(chunks, *args)[::-1]


class ShortBatch(Identity):
    def decode_batch(self, chunks: Any, *args: Any) -> list[Any]:
        return super().decode_batch(chunks, *args)[:-1]


def test_kit_catches_batches_that_differ_from_single_chunks() -> None:
    with pytest.raises(AssertionError, match="encode_batch differs at chunk 0"):
        check_batch_matches_single(ReorderedBatch(), [b"a", b"b"])
    with pytest.raises(AssertionError, match="decode_batch gave 1 results"):
        check_batch_matches_single(ShortBatch(), [b"a", b"b"])


def test_kit_catches_truncations_that_decode() -> None:
    with pytest.raises(AssertionError, match="decode of the first 0 of"):
        check_truncations(Identity(), b"no integrity check")


def test_kit_catches_truncations_that_crash() -> None:
    class CrashesWhenShort(XorCrc):
        def decode(self, data: Any, spec: ChunkSpec | None = None) -> bytes:
            if len(memoryview(data)) < 8:
                raise IndexError("read past the end")
            return super().decode(data)

    with pytest.raises(AssertionError, match="IndexError"):
        check_truncations(CrashesWhenShort(), STREAM)


class BlamesTheBuffer(XorCrc):
    """Reports a damaged stream as a too-small output, unless the output has room to spare."""

    def decode_into(self, data: Any, out: Any, spec: ChunkSpec | None = None) -> int:
        try:
            return super().decode_into(data, out)
        except CorruptInputError:
            if len(memoryview(out)) <= len(XorCrc().decode(STREAM)):
                raise OutputSizeError("no room") from None
            raise


def test_kit_truncates_into_a_chunk_sized_buffer_unless_told_otherwise() -> None:
    with pytest.raises(AssertionError, match=r"decode_into .* OutputSizeError"):
        check_truncations(BlamesTheBuffer(), STREAM, CorruptInputError)
    check_truncations(BlamesTheBuffer(), STREAM, CorruptInputError, room=1000)


def test_kit_catches_a_batch_that_accepts_a_bad_chunk() -> None:
    class LenientBatch(XorCrc):
        def decode_batch(self, chunks: Any) -> list[bytes]:
            return [bytes(chunk) for chunk in chunks]

    check_rejected(XorCrc(), STREAM[:-1], room=1000, batch_with=STREAM)  # no decode_batch
    with pytest.raises(AssertionError, match="decode_batch"):
        check_rejected(LenientBatch(), STREAM[:-1], room=1000, batch_with=STREAM)


class IntoDisagrees(XorCrc):
    """``decode_into`` writes every chunk's bytes reversed."""

    def decode_into(self, data: Any, out: Any, spec: ChunkSpec | None = None) -> int:
        n = super().decode_into(data, out)
        memoryview(out)[:n] = bytes(memoryview(out)[:n])[::-1]
        return n


def test_kit_catches_decode_calls_that_disagree() -> None:
    with pytest.raises(AssertionError, match="disagree"):
        check_decoded_or_rejected(IntoDisagrees(), STREAM, room=1000)
    with pytest.raises(AssertionError, match="RuntimeError"):
        check_decoded_or_rejected(RaisesWrongError(), b"x", room=10)
