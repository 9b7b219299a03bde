"""xarray's zarr backend tests (``xarray/tests/test_backends.py``, the classes with "Zarr" in
their names), as the installed xarray ships them, run twice with ``peer_suite_plugin``: with
zarr-python's own pipeline and codecs (the baseline), then with ``zarr_codecs.install(
pipeline=True)`` in force (re-applied after each config reset, tests counted by what they went
through). A test that passes with zarr-python's and not with ours fails the run; tests that
check which class zarr picks rather than what arrays hold are deselected, each with its reason
(:data:`EXCLUDED`). ``--quick`` runs the directory-store class alone (CI's). Extra arguments go
to pytest.
"""

from __future__ import annotations

import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from peer_suites import run_compared
from upstream_suites import quick_flag

#: Which tests: the zarr classes of the backend tests.
SELECTED = "Zarr"
QUICK = "TestZarrDirectoryStore"

_CLASSES = (
    "compares codec objects by class: xarray reads back the encoding as codecs parsed from "
    "JSON, which are ours with our codecs installed, and compares them with zarr-python's own "
    "classes built in code (the same exclusion as in scripts/zarr-suite)"
)
#: Tests deselected, with why (their ids as pytest gives them for ``--pyargs``).
EXCLUDED: dict[str, str] = {
    f"::{cls}::test_compressor_encoding[3]": _CLASSES
    for cls in (
        "TestZarrDictStore",
        "TestZarrDirectoryStore",
        "TestZarrNoConsolidatedMetadataSupport",
        "TestZarrWriteEmpty",
    )
}


def main(argv: list[str]) -> int:
    quick, argv = quick_flag(argv)
    release = version("xarray")
    with tempfile.TemporaryDirectory(prefix="xarray-suite-") as scratch:
        arguments = [
            "-q",
            "-ra",
            "-o",
            "addopts=",
            "--pyargs",
            "xarray.tests.test_backends",
            "-k",
            QUICK if quick else SELECTED,
            "--disable-warnings",
            *(f"--deselect={test}" for test in EXCLUDED),
            *argv,
        ]
        return run_compared(
            Path(scratch), arguments, f"xarray {release}'s zarr tests", "zarr-python's own"
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
