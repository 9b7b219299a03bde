"""The proof for upstream: zarr-python 3.4.2 and numcodecs 0.17.1, patched to depend on
``zarr-codec-shapes`` (``upstream/``), built and installed with our packages in scratch
environments, then checked.

1. Fetch both sdists (sha256 checked against PyPI, kept in ``.cache/``), unpack them into
   ``.cache/upstream/`` and apply the patch series with ``git apply``.
2. Build wheels of both and of every package of this repository into one folder; with the
   development environment (unpatched zarr-python and numcodecs), write an array with every
   codec, Zarr v2 and v3 (``upstream_fixtures.py``).
3. Environment 1, **without numcodecs**: third-party dependencies from PyPI, then
   ``pip install "zarr[codecs]"`` from the wheel folder alone (``--no-index``), so the codecs
   extra must pull our bundle from the patched zarr's metadata; ``import numcodecs`` must fail.
   Checks: the dependency and import graphs of the installed set (no cycle), zarr resolving our
   codecs with no ``install()`` call, the arrays of step 2 read back exactly, and zarr-python's
   own tests: all of them but the modules that import numcodecs themselves
   (:func:`numcodecs_modules`, run in environment 2) and :data:`NOT_RUN`.
4. Environment 2, **with numcodecs** (``zarr[codecs,numcodecs]``, the patched numcodecs): the
   same checks, zarr-python's :data:`SUITES` and the numcodecs-importing modules, and
   numcodecs' own tests. Each excluded test is listed in :data:`EXCLUDED` with its reason.

Usage: .venv/bin/python scripts/upstream-check [--quick] [--keep]. ``--quick``: environment 1
alone with a fixed part of zarr-python's tests (:data:`QUICK`; what ``scripts/test`` runs).
Exit status: non-zero on any failure.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from upstream_suites import CACHE, SCRIPTS, sdist

ROOT = SCRIPTS.parent
WORK = CACHE / "upstream"
#: (project, release, version the patched build carries: the release with a local label).
PROJECTS = (("zarr", "3.4.2", "3.4.2+codec.shapes"), ("numcodecs", "0.17.1", "0.17.1+codec.shapes"))
#: Third-party packages the scratch environment takes from PyPI (everything else, ours and the
#: two patched projects, must come from the wheel folder).
FROM_PYPI = (
    "numpy>=2",
    "packaging>=22",
    "typing_extensions>=4.14",
    "donfig>=0.8",
    "msgspec>=0.19",
    "pytest>=8",
    "pytest-asyncio>=1.3",
    "hypothesis",
)
#: What numcodecs' checksum extras and its tests add, and typer for zarr's CLI tests (which import
#: numcodecs): environment 2 only.
FOR_NUMCODECS = ("crc32c>=2.7", "google-crc32c>=1.5", "pyzstd", "typer")
#: Tests run from each patched project: (project, paths).
SUITES = {
    "zarr": (
        "tests/test_codec_shapes.py",
        "tests/test_pipeline_selection.py",
        "tests/test_codecs",
        "tests/test_array.py",
        "tests/test_v2.py",
        "tests/test_config.py",
    ),
    "numcodecs": ("tests",),
}
#: zarr-python test modules that import numcodecs themselves and are not in SUITES: environment
#: 2 runs them too (environment 1 runs no module that imports numcodecs).
WITH_NUMCODECS = (
    "tests/test_cli/test_migrate_v3.py",
    "tests/test_codec_pipeline_suite.py",
    "tests/test_group.py",
    "tests/test_metadata/test_consolidated.py",
    "tests/test_registry.py",
)
#: zarr-python test paths run in neither environment, with why.
NOT_RUN = {
    "tests/benchmarks": "benchmarks, not tests",
    "tests/test_docs.py": "builds zarr-python's documentation (its docs dependency group)",
    "tests/test_examples.py": "runs the examples' scripts with uv and their own dependencies",
    "tests/test_api/test_synchronous.py": "checks docstrings with numpydoc (a dev tool)",
    "tests/test_regression/test_v2_dtype_regression.py": (
        "installs zarr-python 2 with uv from PyPI to write its arrays"
    ),
}
_OURS = (
    "zarr resolves this codec name to our installed package, as the codecs extra intends; the "
    "test asserts zarr's own class"
)
#: Tests deselected, with why. Every other selected test must pass.
EXCLUDED: dict[str, str] = {
    "tests/test_config.py::test_config_codec_implementation": _OURS + " (blosc)",
    "tests/test_codecs/test_codecs.py::test_open": _OURS
    + ": metadata parsed from JSON holds ours, the array zarr builds in code its own defaults",
    "tests/test_codecs/test_sharding.py::test_pickle": _OURS + " (see test_open)",
    "tests/test_codecs/test_sharding.py::test_sharding_codec_json_roundtrip_index_location": (
        _OURS + " (see test_open)"
    ),
    "tests/test_array.py::test_from_array_overwrite_non_overlapping_source": _OURS
    + " (see test_open)",
    "tests/test_codecs/test_numcodecs.py::test_get_codec_class": _OURS
    + ": numcodecs.<id> names resolve to numcodecs.zarr3's API codecs (the patched numcodecs "
    "registers them), not to zarr's wrappers",
    "tests/test_codec_shapes.py::test_zarr_codecs_are_api_codecs[codec5]": _OURS
    + ": ShardingCodec's default index codecs are built in code (zarr's crc32c), its JSON "
    "round trip resolves ours (see test_open)",
    "tests/test_array.py::TestInfo": _OURS + ": the info text names the codec objects in use",
    "tests/test_codec_shapes.py::test_registry_resolution": (
        "asserts that gzip resolves to zarr's own with no package installed for it; here one is"
    ),
    "tests/test_group.py::test_group_child_iterators": _OURS
    + " (zstd): its metadata has a zstd codec with an empty configuration; ours requires the "
    "level, as the Zarr v3 zstd specification does",
    "tests/test_registry.py::test_get_numcodec_does_not_relabel_a_bad_configuration": _OURS
    + " (bitround, for the Zarr v2 id): the test compares numcodecs' message word for word",
    "tests/test_cli/test_migrate_v3.py::test_migrate_compressor": _OURS
    + " (blosc, zstd, gzip): the migrated metadata holds ours (see test_open)",
    "tests/test_cli/test_migrate_v3.py::test_migrate_numcodecs_compressor": _OURS + " (lzma)",
    "tests/test_cli/test_migrate_v3.py::test_migrate_filter": _OURS + " (delta)",
    "tests/test_cli/test_migrate_v3.py::test_migrate_incorrect_filter": _OURS
    + " (zstd): the error message names the class",
    "tests/test_cli/test_migrate_v3.py::test_migrate_incorrect_compressor": _OURS
    + " (delta): the error message names the class",
    "tests/test_cli/test_migrate_v3.py::test_migrate_unknown_codec": (
        "categorize, the test's codec with no Zarr v3 form, is found (zarr-codec-vlen's API "
        "codec) and refuses a v3 form itself: the migration fails as the test asks, with our "
        "ConfigurationError, a ValueError whose message the test compares word for word"
    ),
}


def run(command: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=cwd, env={**os.environ, **(env or {})}, check=True)


def unpack_and_patch(project: str, release: str) -> Path:
    """The sdist unpacked into ``WORK/<project>`` with ``upstream/<project>/*.patch`` applied."""
    target = WORK / project
    if target.exists():
        shutil.rmtree(target)
    with tarfile.open(fileobj=io.BytesIO(sdist(project, release))) as archive:
        archive.extractall(WORK, filter="data")
    (WORK / f"{project}-{release}").rename(target)
    patches = sorted((ROOT / "upstream" / _folder(project)).glob("*.patch"))
    # A repository of its own: inside this clone, git apply would skip every path as outside
    # its directory.
    run(["git", "init", "--quiet"], cwd=target)
    run(["git", "apply", "--verbose", *map(str, patches)], cwd=target)
    return target


def _folder(project: str) -> str:
    return "zarr-python" if project == "zarr" else project


def build_wheels(uv: str, trees: dict[str, Path], wheels: Path) -> None:
    """The patched projects of ``trees`` and every package of this repository, as wheels in
    ``wheels``."""
    for project, release, local in PROJECTS:
        del release
        if project not in trees:
            continue
        env = {"SETUPTOOLS_SCM_PRETEND_VERSION": local}
        run([uv, "build", "--wheel", "--out-dir", str(wheels), str(trees[project])], env=env)
    pure = [ROOT / "api" / "zarr-codec-shapes", ROOT / "python" / "zarr-codecs"]
    compiled = sorted(p for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").exists())
    for folder in pure:
        run([uv, "build", "--wheel", "--out-dir", str(wheels), str(folder)])
    for folder in compiled:
        # The development profile's optimised build ("wheel"): it shares scripts/setup's
        # Cargo target folder, so this links rather than compiles.
        profile = ["--config-setting", "build-args=--profile wheel"]
        run([uv, "build", "--wheel", "--out-dir", str(wheels), str(folder), *profile])


def make_environment(uv: str, wheels: Path, name: str, extras: str, pypi: tuple[str, ...]) -> Path:
    """A fresh environment ``WORK/name``: ``pypi`` from PyPI, then ``zarr[extras]`` from the
    wheel folder alone; its Python."""
    venv = WORK / name
    if venv.exists():
        shutil.rmtree(venv)
    run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
    python = venv / "bin" / "python"
    run([uv, "pip", "install", "--quiet", "--python", str(python), *pypi])
    # Only the wheel folder from here on: "zarr[codecs]" must find our bundle through the
    # patched zarr's own metadata.
    extra = ["--no-index", "--find-links", str(wheels)]
    # --no-cache: the wheels carry released versions, so a cached unpatched build of the same
    # name must not stand in for them.
    run([uv, "pip", "install", "--no-cache", "--python", str(python), *extra, f"zarr[{extras}]"])
    return python


def numcodecs_modules(tree: Path) -> list[str]:
    """zarr-python's test modules that import numcodecs themselves (at any depth)."""
    found = []
    for path in sorted((tree / "tests").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if any(line.strip().startswith(("import numcodecs", "from numcodecs")) for line in lines):
            found.append(path.relative_to(tree).as_posix())
    return found


def run_tests(python: Path, tree: Path, title: str, arguments: list[str]) -> int:
    """pytest in ``tree`` (whose tests import the installed package, not its sources) with
    ``arguments``; pytest's status."""
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts="]
    command += ["-o", "asyncio_default_fixture_loop_scope=function", *arguments]
    print(f"\n== {title}", flush=True)
    print("+", " ".join(command), flush=True)
    env = {**os.environ, "PYTHONPATH": ""}
    return subprocess.run(command, cwd=tree, env=env, check=False).returncode


#: ``--quick`` (what ``scripts/test`` runs): environment 1 alone, the probe, the arrays written
#: with numcodecs read without it, and this fixed part of zarr-python's tests: the codec API's,
#: whole selections, every codec module, indexing.
QUICK: tuple[str, ...] = (
    "tests/test_codec_shapes.py",
    "tests/test_pipeline_selection.py",
    "tests/test_codecs",
    "tests/test_indexing.py",
)


def _deselected() -> list[str]:
    return [arg for test in EXCLUDED for arg in ("--deselect", test)]


def without_numcodecs(
    uv: str, wheels: Path, trees: dict[str, Path], fixtures: Path, quick: bool = False
) -> list[str]:
    """Environment 1: ``zarr[codecs]``, no numcodecs (``quick``: :data:`QUICK` of zarr-python's
    tests). The names of the failed checks."""
    print("\n==== Environment 1: zarr[codecs], numcodecs absent", flush=True)
    python = make_environment(uv, wheels, "venv-codecs", "codecs", FROM_PYPI)
    failures = []
    probe = [str(python), str(SCRIPTS / "upstream_check_probe.py"), "--without-numcodecs"]
    if subprocess.run(probe, check=False).returncode != 0:
        failures.append("probe without numcodecs")
    print("\n== arrays written by unpatched zarr-python with numcodecs, read without it")
    reader = [str(python), str(SCRIPTS / "upstream_fixtures.py"), "read", str(fixtures)]
    if subprocess.run(reader, check=False).returncode != 0:
        failures.append("arrays read without numcodecs")
    tree = trees["zarr"]
    with_numcodecs = numcodecs_modules(tree)
    print("\nzarr-python's test modules that import numcodecs: environment 2 runs them")
    for module in with_numcodecs:
        where = [path for path in (*SUITES["zarr"], *WITH_NUMCODECS) if module.startswith(path)]
        print(f"  {module}" + ("" if where or module in NOT_RUN else ": NOT RUN ANYWHERE"))
        if not where and module not in NOT_RUN:
            failures.append(f"{module} imports numcodecs and is in no suite")
    print("Not run in either environment:")
    for path, reason in NOT_RUN.items():
        print(f"  {path}: {reason}")
    ignored = [f"--ignore={path}" for path in sorted({*with_numcodecs, *NOT_RUN})]
    title = "zarr-python's own tests, patched, without numcodecs"
    selected = list(QUICK) if quick else ["tests"]
    if quick:
        title += " (a fixed part: " + ", ".join(QUICK) + ")"
    if run_tests(python, tree, title, [*selected, *ignored, *_deselected()]) != 0:
        failures.append("zarr tests without numcodecs")
    return failures


def main(arguments: list[str]) -> int:
    # The development environment's uv: a pyenv shim named uv may exist and fail.
    uv = str(ROOT / ".venv" / "bin" / "uv")
    quick = "--quick" in arguments
    WORK.mkdir(parents=True, exist_ok=True)
    # --quick needs no numcodecs: its build from C sources is most of a full run.
    projects = [(p, r) for p, r, _ in PROJECTS if not (quick and p == "numcodecs")]
    trees = {project: unpack_and_patch(project, release) for project, release in projects}
    wheels = WORK / "wheels"
    if wheels.exists():
        shutil.rmtree(wheels)
    build_wheels(uv, trees, wheels)
    # This process runs in the development environment: unpatched zarr-python and numcodecs.
    fixtures = WORK / "fixtures"
    if fixtures.exists():
        shutil.rmtree(fixtures)
    run([sys.executable, str(SCRIPTS / "upstream_fixtures.py"), "write", str(fixtures)])
    print("\nExcluded from zarr-python's tests (both environments):")
    for test, reason in EXCLUDED.items():
        print(f"  {test}: {reason}")
    failures = without_numcodecs(uv, wheels, trees, fixtures, quick)
    if quick:
        if "--keep" not in arguments:
            shutil.rmtree(WORK / "venv-codecs")
        print(
            "\nupstream-check --quick:", "FAILED: " + ", ".join(failures) if failures else "passed"
        )
        return 1 if failures else 0

    print("\n==== Environment 2: zarr[codecs,numcodecs], the patched numcodecs", flush=True)
    python = make_environment(uv, wheels, "venv", "codecs,numcodecs", FROM_PYPI + FOR_NUMCODECS)
    print("\n== the installed set: graphs, codecs in use without install()", flush=True)
    probe = subprocess.run([str(python), str(SCRIPTS / "upstream_check_probe.py")], check=False)
    if probe.returncode != 0:
        failures.append("probe")
    title = "zarr-python's own tests, patched, with numcodecs"
    suites = [*SUITES["zarr"], *WITH_NUMCODECS, *_deselected()]
    if run_tests(python, trees["zarr"], title, suites) != 0:
        failures.append("zarr tests")
    title = "numcodecs' own tests, patched, with our codecs installed"
    if run_tests(python, trees["numcodecs"], title, list(SUITES["numcodecs"])) != 0:
        failures.append("numcodecs tests")
    if "--keep" not in arguments:
        for name in ("venv", "venv-codecs"):
            shutil.rmtree(WORK / name)
    print("\nupstream-check:", "FAILED: " + ", ".join(failures) if failures else "passed")
    return 1 if failures else 0
