"""What ``scripts/zarrs-suite`` and ``scripts/xarray-suite`` share: a peer's suite run twice,
with the peer's own pipeline (the baseline) and with ours (``peer_suite_plugin``), and the
tests that pass with the baseline and not with ours (each one a bug of ours)."""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

from upstream_suites import run_pytest


def _run(work: Path, arguments: list[str], title: str, *, baseline: bool) -> dict[str, str]:
    """One run of the suite: each test's outcome."""
    outcomes = work / ("baseline.json" if baseline else "ours.json")
    os.environ["PEER_SUITE_OUTCOMES"] = str(outcomes)
    os.environ["PEER_SUITE_BASELINE"] = "1" if baseline else "0"
    run_pytest(work, "peer_suite_plugin", arguments, title)
    found: dict[str, str] = json.loads(outcomes.read_text()) if outcomes.exists() else {}
    return found


def worse(baseline: dict[str, str], ours: dict[str, str]) -> list[str]:
    """The tests that passed with the baseline and did not with ours."""
    return sorted(
        test
        for test, outcome in ours.items()
        if outcome != "passed" and baseline.get(test) == "passed"
    )


def run_compared(work: Path, arguments: list[str], suite: str, baseline_name: str) -> int:
    """``suite`` (named so in titles) with ``baseline_name`` and then with ours, in ``work``;
    1 when a test passes with the baseline and not with ours (or nothing ran), else 0."""
    os.environ["ZARR_SUITE_NAME"] = suite
    baseline = _run(
        work, arguments, f"{suite}, with {baseline_name} (the baseline):", baseline=True
    )
    ours = _run(work, arguments, f"{suite}, with our codecs and pipeline:", baseline=False)
    for name, outcomes in ((baseline_name, baseline), ("ours", ours)):
        count = collections.Counter(outcomes.values())
        print(f"{suite} with {name}: " + ", ".join(f"{n} {k}" for k, n in sorted(count.items())))
    found = worse(baseline, ours)
    for test in found:
        print(f"passed with {baseline_name}, {ours[test]} with ours: {test}")
    print(f"{suite}: {len(found)} test(s) pass with {baseline_name} and not with ours")
    return 1 if found or not ours else 0
