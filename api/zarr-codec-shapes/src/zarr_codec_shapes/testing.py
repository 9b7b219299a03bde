"""A conformance kit any codec author runs against their codec.

Two ways to use it. With pytest, subclass :class:`ConformanceSuite` in a test module::

    from zarr_codec_shapes.testing import ConformanceSuite

    class TestMyCodec(ConformanceSuite):
        codecs = (MyCodec(level=1), MyCodec(level=9))
        malformed = (b"not my format",)

or call :func:`check_codec` directly. Either way it checks: JSON round trips in both Zarr
formats and the rejection of unknown keys; equality, hashing, ``repr``, ``copy`` and pickle;
encode -> decode round trips over every data type the codec supports and over empty, scalar,
non-contiguous, Fortran-ordered and big-endian input; ``decode_into`` equal to ``decode`` (and a
clean error for a too-small output); ``encode_into``/``decode_into`` with output and input sharing
memory (right, or a ``CodecError`` before writing); malformed input raising :class:`CodecError`
subclasses; the
async and batch extras equal to the plain methods; and identical results from 8 threads at once.

The same checks on chunks of the author's own choosing: :func:`check_threads_on_chunk`,
:func:`check_errors_from_threads` (with :func:`run_in_threads` beneath them),
:func:`check_batch_matches_single`; and for malformed streams, :func:`check_truncations`,
:func:`check_rejected` and :func:`check_decoded_or_rejected` (over :func:`decode_calls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import pickle
import threading
from collections.abc import Buffer, Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.data_types import DataType, Kind
from zarr_codec_shapes.errors import CodecError, ConfigurationError, OutputSizeError
from zarr_codec_shapes.protocols import Codec, SupportsEncodedSize

__all__ = [
    "CORE_DATA_TYPES",
    "ConformanceSuite",
    "check_async_and_batch",
    "check_batch_matches_single",
    "check_capabilities",
    "check_codec",
    "check_decode_into",
    "check_decoded_or_rejected",
    "check_errors_from_threads",
    "check_json",
    "check_malformed",
    "check_overlap",
    "check_rejected",
    "check_round_trips",
    "check_threads",
    "check_threads_on_chunk",
    "check_truncations",
    "check_value_semantics",
    "decode_calls",
    "run_in_threads",
    "sample_arrays",
]

#: Data types every numpy has (extension types need ml_dtypes).
CORE_DATA_TYPES: tuple[DataType, ...] = tuple(dt for dt in DataType.ALL if dt.v2_code)


def _bytes_of(data: Buffer) -> bytes:
    """The bytes a bytes codec must store for ``data``, numcodecs' rule: a contiguous buffer
    in its memory order (C or Fortran), any other in C order."""
    # numpy arrays directly: those of ml_dtypes' types (bfloat16, ...) export no buffer.
    if isinstance(data, np.ndarray):
        return data.tobytes(order="A")
    return memoryview(data).tobytes(order="A")


def _describe(data: Any) -> str:
    """A short description of a test input, whatever it is (for failure messages)."""
    try:
        return repr(_bytes_of(data)[:32])
    except (TypeError, ValueError, BufferError):
        return repr(data)[:64]


def _same_array(actual: Any, expected: Any) -> bool:
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape or actual.dtype.newbyteorder(
        "="
    ) != expected.dtype.newbyteorder("="):
        return False
    native = expected.dtype.newbyteorder("=")
    return bool(actual.astype(native).tobytes() == expected.astype(native).tobytes())


def sample_values(data_type: DataType, count: int, seed: int = 0) -> np.ndarray[Any, Any]:
    """Deterministic values of ``data_type``: random ones plus the type's edge values."""
    rng = np.random.default_rng(seed)
    dtype = data_type.numpy_dtype
    if data_type.kind is Kind.BOOL:
        return rng.integers(0, 2, count).astype(dtype)
    if data_type.is_integer:
        low, high = data_type.integer_range()
        values = rng.integers(
            low, high, count, dtype=np.int64 if low < 0 else np.uint64, endpoint=True
        ).astype(dtype)
        edges = np.array([low, high, 0, 1], dtype=object)
    elif data_type.kind is Kind.FLOAT:
        values = (rng.standard_normal(count) * 100).astype(dtype)
        edges = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0], dtype=np.float64)
    else:
        values = (rng.standard_normal(count) + 1j * rng.standard_normal(count)).astype(dtype)
        edges = np.array([0, complex(np.nan, 1), complex(-np.inf, 0)], dtype=np.complex128)
    n = min(len(edges), count)
    with np.errstate(invalid="ignore", over="ignore"):
        values[:n] = edges[:n].astype(dtype)
    return values


def sample_arrays(data_type: DataType, seed: int = 0) -> dict[str, np.ndarray[Any, Any]]:
    """Arrays of ``data_type`` in the layouts a codec must handle, keyed by a description."""
    base = sample_values(data_type, 24 * 16, seed).reshape(24, 16)
    arrays = {
        "empty": base[:0],
        "scalar": base[0, 0].reshape(()),
        "contiguous": base,
        "non-contiguous": base[::3, 1::2],
        "fortran": np.asfortranarray(base),
    }
    if data_type.itemsize > 1:
        arrays["big-endian"] = base.astype(base.dtype.newbyteorder(">"))
    return arrays


# -- checks ----------------------------------------------------------------------------------


def check_json(codec: Codec) -> None:
    """JSON round trips in both forms, JSON-serialisable, unknown keys rejected."""
    cls = type(codec)
    v3 = codec.to_json(3)
    assert v3["name"] == codec.name, v3
    assert json.loads(json.dumps(v3)) == v3, "v3 JSON is not JSON-serialisable"
    assert cls.from_json(v3, 3) == codec, f"v3 round trip changed {codec!r}"
    assert cls.from_json(json.loads(json.dumps(v3)), 3) == codec
    bad = {"name": codec.name, "configuration": {**v3.get("configuration", {}), "zz_unknown": 1}}
    _expect_error(ConfigurationError, lambda: cls.from_json(bad, 3), "unknown v3 key accepted")
    other_name = {**v3, "name": codec.name + "_not_this_codec"}
    _expect_error(ConfigurationError, lambda: cls.from_json(other_name, 3), "wrong name accepted")
    if codec.codec_id is None:
        _expect_error(ConfigurationError, lambda: codec.to_json(2), "v2 form of a v3-only codec")
        return
    v2 = codec.to_json(2)
    assert v2["id"] == codec.codec_id, v2
    assert json.loads(json.dumps(v2)) == v2, "v2 JSON is not JSON-serialisable"
    # v2 may carry less than the codec holds (blosc's typesize comes from the data there), so
    # the v2 check is on the JSON: reading it back must write the same JSON.
    assert cls.from_json(v2, 2).to_json(2) == v2, f"v2 round trip changed {codec!r}"
    _expect_error(
        ConfigurationError, lambda: cls.from_json({**v2, "zz_unknown": 1}, 2), "unknown v2 key"
    )


def check_value_semantics(codec: Codec) -> None:
    """Equality, hashing, repr, copy, deepcopy and pickle."""
    for clone in (copy.copy(codec), copy.deepcopy(codec), pickle.loads(pickle.dumps(codec))):
        assert clone == codec, f"{clone!r} != {codec!r}"
        assert hash(clone) == hash(codec)
        assert type(clone) is type(codec)
    assert codec != object()
    text = repr(codec)
    assert isinstance(text, str) and type(codec).__name__ in text, text


def _expect_error(kind: type[Exception], fn: Callable[[], object], what: str) -> None:
    try:
        fn()
    except kind:
        return
    except Exception as err:
        message = f"{what}: raised {type(err).__name__} ({err}), not {kind.__name__}"
        raise AssertionError(message) from err
    raise AssertionError(f"{what}: no {kind.__name__} raised")


def _bytes_inputs(data_types: Iterable[DataType]) -> dict[str, Any]:
    inputs: dict[str, Any] = {"b''": b"", "bytearray": bytearray(b"zarr" * 100)}
    for dt in data_types:
        for layout, arr in sample_arrays(dt).items():
            inputs[f"{dt.name}/{layout}"] = arr
    return inputs


def check_round_trips(
    codec: Any,
    data_types: Sequence[DataType],
    *,
    exact: bool = True,
    refused_layouts: Collection[str] = (),
) -> None:
    """encode -> decode over every data type and layout (those in ``refused_layouts``, which
    an array codec's format cannot hold, must be refused with a ``CodecError``).

    Bytes codecs must give back the bytes of their input: in memory order when it is
    contiguous (C or Fortran order, as numcodecs stores Zarr v2 chunks), else in C order.
    Array codecs must give back the input when ``exact``; otherwise a second round trip must
    not change the first.
    """
    if codec.codec_type == "bytes_bytes":
        for label, data in _bytes_inputs(data_types).items():
            decoded = codec.decode(codec.encode(data))
            assert _bytes_of(decoded) == _bytes_of(data), f"{codec!r}: {label} changed"
            again = codec.encode(_bytes_of(data))
            decoded_again = codec.decode(again)
            assert _bytes_of(decoded_again) == _bytes_of(data), f"{codec!r}: {label} (copy)"
        return
    for dt in data_types:
        for label, arr in sample_arrays(dt).items():
            spec = ChunkSpec(arr.shape, dt)
            if label in refused_layouts:
                _expect_error(
                    CodecError,
                    lambda: codec.encode(arr, spec),  # noqa: B023 - called at once
                    f"{codec!r}: {dt.name}/{label}, which it cannot hold",
                )
                continue
            once = codec.decode(codec.encode(arr, spec), spec)
            assert np.asarray(once).shape == arr.shape, f"{codec!r}: {dt.name}/{label} shape"
            if exact:
                assert _same_array(once, arr), f"{codec!r}: {dt.name}/{label} changed"
            else:
                twice = codec.decode(codec.encode(once, spec), spec)
                assert _same_array(twice, once), f"{codec!r}: {dt.name}/{label} unstable"


def check_decode_into(
    codec: Any, data_types: Sequence[DataType], *, refused_layouts: Collection[str] = ()
) -> None:
    """``decode_into`` and ``encode_into`` (``(chunk, out, spec) -> int``, every kind) write
    what ``decode`` and ``encode`` return and count the bytes; a too-small output fails
    cleanly."""
    if codec.codec_type == "bytes_bytes":
        for label, data in _bytes_inputs(data_types).items():
            encoded = codec.encode(data)
            expected = _bytes_of(codec.decode(encoded))
            out = bytearray(len(expected) + 7)
            n = codec.decode_into(encoded, out)
            assert n == len(expected) and bytes(out[:n]) == expected, f"{codec!r}: {label}"
            exact_out = np.zeros(len(expected), dtype=np.uint8)
            assert codec.decode_into(encoded, exact_out) == len(expected)
            assert exact_out.tobytes() == expected
            if expected:
                small = bytearray(len(expected) - 1)
                _expect_error(
                    OutputSizeError,
                    lambda: codec.decode_into(encoded, small),  # noqa: B023 - called at once
                    f"{codec!r}: {label} into a buffer one byte short",
                )
            if isinstance(codec, SupportsEncodedSize):
                exact = codec.encoded_size(len(_bytes_of(data)))
                assert len(_bytes_of(encoded)) == exact, f"{codec!r}: encoded_size is wrong"
            room = codec.max_encoded_size(len(_bytes_of(data)))
            if room is not None:
                assert len(_bytes_of(encoded)) <= room, f"{codec!r}: max_encoded_size too small"
                target = bytearray(room)
                n = codec.encode_into(data, target)
                decoded = _bytes_of(codec.decode(bytes(target[:n])))
                assert decoded == _bytes_of(data), f"{codec!r}: encode_into {label}"
        return
    for dt in data_types:
        for label, arr in sample_arrays(dt).items():
            if label in refused_layouts:
                continue
            spec = ChunkSpec(arr.shape, dt)
            encoded = codec.encode(arr, spec)
            expected = codec.decode(encoded, spec)
            out_array = np.empty(arr.shape, dtype=dt.numpy_dtype)
            written = codec.decode_into(encoded, out_array, spec)
            assert _same_array(out_array, expected), f"{codec!r}: decode_into {dt.name}/{label}"
            assert written == out_array.nbytes, f"{codec!r}: decode_into returned {written}"
            if codec.codec_type == "array_array":  # encode_into: the same call shape
                encoded_array = np.asarray(encoded)
                encoded_out = np.empty(encoded_array.shape, dtype=encoded_array.dtype)
                written = codec.encode_into(arr, encoded_out, spec)
                assert _same_array(encoded_out, encoded), f"{codec!r}: encode_into {label}"
                assert written == encoded_out.nbytes, f"{codec!r}: encode_into returned {written}"


def _overlap_offsets(size: int) -> list[tuple[int, int]]:
    """(input offset, output offset) pairs in one buffer: the same start, and either one a
    little or half its size after the other (multiples of 8, so array views stay aligned)."""
    half = (size // 2) // 8 * 8
    pairs = [(0, 0), (0, 8), (8, 0), (0, half), (half, 0)]
    return list(dict.fromkeys(pairs))


def _views(region: memoryview, kind: str, like: Any) -> Any:
    """``region`` as what a codec method takes: bytes-like for ``"bytes"``, else an array of
    ``like``'s dtype and shape over the same memory."""
    if kind == "bytes":
        return region
    return np.frombuffer(region, dtype=like.dtype).reshape(like.shape)


def _overlap_case(
    call: Callable[[Any, Any], int],
    source: Any,
    source_kind: str,
    room: int,
    out_like: Any,
    out_kind: str,
    accept: Callable[[bytes], bool],
    what: str,
) -> None:
    """Run ``call(input, out)`` with the two in one buffer at each pair of offsets."""
    data = _bytes_of(source)
    for at_in, at_out in _overlap_offsets(max(len(data), room)):
        buffer = bytearray(max(at_in + len(data), at_out + room) + 8)
        buffer[at_in : at_in + len(data)] = data
        before = bytes(buffer)
        view = memoryview(buffer)
        chunk = _views(view[at_in : at_in + len(data)], source_kind, source)
        out = _views(view[at_out : at_out + room], out_kind, out_like)
        where = f"{what} with input at {at_in} and output at {at_out}"
        try:
            written = call(chunk, out)
        except CodecError:
            # Refusing is allowed, before anything is written.
            assert bytes(buffer) == before, f"{where}: refused after writing"
            continue
        finally:
            del chunk, out
            view.release()
        assert 0 <= written <= room, f"{where}: returned {written}"
        result = bytes(buffer[at_out : at_out + written])
        assert accept(result), f"{where}: wrong result"


def check_overlap(codec: Any, data_types: Sequence[DataType]) -> None:
    """``encode_into`` and ``decode_into`` with an output sharing memory with the input (the
    same bytes, or parts of one buffer overlapping either way round) write what they write
    into separate memory, or raise a ``CodecError`` without having written anything."""
    name = repr(codec)
    if codec.codec_type == "bytes_bytes":
        for label, data in list(_bytes_inputs(data_types).items())[:4]:
            raw = _bytes_of(data)
            encoded = _bytes_of(codec.encode(raw))
            _overlap_case(
                lambda c, o: codec.decode_into(c, o),
                encoded,
                "bytes",
                len(raw),
                None,
                "bytes",
                lambda got, raw=raw: got == raw,  # type: ignore[misc]
                f"{name}: decode_into {label}",
            )
            room = codec.max_encoded_size(len(raw))
            if room is None:
                continue
            _overlap_case(
                lambda c, o: codec.encode_into(c, o),
                raw,
                "bytes",
                room,
                None,
                "bytes",
                lambda got, raw=raw: _bytes_of(codec.decode(got)) == raw,  # type: ignore[misc]
                f"{name}: encode_into {label}",
            )
        return
    if codec.codec_type != "array_array":
        return
    for dt in data_types:
        arr = sample_arrays(dt)["contiguous"]
        spec = ChunkSpec(arr.shape, dt)
        try:
            encoded_array = np.asarray(codec.encode(arr, spec))
        except CodecError:
            continue  # data this codec refuses (values out of its range): other checks' matter
        decoded_array = np.asarray(codec.decode(encoded_array, spec))
        for call, source, result, what in (
            (codec.encode_into, arr, encoded_array, "encode_into"),
            (codec.decode_into, encoded_array, decoded_array, "decode_into"),
        ):
            expected = np.ascontiguousarray(result).tobytes()
            _overlap_case(
                lambda c, o, call=call, spec=spec: call(c, o, spec),  # type: ignore[misc]
                np.ascontiguousarray(source),
                "array",
                len(expected),
                np.ascontiguousarray(result),
                "array",
                lambda got, expected=expected: got == expected,  # type: ignore[misc]
                f"{name}: {what} {dt.name}",
            )


def check_malformed(codec: Any, malformed: Iterable[Any], spec: ChunkSpec | None = None) -> None:
    """Every malformed input raises a ``CodecError`` subclass; random bytes never crash.

    For codecs that decode bytes, random inputs of several sizes must either decode or raise
    a ``CodecError``: any other exception fails the check.
    """
    args = () if codec.codec_type == "bytes_bytes" else (spec or ChunkSpec((16,), "uint8"),)
    for data in malformed:
        _expect_error(
            CodecError,
            lambda: codec.decode(data, *args),  # noqa: B023 - called at once
            f"{codec!r}: malformed input {_describe(data)}",
        )
    if codec.codec_type == "array_array":
        return  # its input is an array, not bytes: only the author knows what is malformed
    rng = np.random.default_rng(1234)
    for size in (0, 1, 2, 3, 7, 16, 64, 1000):
        junk = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        with contextlib.suppress(CodecError):  # decoding junk may succeed; crashing may not
            codec.decode(junk, *args)


def check_async_and_batch(codec: Any, data_types: Sequence[DataType]) -> None:
    """The opt-in extras, where present, agree with the plain methods."""
    if codec.codec_type == "bytes_bytes":
        chunks: list[tuple[Any, ...]] = [(d,) for d in list(_bytes_inputs(data_types).values())[:6]]
    else:
        chunks = []
        for dt in data_types[:3]:
            arr = sample_arrays(dt)["contiguous"]
            chunks.append((arr, ChunkSpec(arr.shape, dt)))
    for chunk in chunks:
        encoded = codec.encode(*chunk)
        if hasattr(codec, "encode_async"):  # SupportsAsync
            got = asyncio.run(codec.encode_async(*chunk))
            assert _bytes_of(got) == _bytes_of(encoded), f"{codec!r}: encode_async"
            back = asyncio.run(codec.decode_async(encoded, *chunk[1:]))
            assert _bytes_of(back) == _bytes_of(codec.decode(encoded, *chunk[1:]))
    if hasattr(codec, "encode_batch") and codec.codec_type == "bytes_bytes":  # SupportsBatch
        data = [c[0] for c in chunks]
        _, decoded = check_batch_matches_single(codec, data)
        assert [_bytes_of(d) for d in decoded] == [_bytes_of(d) for d in data]


def check_threads(codec: Any, data_types: Sequence[DataType], threads: int = 8) -> None:
    """The same work from ``threads`` threads at once gives the single-threaded results."""
    dt = data_types[0]
    arr = sample_arrays(dt)["contiguous"]
    check_threads_on_chunk(codec, arr, ChunkSpec(arr.shape, dt), threads=threads)


def check_capabilities(codec: Any, data_types: Sequence[DataType]) -> None:
    """``recommended_concurrency`` and ``partial_decode_capability`` answer with their types
    and sane values for every data type and chunk size (an empty chunk included)."""
    from zarr_codec_shapes.capabilities import PartialDecodeCapability, RecommendedConcurrency

    for dt in data_types:
        for shape in ((0,), (1,), (64, 64), (1024, 1024)):
            concurrency = codec.recommended_concurrency(ChunkSpec(shape, dt))
            assert isinstance(concurrency, RecommendedConcurrency), f"{codec!r}: {concurrency!r}"
            assert 1 <= concurrency.min <= concurrency.max, f"{codec!r}: {concurrency!r}"
    capability = codec.partial_decode_capability()
    assert isinstance(capability, PartialDecodeCapability), f"{codec!r}: {capability!r}"


# -- checks on the author's own chunks ----------------------------------------------------------


def _args(codec: Any, spec: ChunkSpec | None) -> tuple[Any, ...]:
    """What follows the chunk in a codec call: nothing for a bytes codec, else the spec."""
    if codec.codec_type == "bytes_bytes":
        return ()
    assert spec is not None, f"{codec!r}: a {codec.codec_type} codec needs a ChunkSpec"
    return (spec,)


def _same_output(actual: Any, expected: Any) -> bool:
    """Whether two calls gave the same result: arrays of one data type (byte order included)
    and shape with the same bytes; any other buffers with the same bytes."""
    arrays = (np.ndarray, np.generic)
    if isinstance(actual, arrays) and isinstance(expected, arrays):
        a, e = np.asarray(actual), np.asarray(expected)
        return a.dtype == e.dtype and a.shape == e.shape and a.tobytes() == e.tobytes()
    return _bytes_of(actual) == _bytes_of(expected)


def run_in_threads(work: Callable[[], Any], threads: int = 8, repeat: int = 10) -> list[Any]:
    """``work()`` run ``repeat`` times in each of ``threads`` threads that start together (a
    barrier, so the calls really overlap); every result, in no particular order. An exception
    in any thread is raised here."""
    barrier = threading.Barrier(threads)

    def task() -> list[Any]:
        barrier.wait()
        return [work() for _ in range(repeat)]

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(task) for _ in range(threads)]
        return [result for future in futures for result in future.result()]


def check_threads_on_chunk(
    codec: Any, chunk: Any, spec: ChunkSpec | None = None, *, threads: int = 8, repeat: int = 20
) -> None:
    """``encode``, ``decode`` and ``decode_into`` of ``chunk`` from ``threads`` threads at once
    give what one thread gets (no state shared between calls). ``spec``: for codecs that take
    one (array_array, array_bytes)."""
    args = _args(codec, spec)
    encoded = codec.encode(chunk, *args)
    decoded = codec.decode(encoded, *args)

    def calls() -> bool:
        again = codec.encode(chunk, *args)
        back = codec.decode(again, *args)
        if codec.codec_type == "bytes_bytes":
            out: Any = bytearray(len(_bytes_of(decoded)))
            codec.decode_into(again, out)
            into_right = bytes(out) == _bytes_of(decoded)
        else:
            assert spec is not None
            out = np.empty(spec.shape, dtype=spec.data_type.numpy_dtype)
            codec.decode_into(again, out, spec)
            into_right = _same_array(out, decoded)
        return _same_output(again, encoded) and _same_output(back, decoded) and into_right

    def work() -> str:
        """What went wrong, or "" when nothing did."""
        try:
            return "" if calls() else "a different result"
        except Exception as err:  # one thread alone raised nothing
            return f"{type(err).__name__} ({err})"

    problems = [problem for problem in run_in_threads(work, threads, repeat) if problem]
    assert not problems, (
        f"{codec!r}: {len(problems)} of {threads * repeat} calls from {threads} threads at once "
        f"differ from one thread's, first: {problems[0]}"
    )


def check_errors_from_threads(
    codec: Any,
    bad: Any,
    good: Any,
    error: type[CodecError] = CodecError,
    *,
    spec: ChunkSpec | None = None,
    threads: int = 8,
    repeat: int = 10,
) -> None:
    """``threads`` threads at once each decode ``bad`` and then ``good``, over and over: every
    ``bad`` raises ``error`` and every ``good`` decodes as in one thread (no error state shared
    between calls, none left behind)."""
    args = _args(codec, spec)
    expected = codec.decode(good, *args)

    def work() -> str:
        """What went wrong, or "" when nothing did."""
        try:
            codec.decode(bad, *args)
        except error:
            pass
        except Exception as err:
            return f"the bad input raised {type(err).__name__} ({err}), not {error.__name__}"
        else:
            return "the bad input decoded"
        try:
            back = codec.decode(good, *args)
        except Exception as err:
            return f"the good input raised {type(err).__name__} ({err})"
        return "" if _same_output(back, expected) else "the good input decoded differently"

    problems = [problem for problem in run_in_threads(work, threads, repeat) if problem]
    assert not problems, (
        f"{codec!r}: {len(problems)} calls from {threads} threads at once went wrong, "
        f"first: {problems[0]}"
    )


def check_batch_matches_single(
    codec: Any, chunks: Iterable[Any], spec: ChunkSpec | None = None, *, threads: int | None = None
) -> tuple[list[Any], list[Any]]:
    """``encode_batch`` and ``decode_batch`` (``SupportsBatch``) give, in order, what ``encode``
    and ``decode`` give chunk by chunk; returns the encoded and the decoded batch, for checks of
    the caller's own. ``threads``, where given, goes to both as ``threads=`` (the protocol
    leaves batch options to each codec)."""
    args = _args(codec, spec)
    options = {} if threads is None else {"threads": threads}
    chunks = list(chunks)
    encoded = list(codec.encode_batch(chunks, *args, **options))
    assert len(encoded) == len(chunks), f"{codec!r}: encode_batch gave {len(encoded)} results"
    for i, (chunk, got) in enumerate(zip(chunks, encoded, strict=True)):
        want = codec.encode(chunk, *args)
        assert _same_output(got, want), f"{codec!r}: encode_batch differs at chunk {i}"
    decoded = list(codec.decode_batch(encoded, *args, **options))
    assert len(decoded) == len(encoded), f"{codec!r}: decode_batch gave {len(decoded)} results"
    for i, (chunk, got) in enumerate(zip(encoded, decoded, strict=True)):
        want = codec.decode(chunk, *args)
        assert _same_output(got, want), f"{codec!r}: decode_batch differs at chunk {i}"
    return encoded, decoded


def decode_calls(
    codec: Any,
    stream: Buffer,
    *,
    room: int,
    batch_with: Buffer | None = None,
    threads: int | None = None,
) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """Every way a bytes codec decodes ``stream``, as (name, call) pairs; each call returns the
    decoded bytes: ``decode``; ``decode_into`` a ``room``-byte buffer; and, where the codec has
    ``decode_batch``, a batch of ``stream`` after ``batch_with`` (a valid encoded chunk, so a
    bad chunk among good ones is seen; ``threads`` as for :func:`check_batch_matches_single`).
    """
    assert codec.codec_type == "bytes_bytes", f"{codec!r}: decode_calls takes a bytes codec"

    def into() -> bytes:
        out = bytearray(room)
        return bytes(out[: codec.decode_into(stream, out)])

    yield "decode", lambda: _bytes_of(codec.decode(stream))
    yield "decode_into", into
    if hasattr(codec, "decode_batch"):
        batch = [stream] if batch_with is None else [batch_with, stream]
        options = {} if threads is None else {"threads": threads}
        yield "decode_batch", lambda: _bytes_of(codec.decode_batch(batch, **options)[-1])


def check_rejected(
    codec: Any,
    stream: Buffer,
    error: type[CodecError] = CodecError,
    *,
    room: int,
    batch_with: Buffer | None = None,
    threads: int | None = None,
) -> None:
    """Every decode call of ``stream`` (see :func:`decode_calls`) raises ``error``: none returns
    a result, none raises anything else."""
    for how, call in decode_calls(codec, stream, room=room, batch_with=batch_with, threads=threads):
        _expect_error(error, call, f"{codec!r}: {how} of {_describe(stream)}")


def check_decoded_or_rejected(
    codec: Any,
    stream: Buffer,
    *,
    room: int,
    batch_with: Buffer | None = None,
    threads: int | None = None,
) -> bytes | None:
    """Every decode call of ``stream`` (see :func:`decode_calls`) returns or raises a
    ``CodecError``, and they agree: all return the same bytes (returned here) or all raise
    (``None``). For altered streams a format cannot always tell from valid ones."""
    verdicts: dict[str, bytes | None] = {}
    for how, call in decode_calls(codec, stream, room=room, batch_with=batch_with, threads=threads):
        try:
            verdicts[how] = call()
        except CodecError:
            verdicts[how] = None
        except Exception as err:
            message = f"{codec!r}: {how}: raised {type(err).__name__} ({err}), not a CodecError"
            raise AssertionError(message) from err
    outcomes = set(verdicts.values())
    if len(outcomes) > 1:
        said = ", ".join(
            f"{how} {'raised' if v is None else f'gave {len(v)} bytes'}"
            for how, v in verdicts.items()
        )
        raise AssertionError(f"{codec!r}: decode calls disagree on {_describe(stream)}: {said}")
    return outcomes.pop()


def check_truncations(
    codec: Any,
    encoded: Buffer,
    error: type[CodecError] = CodecError,
    *,
    ends: Iterable[int] | None = None,
    room: int | None = None,
    threads: int | None = None,
) -> None:
    """Each prefix ``encoded[:end]`` of a valid encoded chunk (``ends``: by default every
    shorter one, the empty one included) is refused with ``error`` by ``decode`` and by
    ``decode_into`` a ``room``-byte buffer (by default the whole chunk's decoded size, what a
    Zarr reader passes); every seventh also in a batch after the whole chunk (a sample: batches
    may start threads)."""
    data = _bytes_of(encoded)
    room = len(_bytes_of(codec.decode(data))) if room is None else room
    ends = list(range(len(data)) if ends is None else ends)
    in_batch = set(ends[::7])
    for end in ends:
        for how, call in decode_calls(
            codec, data[:end], room=room, batch_with=data, threads=threads
        ):
            if how == "decode_batch" and end not in in_batch:
                continue
            _expect_error(error, call, f"{codec!r}: {how} of the first {end} of {len(data)} bytes")


def check_codec(
    codec: Codec,
    *,
    data_types: Sequence[DataType] = CORE_DATA_TYPES,
    malformed: Iterable[Any] = (),
    exact: bool = True,
) -> None:
    """Run every check on one codec; raises ``AssertionError`` naming what failed."""
    check_json(codec)
    check_value_semantics(codec)
    check_round_trips(codec, data_types, exact=exact)
    check_decode_into(codec, data_types)
    check_malformed(codec, malformed)
    check_overlap(codec, data_types)
    check_async_and_batch(codec, data_types)
    check_threads(codec, data_types)
    check_capabilities(codec, data_types)


class ConformanceSuite:
    """Subclass as ``Test<Something>`` and set ``codecs``; pytest collects one test per check."""

    codecs: ClassVar[Sequence[Codec]] = ()
    data_types: ClassVar[Sequence[DataType]] = CORE_DATA_TYPES
    malformed: ClassVar[Sequence[Any]] = ()
    #: False for lossy codecs: a second round trip must then reproduce the first.
    exact: ClassVar[bool] = True
    #: Layouts of :func:`sample_arrays` an array codec's format cannot hold (zfp: an array of
    #: no values), which it must refuse with a ``CodecError``.
    refused_layouts: ClassVar[frozenset[str]] = frozenset()

    def _each(self) -> Sequence[Codec]:
        assert self.codecs, f"{type(self).__name__} lists no codecs"
        return self.codecs

    def test_json(self) -> None:
        for codec in self._each():
            check_json(codec)

    def test_value_semantics(self) -> None:
        for codec in self._each():
            check_value_semantics(codec)

    def test_round_trips(self) -> None:
        for codec in self._each():
            check_round_trips(
                codec, self.data_types, exact=self.exact, refused_layouts=self.refused_layouts
            )

    def test_decode_into(self) -> None:
        for codec in self._each():
            check_decode_into(codec, self.data_types, refused_layouts=self.refused_layouts)

    def test_malformed(self) -> None:
        # Array codecs decode the malformed arrays as chunks of the suite's first data type.
        spec = ChunkSpec((16,), self.data_types[0])
        for codec in self._each():
            check_malformed(codec, self.malformed, spec)

    def test_overlap(self) -> None:
        for codec in self._each():
            check_overlap(codec, self.data_types)

    def test_async_and_batch(self) -> None:
        for codec in self._each():
            check_async_and_batch(codec, self.data_types)

    def test_threads(self) -> None:
        for codec in self._each():
            check_threads(codec, self.data_types)

    def test_capabilities(self) -> None:
        for codec in self._each():
            check_capabilities(codec, self.data_types)
