"""Run the benchmarks: ``python -m benchmarks.run [options]`` from the repository root.

Every provider in :data:`PROVIDERS` contributes cases for every dataset; the results are printed
as a Markdown table (and optionally written to a file and plotted). Each codec's issue adds its
provider here (from its wheel, for example ``zarr_codec_gzip``); a provider whose import fails
is skipped with a note.
"""

import argparse
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks import affine, casts, datasets
from benchmarks.harness import Result, plot, run_case, to_markdown
from benchmarks.ours import BASELINES, OURS
from benchmarks.peers import PEERS, CaseFactory, Provider

#: Every case provider, in the order their rows appear. Add ours after the peers.
PROVIDERS: tuple[Provider, ...] = (*PEERS, *OURS, *casts.PROVIDERS, *affine.PROVIDERS)

#: The codec label each group is compared against, unless ``--baseline`` says otherwise.
DEFAULT_BASELINE = "numcodecs"
#: Groups with a fixed baseline whatever ``--baseline`` says.
FIXED_BASELINES = {"copy": "memcpy", **BASELINES}


def fixed_baseline(group: str) -> str | None:
    """The baseline a group always has (``--baseline`` applies to the others)."""
    return FIXED_BASELINES.get(group) or casts.baseline_for(group) or affine.baseline_for(group)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Time codecs side by side on deterministic datasets (never asserts times).",
    )
    parser.add_argument(
        "--size", type=float, default=16.0, help="MiB of data per dataset (default 16)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed samples per case (median)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed calls before sampling")
    parser.add_argument(
        "--min-time", type=float, default=0.01, help="seconds each sample lasts at least"
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        choices=list(datasets.DATASETS),
        metavar="NAME",
        help=f"datasets to use (default all: {', '.join(datasets.DATASETS)})",
    )
    parser.add_argument(
        "--codecs",
        nargs="+",
        metavar="PROVIDER",
        help=f"providers to run (default all: {', '.join(p.name for p in PROVIDERS)})",
    )
    parser.add_argument(
        "--baseline",
        default=DEFAULT_BASELINE,
        help=f"codec label each group is compared with (default {DEFAULT_BASELINE!r})",
    )
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the report here")
    parser.add_argument("--plot", type=Path, metavar="FILE", help="save a PNG bar chart here")
    parser.add_argument("--list", action="store_true", help="list datasets and providers, exit")
    args = parser.parse_args(argv)
    if args.size <= 0 or args.repeats < 1 or args.warmup < 0 or args.min_time < 0:
        parser.error("--size must be positive, --repeats >= 1, --warmup and --min-time >= 0")
    known = {p.name for p in PROVIDERS}
    unknown = sorted(set(args.codecs or ()) - known)
    if unknown:
        parser.error(f"unknown provider(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return args


def size_in_bytes(mib: float) -> int:
    """``mib`` MiB as bytes, rounded down to a multiple of 8 so that every dtype fits."""
    return max(8, int(mib * datasets.MiB) // 8 * 8)


def load_providers(names: Sequence[str] | None) -> tuple[list[tuple[str, CaseFactory]], list[str]]:
    """The selected providers' case factories, and a note for each one that failed to import."""
    factories: list[tuple[str, CaseFactory]] = []
    notes: list[str] = []
    for provider in PROVIDERS:
        if names and provider.name not in names:
            continue
        try:
            factories.append((provider.name, provider.load()))
        except ImportError as exc:
            notes.append(f"skipped {provider.name}: {exc}")
    return factories, notes


def run(args: argparse.Namespace) -> tuple[list[Result], list[str]]:
    """Generate each dataset, build every provider's cases for it, and measure them."""
    factories, notes = load_providers(args.codecs)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    size = size_in_bytes(args.size)
    results: list[Result] = []
    for name in args.datasets or datasets.DATASETS:
        data = datasets.load(name, size)
        for provider_name, factory in factories:
            for case in factory(name, data):
                result = run_case(
                    case, warmup=args.warmup, repeats=args.repeats, min_time=args.min_time
                )
                results.append(result)
                print(
                    f"{name:14} {case.operation:6} {case.group:28} {case.codec_label:16} "
                    f"{result.throughput:10,.0f} MB/s   [{provider_name}]",
                    file=sys.stderr,
                )
    return results, notes


def report(results: Sequence[Result], notes: Sequence[str], args: argparse.Namespace) -> str:
    """The Markdown report: settings, environment, the table and any notes."""
    groups = {r.group for r in results}
    baseline = {g: fixed_baseline(g) or args.baseline for g in groups}
    lines = [
        "# zarr-codecs benchmarks",
        "",
        f"- data: {size_in_bytes(args.size):,} bytes per dataset; median of {args.repeats} "
        f"sample(s), each at least {args.min_time} s",
        f'- throughput: MB/s (10^6 bytes/s) of uncompressed data; "vs baseline": throughput '
        f"over that of `{args.baseline}` in the same dataset, operation and group "
        "(`memcpy` for the copy group)",
        f"- machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}, numpy {np.__version__}",
        "",
        to_markdown(results, baseline),
    ]
    lines += [f"Note: {note}  " for note in notes]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m benchmarks.run``."""
    args = parse_args(argv)
    if args.list:
        for name, dataset in datasets.DATASETS.items():
            print(f"dataset  {name:16} {dataset.dtype}  {dataset.description}")
        for provider in PROVIDERS:
            print(f"provider {provider.name:16} {provider.description}")
        return 0
    results, notes = run(args)
    text = report(results, notes, args)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text, encoding="utf-8")
    if args.plot:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        plot(results, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
