"""``scripts/build-wheels``: the release's distributions, built portable and checked.

For each compiled package (``packages/*``): a wheel built by maturin in the release profile,
linked by zig against glibc 2.17 (``--zig --compatibility manylinux_2_17``, so it installs on
every Linux that manylinux2014 covers) and its sdist; for the pure-Python projects published
beside them (``api/zarr-codec-shapes``, ``python/zarr-codecs``): a wheel and an sdist by
``uv build``. Then, as an index and a user would see them:

1. ``auditwheel show``: every compiled wheel is consistent with its manylinux tag;
2. ``twine check --strict``: every distribution's metadata and README render on PyPI;
3. each compiled wheel installed alone (with ``zarr-codec-shapes`` and the test tools) into a
   fresh venv whose ``PATH`` has no Rust and no C compiler, ``--only-binary`` so nothing could be
   compiled there, and the package's own tests run against it;
4. with ``--from-sdist``: each sdist built and installed from source in a fresh venv
   (``pip install --no-binary``, Rust needed there), and imported.

Needs only the standard library; the tools come from the development venv (``scripts/setup``).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Sequence
from pathlib import Path

from versions import wheel_dirs

ROOT = Path(__file__).resolve().parents[1]
#: Published pure-Python projects (zarr-codecs-bench is development only).
#: The pure-Python distributions, by folder: the API below the wheels, the bundle above them.
PYTHON_PROJECTS = ("api/zarr-codec-shapes", "python/zarr-codecs")
DEFAULT_POLICY = "manylinux_2_17"

#: Packages whose x86-64 wheels carry a second build of their extension, for CPUs with these
#: features, which the package imports instead where the CPU has them (``_native.py`` of
#: zarr-codec-pcodec): its Cargo feature ``x86-64-v3`` names the module ``<module>_x86_64_v3``.
#: pco's decoder reaches the ``pcodec`` wheel's speed only so (that wheel is built for these
#: features alone). The list is the one ``X86_64_V3_FEATURES`` of the extension checks.
X86_64_V3_BUILDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pcodec": ("_pcodec", ("avx2", "bmi1", "bmi2", "lzcnt")),
}


class Failed(Exception):
    """A step failed: its command and output are in the message."""


def _tool(name: str) -> str:
    """``name`` from the running Python's own scripts folder (the development venv's, or in CI
    the runner's Python with uv installed), never from elsewhere on ``PATH``."""
    folders = {Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))}
    for folder in folders:
        found = shutil.which(name, path=str(folder))
        if found is not None:
            return found
    raise Failed(f"{name} is not in {sorted(map(str, folders))}: run scripts/setup first")


def _run(command: Sequence[str | Path], *, env: dict[str, str] | None = None) -> str:
    """Run a command; its output, or :class:`Failed` with the output when it fails."""
    shown = " ".join(str(part) for part in command)
    proc = subprocess.run(
        [str(part) for part in command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise Failed(f"$ {shown}\n{proc.stdout}{proc.stderr}")
    return proc.stdout + proc.stderr


def _step(text: str) -> None:
    print(f"\n== {text}", flush=True)


def _package_name(folder: str) -> str:
    """The distribution name of ``packages/<folder>`` (from its pyproject.toml)."""
    text = (ROOT / "packages" / folder / "pyproject.toml").read_text()
    found = re.search(r'^name\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if found is None:
        raise Failed(f"packages/{folder}/pyproject.toml names no project")
    return found.group(1)


def _module_name(folder: str) -> str:
    return _package_name(folder).replace("-", "_")


def _dist_file(out: Path, folder: str, suffix: str) -> Path:
    """The one ``*suffix`` distribution of ``packages/<folder>`` in ``out``."""
    found = sorted(out.glob(f"{_module_name(folder)}-*{suffix}"))
    if len(found) != 1:
        raise Failed(f"expected one {suffix} of {folder} in {out}, found {found}")
    return found[0]


def _test_requirements(folder: str) -> list[str]:
    """``packages/<folder>``'s ``test`` dependency group: what its tests need beside it."""
    text = (ROOT / "packages" / folder / "pyproject.toml").read_text()
    group = tomllib.loads(text).get("dependency-groups", {}).get("test")
    if not group:
        raise Failed(f"packages/{folder}/pyproject.toml has no [dependency-groups] test")
    return [str(item) for item in group]


def _release_build(manifest: Path, policy: str, out: Path, *extra: str) -> list[str | Path]:
    """maturin's release build of ``manifest``, zig-linked for ``policy``, into ``out``."""
    command: list[str | Path] = [_tool("maturin"), "build", "--release", "--zig"]
    return [*command, "--compatibility", policy, "-m", manifest, *extra, "--out", out]


def x86_64_v3_rustflags(folder: str) -> str:
    """The ``RUSTFLAGS`` of ``packages/<folder>``'s x86-64-v3 build."""
    _, features = X86_64_V3_BUILDS[folder]
    enabled = ",".join(f"+{feature}" for feature in features)
    # With AVX2, LLVM's SLP vectoriser packs pco's ANS decoding loop into vector inserts that
    # spill to the stack: 16 MiB of int32 decoded in 10.2 ms with it, 5.0 without (2026-12-07).
    return f"-C target-feature={enabled} -C llvm-args=-vectorize-slp=false"


def place_x86_64_v3(folder: str, wheel: Path) -> Path:
    """The extension of ``wheel`` (built with the ``x86-64-v3`` feature) copied into
    ``packages/<folder>``'s Python package as ``<module>_x86_64_v3<suffix>``, where its
    ``pyproject.toml`` includes it in the wheel built next; the file's path."""
    module, _ = X86_64_V3_BUILDS[folder]
    package = _module_name(folder)
    with zipfile.ZipFile(wheel) as archive:
        found = [
            name
            for name in archive.namelist()
            if name.startswith(f"{package}/{module}.") and name.endswith((".so", ".pyd"))
        ]
        if len(found) != 1:
            raise Failed(f"{wheel.name}: expected one {package}/{module} extension, found {found}")
        suffix = found[0][len(f"{package}/{module}") :]
        target = ROOT / "packages" / folder / "python" / package / f"{module}_x86_64_v3{suffix}"
        target.write_bytes(archive.read(found[0]))
    return target


def build_x86_64_v3(folder: str, policy: str, env: dict[str, str]) -> Path | None:
    """``packages/<folder>``'s x86-64-v3 extension, built and placed for the wheel (see
    :data:`X86_64_V3_BUILDS`); ``None`` where it has none or this machine is not x86-64."""
    if folder not in X86_64_V3_BUILDS or platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    manifest = ROOT / "packages" / folder / "Cargo.toml"
    # Its own target folder: other RUSTFLAGS would rebuild every crate of the usual one.
    target = Path(env.get("CARGO_TARGET_DIR", ROOT / "target")) / "x86-64-v3"
    flags = {"RUSTFLAGS": x86_64_v3_rustflags(folder), "CARGO_TARGET_DIR": str(target)}
    with tempfile.TemporaryDirectory(prefix="x86-64-v3-") as scratch:
        _run(
            _release_build(manifest, policy, Path(scratch), "--features", "x86-64-v3"),
            env={**env, **flags},
        )
        wheels = sorted(Path(scratch).glob("*.whl"))
        if len(wheels) != 1:
            raise Failed(f"the x86-64-v3 build of {folder} made {wheels}, not one wheel")
        return place_x86_64_v3(folder, wheels[0])


def build_compiled(folder: str, out: Path, policy: str) -> None:
    """The release wheel (zig-linked for ``policy``) and the sdist of ``packages/<folder>``;
    on x86-64, with the x86-64-v3 build of its extension where it has one."""
    manifest = ROOT / "packages" / folder / "Cargo.toml"
    maturin = _tool("maturin")
    # maturin runs `python -m ziglang`: the venv's bin first on PATH finds that Python.
    bin_folder = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}"}
    extra = build_x86_64_v3(folder, policy, env)
    try:
        _run(_release_build(manifest, policy, out), env=env)
    finally:
        if extra is not None:
            extra.unlink(missing_ok=True)
    if extra is not None:
        with zipfile.ZipFile(_dist_file(out, folder, ".whl")) as archive:
            if not any(name.endswith(f"/{extra.name}") for name in archive.namelist()):
                raise Failed(f"the wheel of {folder} lacks its x86-64-v3 build {extra.name}")
    # After the extra file is gone: an sdist holds sources only.
    _run([maturin, "sdist", "-m", manifest, "--out", out], env=env)


def build_python(project: str, out: Path) -> None:
    """The wheel and the sdist of the folder ``project`` (one of :data:`PYTHON_PROJECTS`)."""
    _run([_tool("uv"), "build", "--out-dir", out, ROOT / project])


def audit(wheel: Path, policy: str) -> str:
    """The platform tag ``auditwheel show`` finds ``wheel`` consistent with; it must be
    ``policy`` (or an older, wider one)."""
    report = _run([_tool("auditwheel"), "show", wheel])
    found = re.search(r'consistent with the following platform tag:\s*"([^"]+)"', report)
    if found is None:
        raise Failed(f"auditwheel found no platform tag for {wheel.name}:\n{report}")
    tag = found.group(1)
    wanted = re.fullmatch(r"manylinux_(\d+)_(\d+)", policy)
    got = re.fullmatch(r"manylinux_(\d+)_(\d+)_\w+", tag)
    if (
        wanted is None
        or got is None
        or tuple(map(int, got.groups())) > tuple(map(int, wanted.groups()))
    ):
        raise Failed(f"{wheel.name}: auditwheel says {tag}, not {policy} or older:\n{report}")
    return tag


def _fresh_venv(where: Path) -> Path:
    """A fresh venv on this Python's base interpreter; its ``python``."""
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    _run([_tool("uv"), "venv", "-q", "--python", base, where])
    return where / ("Scripts" if os.name == "nt" else "bin") / "python"


def _without_compilers() -> tuple[dict[str, str], bool]:
    """The environment for a user with no toolchain, and whether it is one: on Linux ``PATH`` cut
    to the system folders that hold no Rust and no C compiler driver; elsewhere (the CI runners
    of macOS and Windows, which carry compilers) unchanged, ``--only-binary`` then being what
    keeps anything from being compiled."""
    if not sys.platform.startswith("linux"):
        return dict(os.environ), False
    keep = []
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        if not any((Path(folder) / tool).exists() for tool in ("cargo", "rustc", "cc", "gcc")):
            keep.append(folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP", "CC"))}
    env["PATH"] = os.pathsep.join(keep)
    return env, True


def test_wheel(folder: str, out: Path, scratch: Path) -> str:
    """``packages/<folder>``'s wheel from ``out``, alone in a fresh venv (on Linux one that
    reaches no compiler), and its tests run against it; their summary line."""
    python = _fresh_venv(scratch / f"venv-{folder}")
    uv = _tool("uv")
    _run([uv, "pip", "install", "-q", "--python", python, *_test_requirements(folder)])
    env, bare = _without_compilers()
    # Ours only from `out`, and only as wheels: nothing can be built from source here.
    install: list[str | Path] = [
        uv,
        "pip",
        "install",
        "-q",
        "--python",
        python,
        "--no-index",
        "--find-links",
        out,
    ]
    _run([*install, "--only-binary", ":all:", _package_name(folder)], env=env)
    probe = f"import {_module_name(folder)} as m; print(m.__file__)"
    if bare:
        probe = (
            "import shutil; "
            "assert not any(shutil.which(t) for t in ('cargo', 'rustc', 'cc', 'gcc')); " + probe
        )
    where = _run([python, "-c", probe], env=env).strip()
    if str(ROOT) in where:
        raise Failed(f"{folder}: imported from the checkout ({where}), not the wheel")
    tests = ROOT / "packages" / folder / "tests"
    if not tests.is_dir():
        return f"imported from {where} (no tests of its own: tests/ covers it)"
    # -P: the current folder (the checkout) stays off sys.path, so the tests import the wheel.
    pytest: list[str | Path] = [python, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    report = _run([*pytest, "-W", "ignore::pytest.PytestConfigWarning", tests], env=env)
    return report.strip().splitlines()[-1]


def install_sdist(folder: str, out: Path, scratch: Path) -> None:
    """``packages/<folder>``'s sdist built from source by pip in a fresh venv, then imported."""
    python = _fresh_venv(scratch / f"sdist-{folder}")
    uv = _tool("uv")
    _run([uv, "pip", "install", "-q", "--python", python, "pip", "numpy>=2"])
    shapes = sorted(out.glob("zarr_codec_shapes-*.whl"))
    sdist = _dist_file(out, folder, ".tar.gz")
    pip: list[str | Path] = [
        python,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-binary",
        _package_name(folder),
    ]
    _run([*pip, *shapes, sdist])
    _run([python, "-c", f"import {_module_name(folder)}"])


def build_and_check(folders: Sequence[str], out: Path, policy: str) -> None:
    """Every distribution built into ``out``, audited and checked as the index will."""
    _step(f"pure-Python wheels and sdists: {', '.join(PYTHON_PROJECTS)}")
    for project in PYTHON_PROJECTS:
        build_python(project, out)
    for folder in folders:
        _step(f"{folder}: release wheel ({policy}, linked by zig) and sdist")
        build_compiled(folder, out, policy)
    _step("auditwheel show")
    for folder in folders:
        wheel = _dist_file(out, folder, ".whl")
        print(f"{wheel.name}: {audit(wheel, policy)}")
    _step("twine check --strict")
    dists = sorted([*out.glob("*.whl"), *out.glob("*.tar.gz")])
    print(_run([_tool("twine"), "check", "--strict", *dists]).strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build-wheels", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--packages",
        help="comma-separated folders of packages/ (default: every one with a wheel)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="default: dist/")
    parser.add_argument("--policy", default=DEFAULT_POLICY, help=f"default: {DEFAULT_POLICY}")
    parser.add_argument("--no-test", action="store_true", help="skip the fresh-venv tests")
    parser.add_argument(
        "--no-build",
        action="store_true",
        help="build nothing: check the distributions already in --out (CI, on each platform)",
    )
    parser.add_argument(
        "--from-sdist", action="store_true", help="also build and install each sdist from source"
    )
    parser.add_argument(
        "--x86-64-v3-rustflags",
        metavar="FOLDER",
        help="print the RUSTFLAGS of FOLDER's x86-64-v3 build and stop (CI builds it itself)",
    )
    parser.add_argument(
        "--place-x86-64-v3",
        nargs=2,
        metavar=("FOLDER", "WHEEL"),
        help="put the extension of WHEEL (FOLDER's x86-64-v3 build) where FOLDER's next wheel "
        "build includes it, and stop",
    )
    args = parser.parse_args(argv)
    for chosen in (args.x86_64_v3_rustflags, (args.place_x86_64_v3 or [None])[0]):
        if chosen is not None and chosen not in X86_64_V3_BUILDS:
            parser.error(f"{chosen} has no x86-64-v3 build (have {sorted(X86_64_V3_BUILDS)})")
    if args.x86_64_v3_rustflags:
        print(x86_64_v3_rustflags(args.x86_64_v3_rustflags))
        return 0
    if args.place_x86_64_v3:
        folder, wheel = args.place_x86_64_v3
        try:
            print(place_x86_64_v3(folder, Path(wheel)))
        except Failed as failure:
            print(f"error: {failure}", file=sys.stderr)
            return 1
        return 0
    every = wheel_dirs(ROOT)
    folders = args.packages.split(",") if args.packages else every
    unknown = sorted(set(folders) - set(every))
    if unknown:
        parser.error(f"not a wheel folder of packages/: {', '.join(unknown)} (have {every})")
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        if not args.no_build:
            build_and_check(folders, out, args.policy)
        with tempfile.TemporaryDirectory(prefix="build-wheels-") as scratch:
            if not args.no_test:
                for folder in folders:
                    _step(f"{folder}: the wheel alone in a fresh venv without compilers")
                    print(test_wheel(folder, out, Path(scratch)))
            if args.from_sdist:
                for folder in folders:
                    _step(f"{folder}: pip install --no-binary from its sdist")
                    install_sdist(folder, out, Path(scratch))
                    print("built from source and imported")
    except Failed as failure:
        print(f"\nerror: {failure}", file=sys.stderr)
        return 1
    print(f"\nall checks passed in {time.monotonic() - started:.0f} s; distributions in {out}")
    return 0
