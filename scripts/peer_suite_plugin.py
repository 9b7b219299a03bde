"""A pytest plugin that runs a peer's own test suite (zarrs-python's, xarray's zarr backend
tests) with our codecs and pipeline (``scripts/zarrs-suite`` and ``scripts/xarray-suite`` load
it with ``-p peer_suite_plugin``).

It installs ours and counts, as ``zarr_suite_plugin`` does (our install re-applied after each
``zarr.config.reset()``), the tests that went through our pipeline, the runtime and our codecs.
zarrs-python's suite selects its pipeline with
``zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})`` (an autouse fixture
and some tests): every such setting is turned into ours; a test that sets zarr-python's own
pipeline (the suite's reference) keeps it. With ``PEER_SUITE_BASELINE=1`` it changes nothing
(the peer's own pipeline runs: the baseline). Either way each test's outcome is written as JSON
to ``$PEER_SUITE_OUTCOMES``, and zarr-python's renamed ``create`` is given back to the suite
(:func:`_restore_create`).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import pytest

BASELINE = os.environ.get("PEER_SUITE_BASELINE") == "1"
ZARRS = "zarrs.ZarrsCodecPipeline"

if not BASELINE:
    from zarr_suite_plugin import pytest_configure as _install_and_count
    from zarr_suite_plugin import (  # noqa: F401 (hooks pytest finds by name)
        pytest_runtest_call,
        pytest_runtest_protocol,
        pytest_terminal_summary,
    )

_outcomes: dict[str, str] = {}


def _ours(settings: Any) -> Any:
    """``settings`` with zarrs' pipeline replaced by ours (a dict; anything else as it is)."""
    from zarr_codecs.pipeline import PATH

    if isinstance(settings, dict) and settings.get("codec_pipeline.path") == ZARRS:
        return {**settings, "codec_pipeline.path": PATH}
    return settings


def _restore_create() -> None:
    """``Array.create`` and ``AsyncArray.create`` back, as the ``_create`` zarr-python 3.4 renamed
    them to (the same class methods, the same signature). zarrs-python 0.2.3's sharding,
    byte-order and codec tests create their arrays with them: without the names every one of
    those tests fails in every pipeline before it reaches one. Both runs get them; the tests'
    own assertions are unchanged."""
    from zarr import Array, AsyncArray

    classes: tuple[type, ...] = (Array, AsyncArray)
    for cls in classes:
        renamed = cls.__dict__.get("_create")
        if not hasattr(cls, "create") and isinstance(renamed, classmethod):
            cls.create = classmethod(renamed.__func__)  # type: ignore[attr-defined]


def pytest_configure(config: pytest.Config) -> None:
    _restore_create()
    if BASELINE:
        return
    import zarr

    _install_and_count(config)
    original = zarr.config.set

    @functools.wraps(original)
    def set_ours(arg: Any = None, *args: Any, **kwargs: Any) -> Any:
        return original(_ours(arg), *args, **kwargs)

    zarr.config.set = set_ours


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """The test's outcome: its call's, or its setup's when that failed or skipped."""
    if report.when == "call" or report.outcome != "passed":
        outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
        _outcomes.setdefault(report.nodeid, outcome)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("PEER_SUITE_OUTCOMES")
    if path:
        with open(path, "w", encoding="utf-8") as file:
            json.dump(_outcomes, file, indent=1, sort_keys=True)
