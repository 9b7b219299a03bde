"""Run by ``scripts/upstream-check`` inside its scratch environment (patched zarr and numcodecs
with our packages, installed as ``zarr[codecs]``); standard library, numpy and those only.

Prints the dependency graph of the installed set (from the installed metadata: each
distribution's requirements, with the extra that asks for it) and its import graph (an edge
A -> B: a fresh ``import A`` imports B), and fails on an import cycle; then checks that zarr,
with no ``install()`` call, resolves each of our codec names to our package and reads back
arrays written with them. With ``--without-numcodecs``, also that numcodecs cannot be imported.
``--graph`` prints the dependency graph only (any environment). Exit status 1 on failure.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distribution, version
from typing import Any

MODULES = (
    "zarr",
    "numcodecs",
    "zarr_codec_shapes",
    "zarr_codecs",
    "zarr_codec_gzip",
    "zarr_codec_blosc",
    "zarr_codec_zstd",
    "zarr_codec_crc32c",
    "zarr_codec_cast_value",
    "zarr_codec_scale_offset",
    "zarr_codec_runtime",
)
#: Our codec names and the package that must provide each, with a configuration to write.
CODECS = {
    "gzip": ("zarr_codec_gzip", {"level": 5}),
    "blosc": (
        "zarr_codec_blosc",
        {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0},
    ),
    "zstd": ("zarr_codec_zstd", {"level": 3, "checksum": False}),
    "crc32c": ("zarr_codec_crc32c", {}),
}


#: The distributions whose requirements the dependency graph shows.
DISTRIBUTIONS = ("zarr", "numcodecs", "zarr-codec-shapes", "zarr-codecs")
#: The extras it shows (the others: GPU, remote stores, dask, development).
EXTRAS = ("codecs", "numcodecs", "zarr", "crc32c")


def dependency_graph() -> list[str]:
    """The requirements of :data:`DISTRIBUTIONS` that are installed, one line each, as their
    installed metadata states them (``[extra]``: only with that extra)."""
    lines = []
    for name in DISTRIBUTIONS:
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            lines.append(f"{name}: not installed")
            continue
        lines.append(f"{name} {dist.version}")
        for requirement in dist.requires or []:
            spec, _, marker = requirement.partition(";")
            extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
            if extra and extra.group(1) not in EXTRAS:
                continue
            label = f"  [{extra.group(1)}]" if extra else ""
            lines.append(f"  -> {spec.strip()}{label}")
    return lines


def import_edges() -> dict[str, set[str]]:
    code = (
        "import sys, importlib; importlib.import_module(sys.argv[1]); "
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    edges = {}
    for module in MODULES:
        if importlib.util.find_spec(module) is None:
            continue
        out = subprocess.run(
            [sys.executable, "-c", code, module], capture_output=True, text=True, check=True
        )
        loaded = set(out.stdout.split())
        edges[module] = {other for other in MODULES if other != module and other in loaded}
    for module in edges:
        edges[module] &= set(edges)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in edges:
        if node not in state and (found := visit(node)):
            return found
    return None


def check_codecs() -> list[str]:
    import numpy as np
    import zarr
    from zarr.registry import get_codec_class

    problems = []
    values = np.linspace(-100, 100, 64 * 64, dtype="float32").reshape(64, 64)
    values[3, 5] = np.nan
    for name, (package, configuration) in CODECS.items():
        cls = get_codec_class(name)
        origin = getattr(getattr(cls, "api_class", None), "__module__", cls.__module__)
        ok = origin.startswith(package)
        store: dict[str, object] = {}
        compressors: list[Any] = [{"name": name, "configuration": configuration}]
        array = zarr.create_array(
            store, shape=values.shape, chunks=(16, 32), dtype="float32", compressors=compressors
        )
        array[:] = values
        reread = zarr.open_array(store, mode="r")
        same = np.array_equal(reread[:], values, equal_nan=True)
        print(f"  {name:<13} -> {origin:<34} round trip {'ok' if same else 'WRONG'}")
        if not (ok and same):
            problems.append(name)
    # cast_value and scale_offset: the quantizing pair, decoded by ours.
    pair: list[Any] = [
        {"name": "scale_offset", "configuration": {"offset": -100, "scale": 100}},
        {"name": "cast_value", "configuration": {"data_type": "int32", "rounding": "nearest-even"}},
    ]
    packages = {"scale_offset": "zarr_codec_scale_offset", "cast_value": "zarr_codec_cast_value"}
    for name, package in packages.items():
        cls = get_codec_class(name)
        origin = getattr(getattr(cls, "api_class", None), "__module__", cls.__module__)
        print(f"  {name:<13} -> {origin}")
        if not origin.startswith(package):
            problems.append(name)
    store = {}
    array = zarr.create_array(
        store, shape=(64, 64), chunks=(32, 32), dtype="float64", filters=pair, fill_value=0
    )
    grid = np.round(np.linspace(-100, 100, 64 * 64).reshape(64, 64), 2)
    array[:] = grid
    same = np.allclose(zarr.open_array(store, mode="r")[:], grid, atol=0.005)
    print(f"  [scale_offset, cast_value] round trip {'ok' if same else 'WRONG'}")
    if not same:
        problems.append("scale_offset + cast_value")
    metadata: Any = zarr.create_array({}, shape=(4,), dtype="f4").metadata
    default = metadata.codecs[-1]
    origin = getattr(getattr(type(default), "api_class", None), "__module__", "zarr")
    print(f"  default compressor of a new array: {default!r} ({origin})")
    if not origin.startswith("zarr_codec_zstd"):
        problems.append("default compressor")
    return problems


def check_categorize() -> list[str]:
    """A Zarr v2 string array with a ``categorize`` filter, written and read by zarr alone:
    the filter given as our codec object (zarr takes codec objects, not JSON, for v2 filters),
    stored as numcodecs' configuration."""
    import json

    import numpy as np
    import zarr
    from zarr_codec_vlen import Categorize

    config = {"id": "categorize", "labels": ["a", "bb", "ccc"], "dtype": "<U3", "astype": "|u1"}
    values = np.array(["a", "bb", "ccc", "a"] * 6, dtype="<U3")
    store: dict[str, Any] = {}
    filters: list[Any] = [Categorize(["a", "bb", "ccc"], "<U3")]
    array = zarr.create_array(
        store,
        shape=values.shape,
        chunks=(10,),
        dtype="<U3",
        zarr_format=2,
        filters=filters,
        compressors=None,
    )
    array[:] = values
    stored = json.loads(store[".zarray"].to_bytes())["filters"]
    ok = np.array_equal(zarr.open_array(store, mode="r")[:], values) and stored == [config]
    print(f"  v2 categorize (our codec object) round trip {'ok' if ok else 'WRONG'}: {stored}")
    return [] if ok else ["categorize"]


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "(not installed)"


def main(arguments: list[str]) -> int:
    if "--graph" in arguments:
        print("\n".join(dependency_graph()))
        return 0
    problems = []
    print("installed: " + ", ".join(f"{name} {_version(name)}" for name in DISTRIBUTIONS))
    if "--without-numcodecs" in arguments:
        try:
            import numcodecs  # noqa: F401
        except ImportError as err:
            print(f"import numcodecs: {type(err).__name__}: {err} (as it must)")
        else:
            problems.append("numcodecs is importable")
    print("dependency graph (installed metadata; [extra]: only with that extra):")
    print("\n".join(f"  {line}" for line in dependency_graph()))
    edges = import_edges()
    print("import graph (A -> what a fresh `import A` imports):")
    for module, targets in edges.items():
        print(f"  {module} -> {', '.join(sorted(targets)) or '(none of the others)'}")
    cycle = find_cycle(edges)
    print("cycle: " + (" -> ".join(cycle) if cycle else "none"))
    print("zarr's codecs without install():")
    problems += check_codecs()
    problems += check_categorize()
    import zarr

    # zarr imports the bundle's module for its pipeline entry point (it loads every registered
    # pipeline); what must not have happened is install(), which writes zarr's config.
    if zarr.config.get("codecs") or "zarr_codecs" in zarr.config.get("codec_pipeline.path"):
        problems.append("zarr's config names codecs or our pipeline: install() ran")
    if cycle or problems:
        print("FAILED: " + ", ".join(problems + (["import cycle"] if cycle else [])))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
