"""zarrs-python's own tests, run with our pipeline where they select zarrs'.

Fetches the sdist of the zarrs version installed (from PyPI, checked against the index's
sha256; kept in ``.cache/``), unpacks its ``tests/`` into a scratch folder and runs them with
``scripts/peer_suite_plugin.py`` twice: with zarrs' own pipeline (the baseline), then with
zarrs' pipeline setting turned into ours (our codecs installed, tests counted by what they
went through); a test that passes with zarrs' and not with ours fails the run. Tests that
check zarrs' own pipeline object, its settings or its services rather than what arrays hold
are deselected, each with its reason (:data:`EXCLUDED`). ``--quick`` runs a fixed subset
(CI's: the indexing round trips against zarr-python, v2, sharding, byte orders, codecs). Exit
status: 1 when a test passes with zarrs' pipeline and not with ours.
"""

from __future__ import annotations

import sys
from pathlib import Path

from peer_suites import run_compared
from upstream_suites import extract_tests, quick_flag, unpacked

MODULES = ("tests",)
QUICK = (
    "tests/pipeline/test_roundtrip.py",
    "tests/test_v2.py",
    "tests/test_sharding.py",
    "tests/test_endian.py",
    "tests/test_codecs.py",
    "tests/test_gzip.py",
    "tests/test_zstd.py",
    "tests/test_transpose.py",
)

_ZARRS_ONLY = "checks zarrs' own pipeline object or its settings, not what arrays hold"
#: Modules or test ids deselected, with why.
EXCLUDED: dict[str, str] = {
    "tests/test_version.py": "checks zarrs' version string",
    "tests/test_registry.py": "checks zarrs' codec registry in a subprocess",
    "tests/test_strict_mode.py": "checks zarrs' codec_pipeline.strict setting: " + _ZARRS_ONLY,
    "tests/test_zarrs_http.py": "zarrs' own HTTP store, over the network",
    "tests/test_obstore.py": "obstore's stores over the network",
    "tests/test_vlen.py": (
        "imports a private name zarr-python 3.4 no longer has (_NUMPY_SUPPORTS_VLEN_STRING): "
        "it cannot be collected with either pipeline"
    ),
    "tests/pipeline/test_pipeline.py::test_pickle": "pickles zarrs' pipeline: " + _ZARRS_ONLY,
    "tests/pipeline/test_pipeline.py::test_pipeline_used": (
        "spies on zarrs' pipeline class (pytest-mock): " + _ZARRS_ONLY
    ),
    "tests/pipeline/test_pipeline.py::test_ellipsis_indexing_invalid": (
        "matches zarrs' own error messages for a value of the wrong shape; ours hands such a "
        "write to zarr-python's code and raises zarr-python's own IndexError, as its default "
        "pipeline does"
    ),
    "tests/pipeline/test_pipeline.py::test_direct_io": (
        "zarrs' codec_pipeline.direct_io setting: " + _ZARRS_ONLY
    ),
}


def unpack(data: bytes, release: str, into: Path) -> None:
    """zarrs' ``tests/`` and a ``pytest.ini`` with the asyncio settings its tests need."""
    extract_tests(data, f"zarrs-{release}", into)
    # Its modules import their conftest relatively, as a package (the sdist has no
    # ``__init__.py``; zarrs' repository runs them from its own checkout).
    for folder in (into / "tests", into / "tests" / "pipeline"):
        (folder / "__init__.py").touch()
    (into / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )


def main(argv: list[str]) -> int:
    quick, argv = quick_flag(argv)
    with unpacked("zarrs", unpack) as (release, work):
        modules = QUICK if quick else MODULES
        arguments = [
            "-q",
            "-ra",
            "-p",
            "no:randomly",
            *(f"--ignore={path}" for path in EXCLUDED if "::" not in path),
            *(f"--deselect={test}" for test in EXCLUDED if "::" in test),
            *([] if any(arg.startswith("tests") for arg in argv) else modules),
            "--disable-warnings",
            *argv,
        ]
        return run_compared(
            work, arguments, f"zarrs-python {release}'s suite", "zarrs' own pipeline"
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
