"""The ``zarr-codecs`` command: ``info``, ``doctor``, ``inspect``, ``check``, ``migrate``,
``repair-order``, ``repair-complex`` and ``demo``.
(The benchmarks are a development package of the repository: ``zarr-codecs-bench``.)

Exit status: 0 success; 1 the command ran and found problems; 2 a usage error or something
missing (a path, an optional dependency).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from zarr_codecs import __version__

__all__ = ["main"]

OK, PROBLEMS, USAGE = 0, 1, 2

_EPILOG = """\
exit status: 0 success; 1 problems found (inspect, check, doctor), migration refused (migrate),
a repair that needs --assume-ours (repair-order, repair-complex) or a failed check (demo);
2 usage error or something missing.

To make zarr-python itself use these codecs: zarr_codecs.install() in Python, or
ZARR_CODECS_INSTALL=1 in the environment."""


class UserError(Exception):
    """A problem the user can fix (a path, a missing optional dependency): exit status 2."""


def _needs(module: str, extra: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise UserError(f"this command needs {module}: pip install 'zarr-codecs[{extra}]'")


def _info(args: argparse.Namespace) -> int:
    from zarr_codecs import info

    rows = info.collect()
    if args.json:
        print(json.dumps([row.__dict__ for row in rows], indent=2))
    else:
        print(info.render(rows))
    return OK


def _doctor(args: argparse.Namespace) -> int:
    from zarr_codecs import doctor

    installed, kernels = doctor.collect(), doctor.check_kernels()
    if args.json:
        report = {
            "distributions": [item.__dict__ for item in installed],
            "codecs": [kernel.__dict__ for kernel in kernels],
            "healthy": doctor.healthy(installed, kernels),
        }
        print(json.dumps(report, indent=2))
    else:
        print(doctor.render(installed, kernels))
    return OK if doctor.healthy(installed, kernels) else PROBLEMS


def _store(path: str) -> Path:
    root = Path(path)
    if root.is_file():
        raise UserError(
            f"{path}: a file, not a Zarr store: give the store's directory (the one holding "
            "zarr.json or .zarray)"
        )
    if not root.is_dir():
        raise UserError(f"{path}: no such directory (give the path of a local Zarr store)")
    return root


def _inspect(args: argparse.Namespace) -> int:
    from zarr_codecs import inspect_store

    reports = inspect_store.inspect_store(_store(args.path))
    if not reports:
        raise UserError(f"{args.path}: no Zarr arrays found (no zarr.json or .zarray)")
    print(inspect_store.render(reports))
    return PROBLEMS if any(r.problems for r in reports) else OK


def _check(args: argparse.Namespace) -> int:
    from zarr_codecs import check_store

    _needs("zarr", "zarr")
    location = args.path
    if "://" not in location and not Path(location).is_dir():
        raise UserError(f"{location}: no such directory (give a Zarr store's directory or URL)")

    def progress(path: str, done: int, stored: int) -> None:
        if not args.quiet and (done == stored or done % 100 == 0):
            end = "\n" if done == stored else ""
            print(f"\r{path}: {done}/{stored} chunks read", end=end, file=sys.stderr, flush=True)

    try:
        reports = check_store.check_store(location, threads=args.threads, progress=progress)
    except (FileNotFoundError, ValueError, KeyError) as error:
        raise UserError(f"{location}: not a Zarr store zarr-python can open ({error})") from error
    if args.json:
        print(json.dumps([asdict(report) for report in reports], indent=2))
    else:
        print(check_store.render(reports))
    return PROBLEMS if any(report.damaged for report in reports) else OK


def _migrate(args: argparse.Namespace) -> int:
    from zarr_codecs import migrate

    _needs("zarr", "zarr")
    try:
        tolerance = None if args.tolerance is None else migrate.Tolerance.parse(args.tolerance)
    except ValueError as error:
        raise UserError(str(error)) from error
    results = migrate.migrate_store(
        _store(args.path), write=args.write, sample=args.sample, tolerance=tolerance
    )
    print(migrate.render(results, write=args.write))
    return PROBLEMS if any(not r.safe for r in results) else OK


def _repair_order(args: argparse.Namespace) -> int:
    from zarr_codecs import repair_order

    candidates = repair_order.find_candidates(_store(args.path))
    rewritten = {}
    if args.write and args.assume_ours:
        for candidate in candidates:
            if not candidate.repaired:
                rewritten[candidate.path] = repair_order.repair(candidate, assume_ours=True)
    print(repair_order.render(candidates, write=args.write, rewritten=rewritten))
    return _refused_without_assume_ours(args, candidates)


def _repair_complex(args: argparse.Namespace) -> int:
    from zarr_codecs import repair_complex

    candidates = repair_complex.find_candidates(_store(args.path))
    rewritten = {}
    if args.write and args.assume_ours:
        for candidate in candidates:
            if not candidate.repaired:
                rewritten[candidate.path] = repair_complex.repair(candidate, assume_ours=True)
    print(repair_complex.render(candidates, write=args.write, rewritten=rewritten))
    return _refused_without_assume_ours(args, candidates)


def _refused_without_assume_ours(args: argparse.Namespace, candidates: Sequence[Any]) -> int:
    """A repair's exit status: 1 (with why, on stderr) when ``--write`` rewrote nothing
    because chunks that only ``--assume-ours`` rewrites were found."""
    waiting = sum(len(c.unknown) for c in candidates if not c.repaired)
    if args.write and not args.assume_ours and waiting:
        print(
            f"nothing was written: {waiting} chunk(s) cannot be told apart from correct ones by "
            "their bytes; add --assume-ours if zarr-codecs 0.1.0 wrote these arrays",
            file=sys.stderr,
        )
        return PROBLEMS
    return OK


def _demo(args: argparse.Namespace) -> int:
    from zarr_codecs import demo

    _needs("zarr", "zarr")
    if args.repeats < 1:
        raise UserError("--repeats must be at least 1")
    root, results = demo.run_demo(args.out, repeats=args.repeats)
    print(demo.render(root, results))
    if args.out is None and not args.keep:
        demo.remove(root)
        print("(the store was temporary and is removed; --out DIR keeps one)")
    return OK if all(r.ok for r in results) else PROBLEMS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zarr-codecs",
        description="Zarr's chunk codecs, fast and exact, for zarr-python and numcodecs: "
        "Zarr v3's gzip, blosc, zstd, crc32c, cast_value and scale_offset, and every codec "
        "numcodecs registers (`zarr-codecs info` lists them).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"zarr-codecs {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    info = commands.add_parser(
        "info", help="installed codecs, versions, engines, and where each is registered"
    )
    info.add_argument("--json", action="store_true", help="machine-readable output")
    info.set_defaults(run=_info)

    doctor = commands.add_parser(
        "doctor",
        help="which wheels are installed, for which platform, and whether each codec runs its "
        "compiled kernel here (exit status 1 if not)",
    )
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    doctor.set_defaults(run=_doctor)

    inspect = commands.add_parser(
        "inspect",
        help="check the codec chain of every array in a Zarr store",
        description="List the codec chain of every array in a local Zarr store (v2 or v3) and "
        "check each codec's JSON against its spec and the array's data type. Exit status 1 "
        "when a problem is found.",
    )
    inspect.add_argument("path", help="a local Zarr store (directory)")
    inspect.set_defaults(run=_inspect)

    check = commands.add_parser(
        "check",
        help="read every chunk of every array and report each damaged one (exit status 1)",
        description="Read and decode every stored chunk of every array in a Zarr store (a "
        "directory, or a URL zarr-python opens: s3://, https://, ...), v2 or v3, sharded or "
        "not, with checksums verified where the chain has them, and report each chunk that "
        "cannot be read with its key and the reason. Chunks that are not stored read as the "
        "fill value and are only counted. Never writes. Exit status 1 when a chunk is damaged.",
    )
    check.add_argument("path", help="a Zarr store: a directory or a URL")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.add_argument("--threads", type=int, default=4, help="chunks read at once (4)")
    check.add_argument("--quiet", action="store_true", help="no progress on standard error")
    check.set_defaults(run=_check)

    migrate = commands.add_parser(
        "migrate",
        help="rewrite numcodecs.fixedscaleoffset to [scale_offset, cast_value] (dry run)",
        description="For every Zarr v3 array in the store that uses numcodecs.fixedscaleoffset, "
        "decode a sample of its chunks with the old and the new codecs and, if they agree bit "
        "for bit (or within --tolerance) and --write is given, rewrite its metadata to "
        "[scale_offset, cast_value], keeping the old as zarr.json.before-migrate. Every "
        "difference is reported: which elements, by how much, why. Chunks are never "
        "rewritten; Zarr v2 arrays are listed, not changed. Exit status 1 when an array "
        "cannot be migrated safely.",
    )
    migrate.add_argument("path", help="a local Zarr store (directory)")
    migrate.add_argument(
        "--write", action="store_true", help="write the new metadata (default: dry run)"
    )
    migrate.add_argument(
        "--sample", type=int, default=8, help="chunks to compare per array (default 8)"
    )
    migrate.add_argument(
        "--tolerance",
        metavar="T",
        help="accept differences up to T: units in the last place ('1ulp') or an absolute "
        "difference ('1e-4'); default: none, values must agree bit for bit",
    )
    migrate.set_defaults(run=_migrate)

    repair = commands.add_parser(
        "repair-order",
        help='Zarr v2 order-"F" arrays that zarr-codecs 0.1.0 wrote transposed (dry run)',
        description='zarr-codecs 0.1.0 stored the chunks of Zarr v2 arrays with order "F" '
        "(gzip or blosc, no filters) in C order, so they read back transposed. List every such "
        "array in the store with the evidence (gzip chunks with a timestamp were written by "
        "numcodecs and are left alone; other chunks cannot be told from correct ones by their "
        "bytes) and, with --write --assume-ours, store those chunks again in Fortran order. "
        "Run it only on arrays that zarr-codecs 0.1.0 wrote; a repaired array is marked and "
        "never rewritten twice.",
    )
    _repair_arguments(
        repair, "you know zarr-codecs 0.1.0 wrote the arrays (needed to rewrite anything)"
    )
    repair.set_defaults(run=_repair_order)

    complex_repair = commands.add_parser(
        "repair-complex",
        help="Zarr v3 big-endian complex arrays our pipeline wrote with the parts exchanged "
        "(dry run)",
        description="Up to 0.1.0, zarr-codecs' pipeline (install(pipeline=True)) stored "
        'complex64/complex128 elements under {"endian": "big"} with the real and imaginary '
        "parts exchanged. List every Zarr v3 complex array stored big-endian (sharded too), "
        "with the evidence (gzip chunks with a timestamp were written by zarr-python's own "
        "pipeline and are correct; other chunks cannot be told apart) and, with --write "
        "--assume-ours, store their chunks again with the parts in place. Run it only on "
        "arrays that zarr-codecs' pipeline wrote; a repaired array is marked and never "
        "rewritten twice.",
    )
    _repair_arguments(
        complex_repair,
        "you know zarr-codecs' pipeline wrote the arrays (needed to rewrite anything)",
    )
    complex_repair.set_defaults(run=_repair_complex)

    demo = commands.add_parser(
        "demo",
        help="write, read and check a Zarr v3 store with our codecs; compare with zarr-python's",
        description="Write a deterministic float32 field with NaN fill to a Zarr v3 store as "
        "[scale_offset, cast_value, bytes, blosc] and with gzip, read it back with zarr-python, "
        "check the values, and print size, compression ratio and speed against zarr-python's "
        "own codecs. Exit status 1 when a check fails.",
    )
    demo.add_argument("--out", type=Path, help="write the store here and keep it")
    demo.add_argument("--keep", action="store_true", help="keep the temporary store")
    demo.add_argument("--repeats", type=int, default=3, help="timed runs, median (default 3)")
    demo.set_defaults(run=_demo)
    return parser


def _repair_arguments(command: argparse.ArgumentParser, assume_ours: str) -> None:
    """What both repair commands take: the store, ``--write`` and ``--assume-ours``."""
    command.add_argument("path", help="a local Zarr store (directory)")
    command.add_argument(
        "--write", action="store_true", help="rewrite the chunks (default: dry run)"
    )
    command.add_argument("--assume-ours", action="store_true", help=assume_ours)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except UserError as err:
        print(f"zarr-codecs {args.command}: error: {err}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        print(f"zarr-codecs {args.command}: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
