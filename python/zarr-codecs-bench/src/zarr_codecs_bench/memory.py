"""Free memory made ready before a timed step, so that a virtual machine's host does not
take part in the timing.

On a virtual machine with free page reporting (the ``virtio_balloon`` device's ``REPORTING``
feature, as on the machines these benchmarks were measured on), the guest kernel tells the
host about memory that has been free for about two seconds, in blocks of 2 MiB or more
(``page_reporting_order``), and the host takes it back. The next time the guest hands that
memory out, every page is faulted in on the host again. Measured here: the first touch of a new
256 MiB array took 28-61 ms when the memory had been freed just before, and 430-1,020 ms
after half a second to five seconds idle. A benchmark step that starts after an untimed pause (an
``os.sync``, another pipeline's turn) so runs 9-34x slower at random, whatever the code.

:func:`back_free_memory` touches new memory and frees it again just before the step: the
kernel hands out recently freed, unreported memory first, so the step's new arrays, frames
and page cache find memory the host backs, as they would on a machine of its own.

``python -m zarr_codecs_bench.memory [--size MiB] [--idle SECONDS] [--repeats N]`` shows
whether a machine does this: it times the first touch of a new array right after a free,
after an idle pause, and after the same pause with the memory made ready first.
"""

from __future__ import annotations

import argparse
import mmap
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["back_free_memory"]


def back_free_memory(nbytes: int) -> None:
    """Fault in ``nbytes`` of new memory, a write to every page, and free it."""
    if nbytes <= 0:
        return
    block = np.empty(nbytes, dtype=np.uint8)
    block[:: mmap.PAGESIZE] = 1
    del block


def first_touch(nbytes: int) -> float:
    """Seconds to fault in a new array of ``nbytes`` (then freed)."""
    start = time.perf_counter()
    back_free_memory(nbytes)
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m zarr_codecs_bench.memory", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--size", type=float, default=256, help="MiB per array (default 256)")
    parser.add_argument("--idle", type=float, default=3, help="seconds of pause (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="times each case runs")
    args = parser.parse_args(argv)
    nbytes = int(args.size * (1 << 20))
    first_touch(nbytes)
    idle: float = args.idle

    def nothing() -> None:
        pass

    def pause() -> None:
        time.sleep(idle)

    def pause_then_ready() -> None:
        time.sleep(idle)
        back_free_memory(2 * nbytes)

    cases: dict[str, Callable[[], None]] = {
        "right after a free": nothing,
        f"after {idle:g} s idle": pause,
        f"after {idle:g} s idle, memory made ready first": pause_then_ready,
    }
    print(f"first touch of a new {args.size:g} MiB array, ms (each of {args.repeats} times)")
    for label, before in cases.items():
        times: list[float] = []
        for _ in range(args.repeats):
            before()
            times.append(first_touch(nbytes) * 1e3)
        print(f"{label:45} " + " ".join(f"{t:7.1f}" for t in times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
