"""A progress bar on stderr for long commands (``zarr-codecs-bench``), with no dependency.

On a terminal it redraws one line in place; elsewhere (a pipe, a CI log) it prints one line per
finished step, so logs stay readable. Disabled, it prints nothing.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

_WIDTH = 28  # characters of bar


class Progress:
    """Progress through ``steps`` equal steps, each advancing by fractions of itself."""

    def __init__(self, steps: int, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.steps = max(steps, 1)
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.interactive = self.stream.isatty()
        self.step = 0
        self.fraction = 0.0
        self.label = ""
        self.started = time.monotonic()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.enabled and self.interactive:
            self.stream.write("\n")
            self.stream.flush()

    @property
    def done(self) -> float:
        """The finished share of the whole, from 0 to 1."""
        return min(1.0, (self.step + self.fraction) / self.steps)

    def update(self, label: str) -> None:
        """Say what is running now."""
        self.label = label
        self._draw()

    def advance(self, fraction: float) -> None:
        """The current step is ``fraction`` done."""
        self.fraction = fraction
        self._draw()

    def next_step(self) -> None:
        """The current step is finished; the next one starts."""
        self.step += 1
        self.fraction = 0.0
        if self.enabled and not self.interactive:
            self.stream.write(f"[{self.step}/{self.steps}] done {self._elapsed()}\n")
            self.stream.flush()
        self._draw()

    def _elapsed(self) -> str:
        return f"{time.monotonic() - self.started:.0f}s"

    def _draw(self) -> None:
        if not (self.enabled and self.interactive):
            return
        filled = round(self.done * _WIDTH)
        bar = "#" * filled + "-" * (_WIDTH - filled)
        line = f"[{bar}] {self.done:4.0%} {self._elapsed():>5} {self.label}"
        self.stream.write("\r" + line[:119].ljust(119))
        self.stream.flush()
