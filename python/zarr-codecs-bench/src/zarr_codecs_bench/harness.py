"""The benchmark harness: cases, timing, comparison to a baseline, tables and plots.

A :class:`Case` is one thing to time: one codec (``codec_label``) doing one ``operation`` on one
dataset. Cases in the same ``group`` do the same job (say "gzip level=5") with different
libraries, so they can be compared: :func:`speedups` gives each result's throughput relative to
a named baseline within the same (dataset, operation, group).

Throughput is always in MB/s (10**6 bytes per second) of *uncompressed* data, for encode and
decode alike, so the numbers of the two operations compare directly. Benchmarks never assert
a time; they report.
"""

import math
import statistics
import time
from collections.abc import Buffer, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

Operation = Literal["encode", "decode"]
OPERATIONS: tuple[Operation, ...] = ("encode", "decode")

#: One megabyte, as used for MB/s.
MB = 1_000_000

#: Identifies the comparison a result belongs to: (dataset, operation, group).
GroupKey = tuple[str, Operation, str]


@dataclass(frozen=True)
class Case:
    """One timed call: ``fn()`` processes ``nbytes`` of uncompressed data."""

    codec_label: str
    dataset: str
    operation: Operation
    fn: Callable[[], object]
    nbytes: int
    group: str = ""
    encoded_nbytes: int | None = None


@dataclass(frozen=True)
class Result:
    """The measured median time of a :class:`Case`."""

    codec_label: str
    dataset: str
    operation: Operation
    group: str
    nbytes: int
    seconds: float
    encoded_nbytes: int | None = None

    @property
    def key(self) -> GroupKey:
        """The comparison this result belongs to."""
        return (self.dataset, self.operation, self.group)

    @property
    def throughput(self) -> float:
        """MB/s of uncompressed data."""
        return self.nbytes / self.seconds / MB if self.seconds > 0 else math.inf

    @property
    def compression_ratio(self) -> float | None:
        """Uncompressed over encoded size, when known."""
        if not self.encoded_nbytes:
            return None
        return self.nbytes / self.encoded_nbytes


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def measure(
    fn: Callable[[], object],
    warmup: int = 1,
    repeats: int = 5,
    min_time: float = 0.01,
    clock: Callable[[], float] = time.perf_counter,
    setup: Callable[[], object] | None = None,
) -> float:
    """The median time of one call of ``fn``, in seconds.

    ``warmup`` calls run first and are not counted; the last of them also calibrates: when one
    call takes less than ``min_time``, each of the ``repeats`` samples runs ``fn`` enough times
    to last about ``min_time`` and reports the time per call. ``setup``, if given, runs untimed
    before every call (so each sample is one call). ``clock`` is replaceable for tests.
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if warmup < 0 or min_time < 0:
        raise ValueError("warmup and min_time must not be negative")
    if setup is not None and min_time > 0:
        raise ValueError("setup runs before every call: min_time must be 0")
    number = 1
    for _ in range(warmup):
        if setup is not None:
            setup()
        start = clock()
        fn()
        elapsed = clock() - start
        if elapsed < min_time:
            number = min(1_000_000, math.ceil(min_time / max(elapsed, 1e-9)))
        else:
            number = 1
    samples = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        start = clock()
        for _ in range(number):
            fn()
        samples.append((clock() - start) / number)
    return statistics.median(samples)


def run_case(case: Case, *, warmup: int = 1, repeats: int = 5, min_time: float = 0.01) -> Result:
    """Measure one case."""
    seconds = measure(case.fn, warmup=warmup, repeats=repeats, min_time=min_time)
    return Result(
        codec_label=case.codec_label,
        dataset=case.dataset,
        operation=case.operation,
        group=case.group,
        nbytes=case.nbytes,
        seconds=seconds,
        encoded_nbytes=case.encoded_nbytes,
    )


# --------------------------------------------------------------------------------------------
# Making cases
# --------------------------------------------------------------------------------------------


def as_bytes(data: Buffer) -> npt.NDArray[np.uint8]:
    """A flat uint8 view of any contiguous buffer (bytes, memoryview, numpy array)."""
    return np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)


def round_trip_cases(
    codec_label: str,
    group: str,
    dataset: str,
    data: npt.NDArray[Any],
    encode: Callable[[npt.NDArray[Any]], Buffer],
    decode: Callable[[Buffer], Buffer],
) -> list[Case]:
    """An encode and a decode case for a bytes codec, after checking that it round-trips.

    ``encode`` runs once up front; its output is what the decode case decodes and gives the
    compression ratio. A codec that does not give back the input bytes raises ``ValueError``.
    """
    encoded = encode(data)
    decoded = decode(encoded)
    if not np.array_equal(as_bytes(decoded), as_bytes(data)):
        raise ValueError(f"{codec_label} ({group}) does not round-trip {dataset}")
    encoded_nbytes = memoryview(encoded).nbytes

    def case(operation: Operation, fn: Callable[[], object]) -> Case:
        return Case(codec_label, dataset, operation, fn, data.nbytes, group, encoded_nbytes)

    return [case("encode", lambda: encode(data)), case("decode", lambda: decode(encoded))]


# --------------------------------------------------------------------------------------------
# Comparing
# --------------------------------------------------------------------------------------------


def group_results(results: Iterable[Result]) -> dict[GroupKey, dict[str, Result]]:
    """Results by (dataset, operation, group), then by codec label, in first-seen order."""
    groups: dict[GroupKey, dict[str, Result]] = {}
    for result in results:
        members = groups.setdefault(result.key, {})
        if result.codec_label in members:
            raise ValueError(f"two results for {result.codec_label!r} in {result.key}")
        members[result.codec_label] = result
    return groups


def baseline_label(baseline: str | Mapping[str, str] | None, group: str) -> str | None:
    """The baseline codec label for ``group``: one label for all groups, or one per group."""
    if baseline is None or isinstance(baseline, str):
        return baseline
    return baseline.get(group)


def speedups(
    results: Sequence[Result], baseline: str | Mapping[str, str] | None
) -> list[float | None]:
    """For each result, its throughput over the baseline's in the same comparison.

    Above 1 is faster than the baseline. ``None`` where the comparison has no baseline result.
    """
    groups = group_results(results)
    ratios: list[float | None] = []
    for result in results:
        label = baseline_label(baseline, result.group)
        reference = groups[result.key].get(label) if label is not None else None
        if reference is None or result.seconds <= 0:
            ratios.append(None)
        else:
            ratios.append(reference.seconds / result.seconds)
    return ratios


def ordered(results: Sequence[Result]) -> list[Result]:
    """Results sorted for reading: by dataset, group, then encode before decode.

    Datasets and groups keep their first-seen order; codecs keep theirs within a comparison.
    """
    datasets = {r.dataset: i for i, r in reversed(list(enumerate(results)))}
    groups = {r.group: i for i, r in reversed(list(enumerate(results)))}
    return sorted(
        results,
        key=lambda r: (datasets[r.dataset], groups[r.group], OPERATIONS.index(r.operation)),
    )


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------

MARKDOWN_COLUMNS = (
    "dataset",
    "operation",
    "group",
    "codec",
    "MB/s",
    "ms",
    "vs baseline",
    "size ratio",
)


def _number(value: float | None, fmt: str, suffix: str = "") -> str:
    return "-" if value is None else f"{value:{fmt}}{suffix}"


def to_markdown(results: Sequence[Result], baseline: str | Mapping[str, str] | None = None) -> str:
    """A Markdown table, one row per result, ordered by :func:`ordered`.

    "vs baseline" is the throughput relative to the baseline in the same dataset, operation and
    group (see :func:`speedups`); "size ratio" is uncompressed over encoded size.
    """
    rows = ordered(results)
    ratios = speedups(rows, baseline)
    lines = [
        "| " + " | ".join(MARKDOWN_COLUMNS) + " |",
        "|" + "|".join("---" if i < 4 else "---:" for i in range(len(MARKDOWN_COLUMNS))) + "|",
    ]
    for result, ratio in zip(rows, ratios, strict=True):
        cells = (
            result.dataset,
            result.operation,
            result.group,
            result.codec_label,
            _number(result.throughput, ",.0f"),
            _number(result.seconds * 1e3, ".3g"),
            _number(ratio, ".2f", "x"),
            _number(result.compression_ratio, ".2f"),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _figure_class() -> Any:
    """``matplotlib.figure.Figure``, imported only when a plot is asked for."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "plotting needs matplotlib: install it with `uv sync --group bench` "
            "or `pip install matplotlib`, or leave out --plot"
        ) from exc
    return Figure


def plot(results: Sequence[Result], path: str | Path) -> None:
    """Save a PNG bar chart of throughput: one panel per dataset and operation.

    Each panel has one horizontal bar per (group, codec) on a log scale (memcpy and gzip differ
    by orders of magnitude); bars are coloured by codec label, with one legend for the figure.
    """
    figure_class = _figure_class()
    rows = ordered(results)
    datasets = list(dict.fromkeys(r.dataset for r in rows))
    operations = [op for op in OPERATIONS if any(r.operation == op for r in rows)]
    if not datasets:
        raise ValueError("nothing to plot")
    labels = list(dict.fromkeys(r.codec_label for r in rows))
    colors = {label: f"C{i % 10}" for i, label in enumerate(labels)}
    bars = max(
        sum(1 for r in rows if r.dataset == d and r.operation == op)
        for d in datasets
        for op in operations
    )
    height = max(2.5, 0.28 * bars + 1.2)
    fig = figure_class(figsize=(6.5 * len(operations), height * len(datasets) + 0.6))
    axes = fig.subplots(len(datasets), len(operations), squeeze=False)
    for i, dataset in enumerate(datasets):
        for j, operation in enumerate(operations):
            ax = axes[i][j]
            panel = [r for r in rows if r.dataset == dataset and r.operation == operation]
            positions = list(range(len(panel)))
            ax.barh(
                positions,
                [r.throughput for r in panel],
                color=[colors[r.codec_label] for r in panel],
            )
            ax.set_yticks(positions, [r.group or r.codec_label for r in panel], fontsize=8)
            ax.invert_yaxis()
            ax.set_xscale("log")
            ax.set_xlabel("MB/s of uncompressed data (log scale)")
            ax.set_title(f"{dataset}: {operation}", fontsize=10)
            ax.grid(axis="x", alpha=0.3)
    handles = [_legend_patch(colors[label]) for label in labels]
    fig.legend(handles, labels, loc="upper center", ncols=min(len(labels), 6), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
    fig.savefig(str(path), dpi=110)


def _legend_patch(color: str) -> Any:
    """A coloured square for the legend."""
    from matplotlib.patches import Patch

    return Patch(color=color)
