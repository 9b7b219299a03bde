"""How much the peak memory (RSS) of a fresh Python process grows while it runs some code: for
tests that hostile input allocates nothing large, where tracemalloc sees only Python's own
allocations, not those of a compiled codec."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

_MEASURE = """
def peak():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmHWM:"))

def reset_peak():  # Linux >= 4.0: the high-water mark restarts from the current RSS
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return peak()
"""


def peak_rss_growth(setup: str, work: str, *, imports: str, warm_up: str) -> int:
    """Bytes the peak RSS of a fresh process grows by while running ``work``, after
    ``imports``, ``setup`` and ``warm_up`` (a line that loads everything ``work`` uses, so that
    loading is not counted). Skips the test where Linux's ``/proc/self/clear_refs`` is missing.

    ``ru_maxrss`` cannot measure this: Linux carries the parent's peak into a child.
    """
    script = "\n".join(
        [
            textwrap.dedent(imports),
            _MEASURE,
            textwrap.dedent(setup),
            warm_up,
            "before = reset_peak()",
            textwrap.dedent(work),
            "print(peak() - before)",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    if "clear_refs" in result.stderr or "/proc/self/status" in result.stderr:
        pytest.skip("needs Linux /proc/self/clear_refs to measure peak memory")
    assert result.returncode == 0, result.stderr
    return int(result.stdout)
