"""zarr-python's own tests for arrays, indexing, codecs (sharding included) and Zarr v2, run
with our codecs and pipeline selected.

Fetches the sdist of the zarr version installed (from PyPI, checked against the index's
sha256; kept in ``.cache/``), unpacks its ``tests/`` into a scratch folder and runs the modules
below with ``scripts/zarr_suite_plugin.py``, which re-applies ``zarr_codecs.install(
pipeline=True)`` after each of the suite's config resets and counts the tests that went
through our pipeline, the runtime and our codecs. Tests that check zarr's own choices rather
than what arrays hold are deselected, each with its reason (:data:`EXCLUDED`). ``--quick``
runs a subset (CI's). Exit status: pytest's. Extra arguments go to pytest.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from upstream_suites import extract_tests, quick_flag, run_pytest, unpacked

MODULES = (
    "tests/test_array.py",
    "tests/test_indexing.py",
    "tests/test_v2.py",
    "tests/test_codecs",
)
#: The quick subset: every codec module (sharding included), indexing and v2.
QUICK = ("tests/test_indexing.py", "tests/test_v2.py", "tests/test_codecs")

_CLASSES = (
    "compares codec objects by class: with our codecs installed, codecs parsed from JSON are "
    "ours while those zarr builds in code (its defaults) are its own, so equal metadata "
    "compares unequal"
)
#: Test ids deselected, with why: each checks which implementation zarr itself picks or
#: patches zarr's internals, not what an array reads or writes.
EXCLUDED: dict[str, str] = {
    "tests/test_codecs/test_codecs.py::test_open": _CLASSES,
    "tests/test_codecs/test_sharding.py::test_pickle": _CLASSES,
    "tests/test_codecs/test_sharding.py::test_sharding_codec_json_roundtrip_index_location": (
        _CLASSES
    ),
    "tests/test_array.py::test_from_array_overwrite_non_overlapping_source": _CLASSES,
    **{
        f"tests/test_codecs/test_numcodecs.py::test_get_codec_class[{name}]": (
            f"asserts that zarr's registry resolves numcodecs' {name} to zarr's own class; "
            "install() makes it resolve to ours, which is its purpose"
        )
        for name in (
            "FixedScaleOffset",
            "Zlib",
            "LZ4",
            "BZ2",
            "LZMA",
            "Shuffle",
            "CRC32",
            "Adler32",
            "Fletcher32",
            "JenkinsLookup3",
            "Delta",
            "BitRound",
            "Quantize",
            "AsType",
            "PackBits",
            "PCodec",
            "ZFPY",
        )
    },
    "tests/test_codecs/test_sharding.py::"
    "test_sharding_partial_shard_read__index_chunk_slice_fails": (
        "monkeypatches zarr's own shard-index class (_ShardIndex.get_chunk_slice), which the "
        "runtime does not use"
    ),
}


def unpack(data: bytes, release: str, into: Path) -> None:
    """zarr's ``tests/`` and a ``pytest.ini`` with its asyncio settings and markers."""
    found = extract_tests(data, f"zarr-{release}", into, also=("pyproject.toml",))
    options = tomllib.loads(found["pyproject.toml"].decode())["tool"]["pytest"]["ini_options"]
    markers = "\n".join(f"    {marker}" for marker in options.get("markers", []))
    (into / "pytest.ini").write_text(
        "[pytest]\n"
        "asyncio_mode = auto\n"
        "asyncio_default_fixture_loop_scope = function\n"
        f"markers =\n{markers}\n"
    )


def main(argv: list[str]) -> int:
    quick, argv = quick_flag(argv)
    with unpacked("zarr", unpack) as (release, work):
        arguments = [
            "-q",
            "-ra",
            *(f"--deselect={test}" for test in EXCLUDED),
            # Test paths given replace the modules run.
            *([] if any(arg.startswith("tests") for arg in argv) else QUICK if quick else MODULES),
            *argv,
        ]
        title = f"zarr {release}'s tests, with zarr_codecs.install(pipeline=True) in force:"
        return run_pytest(work, "zarr_suite_plugin", arguments, title)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
