"""One version everywhere: check and bump the version of every crate, wheel and distribution.

The single source of truth is ``[workspace.package] version`` in the root ``Cargo.toml``.
Everything else must agree with it:

* every ``Cargo.toml`` under ``crates/`` and ``packages/`` uses ``version.workspace = true``;
* internal dependencies (those with a ``path``) in ``[workspace.dependencies]`` and in member
  manifests carry that version;
* the root ``pyproject.toml`` and each ``api/*/pyproject.toml`` and ``python/*/pyproject.toml``
  have it as static version;
* each ``packages/*/pyproject.toml`` declares ``dynamic = ["version"]`` (maturin takes Cargo's);
* every pin of one of our own distributions (``zarr-codec*``) in a pyproject is ``==<version>``;
* a literal ``__version__`` in a package ``__init__.py`` equals it;
* ``Cargo.lock`` and ``uv.lock`` record it for the workspace's own packages.

This module is the shared logic behind ``scripts/check-versions``, ``scripts/bump-version`` and
``scripts/list-wheels``. It runs on the Python 3.11+ standard library alone (``tomllib``), and
edits files textually (line by line, per TOML section) so formatting and comments survive.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Distributions and crates whose names start with this prefix are ours.
OWN_PREFIX = "zarr-codec"

#: Versions ``bump-version`` accepts: plain ``MAJOR.MINOR.PATCH``. Pre-releases are refused
#: because Cargo (``0.2.0-rc.1``) and PEP 440 (``0.2.0rc1``) spell them differently.
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")

#: Directories never searched for manifests.
# `fuzz` holds cargo-fuzz crates: their own unpublished workspaces, outside the lockstep.
SKIP_DIRS = frozenset({"target", "node_modules", "__pycache__", "dist", "build", "fuzz"})

#: Cargo dependency table names.
DEP_KINDS = frozenset({"dependencies", "dev-dependencies", "build-dependencies"})

#: ``uv.lock`` source kinds that mark a workspace member.
MEMBER_SOURCES = frozenset({"editable", "virtual"})

Section = tuple[str, ...]
LineEdit = Callable[[Section, str], str]


class VersionError(Exception):
    """The repository cannot be checked at all (for example: no workspace version)."""


# --------------------------------------------------------------------------------------------
# Finding the files
# --------------------------------------------------------------------------------------------


def _walk(top: Path, filename: str) -> Iterator[Path]:
    """Yield every ``filename`` below ``top``, skipping build outputs and hidden folders."""
    if not top.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        if filename in filenames:
            yield Path(dirpath) / filename


def member_manifests(root: Path) -> list[Path]:
    """Every ``Cargo.toml`` under ``crates/`` and ``packages/``."""
    return [*_walk(root / "crates", "Cargo.toml"), *_walk(root / "packages", "Cargo.toml")]


def python_projects(root: Path) -> list[Path]:
    """The pure-Python distributions: ``api/*/pyproject.toml`` (the API) and
    ``python/*/pyproject.toml`` (the bundle and the benchmarks), with static versions."""
    return sorted([*root.glob("api/*/pyproject.toml"), *root.glob("python/*/pyproject.toml")])


def wheel_projects(root: Path) -> list[Path]:
    """The compiled wheels: ``packages/*/pyproject.toml`` (versions taken from Cargo)."""
    return sorted(root.glob("packages/*/pyproject.toml"))


def wheel_dirs(root: Path) -> list[str]:
    """Names of the folders under ``packages/`` that hold a wheel (a ``pyproject.toml``)."""
    return [path.parent.name for path in wheel_projects(root)]


def version_modules(root: Path) -> list[Path]:
    """``__init__.py`` files that may define ``__version__``."""
    found = [
        *root.glob("api/*/src/*/__init__.py"),
        *root.glob("python/*/src/*/__init__.py"),
        *root.glob("packages/*/python/*/__init__.py"),
    ]
    return sorted(found)


# --------------------------------------------------------------------------------------------
# Small parsers
# --------------------------------------------------------------------------------------------

_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<spec>[^;@]*)(?P<rest>.*)$"
)
_SPECIFIER = re.compile(r"^(===|==|!=|~=|<=|>=|<|>)\s*(\S+)$")
_DUNDER_VERSION = re.compile(
    r"^(?P<head>__version__\s*(?::[^=\n]*)?=\s*)(?P<q>[\"'])(?P<value>[^\"'\n]*)(?P=q)",
    re.MULTILINE,
)


def normalize_name(name: str) -> str:
    """PEP 503 normalisation: ``Zarr_Codec.gzip`` -> ``zarr-codec-gzip``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def is_own(name: str) -> bool:
    """Whether a distribution or crate name is one of ours."""
    return normalize_name(name).startswith(OWN_PREFIX)


def own_pin_problem(requirement: str, version: str) -> str | None:
    """Why a requirement on one of our distributions is wrong, or ``None`` if it is fine.

    A bare name (no specifier) is not a pin and is accepted; anything with a specifier must be
    exactly ``==<version>``. Requirements on other distributions are always accepted.
    """
    match = _REQUIREMENT.match(requirement)
    if match is None or not is_own(match["name"]):
        return None
    spec = match["spec"].strip().strip("()").strip()
    if not spec:
        return None
    parts = [part.strip() for part in spec.split(",")]
    parsed = [_SPECIFIER.match(part) for part in parts]
    if len(parsed) != 1 or parsed[0] is None or parsed[0][1] != "==":
        return f"pins with {spec!r}; use exactly =={version}"
    if parsed[0][2] != version:
        return f"pins =={parsed[0][2]}, expected =={version}"
    return None


def cargo_requirement_matches(requirement: object, version: str) -> bool:
    """Whether a Cargo version requirement names exactly ``version`` (``^`` or ``=`` allowed)."""
    return isinstance(requirement, str) and requirement.strip().lstrip("=^").strip() == version


def dunder_version(text: str) -> str | None:
    """The literal ``__version__`` string assigned in a module, if any."""
    match = _DUNDER_VERSION.search(text)
    return match["value"] if match else None


def dependency_tables(data: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Yield ``(label, table)`` for each Cargo dependency table, ``target.*`` ones included."""
    for kind in sorted(DEP_KINDS):
        table = data.get(kind)
        if isinstance(table, dict):
            yield f"[{kind}]", table
    targets = data.get("target")
    if isinstance(targets, dict):
        for target, tables in targets.items():
            for kind in sorted(DEP_KINDS):
                table = tables.get(kind) if isinstance(tables, dict) else None
                if isinstance(table, dict):
                    yield f"[target.{target!r}.{kind}]", table


def workspace_version(root: Path) -> str:
    """``[workspace.package] version`` from the root ``Cargo.toml``."""
    path = root / "Cargo.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise VersionError(f"cannot read {path}: {exc}") from exc
    version = data.get("workspace", {}).get("package", {}).get("version")
    if not isinstance(version, str):
        raise VersionError(f"{path} has no [workspace.package] version string")
    return version


# --------------------------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One place where a version disagrees with the workspace version."""

    path: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.message}"


@dataclass
class Report:
    """What :func:`check` found."""

    version: str
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing disagrees."""
        return not self.problems


class _Checker:
    """Collects :class:`Problem` s for one repository and one expected version."""

    def __init__(self, root: Path, version: str) -> None:
        self.root = root
        self.version = version
        self.report = Report(version)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def problem(self, path: Path, where: str, message: str) -> None:
        self.report.problems.append(Problem(self.rel(path), where, message))

    def found(self, path: Path, where: str, found: object) -> None:
        self.problem(path, where, f"found {found!r}, expected {self.version!r}")

    def load(self, path: Path) -> dict[str, Any] | None:
        """Parse a TOML file and count it as checked; report it if it does not parse."""
        self.report.files.append(self.rel(path))
        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            self.problem(path, "TOML", f"cannot parse: {exc}")
            return None

    # Cargo ---------------------------------------------------------------------------------

    def root_manifest(self) -> None:
        path = self.root / "Cargo.toml"
        data = self.load(path)
        if data is None:
            return
        deps = data.get("workspace", {}).get("dependencies", {})
        for name, spec in deps.items():
            is_internal = isinstance(spec, dict) and "path" in spec
            if is_internal and not cargo_requirement_matches(spec.get("version"), self.version):
                self.found(path, f"[workspace.dependencies] {name}", spec.get("version"))
        self.path_dependencies(path, data)
        if "package" in data:
            self.package_version(path, data["package"])

    def member_manifest(self, path: Path) -> None:
        data = self.load(path)
        if data is None:
            return
        if "workspace" in data:  # a workspace of its own (zarr-codec-zarrs): the literal
            self.literal_version(path, data.get("package", {}))
        elif "package" in data:
            self.package_version(path, data["package"])
        self.path_dependencies(path, data)

    def literal_version(self, path: Path, package: Mapping[str, Any]) -> None:
        version = package.get("version")
        if version != self.version:
            self.found(path, "[package] version", version)

    def package_version(self, path: Path, package: Mapping[str, Any]) -> None:
        version = package.get("version")
        if version != {"workspace": True}:
            self.problem(
                path,
                "[package] version",
                f"found {version!r}, expected version.workspace = true",
            )

    def path_dependencies(self, path: Path, data: Mapping[str, Any]) -> None:
        for label, table in dependency_tables(data):
            for name, spec in table.items():
                if not (isinstance(spec, dict) and "path" in spec and "version" in spec):
                    continue
                if not cargo_requirement_matches(spec["version"], self.version):
                    self.found(path, f"{label} {name}", spec["version"])

    def cargo_lock(self) -> None:
        path = self.root / "Cargo.lock"
        if not path.exists():
            return
        data = self.load(path)
        for package in (data or {}).get("package", []):
            if "source" not in package and package.get("version") != self.version:
                self.found(path, f"package {package.get('name')!r}", package.get("version"))

    # Python --------------------------------------------------------------------------------

    def pyproject(self, path: Path, *, static_version: bool) -> None:
        data = self.load(path)
        if data is None:
            return
        project = data.get("project", {})
        dynamic = project.get("dynamic", [])
        if static_version:
            if "version" in project:
                if project["version"] != self.version:
                    self.found(path, "[project] version", project["version"])
            elif "version" not in dynamic:
                self.problem(path, "[project] version", "missing")
        else:
            if "version" in project:
                self.problem(
                    path,
                    "[project] version",
                    f"static {project['version']!r}; a maturin wheel needs "
                    'dynamic = ["version"] (it takes the Cargo version)',
                )
            elif "version" not in dynamic:
                self.problem(path, "[project] dynamic", 'must contain "version"')
        self.pins(path, data)

    def pins(self, path: Path, data: Mapping[str, Any]) -> None:
        project = data.get("project", {})
        groups: list[tuple[str, object]] = [("[project] dependencies", project.get("dependencies"))]
        for extra, reqs in project.get("optional-dependencies", {}).items():
            groups.append((f"[project.optional-dependencies] {extra}", reqs))
        for group, reqs in data.get("dependency-groups", {}).items():
            groups.append((f"[dependency-groups] {group}", reqs))
        for where, reqs in groups:
            for req in reqs if isinstance(reqs, list) else []:
                if isinstance(req, str) and (why := own_pin_problem(req, self.version)):
                    self.problem(path, f"{where} {req!r}", why)

    def version_module(self, path: Path) -> None:
        self.report.files.append(self.rel(path))
        value = dunder_version(path.read_text(encoding="utf-8"))
        if value is not None and value != self.version:
            self.found(path, "__version__", value)

    def uv_lock(self) -> None:
        path = self.root / "uv.lock"
        if not path.exists():
            return
        data = self.load(path)
        for package in (data or {}).get("package", []):
            source = package.get("source", {})
            if not MEMBER_SOURCES.intersection(source):
                continue
            name = package.get("name")
            # uv omits the version of a member whose version is dynamic and not yet known.
            if "version" in package and package["version"] != self.version:
                self.found(path, f"package {name!r}", package["version"])
            metadata = package.get("metadata", {})
            requirements = list(metadata.get("requires-dist", []))
            for reqs in metadata.get("requires-dev", {}).values():
                requirements.extend(reqs)
            for req in requirements:
                spec = req.get("specifier") if isinstance(req, dict) else None
                if spec and is_own(str(req.get("name", ""))):
                    why = own_pin_problem(f"{req['name']}{spec}", self.version)
                    if why:
                        self.problem(path, f"package {name!r} requires {req['name']!r}", why)


def check(root: Path) -> Report:
    """Check every version in the repository at ``root`` against the workspace version."""
    checker = _Checker(root, workspace_version(root))
    checker.root_manifest()
    for path in member_manifests(root):
        checker.member_manifest(path)
    checker.cargo_lock()
    checker.pyproject(root / "pyproject.toml", static_version=True)
    for path in python_projects(root):
        checker.pyproject(path, static_version=True)
    for path in wheel_projects(root):
        checker.pyproject(path, static_version=False)
    for path in version_modules(root):
        checker.version_module(path)
    checker.uv_lock()
    return checker.report


# --------------------------------------------------------------------------------------------
# Textual rewriting
# --------------------------------------------------------------------------------------------

_HEADER = re.compile(r"^\[\[?(?P<key>[^\[\]]+)\]\]?\s*(?:#.*)?$")
_KEY_PART = re.compile(r"\s*(?:\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)")
_INLINE_DEP = re.compile(r"^\s*[A-Za-z0-9_-]+\s*=\s*\{.*\bpath\s*=")
_CARGO_REQ = re.compile(r"(\bversion\s*=\s*\")([=^]?)[^\"]*(\")")
_PIN = re.compile(
    r"([\"']\s*zarr[-_.]codec[A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?\s*==\s*)([^\s;,\"'()]+)",
    re.IGNORECASE,
)
_LOCK_PIN = re.compile(
    r"(\{\s*name\s*=\s*\"zarr[-_.]codec[^\"]*\"[^}]*?\bspecifier\s*=\s*\"==)([^\"]*)(\")",
    re.IGNORECASE,
)


def split_key(raw: str) -> Section:
    """Split a TOML table header key into parts: ``target.'cfg(unix)'.dependencies``."""
    return tuple(a or b or c for a, b, c in _KEY_PART.findall(raw.strip()))


def rewrite(text: str, edit: LineEdit) -> str:
    """Apply ``edit(section, line)`` to every non-header line; headers pass through."""
    out: list[str] = []
    section: Section = ()
    for line in text.splitlines(keepends=True):
        header = _HEADER.match(line)
        if header:
            section = split_key(header["key"])
            out.append(line)
        else:
            out.append(edit(section, line))
    return "".join(out)


def set_string(line: str, key: str, value: str) -> str:
    """Replace the string value of ``key = "..."`` on a line that assigns it."""
    pattern = rf"^(\s*{re.escape(key)}\s*=\s*)([\"'])[^\"'\n]*\2"
    return re.sub(pattern, lambda m: f"{m[1]}{m[2]}{value}{m[2]}", line)


def _is_dep_section(section: Section) -> bool:
    if section in {("workspace", "dependencies")} or (
        len(section) == 1 and section[0] in DEP_KINDS
    ):
        return True
    return len(section) == 3 and section[0] == "target" and section[2] in DEP_KINDS


def _lookup(data: Mapping[str, Any], section: Section) -> object:
    node: object = data
    for part in section:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def bump_manifest(text: str, version: str) -> str:
    """New text of a ``Cargo.toml``: package/workspace version and internal dependency versions."""
    data = tomllib.loads(text)

    def edit(section: Section, line: str) -> str:
        if section in {("workspace", "package"), ("package",)}:
            return set_string(line, "version", version)
        if _is_dep_section(section) and _INLINE_DEP.match(line):
            return _CARGO_REQ.sub(lambda m: f"{m[1]}{m[2]}{version}{m[3]}", line)
        table = _lookup(data, section)
        if _is_dep_section(section[:-1]) and isinstance(table, dict) and "path" in table:
            return re.sub(
                r"^(\s*version\s*=\s*\")([=^]?)[^\"]*(\")",
                lambda m: f"{m[1]}{m[2]}{version}{m[3]}",
                line,
            )
        return line

    return rewrite(text, edit)


def bump_pyproject(text: str, version: str, *, static_version: bool) -> str:
    """New text of a ``pyproject.toml``: ``[project] version`` and ``==`` pins of our packages."""
    pin_sections = {("project",), ("project", "optional-dependencies"), ("dependency-groups",)}

    def edit(section: Section, line: str) -> str:
        if static_version and section == ("project",):
            line = set_string(line, "version", version)
        if section in pin_sections:
            line = _PIN.sub(lambda m: f"{m[1]}{version}", line)
        return line

    return rewrite(text, edit)


def bump_version_module(text: str, version: str) -> str:
    """New text of an ``__init__.py`` with a literal ``__version__``."""
    return _DUNDER_VERSION.sub(lambda m: f"{m['head']}{m['q']}{version}{m['q']}", text, count=1)


def bump_lock(text: str, version: str, is_member: Callable[[Mapping[str, Any]], bool]) -> str:
    """New text of ``Cargo.lock``/``uv.lock``: the version of each ``[[package]]`` we own."""
    blocks = re.split(r"(?m)^(?=\[\[package\]\]\s*$)", text)
    out = [blocks[0]]
    for block in blocks[1:]:
        package = tomllib.loads(block)["package"][0]
        if is_member(package):
            head, sep, tail = block.partition("\n[")
            head = re.sub(
                r"(?m)^(version\s*=\s*\")[^\"]*(\")", lambda m: f"{m[1]}{version}{m[2]}", head
            )
            block = head + sep + tail
            block = _LOCK_PIN.sub(lambda m: f"{m[1]}{version}{m[3]}", block)
        out.append(block)
    return "".join(out)


def _cargo_member(package: Mapping[str, Any]) -> bool:
    return "source" not in package


def _uv_member(package: Mapping[str, Any]) -> bool:
    source = package.get("source", {})
    return isinstance(source, dict) and bool(MEMBER_SOURCES.intersection(source))


def bump(root: Path, version: str) -> list[Path]:
    """Rewrite every version in the repository to ``version``; return the files changed."""
    if not SEMVER.match(version):
        raise VersionError(f"{version!r} is not a MAJOR.MINOR.PATCH version")
    edits: list[tuple[Path, Callable[[str], str]]] = []
    for path in [root / "Cargo.toml", *member_manifests(root)]:
        edits.append((path, lambda t: bump_manifest(t, version)))
    for path in [root / "pyproject.toml", *python_projects(root)]:
        edits.append((path, lambda t: bump_pyproject(t, version, static_version=True)))
    for path in wheel_projects(root):
        edits.append((path, lambda t: bump_pyproject(t, version, static_version=False)))
    for path in version_modules(root):
        edits.append((path, lambda t: bump_version_module(t, version)))
    edits.append((root / "Cargo.lock", lambda t: bump_lock(t, version, _cargo_member)))
    edits.append((root / "uv.lock", lambda t: bump_lock(t, version, _uv_member)))

    changed: list[Path] = []
    for path, edit in edits:
        if not path.exists():
            continue
        # newline="" keeps CRLF files as they are.
        with path.open(encoding="utf-8", newline="") as f:
            old = f.read()
        new = edit(old)
        if new != old:
            with path.open("w", encoding="utf-8", newline="") as f:
                f.write(new)
            changed.append(path)
    return changed


# --------------------------------------------------------------------------------------------
# Lock files
# --------------------------------------------------------------------------------------------


def _run_first(root: Path, commands: list[list[str]]) -> bool:
    """Run each command in turn until one succeeds; report each attempt."""
    for command in commands:
        print(f"$ {' '.join(command)}", flush=True)
        if subprocess.run(command, cwd=root, check=False).returncode == 0:
            return True
    return False


def regenerate_locks(root: Path) -> bool:
    """Regenerate ``Cargo.lock`` and ``uv.lock`` with the tools that exist; False on failure."""
    ok = True
    tools = [
        (
            "cargo",
            "Cargo.toml",
            [["update", "--workspace", "--offline"], ["update", "--workspace"]],
        ),
        ("uv", "pyproject.toml", [["lock", "--offline"], ["lock"]]),
    ]
    for tool, manifest, variants in tools:
        if not (root / manifest).exists():
            continue
        exe = shutil.which(tool)
        if exe is None:
            print(f"warning: {tool} not found; its lock file was edited but not regenerated")
            continue
        if not _run_first(root, [[exe, *args] for args in variants]):
            print(f"error: could not regenerate the {tool} lock file", file=sys.stderr)
            ok = False
    return ok


# --------------------------------------------------------------------------------------------
# Command lines
# --------------------------------------------------------------------------------------------

DEFAULT_ROOT = Path(__file__).resolve().parent.parent


def _root_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        type=Path,
        default=DEFAULT_ROOT,
        help="repository root (default: the parent of scripts/)",
    )


def print_report(report: Report) -> None:
    """Print a report: one line on success, every problem otherwise."""
    if report.ok:
        print(f"versions OK: {report.version} ({len(report.files)} files checked)")
        return
    print(
        f"version mismatches against the workspace version {report.version!r} "
        "(Cargo.toml [workspace.package] version):",
        file=sys.stderr,
    )
    for problem in report.problems:
        print(f"  {problem}", file=sys.stderr)
    files = len({p.path for p in report.problems})
    print(
        f"{len(report.problems)} problem(s) in {files} file(s); "
        f"{len(report.files)} files checked.\n"
        f"scripts/bump-version {report.version} rewrites the values; a non-== pin or a literal "
        "crate version needs a hand edit.",
        file=sys.stderr,
    )


def main_check(argv: list[str] | None = None) -> int:
    """``scripts/check-versions``: exit 0 if every version agrees, 1 if not, 2 on errors."""
    parser = argparse.ArgumentParser(
        prog="check-versions", description="Check that every crate and wheel has one version."
    )
    parser.add_argument(
        "--tag",
        help="a release tag (vX.Y.Z, as the release workflow gets it) that must name the version",
    )
    _root_arg(parser)
    args = parser.parse_args(argv)
    try:
        report = check(args.root.resolve())
        version = workspace_version(args.root.resolve())
    except VersionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_report(report)
    if args.tag is not None and args.tag != f"v{version}":
        print(
            f"error: the tag {args.tag} is not v{version}, the version of the tree", file=sys.stderr
        )
        return 1
    return 0 if report.ok else 1


def main_bump(argv: list[str] | None = None) -> int:
    """``scripts/bump-version X.Y.Z``: rewrite all versions, regenerate locks, then check."""
    parser = argparse.ArgumentParser(
        prog="bump-version", description="Set the one version of every crate and wheel."
    )
    parser.add_argument("version", help="the new version, MAJOR.MINOR.PATCH")
    parser.add_argument(
        "--no-lock", action="store_true", help="edit lock files but do not regenerate them"
    )
    _root_arg(parser)
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    try:
        old = workspace_version(root)
        changed = bump(root, args.version)
    except VersionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"bumping {old} -> {args.version}")
    for path in changed:
        print(f"  updated {path.relative_to(root).as_posix()}")
    locks_ok = True if args.no_lock else regenerate_locks(root)
    report = check(root)
    print_report(report)
    return 0 if report.ok and locks_ok else 1


def main_list_wheels(argv: list[str] | None = None) -> int:
    """``scripts/list-wheels``: print the ``packages/`` folders holding a wheel, as JSON."""
    parser = argparse.ArgumentParser(
        prog="list-wheels", description="Print a JSON array of the wheel folders in packages/."
    )
    _root_arg(parser)
    args = parser.parse_args(argv)
    print(json.dumps(wheel_dirs(args.root.resolve())))
    return 0
