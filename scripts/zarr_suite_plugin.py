"""A pytest plugin that runs zarr-python's own test suite with our codecs and pipeline
(``scripts/zarr-suite`` loads it with ``-p zarr_suite_plugin``).

zarr-python's suite resets zarr's config before and after every test (an autouse fixture
calling ``zarr.config.reset()``), which would silently undo ``zarr_codecs.install()``. The
plugin wraps that reset so that our codecs and pipeline are put back each time
(``zarr_codecs.reapply()``), and counts the tests that really went through them: those whose
arrays the pipeline handled, those where the runtime did the work (a read or write it took,
not handed back to zarr's code), those in which one of our codecs encoded or decoded, and
those in which the pipeline took a selection whole from zarr's array (cut in Rust).
The counts are printed at the end and written as JSON to ``$ZARR_SUITE_REPORT`` if set.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from typing import Any

import pytest

#: Test ids by what they went through.
_RAN: dict[str, set[str]] = {
    "pipeline": set(),
    "runtime": set(),
    "our codecs": set(),
    "whole selections": set(),
}
_current: list[str] = [""]


def _counting(kind: str, method: Callable[..., Any], *, when_not_none: bool = False) -> Any:
    @functools.wraps(method)
    def counted(*args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        if not when_not_none or result is not None:
            _RAN[kind].add(_current[0])
        return result

    return counted


def _counting_async(kind: str, method: Callable[..., Any]) -> Any:
    @functools.wraps(method)
    async def counted(*args: Any, **kwargs: Any) -> Any:
        _RAN[kind].add(_current[0])
        return await method(*args, **kwargs)

    return counted


def _counting_taken(method: Callable[..., Any]) -> Any:
    """A pipeline's ``read_selection`` / ``write_selection``, counted where it took the
    selection (anything but ``NotImplemented``)."""

    @functools.wraps(method)
    async def counted(*args: Any, **kwargs: Any) -> Any:
        result = await method(*args, **kwargs)
        if result is not NotImplemented:
            _RAN["pipeline"].add(_current[0])
            _RAN["whole selections"].add(_current[0])
        return result

    return counted


def pytest_configure(config: pytest.Config) -> None:
    import zarr
    import zarr_codecs
    from zarr_codec_runtime import Chain
    from zarr_codecs.pipeline import ChainCodecPipeline

    zarr_codecs.install(pipeline=True)
    reset = zarr.config.reset

    @functools.wraps(reset)
    def reset_then_reapply() -> None:
        reset()
        zarr_codecs.reapply()

    zarr.config.reset = reset_then_reapply  # type: ignore[method-assign]
    ChainCodecPipeline.read = _counting_async("pipeline", ChainCodecPipeline.read)  # type: ignore[method-assign]
    ChainCodecPipeline.write = _counting_async("pipeline", ChainCodecPipeline.write)  # type: ignore[method-assign]
    for name in ("read_selection", "write_selection"):
        setattr(ChainCodecPipeline, name, _counting_taken(getattr(ChainCodecPipeline, name)))
    for name in ("read", "write_files", "write_buffers"):
        setattr(Chain, name, _counting("runtime", getattr(Chain, name), when_not_none=True))
    for binding in zarr_codecs.BINDINGS:
        if binding.zarr_class is None:
            continue
        adapter = zarr_codecs.Binding.load(binding.zarr_class)
        for name in ("_encode_single", "_decode_single", "_encode_sync", "_decode_sync"):
            if hasattr(adapter, name):
                wrap = _counting_async if name.endswith("single") else _counting
                setattr(adapter, name, wrap("our codecs", getattr(adapter, name)))
    # The plan runs our kernels without the adapters' methods: a runtime call is ours too.
    for name in ("read", "write_files", "write_buffers"):
        setattr(Chain, name, _counting("our codecs", getattr(Chain, name), when_not_none=True))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _current[0] = item.nodeid
    try:
        return (yield)
    finally:
        _current[0] = ""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    import zarr
    from zarr_codecs.pipeline import PATH

    # The suite's own fixtures have run: ours must be what zarr would use now (unless the
    # test itself sets another pipeline, which it then does on top of this).
    assert zarr.config.get("codec_pipeline.path") == PATH, "zarr_codecs was not reapplied"
    return (yield)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    stats = terminalreporter.stats
    passed = {report.nodeid for report in stats.get("passed", []) if report.when == "call"}
    counts = {kind: len(ids & passed) for kind, ids in _RAN.items()}
    counts["passed"] = len(passed)
    suite = os.environ.get("ZARR_SUITE_NAME", "zarr-python's suite")
    terminalreporter.write_sep("=", f"zarr-codecs in {suite}")
    for kind, count in counts.items():
        label = "tests passed" if kind == "passed" else f"passed tests through {kind}"
        terminalreporter.write_line(f"{label}: {count}")
    report = os.environ.get("ZARR_SUITE_REPORT")
    if report:
        with open(report, "w", encoding="utf-8") as file:
            json.dump(counts, file, indent=2)
