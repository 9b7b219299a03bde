"""The progress bar: redrawn in place on a terminal, a line per step elsewhere, or silent."""

from __future__ import annotations

import io

from zarr_codecs_bench._progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_line_redrawn() -> None:
    stream = Terminal()
    with Progress(2, stream=stream) as progress:
        progress.update("first")
        progress.advance(0.5)
        assert progress.done == 0.25
        progress.next_step()
        progress.advance(1.0)
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert "\r[" in text and " 25% " in text and "100%" in text and "first" in text


def test_a_log_gets_a_line_per_step() -> None:
    stream = io.StringIO()
    with Progress(3, stream=stream) as progress:
        for _ in range(3):
            progress.advance(0.5)
            progress.next_step()
    lines = stream.getvalue().splitlines()
    assert [line.split(" done")[0] for line in lines] == ["[1/3]", "[2/3]", "[3/3]"]
    assert "\r" not in stream.getvalue()


def test_disabled_prints_nothing() -> None:
    for stream in (io.StringIO(), Terminal()):
        with Progress(2, enabled=False, stream=stream) as progress:
            progress.update("x")
            progress.next_step()
        assert stream.getvalue() == ""
