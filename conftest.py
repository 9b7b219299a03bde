"""Every suite of the repository: with ``ZARR_CODECS_PARTNERS=required`` (``scripts/test``
sets it), a test or a whole module skipped because a package it checks against could not be
imported fails instead. CI installs every test partner (tensorstore, zarrs, numcodecs,
cast_value_rs, dask, obstore, moto, icechunk, blosc2, ...), so there such a skip means a check
went quietly missing. Packages no CI machine has (GPU ones) may still be skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

#: Top-level packages a test may lack anywhere: they need a GPU.
OPTIONAL = frozenset({"cupy", "cupy_backends", "torch"})

_IMPORT_SKIP = re.compile(r"could not import '([^']+)'")


def _missing_partner(report: Any) -> str | None:
    """The package whose failed import skipped ``report``'s test or module, where it must not."""
    if os.environ.get("ZARR_CODECS_PARTNERS") != "required" or not report.skipped:
        return None
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    found = _IMPORT_SKIP.search(reason)
    if found is None or found.group(1).split(".")[0] in OPTIONAL:
        return None
    return found.group(1)


def _fail(report: Any, name: str) -> None:
    report.outcome = "failed"
    report.longrepr = (
        f"test partner {name!r} could not be imported, and ZARR_CODECS_PARTNERS=required: "
        "install it (`bash scripts/setup` installs every partner) rather than skip its checks"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report = yield
    name = _missing_partner(report)
    if name is not None:
        _fail(report, name)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[Any]:
    report = yield
    name = _missing_partner(report)
    if name is not None:
        _fail(report, name)
    return report
