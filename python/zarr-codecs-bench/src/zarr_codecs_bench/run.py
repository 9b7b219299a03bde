"""Run the benchmarks: ``zarr-codecs-bench [options]`` (``python -m benchmarks.run`` in the
repository).

Every provider in :data:`PROVIDERS` contributes cases for every dataset; the results are printed
as a Markdown table (and optionally written to a file and plotted). Each codec's issue adds its
provider here (from its wheel, for example ``zarr_codec_gzip``); a provider whose import fails
is skipped with a note.
"""

import argparse
import importlib.util
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from zarr_codecs_bench import affine, cast_ranges, casts, datasets
from zarr_codecs_bench._progress import Progress
from zarr_codecs_bench.harness import Result, plot, run_case, to_markdown
from zarr_codecs_bench.ours import BASELINES, OURS
from zarr_codecs_bench.peers import PEERS, CaseFactory, Provider

#: Every case provider, in the order their rows appear. Add ours after the peers.
PROVIDERS: tuple[Provider, ...] = (
    *PEERS,
    *OURS,
    *casts.PROVIDERS,
    *cast_ranges.PROVIDERS,
    *affine.PROVIDERS,
)

#: The codec label each group is compared against, unless ``--baseline`` says otherwise.
DEFAULT_BASELINE = "numcodecs"
#: Groups with a fixed baseline whatever ``--baseline`` says.
FIXED_BASELINES = {"copy": "memcpy", **BASELINES}


def fixed_baseline(group: str) -> str | None:
    """The baseline a group always has (``--baseline`` applies to the others)."""
    return (
        FIXED_BASELINES.get(group)
        or casts.baseline_for(group)
        or cast_ranges.baseline_for(group)
        or affine.baseline_for(group)
    )


#: The exit status of a usage error, as argparse's.
USAGE = 2


def parse_args(argv: Sequence[str] | None, prog: str = "zarr-codecs-bench") -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Time codecs side by side with their peers on deterministic datasets, in "
        "one process; print a Markdown table of throughputs and ratios to a baseline. Peers "
        "that are not installed are skipped with a note. Never asserts a time.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    return args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark options, on ``parser`` (also a subcommand's parser)."""
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
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse impossible settings and unknown providers (exits with status 2)."""
    if args.size <= 0 or args.repeats < 1 or args.warmup < 0 or args.min_time < 0:
        parser.error("--size must be positive, --repeats >= 1, --warmup and --min-time >= 0")
    known = [p.name for p in PROVIDERS]
    unknown = sorted(set(args.codecs or ()) - set(known))
    if unknown:
        parser.error(f"unknown provider(s) {', '.join(unknown)}; known: {', '.join(known)}")


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
    names = args.datasets or list(datasets.DATASETS)
    results: list[Result] = []
    with Progress(len(names), enabled=not getattr(args, "quiet", False)) as progress:
        for name in names:
            data = datasets.load(name, size)
            cases = [case for _, factory in factories for case in factory(name, data)]
            for done, case in enumerate(cases):
                progress.update(f"{name} {case.operation} {case.group} {case.codec_label}")
                result = run_case(
                    case, warmup=args.warmup, repeats=args.repeats, min_time=args.min_time
                )
                results.append(result)
                progress.advance((done + 1) / len(cases))
            progress.next_step()
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


def main(argv: Sequence[str] | None = None, prog: str = "zarr-codecs-bench") -> int:
    """Entry point of ``zarr-codecs-bench`` and ``python -m benchmarks.run``: the exit status."""
    args = parse_args(argv, prog)
    # Checked before anything runs, so that a missing chart library costs no benchmark run.
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        print(
            f"{prog}: error: --plot needs matplotlib: pip install 'zarr-codecs-bench[plot]'",
            file=sys.stderr,
        )
        return USAGE
    try:
        return execute(args)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def execute(args: argparse.Namespace) -> int:
    """Run the benchmarks that ``args`` (from :func:`add_arguments`) select; print the report."""
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
        print(f"chart written to {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
