"""Plots of the figures recorded in ``benchmarks/measured/``, for the docs' performance page.

``figures()`` reads the markdown tables of ``benchmarks/measured/*.md``, draws each plot with
matplotlib and returns its SVG; the docs build (``docs/hooks.py``) serves each as
``performance/<name>``. Every value drawn is read from a table row (``Point.rows`` says which),
so a plot cannot drift from its table. A table a plot needs that is missing, renamed, has other
columns or has no rows raises (``MissingTable``), as does a cell that is not a number: a plot
is never drawn from less than its table.

The figures are drawn on matplotlib ``Figure`` objects (no ``pyplot``, so no interactive
backend is ever chosen) and saved as SVG with a fixed ``svg.hashsalt`` and no date, so the same
tables give the same bytes.
"""

from __future__ import annotations

import io
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
from matplotlib.typing import RcKeyType

MEASURED = Path(__file__).resolve().parent / "measured"

STYLE: dict[RcKeyType, Any] = {
    "svg.hashsalt": "zarr-codecs",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
}
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
OURS = "#1f77b4"


class MissingTable(LookupError):
    """A table a plot reads is not in its file, or has no rows."""


# --- The tables -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One data row of a table: its line in the file (1-based) and its cells."""

    line: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    """A markdown table of a measured file, under the nearest heading above it."""

    file: str
    section: str
    line: int
    header: tuple[str, ...]
    rows: tuple[Row, ...]

    def column(self, name: str, occurrence: int = 0) -> int:
        """Index of the ``occurrence``-th column called ``name`` (some headers repeat one)."""
        found = [i for i, title in enumerate(self.header) if title == name]
        if len(found) <= occurrence:
            raise MissingTable(f"{self.file}:{self.line}: no column {name!r} (#{occurrence})")
        return found[occurrence]

    def cell(self, row: Row, name: str, occurrence: int = 0) -> str:
        return row.cells[self.column(name, occurrence)]

    def number(self, row: Row, name: str, occurrence: int = 0) -> float:
        return number(self.cell(row, name, occurrence), f"{self.file}:{row.line}")

    def where(self, row: Row) -> tuple[str, int]:
        return (self.file, row.line)


_SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


def read_tables(path: Path) -> list[Table]:
    """Every table of a markdown file, each with the heading it stands under."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tables: list[Table] = []
    section = ""
    fenced = False
    index = 0
    while index < len(lines):
        text = lines[index]
        if _FENCE.match(text):
            fenced = not fenced
        elif not fenced and text.startswith("#"):
            section = text.lstrip("#").strip()
        elif (
            not fenced
            and text.startswith("|")
            and index + 1 < len(lines)
            and _SEPARATOR.match(lines[index + 1])
        ):
            header = _cells(text)
            header_line = index + 1
            rows: list[Row] = []
            index += 1
            while index < len(lines) and lines[index].startswith("|"):
                if not _SEPARATOR.match(lines[index]):
                    cells = _cells(lines[index])
                    if len(cells) != len(header):
                        raise ValueError(
                            f"{path.name}:{index + 1}: {len(cells)} cells under a header of "
                            f"{len(header)}"
                        )
                    rows.append(Row(index + 1, cells))
                index += 1
            tables.append(Table(path.name, section, header_line, header, tuple(rows)))
            continue
        index += 1
    return tables


def table(
    file: str,
    header: Sequence[str],
    *,
    section: str | None = None,
    occurrence: int = 0,
    directory: Path = MEASURED,
) -> Table:
    """The ``occurrence``-th table of ``file`` with exactly this header (under a heading that
    starts with ``section``); raises ``MissingTable`` if there is none or it has no rows."""
    path = directory / file
    if not path.is_file():
        raise MissingTable(f"{path}: no such file")
    wanted = tuple(header)
    found = [
        t
        for t in read_tables(path)
        if t.header == wanted and (section is None or t.section.startswith(section))
    ]
    where = f"{file}" + (f", under a heading starting {section!r}," if section else "")
    if len(found) <= occurrence:
        raise MissingTable(
            f"{where} has {len(found)} table(s) with the header {' | '.join(wanted)}; "
            f"plot needs #{occurrence}"
        )
    chosen = found[occurrence]
    if not chosen.rows:
        raise MissingTable(f"{file}:{chosen.line}: the table has no rows")
    return chosen


def number(cell: str, where: str = "") -> float:
    """``1,204``, ``3.42e+03``, ``1.86x``, ``1,024 B``: the number; anything else raises."""
    text = cell.replace(",", "").strip().removesuffix("x").removesuffix(" B").strip()
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{where}: {cell!r} is not a number") from None


_BRACKETED = re.compile(r"^(\S+) \((\S+)x\)$")
_SPREAD = re.compile(r"^(\S+) \((\S+)-(\S+)\)$")


def bracketed(cell: str, where: str = "") -> tuple[float, float]:
    """``0.600 (1.26x)``: the time, and the ratio in brackets."""
    match = _BRACKETED.match(cell.strip())
    if match is None:
        raise ValueError(f"{where}: {cell!r} is not 'value (ratio x)'")
    return number(match[1], where), number(match[2], where)


def median_of(cell: str, where: str = "") -> float:
    """``1.791 (1.701-1.933)``: the median, before the middle half of the calls."""
    match = _SPREAD.match(cell.strip())
    if match is None:
        raise ValueError(f"{where}: {cell!r} is not 'median (low-high)'")
    low, high = number(match[2], where), number(match[3], where)
    if not low <= number(match[1], where) <= high:
        raise ValueError(f"{where}: {cell!r}: the median is outside its range")
    return number(match[1], where)


# --- What a plot draws ----------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One value drawn: where, and the table rows it is read from."""

    panel: str
    series: str
    category: str
    value: float
    rows: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Plot:
    """A figure's data: the tables it reads, the points it draws, and the rows of those tables
    it leaves out on purpose (each plot's ``unused``, with its reason in the code)."""

    name: str
    tables: tuple[Table, ...]
    points: tuple[Point, ...]
    unused: frozenset[tuple[str, int]] = frozenset()

    def panel(self, panel: str) -> list[Point]:
        return [p for p in self.points if p.panel == panel]

    def panels(self) -> list[str]:
        return list(dict.fromkeys(p.panel for p in self.points))


def _ratio(points: list[Point], panel: str, series: str, category: str) -> float:
    for p in points:
        if p.panel == panel and p.series == series and p.category == category:
            return p.value
    return float("nan")


# --- Drawing helpers ------------------------------------------------------------------------


def _times(value: float, _: int | None = None) -> str:
    return f"{value:g}x"


def _ratio_axis(ax: Axes, *, axis: Literal["x", "y"], log: bool, low: float, high: float) -> None:
    """A ratio axis: 1x marked by a line, labels as ``2x``."""
    if axis == "x":
        ax.axvline(1.0, color="#444444", linewidth=1, zorder=1)
        if log:
            ax.set_xscale("log")
        ax.set_xlim(low, high)
        target: Axis = ax.xaxis
    else:
        ax.axhline(1.0, color="#444444", linewidth=1, zorder=1)
        if log:
            ax.set_yscale("log")
        ax.set_ylim(low, high)
        target = ax.yaxis
    if log:
        target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        target.set_minor_locator(NullLocator())
    target.set_major_formatter(FuncFormatter(_times))
    ax.grid(axis=axis, color="#dddddd", linewidth=0.6, zorder=0)


def _limits(values: Iterable[float], *, log: bool) -> tuple[float, float]:
    finite = [v for v in values if v == v]
    low, high = min([*finite, 1.0]), max([*finite, 1.0])
    if log:
        return low / 1.35, high * 1.35
    return 0.0, high * 1.08


def _svg(figure: Figure) -> bytes:
    out = io.BytesIO()
    figure.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()


def _dot_rows(
    ax: Axes,
    points: list[Point],
    rows: list[str],
    *,
    colors: dict[str, str],
    low: float,
    high: float,
) -> None:
    """One row per category, a dot per point (colour by series), a bar at each row's median."""
    stray = {p.category for p in points} - set(rows)
    if stray:
        raise ValueError(f"points of rows the plot does not draw: {sorted(stray)}")
    spread = [name for name in colors if any(p.series == name for p in points)]
    for index, name in enumerate(spread):
        offset = (index - (len(spread) - 1) / 2) * 0.16
        mine = [p for p in points if p.series == name]
        ax.scatter(
            [p.value for p in mine],
            [rows.index(p.category) + offset for p in mine],
            s=16,
            color=colors[name],
            alpha=0.8,
            linewidths=0,
            zorder=3,
        )
    for y, row in enumerate(rows):
        middle = statistics.median(p.value for p in points if p.category == row)
        ax.plot([middle, middle], [y - 0.36, y + 0.36], color="#222222", lw=1.6, zorder=4)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    _ratio_axis(ax, axis="x", log=True, low=low, high=high)


def _grouped_bars(
    ax: Axes,
    points: list[Point],
    categories: list[str],
    series: list[str],
    colors: dict[str, str],
    *,
    log: bool,
    low: float,
    high: float,
) -> None:
    width = 0.8 / len(series)
    for index, name in enumerate(series):
        xs = [c + (index - (len(series) - 1) / 2) * width for c in range(len(categories))]
        values = [_ratio(points, points[0].panel, name, cat) for cat in categories]
        ax.bar(xs, values, width=width * 0.92, color=colors[name], label=name, zorder=3)
    ax.set_xticks(range(len(categories)), categories, rotation=35, ha="right")
    ax.set_xlim(-0.6, len(categories) - 0.4)
    _ratio_axis(ax, axis="y", log=log, low=low, high=high)


def _encode_decode_dots(
    plot: Plot, rows: list[str], colors: dict[str, str], title: str, *, height: float
) -> Figure:
    """Two panels side by side, encode and decode, of ``plot``'s ratios as dots per row
    (coloured by series, one log axis for both), with a legend of the series."""
    figure = _new(8.0, height)
    axes = figure.subplots(1, 2, sharey=True)
    low, high = _limits((p.value for p in plot.points), log=True)
    for ax, panel in zip(axes, (ENCODE, DECODE), strict=True):
        _dot_rows(ax, plot.panel(panel), rows, colors=colors, low=low, high=high)
        ax.set_title(f"{panel}: ours / numcodecs")
    handles = [axes[0].scatter([], [], s=16, color=c, label=s) for s, c in colors.items()]
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles))
    figure.suptitle(title)
    return figure


def _new(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


# --- 1. Codecs alone against numcodecs ------------------------------------------------------


def _header(text: str) -> tuple[str, ...]:
    """A table's header as its markdown shows it: ``"codec | KiB | ..."``."""
    return tuple(text.split(" | "))


PAIRS_HEADER = _header(
    "codec | data | KiB | size ratio | enc numcodecs GB/s | enc ours GB/s | enc ratio | "
    "dec numcodecs GB/s | dec ours GB/s | dec ratio | dec into ratio"
)
GZIP_HEADER = _header("dataset | operation | group | codec | MB/s | ms | vs baseline | size ratio")
ZSTD_HEADER = _header(
    "dataset | level | size ours/numcodecs | encode MB/s numcodecs | ours | ratio | "
    "decode MB/s numcodecs | ours | ratio | into ratio | zstandard enc/dec MB/s"
)
ZSTD_CHUNK_HEADER = _header(
    "chunk | level | encode µs numcodecs | ours | ratio | decode µs numcodecs | ours | "
    "ratio | into ratio"
)
BLOSC_HEADER = _header(
    "dataset | shuffle | encode: numcodecs ms | ours ms | ours vs numcodecs | 3 runs | "
    "decode: numcodecs ms | ours ms | ours vs numcodecs | 3 runs"
)
ENCODE, DECODE = "encode", "decode"
WHOLE, LARGE, SMALL = "whole 4 or 16 MiB datasets", "64 KiB to 16 MiB chunks", "1-4 KiB chunks"


def _pair_points(t: Table, category: str) -> list[Point]:
    """The encode and decode ratio of each row of a ``numcodecs_pairs`` table."""
    points = []
    for row in t.rows:
        for panel, column in ((ENCODE, "enc ratio"), (DECODE, "dec ratio")):
            size = t.number(row, "KiB")
            series = SMALL if size <= 4 else LARGE
            points.append(Point(panel, series, category, t.number(row, column), (t.where(row),)))
    return points


def codecs_plot() -> Plot:
    points: list[Point] = []
    tables: list[Table] = []
    unused: set[tuple[str, int]] = set()

    gzip = table("gzip.md", GZIP_HEADER)
    tables.append(gzip)
    baseline: dict[tuple[str, str, str], Row] = {}
    for row in gzip.rows:
        if gzip.cell(row, "codec") == "numcodecs":
            key = (gzip.cell(row, "dataset"), gzip.cell(row, "operation"), gzip.cell(row, "group"))
            baseline[key] = row
    for row in gzip.rows:
        key = (gzip.cell(row, "dataset"), gzip.cell(row, "operation"), gzip.cell(row, "group"))
        codec = gzip.cell(row, "codec")
        if codec == "numcodecs":
            continue
        if codec != "zarr-codec-gzip":
            # "zarr-codec-gzip into" (the same decode into a caller's buffer) and the batch rows
            # (1 thread against 2, no numcodecs row to compare with) are not drawn here.
            unused.add(gzip.where(row))
            continue
        if key not in baseline:
            raise MissingTable(f"gzip.md:{row.line}: no numcodecs row for {key}")
        theirs = baseline[key]
        value = gzip.number(row, "MB/s") / gzip.number(theirs, "MB/s")
        panel = ENCODE if key[1] == "encode" else DECODE
        points.append(Point(panel, WHOLE, "gzip", value, (gzip.where(row), gzip.where(theirs))))

    zstd = table("zstd_crc32c.md", ZSTD_HEADER)
    tables.append(zstd)
    for row in zstd.rows:
        for panel, occurrence in ((ENCODE, 0), (DECODE, 1)):
            value = zstd.number(row, "ratio", occurrence)
            points.append(Point(panel, WHOLE, "zstd", value, (zstd.where(row),)))
    chunks = table("zstd_crc32c.md", ZSTD_CHUNK_HEADER)
    tables.append(chunks)
    for row in chunks.rows:
        size = chunks.number(row, "chunk")
        series = SMALL if size <= 4096 else LARGE
        for panel, occurrence in ((ENCODE, 0), (DECODE, 1)):
            value = chunks.number(row, "ratio", occurrence)
            points.append(Point(panel, series, "zstd", value, (chunks.where(row),)))

    blosc = table("blosc.md", BLOSC_HEADER)
    tables.append(blosc)
    for row in blosc.rows:
        for panel, occurrence in ((ENCODE, 0), (DECODE, 1)):
            value = blosc.number(row, "ours vs numcodecs", occurrence)
            points.append(Point(panel, WHOLE, "blosc", value, (blosc.where(row),)))

    for file, section, category in (
        ("lz4.md", None, "lz4"),
        ("bz2.md", None, "bz2"),
        ("lzma.md", None, "lzma"),
        ("pcodec_zfpy.md", "pcodec", "pcodec"),
        ("pcodec_zfpy.md", "zfpy", "zfpy"),
    ):
        t = table(file, PAIRS_HEADER, section=section)
        tables.append(t)
        points.extend(_pair_points(t, category))
    return Plot("codecs.svg", tuple(tables), tuple(points), frozenset(unused))


CODEC_ROWS = ["gzip", "zstd", "blosc", "lz4", "bz2", "lzma", "pcodec", "zfpy"]
SIZE_COLORS = {WHOLE: "#7f7f7f", LARGE: OURS, SMALL: "#d62728"}


def codecs_figure(plot: Plot) -> Figure:
    return _encode_decode_dots(
        plot,
        CODEC_ROWS,
        SIZE_COLORS,
        "One chunk per call, our codec against numcodecs' (bar: median)",
        height=4.2,
    )


# --- 2. Checksums by chunk size -------------------------------------------------------------

CHECKSUM_HEADER = _header(
    "codec | KiB | enc numcodecs GB/s | enc ours GB/s | enc ratio | "
    "dec numcodecs GB/s | dec ours GB/s | dec ratio | dec into ratio"
)


def checksums_plot() -> Plot:
    t = table("checksums.md", CHECKSUM_HEADER)
    points = []
    for row in t.rows:
        for panel, column in ((ENCODE, "enc ratio"), (DECODE, "dec ratio")):
            points.append(
                Point(
                    panel,
                    t.cell(row, "codec"),
                    t.cell(row, "KiB"),
                    t.number(row, column),
                    (t.where(row),),
                )
            )
    return Plot("checksums.svg", (t,), tuple(points))


def _size_kib(label: str) -> int:
    value, unit = label.split()
    return int(value) * (1024 if unit == "MiB" else 1)


def _size_label(kib: str) -> str:
    value = int(number(kib))
    return f"{value // 1024} MiB" if value >= 1024 else f"{value} KiB"


def checksums_figure(plot: Plot) -> Figure:
    figure = _new(8.0, 3.4)
    axes = figure.subplots(1, 2, sharey=True)
    low, high = _limits((p.value for p in plot.points), log=True)
    series = list(dict.fromkeys(p.series for p in plot.points))
    for ax, panel in zip(axes, (ENCODE, DECODE), strict=True):
        points = plot.panel(panel)
        sizes = sorted({p.category for p in points}, key=lambda kib: number(kib))
        for color, name in zip(COLORS, series, strict=False):
            ys = [_ratio(points, panel, name, size) for size in sizes]
            ax.plot(range(len(sizes)), ys, marker="o", ms=4, color=color, label=name, zorder=3)
        ax.set_xticks(range(len(sizes)), [_size_label(s) for s in sizes])
        ax.set_xlabel("chunk")
        _ratio_axis(ax, axis="y", log=True, low=low, high=high)
        ax.set_title(f"{panel}: ours / numcodecs")
    axes[0].legend(loc="upper left")
    figure.suptitle("numcodecs' checksums: ours against numcodecs' own, by chunk size")
    return figure


# --- 3. Filters -----------------------------------------------------------------------------


def filters_plot() -> Plot:
    # The latest figures: the integer and bit filters, then the float filters, after the
    # per-call changes and delta's AVX2 sums.
    section = "Per call, and delta"
    tables = [table("filters.md", PAIRS_HEADER, section=section, occurrence=n) for n in (0, 1)]
    points = []
    for t in tables:
        for row in t.rows:
            for panel, column in ((ENCODE, "enc ratio"), (DECODE, "dec ratio")):
                points.append(
                    Point(
                        panel,
                        _size_label(t.cell(row, "KiB")),
                        t.cell(row, "codec"),
                        t.number(row, column),
                        (t.where(row),),
                    )
                )
    return Plot("filters.svg", tuple(tables), tuple(points))


def filters_figure(plot: Plot) -> Figure:
    rows = list(dict.fromkeys(p.category for p in plot.points))
    sizes = sorted({p.series for p in plot.points}, key=_size_kib)
    return _encode_decode_dots(
        plot,
        rows,
        dict(zip(sizes, COLORS, strict=False)),
        "numcodecs' filters: ours against numcodecs' own, by chunk (bar: median)",
        height=4.6,
    )


# --- 4. Strings and objects (vlen) ----------------------------------------------------------

VLEN_HEADER = _header(
    "codec | items | enc numcodecs ms | enc ours ms | enc ratio | dec numcodecs ms | "
    "dec ours ms | dec ratio"
)


def vlen_plot() -> Plot:
    t = table("vlen.md", VLEN_HEADER)
    points = []
    for row in t.rows:
        items = f"{int(t.number(row, 'items')):,} items".replace(",", " ")
        for panel, column in ((ENCODE, "enc ratio"), (DECODE, "dec ratio")):
            points.append(
                Point(panel, items, t.cell(row, "codec"), t.number(row, column), (t.where(row),))
            )
    return Plot("vlen.svg", (t,), tuple(points))


def vlen_figure(plot: Plot) -> Figure:
    figure = _new(8.0, 3.6)
    axes = figure.subplots(1, 2, sharey=True)
    rows = list(dict.fromkeys(p.category for p in plot.points))
    series = list(dict.fromkeys(p.series for p in plot.points))
    colors = dict(zip(series, (OURS, "#aec7e8"), strict=False))
    low, high = _limits((p.value for p in plot.points), log=True)
    height = 0.8 / len(series)
    for ax, panel in zip(axes, (ENCODE, DECODE), strict=True):
        points = plot.panel(panel)
        for index, name in enumerate(series):
            ys = [r + (index - (len(series) - 1) / 2) * height for r in range(len(rows))]
            values = [_ratio(points, panel, name, r) for r in rows]
            ax.barh(ys, values, height=height * 0.92, color=colors[name], label=name, zorder=3)
        ax.set_yticks(range(len(rows)), rows)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        _ratio_axis(ax, axis="x", log=True, low=low, high=high)
        ax.set_title(f"{panel}: ours / numcodecs")
    axes[1].legend(loc="lower right")
    figure.suptitle("numcodecs' codecs of strings and objects: ours against numcodecs' own")
    return figure


# --- 5. Selections through zarr-python ------------------------------------------------------

SELECTIONS_HEADER = _header(
    "compressor | op | selection | zarr default | zarr fused | zarr-codecs pipeline | zarrs"
)
PIPELINE_COLORS = {
    "zarr fused": "#bbbbbb",
    "zarrs": "#ff7f0e",
    "tensorstore": "#2ca02c",
    "zarr-codecs pipeline": OURS,
}


def _op_selection(op: str, selection: str) -> str:
    return f"{op} {selection}"


def selections_plot() -> Plot:
    t = table("selections.md", SELECTIONS_HEADER)
    points = []
    for row in t.rows:
        for name in ("zarr fused", "zarr-codecs pipeline", "zarrs"):
            _, ratio = bracketed(t.cell(row, name), f"selections.md:{row.line}")
            points.append(
                Point(
                    t.cell(row, "compressor"),
                    name,
                    _op_selection(t.cell(row, "op"), t.cell(row, "selection")),
                    ratio,
                    (t.where(row),),
                )
            )
    return Plot("selections.svg", (t,), tuple(points))


def _pipelines_figure(plot: Plot, series: list[str], title: str, *, log: bool) -> Figure:
    panels = plot.panels()
    figure = _new(8.0, 3.0 * len(panels) + 0.6)
    axes = figure.subplots(len(panels), 1, sharey=True, squeeze=False)[:, 0]
    low, high = _limits((p.value for p in plot.points), log=log)
    for ax, panel in zip(axes, panels, strict=True):
        points = plot.panel(panel)
        categories = list(dict.fromkeys(p.category for p in points))
        _grouped_bars(ax, points, categories, series, PIPELINE_COLORS, log=log, low=low, high=high)
        ax.set_title(f"compressor: {panel}")
        ax.set_ylabel("zarr default's time / its time")
    axes[0].legend(loc="upper left", ncols=len(series))
    figure.suptitle(title)
    return figure


def selections_figure(plot: Plot) -> Figure:
    return _pipelines_figure(
        plot,
        ["zarr fused", "zarrs", "zarr-codecs pipeline"],
        "Reads and writes of 16 MiB of float32 in 256 KiB chunks (LocalStore), by pipeline",
        log=False,
    )


# --- 6. Layouts -----------------------------------------------------------------------------

LAYOUTS_HEADER = _header(
    "size | store | layout | op | selection | zarr default | zarr fused | "
    "zarr-codecs pipeline | zarrs"
)
SELECTION_MARKERS = {"one element": "o", "one chunk": "s", "4x4 chunks": "D", "whole array": "^"}


def layouts_plot() -> Plot:
    t = table("layouts.md", LAYOUTS_HEADER, section="Layouts through zarr-python")
    points = []
    for row in t.rows:
        _, ratio = bracketed(t.cell(row, "zarr-codecs pipeline"), f"layouts.md:{row.line}")
        panel = f"{t.cell(row, 'size')}, {t.cell(row, 'store')} store"
        series = f"{t.cell(row, 'op')} {t.cell(row, 'selection')}"
        points.append(Point(panel, series, t.cell(row, "layout"), ratio, (t.where(row),)))
    return Plot("layouts.svg", (t,), tuple(points))


def layouts_figure(plot: Plot) -> Figure:
    panels = plot.panels()
    figure = _new(8.0, 6.6)
    grid = figure.subplots(2, 2, sharey=True, sharex=True)
    axes = list(grid.flat)
    low, high = _limits((p.value for p in plot.points), log=True)
    layouts = list(dict.fromkeys(p.category for p in plot.points))
    series = list(dict.fromkeys(p.series for p in plot.points))
    for ax, panel in zip(axes, panels, strict=True):
        points = plot.panel(panel)
        for index, name in enumerate(series):
            op, _, selection = name.partition(" ")
            xs = [c + (index - (len(series) - 1) / 2) * 0.09 for c in range(len(layouts))]
            ys = [_ratio(points, panel, name, layout) for layout in layouts]
            ax.scatter(
                xs,
                ys,
                s=18,
                marker=SELECTION_MARKERS[selection],
                color=OURS if op == "read" else "#ff7f0e",
                label=name,
                zorder=3,
            )
        ax.set_xticks(range(len(layouts)), [_short_layout(x) for x in layouts])
        ax.set_xlim(-0.6, len(layouts) - 0.4)
        _ratio_axis(ax, axis="y", log=True, low=low, high=high)
        ax.set_title(panel)
    for ax in grid[:, 0]:
        ax.set_ylabel("zarr default's time / ours")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=4)
    figure.suptitle("Our pipeline against zarr-python's default, by layout (float32)")
    return figure


def _short_layout(layout: str) -> str:
    return {
        "sharded 4x4 zstd": "sharded\nzstd",
        "no compressor": "no\ncompressor",
        "blosc lz4 shuffle": "blosc lz4\nshuffle",
        "scale_offset+cast_value+zstd": "scale_offset\ncast_value\nzstd",
    }.get(layout, layout)


# --- 7. Every peer, wall time ---------------------------------------------------------------

PEERS_HEADER = _header(
    "size | layout | op | selection | zarr default | zarr fused | "
    "zarr-codecs pipeline | zarrs | tensorstore | floor: zstd decode | "
    "floor: fresh output | floor: file reads"
)
PEERS_SECTION = "Streaming from the last-level cache's size"


def peers_plot() -> Plot:
    t = table("layouts.md", PEERS_HEADER, section=PEERS_SECTION)
    points = []
    for row in t.rows:
        where = f"layouts.md:{row.line}"
        default = median_of(t.cell(row, "zarr default"), where)
        panel = f"{t.cell(row, 'size')}, {t.cell(row, 'layout')}"
        category = _op_selection(t.cell(row, "op"), t.cell(row, "selection"))
        for name in PEERS:
            median = median_of(t.cell(row, name), where)
            points.append(Point(panel, name, category, default / median, (t.where(row),)))
    return Plot("peers.svg", (t,), tuple(points))


PEERS = ("zarr fused", "zarrs", "tensorstore", "zarr-codecs pipeline")


def peers_figure(plot: Plot) -> Figure:
    figure = _new(8.0, 6.8)
    grid = figure.subplots(2, 2, sharey=True)
    low, high = _limits((p.value for p in plot.points), log=False)
    for ax, panel in zip(grid.flat, plot.panels(), strict=True):
        points = plot.panel(panel)
        categories = list(dict.fromkeys(p.category for p in points))
        _grouped_bars(
            ax, points, categories, list(PEERS), PIPELINE_COLORS, log=False, low=low, high=high
        )
        ax.set_title(panel)
    for ax in grid[:, 0]:
        ax.set_ylabel("zarr default's time / its time")
    handles, labels = grid[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=len(PEERS))
    figure.suptitle(
        "Every reader and writer against zarr-python's default: float32 on tmpfs, wall time"
    )
    return figure


# --- 8. Object stores -----------------------------------------------------------------------

STORES_HEADER = _header("store | layout | read | zarr default | zarr-codecs pipeline | zarrs")


def stores_plot() -> Plot:
    tables = [
        table("stores.md", STORES_HEADER, section="20 ms a request", occurrence=n) for n in (0, 1)
    ]
    points = []
    for t, measure in zip(tables, ("wall time", "client CPU time"), strict=True):
        for row in t.rows:
            panel = f"{measure}, {t.cell(row, 'layout')}"
            for pipeline in ("zarr-codecs pipeline", "zarrs"):
                _, ratio = bracketed(t.cell(row, pipeline), f"stores.md:{row.line}")
                series = f"{t.cell(row, 'store')}: {_short_pipeline(pipeline)}"
                points.append(Point(panel, series, t.cell(row, "read"), ratio, (t.where(row),)))
    return Plot("stores.svg", tuple(tables), tuple(points))


def _short_pipeline(pipeline: str) -> str:
    return "ours" if pipeline == "zarr-codecs pipeline" else pipeline


def stores_figure(plot: Plot) -> Figure:
    figure = _new(8.0, 7.0)
    grid = figure.subplots(2, 2, sharey=True, sharex=True)
    low, high = _limits((p.value for p in plot.points), log=True)
    stores = list(dict.fromkeys(p.series.partition(": ")[0] for p in plot.points))
    for ax, panel in zip(grid.flat, plot.panels(), strict=True):
        points = plot.panel(panel)
        reads = list(dict.fromkeys(p.category for p in points))
        for color, store in zip(COLORS, stores, strict=False):
            for pipeline, style in (("ours", "-"), ("zarrs", ":")):
                name = f"{store}: {pipeline}"
                ys = [_ratio(points, panel, name, r) for r in reads]
                ax.plot(
                    range(len(reads)),
                    ys,
                    linestyle=style,
                    marker="o",
                    ms=4,
                    color=color,
                    markerfacecolor=color if pipeline == "ours" else "white",
                    label=name,
                    zorder=3,
                )
        ax.set_xticks(range(len(reads)), [r.replace(" from ", "\nfrom ") for r in reads])
        ax.tick_params(axis="x", labelsize=7.5)
        _ratio_axis(ax, axis="y", log=True, low=low, high=high)
        ax.set_title(panel)
    for ax in grid[:, 0]:
        ax.set_ylabel("zarr default's / its")
    handles, labels = grid[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=4)
    figure.suptitle("Reads from S3 and HTTP at 20 ms a request, against zarr-python's default")
    return figure


# --- 9. Strings -----------------------------------------------------------------------------

STRINGS_HEADER = _header(
    "chunks | store | layout | op | selection | zarr default | zarr-codecs pipeline"
)


def strings_plot() -> Plot:
    t = table("strings.md", STRINGS_HEADER)
    points = []
    for row in t.rows:
        _, ratio = bracketed(t.cell(row, "zarr-codecs pipeline"), f"strings.md:{row.line}")
        points.append(
            Point(
                t.cell(row, "chunks"),
                f"{t.cell(row, 'layout')}, {t.cell(row, 'store')}",
                _op_selection(t.cell(row, "op"), t.cell(row, "selection")),
                ratio,
                (t.where(row),),
            )
        )
    return Plot("strings.svg", (t,), tuple(points))


def strings_figure(plot: Plot) -> Figure:
    figure = _new(8.0, 3.6)
    panels = plot.panels()
    axes = figure.subplots(1, len(panels), sharey=True)
    low, high = _limits((p.value for p in plot.points), log=False)
    series = list(dict.fromkeys(p.series for p in plot.points))
    for ax, panel in zip(axes, panels, strict=True):
        points = plot.panel(panel)
        categories = list(dict.fromkeys(p.category for p in points))
        for index, (color, name) in enumerate(zip(COLORS, series, strict=False)):
            xs = [c + (index - (len(series) - 1) / 2) * 0.12 for c in range(len(categories))]
            ys = [_ratio(points, panel, name, c) for c in categories]
            ax.scatter(xs, ys, s=18, color=color, label=name, zorder=3)
        ax.set_xticks(range(len(categories)), categories, rotation=35, ha="right")
        _ratio_axis(ax, axis="y", log=False, low=low, high=high)
        ax.set_title(f"1 000 000 strings in {panel}")
    axes[0].set_ylabel("zarr default's time / ours")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=2)
    figure.suptitle("String arrays through zarr-python: ours against its default pipeline")
    return figure


# --- All of them ----------------------------------------------------------------------------

PLOTS: tuple[tuple[Callable[[], Plot], Callable[[Plot], Figure]], ...] = (
    (codecs_plot, codecs_figure),
    (checksums_plot, checksums_figure),
    (filters_plot, filters_figure),
    (vlen_plot, vlen_figure),
    (selections_plot, selections_figure),
    (layouts_plot, layouts_figure),
    (peers_plot, peers_figure),
    (stores_plot, stores_figure),
    (strings_plot, strings_figure),
)


def plots() -> list[Plot]:
    """Every plot's data, read from the tables."""
    return [data() for data, _ in PLOTS]


def figures() -> dict[str, bytes]:
    """File name to SVG bytes of each plot the performance page shows."""
    drawn: dict[str, bytes] = {}
    with matplotlib.rc_context(STYLE):
        for data, draw in PLOTS:
            plot = data()
            drawn[plot.name] = _svg(draw(plot))
    return drawn
