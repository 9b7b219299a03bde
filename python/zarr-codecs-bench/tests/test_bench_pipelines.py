"""The end-to-end pipeline benchmark runs every pipeline, checks values, and reports ratios
(its logic only: benchmarks never assert a time)."""

from __future__ import annotations

import contextlib
import statistics

import numpy as np
import pytest
from zarr_codecs_bench import chunk_work, pipelines


def test_every_pipeline_runs_on_both_stores(capsys: pytest.CaptureFixture[str]) -> None:
    assert pipelines.main(["--size", "0.5", "--chunk", "0.125", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    best, median = out.split("; median of 1 rounds")
    assert "; best of 1 rounds" in best
    rows = [line for line in best.splitlines() if line.startswith("| ") and "---" not in line]
    # with one round, the median table is the best one
    assert [line for line in median.splitlines() if line.startswith("| ")] == [
        line for line in best.splitlines() if line.startswith("| ")
    ]
    assert rows[0].startswith("| store | compressor | pipeline |")
    body = rows[1:]
    expected = 2 * len(pipelines.COMPRESSORS) * len(pipelines.pipelines())
    if "zarrs" in pipelines.pipelines():
        expected -= len(pipelines.COMPRESSORS)  # zarrs: LocalStore only
        expected -= len(pipelines.FILTERS)  # and without scale_offset or cast_value
    expected += 2 * len(pipelines.COMPRESSORS)  # the chunk work alone, per store and row
    assert len(body) == expected
    assert any("| quantize int16, blosc | zarr-codecs pipeline |" in row for row in body)
    assert any(f"| local | quantize int16, blosc | {chunk_work.NAME} |" in row for row in body)
    # zarr 3.4's own bulk pipeline is measured beside ours on both stores
    assert {row.split(" | ")[0] for row in body if "| zarr fused |" in row} == {
        "| memory",
        "| local",
    }
    assert all("| 1.00x |" in row for row in body if "| zarr default |" in row)


def test_the_table_divides_by_the_default() -> None:
    rows = [
        ("memory", "none", "zarr default", 2.0, 3.0, 4.0),
        ("memory", "none", "x", 1.0, 1.0, 1.0),
    ]
    table = pipelines.to_markdown(rows, 10**6)
    assert "| memory | none | x | 1 | 2.00x | 1 | 3.00x | 1 | 4.00x |" in table


def test_rows_summarize_every_round_of_a_subject() -> None:
    measured = [("local", "none", "x", [(1.0, 4.0, 9.0), (3.0, 2.0, 7.0), (2.0, 6.0, 8.0)])]
    assert pipelines.summarized(measured, min) == [("local", "none", "x", 1.0, 2.0, 7.0)]
    assert pipelines.summarized(measured, statistics.median) == [
        ("local", "none", "x", 2.0, 4.0, 8.0)
    ]


class _Recorder:
    """A subject that records what is done to it and takes ``seconds`` per timed step on a
    fake clock."""

    def __init__(self, name: str, log: list[str], seconds: list[float]) -> None:
        self.name, self.log, self.seconds = name, log, seconds

    def context(self) -> contextlib.AbstractContextManager[object]:
        return contextlib.nullcontext()

    def fresh(self) -> None:
        self.log.append(f"{self.name} fresh")

    def write(self) -> None:
        self.log.append(f"{self.name} write")
        _CLOCK[0] += self.seconds.pop(0)

    def read(self) -> np.ndarray:
        self.log.append(f"{self.name} read")
        _CLOCK[0] += self.seconds.pop(0)
        return np.zeros(1)

    def remove(self) -> None:
        pass


_CLOCK = [0.0]


def test_rounds_take_every_subject_in_turn() -> None:
    log: list[str] = []
    # per round: write, overwrite, read; the first round is not counted
    a = _Recorder("a", log, [9, 9, 9, 1, 2, 3, 5, 6, 7, 3, 4, 5])
    b = _Recorder("b", log, [9, 9, 9, 2, 2, 2, 2, 2, 2, 8, 8, 8])
    samples, first = pipelines.in_rounds(
        [a, b], "memory", repeats=3, clock=lambda: _CLOCK[0], ready=lambda: log.append("ready")
    )
    assert samples == [[(1, 2, 3), (5, 6, 7), (3, 4, 5)], [(2, 2, 2), (2, 2, 2), (8, 8, 8)]]
    assert [pipelines._summary(cell, min) for cell in samples] == [(1, 2, 3), (2, 2, 2)]
    medians = [pipelines._summary(cell, statistics.median) for cell in samples]
    assert medians == [(3, 4, 5), (2, 2, 2)]
    assert len(first) == 2
    # free memory is made ready before every timed step, after the untimed fresh array
    round_of = ["{} fresh", "ready", "{} write", "ready", "{} write", "ready", "{} read"]
    assert log == [step.format(name) for _ in range(4) for name in "ab" for step in round_of]
