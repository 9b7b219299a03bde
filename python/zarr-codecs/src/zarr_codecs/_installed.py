"""What :func:`zarr_codecs.install` has put in place now: the one record that installing,
uninstalling and unpickling arrays all read (kept apart so that none of them imports
another for it)."""

from __future__ import annotations

import threading

__all__ = ["installed_parts", "lock", "parts"]

#: Held while the record changes, and while installing or uninstalling a part.
lock = threading.RLock()
#: Installed now: "zarr" (v3), "numcodecs" (v2), "pipeline".
parts: set[str] = set()


def installed_parts() -> frozenset[str]:
    """What :func:`zarr_codecs.install` has put in place: ``"zarr"`` (v3), ``"numcodecs"``
    (v2), ``"pipeline"``, some of them or none."""
    with lock:
        return frozenset(parts)
