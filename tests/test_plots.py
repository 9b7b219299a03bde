"""The performance page's plots (``benchmarks/plots.py``): every figure renders, and each draws
every row of the tables it reads (counted here from the markdown itself, not by the parser)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from benchmarks import plots

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "benchmarks" / "measured"
PLOTS = {plot.name: plot for plot in plots.plots()}


@pytest.fixture(scope="module")
def figures() -> dict[str, bytes]:
    return plots.figures()


def _raw_rows(file: str, header_line: int) -> list[int]:
    """Line numbers of the data rows of the table whose header is on ``header_line``: the
    lines after its separator that start with ``|``, separators left out."""
    lines = (MEASURED / file).read_text(encoding="utf-8").splitlines()
    assert lines[header_line - 1].startswith("|")
    assert set(lines[header_line]) <= set("|-: "), f"{file}:{header_line + 1}: no separator"
    found = []
    for number in range(header_line + 2, len(lines) + 1):
        text = lines[number - 1]
        if not text.startswith("|"):
            break
        if not set(text) <= set("|-: "):
            found.append(number)
    return found


def test_every_figure_renders_as_svg(figures: dict[str, bytes]) -> None:
    assert set(figures) == set(PLOTS)
    assert 6 <= len(figures) <= 10
    for name, svg in figures.items():
        assert name.endswith(".svg")
        assert svg.startswith(b"<?xml"), name
        assert b"<svg" in svg and svg.rstrip().endswith(b"</svg>"), name
        assert len(svg) > 10_000, f"{name}: {len(svg)} bytes"
        assert b"<dc:date>" not in svg, f"{name}: dated"


def test_figures_are_deterministic(figures: dict[str, bytes]) -> None:
    assert plots.figures() == figures


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_each_table_parses_every_row(name: str) -> None:
    plot = PLOTS[name]
    assert plot.tables
    for table in plot.tables:
        raw = _raw_rows(table.file, table.line)
        assert raw, f"{table.file}:{table.line}: no rows"
        assert [row.line for row in table.rows] == raw
        assert all(len(row.cells) == len(table.header) for row in table.rows)


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_each_plot_draws_every_row_of_its_tables(name: str) -> None:
    plot = PLOTS[name]
    rows = {(t.file, line) for t in plot.tables for line in _raw_rows(t.file, t.line)}
    used = {where for point in plot.points for where in point.rows}
    assert used <= rows, f"points from rows outside the plot's tables: {sorted(used - rows)}"
    assert plot.unused <= rows
    assert not used & plot.unused
    assert used | plot.unused == rows, f"rows neither drawn nor set aside: {rows - used}"
    # Each point is a finite, positive ratio.
    assert all(0 < point.value < float("inf") for point in plot.points)


def test_points_per_row() -> None:
    """The counts each plot's table gives: one point per row and value drawn."""

    def rows(name: str) -> int:
        return sum(len(_raw_rows(t.file, t.line)) for t in PLOTS[name].tables)

    # encode and decode ratio per row
    for name in ("checksums.svg", "filters.svg", "vlen.svg"):
        assert len(PLOTS[name].points) == 2 * rows(name), name
    # zarr fused, ours and zarrs per row
    assert len(PLOTS["selections.svg"].points) == 3 * rows("selections.svg")
    # ours per row
    for name in ("layouts.svg", "strings.svg"):
        assert len(PLOTS[name].points) == rows(name), name
    # zarr fused, zarrs, TensorStore and ours per row
    assert len(PLOTS["peers.svg"].points) == 4 * rows("peers.svg")
    # ours and zarrs per row
    assert len(PLOTS["stores.svg"].points) == 2 * rows("stores.svg")
    # gzip: one point per row of ours (its numcodecs row is the other side of the ratio);
    # every other table: encode and decode per row
    codecs = PLOTS["codecs.svg"]
    gzip = next(t for t in codecs.tables if t.file == "gzip.md")
    ours = [r for r in gzip.rows if r.cells[gzip.column("codec")] == "zarr-codec-gzip"]
    others = sum(len(_raw_rows(t.file, t.line)) for t in codecs.tables if t is not gzip)
    assert len(codecs.points) == len(ours) + 2 * others


def test_a_missing_or_empty_table_raises(tmp_path: Path) -> None:
    (tmp_path / "one.md").write_text(
        "# One\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Empty\n\n| a | b |\n|---|---|\n\n"
    )
    found = plots.table("one.md", ("a", "b"), directory=tmp_path)
    assert [row.cells for row in found.rows] == [("1", "2")]
    with pytest.raises(plots.MissingTable, match="no such file"):
        plots.table("two.md", ("a", "b"), directory=tmp_path)
    with pytest.raises(plots.MissingTable, match="header"):
        plots.table("one.md", ("a", "c"), directory=tmp_path)
    with pytest.raises(plots.MissingTable, match="header"):
        plots.table("one.md", ("a", "b"), section="Renamed", directory=tmp_path)
    with pytest.raises(plots.MissingTable, match="no rows"):
        plots.table("one.md", ("a", "b"), section="Empty", directory=tmp_path)
    with pytest.raises(plots.MissingTable, match="#2"):
        plots.table("one.md", ("a", "b"), occurrence=2, directory=tmp_path)


def test_a_row_of_the_wrong_width_raises(tmp_path: Path) -> None:
    (tmp_path / "one.md").write_text("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n")
    with pytest.raises(ValueError, match="3 cells under a header of 2"):
        plots.table("one.md", ("a", "b"), directory=tmp_path)


def test_cells() -> None:
    assert plots.number("1,204") == 1204
    assert plots.number("3.42e+03") == 3420
    assert plots.number("1.86x") == 1.86
    assert plots.number("1,024 B") == 1024
    assert plots.bracketed("0.600 (1.26x)") == (0.6, 1.26)
    assert plots.median_of("1.791 (1.701-1.933)") == 1.791
    for cell in ("-", "refused", ""):
        with pytest.raises(ValueError, match="not a number"):
            plots.number(cell)
    with pytest.raises(ValueError, match="not 'value"):
        plots.bracketed("1.0")
    with pytest.raises(ValueError, match="not 'value"):
        plots.bracketed("1.791 (1.701-1.933)")
    with pytest.raises(ValueError, match="not 'median"):
        plots.median_of("0.600 (1.26x)")


def test_every_measured_table_parses() -> None:
    """Every table in benchmarks/measured/ reads with the same parser (no row wider or
    narrower than its header), so a plot added later starts from sound tables."""
    files = sorted(MEASURED.glob("*.md"))
    assert len(files) >= 15
    for path in files:
        for table in plots.read_tables(path):
            assert table.header, f"{path.name}:{table.line}"


def test_the_performance_page_shows_every_plot_and_names_every_table() -> None:
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for name in PLOTS:
        assert f"](performance/{name})" in page, f"the page does not show {name}"
    for path in sorted(MEASURED.glob("*.md")):
        assert f"`{path.name}`" in page, f"the page does not name {path.name}"
