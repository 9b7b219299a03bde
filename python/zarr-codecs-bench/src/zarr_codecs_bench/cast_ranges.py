"""Case providers for ``cast_value`` on data that leaves the target's range: ``clamp`` and
``wrap``, ours against numpy and cast-value-rs, on the float datasets.

Each group casts one array, encode direction only: the float field mapped linearly so that a
given fraction of its elements (0%, 1%, 50%, 100%) lies above the target's largest value,
spanning about 60% of the target's range (for ``uint8`` and 50%: values from about 180 to 330).
``nan`` groups take the 0% array with 30% of its elements set to NaN in patches (a land mask,
say) and ``scalar_map`` ``NaN -> 0``. Groups are named
``<rule> <source>-><target> <n>% out`` or ``clamp <source>-><target> 30% NaN``; their baseline
is numpy's equivalent expression:

- ``clamp`` into an integer: ``clip(rint(x), min, max).astype(t)``;
- ``wrap``: ``rint(x).astype(int64).astype(t)`` (C casts between integers wrap);
- ``clamp`` into ``float32``/``float16``: ``x.astype(t)`` (overflow gives ±Infinity, as
  ``clamp`` asks);
- NaN mapped to 0: ``clip(rint(where(isnan(x), 0, x)), min, max).astype(t)``.

Every implementation's output is checked against numpy's before it is timed.
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from zarr_codecs_bench.harness import Case
from zarr_codecs_bench.peers import CaseFactory, Provider

Array = npt.NDArray[Any]

FRACTIONS = (0.0, 0.01, 0.5, 1.0)
NAN_FRACTION = 0.3
INT_TARGETS = ("uint8", "int8", "int16")
#: Float targets, from float64 only (float32 into float16 has its own kernel, F16C).
FLOAT_TARGETS = ("float32", "float16")
DATASETS = ("float32_field", "float64_field")


def range_group(rule: str, source: str, target: str, fraction: float) -> str:
    """The group of one cast with ``fraction`` of the elements out of range."""
    return f"{rule} {source}->{target} {fraction:.0%} out"


def nan_group(source: str, target: str) -> str:
    """The group of one cast with 30% NaN, mapped to 0."""
    return f"clamp {source}->{target} {NAN_FRACTION:.0%} NaN"


def baseline_for(group: str) -> str | None:
    """``numpy`` for this module's groups, ``None`` for others."""
    if group.startswith(("clamp ", "wrap ")):
        return "numpy"
    return None


def _largest(target: str) -> float:
    if target.startswith(("int", "uint")):
        return float(np.iinfo(target).max)
    return float(np.finfo(target).max)


def out_of_range(field: Array, target: str, fraction: float) -> Array:
    """``field`` mapped linearly so that ``fraction`` of it is above ``target``'s largest value
    (nothing for 0, everything for 1), spanning 60% of the target's positive range; same
    dtype as ``field``."""
    x = field.reshape(-1).astype(np.float64)
    top = _largest(target)
    low, high = float(x.min()), float(x.max())
    scale = 0.6 * top / (high - low or 1.0)
    if fraction <= 0.0:
        pivot, at = high, top * 0.999
    elif fraction >= 1.0:
        pivot, at = low, top * 1.001 + 1.0
    else:
        pivot, at = float(np.quantile(x, 1.0 - fraction)), top + 0.5
    with np.errstate(over="ignore"):
        return ((x - pivot) * scale + at).astype(field.dtype)


def with_nans(values: Array, fraction: float = NAN_FRACTION) -> Array:
    """``values`` with ``fraction`` of its elements NaN, in patches: where a smooth pattern
    of the position is in its top ``fraction``."""
    n = values.size
    position = np.arange(n, dtype=np.float64)
    pattern = np.sin(position * (2 * np.pi / 4096)) + np.sin(position * (2 * np.pi / 977))
    out = values.copy()
    out[pattern > np.quantile(pattern, 1.0 - fraction)] = np.nan
    return out


# One job: (group, source array, target, out_of_range rule, NaN mapped to 0).
Job = tuple[str, Array, str, str, bool]

_JOBS: dict[tuple[str, int], list[Job]] = {}


def jobs(dataset: str, data: Array) -> list[Job]:
    """The casts timed on ``dataset`` (made once per dataset and size, for all providers)."""
    if dataset not in DATASETS:
        return []
    key = (dataset, data.nbytes)
    if key not in _JOBS:
        source = str(data.dtype)
        made: list[Job] = []
        for target in INT_TARGETS:
            for fraction in FRACTIONS:
                array = out_of_range(data, target, fraction)
                for rule in ("clamp", "wrap"):
                    made.append(
                        (range_group(rule, source, target, fraction), array, target, rule, False)
                    )
            nans = with_nans(out_of_range(data, target, 0.0))
            made.append((nan_group(source, target), nans, target, "clamp", True))
        if source == "float64":
            for target in FLOAT_TARGETS:
                for fraction in FRACTIONS:
                    array = out_of_range(data, target, fraction)
                    group = range_group("clamp", source, target, fraction)
                    made.append((group, array, target, "clamp", False))
        _JOBS.clear()  # keep one dataset's arrays at a time
        _JOBS[key] = made
    return _JOBS[key]


def numpy_cast(array: Array, target: str, rule: str, nan_to_zero: bool) -> Array:
    """numpy's equivalent of the cast (see the module's docstring)."""
    if not target.startswith(("int", "uint")):
        with np.errstate(over="ignore"):
            return array.astype(target)
    if nan_to_zero:
        array = np.where(np.isnan(array), 0, array)
    rounded = np.rint(array)
    if rule == "wrap":
        return rounded.astype(np.int64).astype(target)
    info = np.iinfo(target)
    return np.clip(rounded, info.min, info.max).astype(target)


Cast = Callable[[Array, str, str, bool], Callable[[], object]]


def _factory(label: str, prepare: Cast, strict: bool = False) -> CaseFactory:
    """Cases for an implementation; ``prepare(array, target, rule, nan_to_zero)`` does any
    set-up (a plan) and returns the timed call. A result that differs from numpy's is an
    error when ``strict`` (ours), and otherwise labels the row (cast-value-rs rounds float64
    to float16 through float32, twice)."""

    def cases(dataset: str, data: Array) -> list[Case]:
        out: list[Case] = []
        for group, array, target, rule, nan_to_zero in jobs(dataset, data):
            run = prepare(array, target, rule, nan_to_zero)
            expected = numpy_cast(array, target, rule, nan_to_zero)
            # Bit for bit (NaNs' payloads aside): -0.0 and 0.0 differ too.
            same = np.array_equal(
                np.asarray(run()).view(f"u{expected.itemsize}"),
                expected.view(f"u{expected.itemsize}"),
            ) or np.array_equal(np.asarray(run()), expected, equal_nan=True)
            row = label
            if not same:
                if strict:
                    raise ValueError(f"{label} ({group}) differs from numpy's result on {dataset}")
                row = f"{label} (differs from numpy)"
            out.append(Case(row, dataset, "encode", run, array.nbytes, group))
        return out

    return cases


def _numpy() -> CaseFactory:
    def prepare(array: Array, target: str, rule: str, nan_to_zero: bool) -> Callable[[], object]:
        return lambda: numpy_cast(array, target, rule, nan_to_zero)

    return _factory("numpy", prepare)


def _cast_value_rs() -> CaseFactory:
    from cast_value_rs import cast_array

    def prepare(array: Array, target: str, rule: str, nan_to_zero: bool) -> Callable[[], object]:
        entries = [(float("nan"), 0)] if nan_to_zero else None

        def run() -> object:
            return cast_array(
                array,
                target_dtype=np.dtype(target),
                rounding_mode="nearest-even",
                out_of_range_mode=rule,  # type: ignore[arg-type]  # "clamp" or "wrap"
                scalar_map_entries=entries,
            )

        return run

    return _factory("cast-value-rs", prepare)


def _ours() -> CaseFactory:
    from zarr_codec_cast_value import CastValue
    from zarr_codec_shapes import DataType

    def prepare(array: Array, target: str, rule: str, nan_to_zero: bool) -> Callable[[], object]:
        scalar_map = {"encode": [["NaN", 0]]} if nan_to_zero else None
        codec = CastValue(target, "nearest-even", out_of_range=rule, scalar_map=scalar_map)
        # Planned once, as a codec does; only its use is timed.
        bound = codec.bind(DataType.from_numpy(array.dtype))
        return lambda: bound.encode(array)

    return _factory("zarr-codec-cast-value", prepare, strict=True)


NUMPY = Provider("numpy-cast-range", "numpy clip/rint/astype on out-of-range data", _numpy)
CAST_VALUE_RS = Provider(
    "cast-value-rs-range", "cast-value-rs with clamp and wrap on out-of-range data", _cast_value_rs
)
OURS = Provider(
    "zarr-codec-cast-value-range", "our cast_value with clamp and wrap on out-of-range data", _ours
)

PROVIDERS: tuple[Provider, ...] = (NUMPY, CAST_VALUE_RS, OURS)
