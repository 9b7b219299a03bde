"""Case providers for ``cast_value``: ours against numpy, cast-value-rs and the pure-Python
cast-value, on the float datasets.

Groups are named ``cast <source>-><target> <rounding>``; their baseline is ``numpy``. Encoding
casts the float data (scaled into the target's range, so every element is in range) to each
integer type with ``nearest-even``: numpy's equivalent is ``rint`` + ``clip`` + ``astype``.
Decoding casts back with ``astype``. ``float32 <-> float16`` and ``float64 -> float32`` are
there too. The ``cast batch`` group decodes 64 chunks into one existing array on 1 thread and
on 2 (and into new arrays on 2, which adds a page fault per fresh page).
"""

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from zarr_codecs_bench.harness import Case
from zarr_codecs_bench.peers import CaseFactory, Provider

INT_TARGETS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DATASETS = ("float32_field", "float64_field")
BATCH_CHUNKS = 64


def cast_group(source: str, target: str, rounding: str = "nearest-even") -> str:
    """The group shared by every implementation of one cast."""
    return f"cast {source}->{target} {rounding}"


def batch_group(job: str = "int16->float32") -> str:
    """Batch decode of 64 chunks: 1 thread (the baseline) against 2."""
    return f"cast batch of {BATCH_CHUNKS} {job}"


def baseline_for(group: str) -> str | None:
    """The fixed baseline of a cast group, ``None`` for other groups."""
    if group.startswith("cast batch"):
        return "1 thread"
    return "numpy" if group.startswith("cast ") else None


def _scaled(data: npt.NDArray[Any], target: str) -> npt.NDArray[Any]:
    """``data`` mapped into 90% of ``target``'s range (kept to float precision), same dtype."""
    info = np.iinfo(target)
    flat = data.reshape(-1).astype(np.float64)
    low, high = float(flat.min()), float(flat.max())
    top = min(float(info.max), 2.0**50)
    bottom = max(float(info.min), -(2.0**50))
    unit = (flat - low) / (high - low or 1.0)
    return (bottom * 0.9 + unit * (top - bottom) * 0.9).astype(data.dtype)


def _pairs(dataset: str, data: npt.NDArray[Any]) -> list[tuple[str, npt.NDArray[Any], str]]:
    """(group, source array, target dtype name) for the casts timed on ``dataset``."""
    if dataset not in FLOAT_DATASETS:
        return []
    source = str(data.dtype)
    pairs = [(cast_group(source, t), _scaled(data, t), t) for t in INT_TARGETS]
    flat = data.reshape(-1)
    if source == "float32":
        small = (flat / max(float(np.abs(flat).max()), 1.0) * 1000.0).astype(np.float32)
        pairs.append((cast_group(source, "float16"), small, "float16"))
    else:
        pairs.append((cast_group(source, "float32"), flat, "float32"))
    return pairs


def _cases(
    label: str,
    dataset: str,
    data: npt.NDArray[Any],
    encode: Any,
    decode: Any,
    integer_only: bool = False,
) -> list[Case]:
    """Encode and decode cases for every pair; ``encode(x, target)``, ``decode(y, source)``."""
    out: list[Case] = []
    for group, array, target in _pairs(dataset, data):
        if integer_only and not target.startswith(("int", "uint")):
            continue
        encoded = encode(array, target)
        if encoded is None:  # this implementation cannot do the pair
            continue
        source = array.dtype

        def run_encode(array: Any = array, target: str = target) -> object:
            return encode(array, target)

        def run_decode(encoded: Any = encoded, source: Any = source) -> object:
            return decode(encoded, source)

        out.append(Case(label, dataset, "encode", run_encode, array.nbytes, group))
        out.append(Case(label, dataset, "decode", run_decode, array.nbytes, group))
    return out


def _numpy() -> CaseFactory:
    def encode(array: npt.NDArray[Any], target: str) -> Any:
        if target.startswith(("int", "uint")):
            info = np.iinfo(target)
            return np.clip(np.rint(array), info.min, info.max).astype(target)
        return array.astype(target)

    def decode(encoded: npt.NDArray[Any], source: Any) -> Any:
        return encoded.astype(source)

    return lambda dataset, data: _cases("numpy", dataset, data, encode, decode)


def _cast_array_peer(label: str, cast_array: Any) -> CaseFactory:
    """Cases for a peer with cast-value's ``cast_array(array, target_dtype=..., ...)``."""

    def cast(array: npt.NDArray[Any], target: Any) -> Any:
        return cast_array(
            array,
            target_dtype=np.dtype(target),
            rounding_mode="nearest-even",
            out_of_range_mode=None,
        )

    return lambda dataset, data: _cases(label, dataset, data, cast, cast)


def _cast_value_rs() -> CaseFactory:
    from cast_value_rs import cast_array

    return _cast_array_peer("cast-value-rs", cast_array)


def _cast_value_python() -> CaseFactory:
    import cast_value

    return _cast_array_peer("cast-value", cast_value.cast_array)


def _ours() -> CaseFactory:
    from zarr_codec_cast_value import CastValue
    from zarr_codec_shapes import DataType

    def plan(source: Any, target: str, direction: Literal["encode", "decode"]) -> Any:
        return _Way(CastValue(target).bind(DataType.from_numpy(np.dtype(source))), direction)

    def encode(array: npt.NDArray[Any], target: str) -> Any:
        return plan(array.dtype, target, "encode").apply(array)

    def decode(encoded: npt.NDArray[Any], source: Any) -> Any:
        return plan(source, str(encoded.dtype), "decode").apply(encoded)

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        # Plans are built once per pair, as a codec does; time only their use.
        out: list[Case] = []
        for group, array, target in _pairs(dataset, data):
            forward = plan(array.dtype, target, "encode")
            backward = plan(array.dtype, target, "decode")
            encoded = forward.apply(array)

            def run_encode(array: Any = array, forward: Any = forward) -> object:
                return forward.apply(array)

            def run_decode(encoded: Any = encoded, backward: Any = backward) -> object:
                return backward.apply(encoded)

            label = "zarr-codec-cast-value"
            out.append(Case(label, dataset, "encode", run_encode, array.nbytes, group))
            out.append(Case(label, dataset, "decode", run_decode, array.nbytes, group))
        if dataset == "float32_field":
            out += _batch_cases(dataset, data)
        return out

    return cases


def _batch_cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
    """Decode 64 chunks into their slots of one existing array (as a chunk pipeline does) on
    1 and 2 threads, and into new arrays on 2: ``int16 -> float32`` (bound by memory
    bandwidth) and ``float64 -> float16`` with ``towards-zero`` (bound by compute:
    directed float16 casts take the exact path)."""
    from zarr_codec_cast_value import CastValue
    from zarr_codec_shapes import DataType

    out: list[Case] = []
    int16 = _scaled(data, "int16").astype(np.float32)
    small = (int16 / 8.0).astype(np.float64)
    for source, target, rounding, array in (
        ("float32", "int16", "nearest-even", int16),
        ("float64", "float16", "towards-zero", small),
    ):
        codec = CastValue(target, rounding)
        dtype = DataType.from_name(source)
        bound = codec.bind(dtype)
        forward, backward = _Way(bound, "encode"), _Way(bound, "decode")
        # Timed: the encode direction for the compute-bound job, decode for the other.
        timed, chunks = (
            (backward, np.array_split(forward.apply(array), BATCH_CHUNKS))
            if rounding == "nearest-even"
            else (forward, np.array_split(array, BATCH_CHUNKS))
        )
        job = (
            f"{target}->{source}"
            if rounding == "nearest-even"
            else f"{source}->{target} {rounding}"
        )
        out += _batch_jobs(dataset, timed, chunks, array.nbytes, batch_group(job))
    return out


@dataclass(frozen=True)
class _Way:
    """One direction of our cast bound to an array's type, as the jobs here time it."""

    bound: Any  # zarr_codec_shapes.compiled.CompiledArrayCodec
    direction: Literal["encode", "decode"]

    def apply(self, array: Any) -> Any:
        return getattr(self.bound, self.direction)(array)

    def apply_batch(self, arrays: Any, threads: int) -> Any:
        return getattr(self.bound, f"{self.direction}_batch")(arrays, threads)

    def apply_batch_into(self, arrays: Any, outs: Any, threads: int) -> None:
        getattr(self.bound, f"{self.direction}_batch_into")(arrays, outs, threads)


def _batch_jobs(dataset: str, plan: Any, chunks: list[Any], nbytes: int, group: str) -> list[Case]:
    results = [plan.apply(chunk) for chunk in chunks]
    whole = np.empty(sum(r.size for r in results), dtype=results[0].dtype)
    slots, start = [], 0
    for result in results:
        slots.append(whole[start : start + result.size])
        start += result.size

    def into(threads: int) -> Case:
        label = "1 thread" if threads == 1 else f"{threads} threads"

        def run() -> object:
            plan.apply_batch_into(chunks, slots, threads)
            return whole

        return Case(label, dataset, "decode", run, nbytes, group)

    def fresh() -> object:
        return plan.apply_batch(chunks, 2)

    return [
        into(1),
        into(2),
        Case("2 threads, new arrays", dataset, "decode", fresh, nbytes, group),
    ]


NUMPY = Provider("numpy-cast", "numpy rint + clip + astype (encode), astype (decode)", _numpy)
CAST_VALUE_RS = Provider("cast-value-rs", "cast-value-rs (zarr-python's backend)", _cast_value_rs)
CAST_VALUE = Provider("cast-value", "the pure-Python cast-value (numpy)", _cast_value_python)
OURS = Provider(
    "zarr-codec-cast-value", "our cast_value: float->int, float32<->float16, batch", _ours
)

PROVIDERS: tuple[Provider, ...] = (NUMPY, CAST_VALUE_RS, CAST_VALUE, OURS)
