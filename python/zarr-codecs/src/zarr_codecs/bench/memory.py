"""Free memory made ready before a timed step, so that a virtual machine's host does not
take part in the timing.

On a virtual machine with free page reporting (the ``virtio_balloon`` device's ``REPORTING``
feature, as on the machines these benchmarks were measured on), the guest kernel tells the
host about memory that has been free for about two seconds, in blocks of 2 MiB or more
(``page_reporting_order``), and the host takes it back. The next time the guest hands that
memory out, every page is faulted in on the host again. Measured here: the first touch of a new
256 MiB array took 28-37 ms when the memory had been freed just before, and 430-850 ms after
two to five seconds idle. A benchmark step that starts after an untimed pause (an
``os.sync``, another pipeline's turn) so runs 10-20x slower at random, whatever the code.

:func:`back_free_memory` touches new memory and frees it again just before the step: the
kernel hands out recently freed, unreported memory first, so the step's new arrays, frames
and page cache find memory the host backs, as they would on a machine of its own.
"""

from __future__ import annotations

import mmap

import numpy as np

__all__ = ["back_free_memory"]


def back_free_memory(nbytes: int) -> None:
    """Fault in ``nbytes`` of new memory, a write to every page, and free it."""
    if nbytes <= 0:
        return
    block = np.empty(nbytes, dtype=np.uint8)
    block[:: mmap.PAGESIZE] = 1
    del block
