"""Tests for the benchmark harness logic (never for timings: benchmarks assert no time)."""

import subprocess
import sys
import zlib
from collections.abc import Buffer, Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `pytest` (unlike `python -m pytest`) does not add the root
    sys.path.insert(0, str(ROOT))

from zarr_codecs_bench import datasets, harness, peers, run  # noqa: E402
from zarr_codecs_bench.harness import Case, Result  # noqa: E402

SMALL = 4096


# --------------------------------------------------------------------------------------------
# Datasets
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(datasets.DATASETS))
def test_dataset_is_deterministic_with_the_right_dtype_and_size(name: str) -> None:
    first = datasets.load(name, SMALL)
    second = datasets.load(name, SMALL)
    assert first.dtype == datasets.DATASETS[name].dtype
    assert first.nbytes == SMALL
    assert first.flags.c_contiguous
    assert first.ndim == 2
    assert first.tobytes() == second.tobytes()


def test_dataset_names_and_dtypes() -> None:
    assert {name: str(d.dtype) for name, d in datasets.DATASETS.items()} == {
        "float32_field": "float32",
        "float64_field": "float64",
        "int32_counts": "int32",
        "uint8_image": "uint8",
    }


def test_datasets_differ_and_are_not_trivial() -> None:
    arrays = [datasets.load(name, SMALL) for name in datasets.DATASETS]
    assert len({a.tobytes() for a in arrays}) == len(arrays)
    for array in arrays:
        assert np.unique(array).size > 10
    assert datasets.load("int32_counts", SMALL).min() >= 0


def test_default_size_is_16_mib() -> None:
    assert datasets.DEFAULT_SIZE == 16 * 1024 * 1024
    for dataset in datasets.DATASETS.values():
        rows, cols = datasets.shape_for(datasets.DEFAULT_SIZE // dataset.dtype.itemsize)
        assert rows * cols * dataset.dtype.itemsize == datasets.DEFAULT_SIZE
    assert datasets.load("float64_field").nbytes == datasets.DEFAULT_SIZE


@pytest.mark.parametrize("n", [1, 2, 3, 7, 100, 4096, 1 << 20, 3 << 19])
def test_shape_for_holds_exactly_n(n: int) -> None:
    rows, cols = datasets.shape_for(n)
    assert rows * cols == n
    assert cols & (cols - 1) == 0


def test_dataset_bad_arguments() -> None:
    with pytest.raises(KeyError, match="unknown dataset"):
        datasets.load("nope", SMALL)
    with pytest.raises(ValueError, match="multiple of 8"):
        datasets.load("float64_field", 12)
    with pytest.raises(ValueError, match="positive"):
        datasets.load("uint8_image", 0)


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


class FakeClock:
    """A clock that moves only when the timed function says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def work(self, durations: list[float]) -> Callable[[], None]:
        """A function that takes ``durations[i]`` seconds on its i-th call."""
        it: Iterator[float] = iter(durations)

        def fn() -> None:
            self.now += next(it)

        return fn


def test_measure_returns_the_median_and_skips_warmup() -> None:
    clock = FakeClock()
    fn = clock.work([100.0, 3.0, 1.0, 2.0, 10.0, 4.0])
    assert harness.measure(fn, warmup=1, repeats=5, min_time=0.0, clock=clock) == 3.0


def test_measure_even_repeats_average_the_middle_two() -> None:
    clock = FakeClock()
    fn = clock.work([1.0, 2.0, 8.0, 4.0])
    assert harness.measure(fn, warmup=0, repeats=4, min_time=0.0, clock=clock) == 3.0


def test_measure_repeats_fast_calls_to_reach_min_time() -> None:
    clock = FakeClock()
    calls = 0

    def fn() -> None:
        nonlocal calls
        calls += 1
        clock.now += 0.001

    seconds = harness.measure(fn, warmup=1, repeats=5, min_time=0.01, clock=clock)
    assert seconds == pytest.approx(0.001)
    assert calls == 1 + 5 * 10


def test_measure_runs_setup_untimed_before_every_call() -> None:
    clock = FakeClock()
    order: list[str] = []

    def setup() -> None:
        order.append("setup")
        clock.now += 50.0  # never counted

    def fn() -> None:
        order.append("call")
        clock.now += 2.0

    assert harness.measure(fn, warmup=1, repeats=3, min_time=0.0, clock=clock, setup=setup) == 2.0
    assert order == ["setup", "call"] * 4
    with pytest.raises(ValueError, match="min_time"):
        harness.measure(fn, setup=setup, min_time=0.01)


def test_measure_real_clock_and_bad_arguments() -> None:
    assert harness.measure(lambda: None, repeats=3, min_time=0.0) >= 0.0
    with pytest.raises(ValueError, match="repeats"):
        harness.measure(lambda: None, repeats=0)
    with pytest.raises(ValueError, match="negative"):
        harness.measure(lambda: None, warmup=-1)


def test_run_case_copies_the_case_fields() -> None:
    case = Case("c", "d", "decode", lambda: None, 1000, "g", 250)
    result = harness.run_case(case, warmup=0, repeats=1, min_time=0.0)
    assert (result.codec_label, result.dataset, result.operation) == ("c", "d", "decode")
    assert (result.group, result.nbytes, result.encoded_nbytes) == ("g", 1000, 250)
    assert result.compression_ratio == 4.0


# --------------------------------------------------------------------------------------------
# Comparing and reporting
# --------------------------------------------------------------------------------------------


def result(
    label: str, seconds: float, *, op: harness.Operation = "encode", group: str = "g"
) -> Result:
    """A result of 2 MB (500 kB encoded) in dataset "ds"."""
    return Result(label, "ds", op, group, 2_000_000, seconds, 500_000)


def test_throughput_is_mb_per_second_of_uncompressed_data() -> None:
    r = result("x", 0.5)
    assert r.throughput == 4.0
    assert r.compression_ratio == 4.0


def test_speedups_against_a_baseline_per_group_and_operation() -> None:
    results = [
        result("base", 2.0),
        result("fast", 1.0),
        result("slow", 4.0),
        result("base", 1.0, op="decode"),
        result("fast", 0.25, op="decode"),
        result("fast", 1.0, group="no-baseline"),
    ]
    assert harness.speedups(results, "base") == [1.0, 2.0, 0.5, 1.0, 4.0, None]
    assert harness.speedups(results, {"g": "slow"}) == [2.0, 4.0, 1.0, None, None, None]
    assert harness.speedups(results, None) == [None] * 6


def test_group_results_refuses_duplicates() -> None:
    with pytest.raises(ValueError, match="two results"):
        harness.group_results([result("a", 1.0), result("a", 2.0)])


def test_markdown_has_one_row_per_result_in_order() -> None:
    results = [
        result("base", 2.0, op="decode"),
        result("fast", 1.0, op="decode"),
        result("base", 2.0),
        result("fast", 1.0),
    ]
    table = harness.to_markdown(results, baseline="base").splitlines()
    assert (
        table[0] == "| dataset | operation | group | codec | MB/s | ms | vs baseline | size ratio |"
    )
    assert table[1].startswith("|---|")
    rows = table[2:]
    assert rows == [
        "| ds | encode | g | base | 1 | 2e+03 | 1.00x | 4.00 |",
        "| ds | encode | g | fast | 2 | 1e+03 | 2.00x | 4.00 |",
        "| ds | decode | g | base | 1 | 2e+03 | 1.00x | 4.00 |",
        "| ds | decode | g | fast | 2 | 1e+03 | 2.00x | 4.00 |",
    ]
    assert "| - |" in harness.to_markdown(results)


# --------------------------------------------------------------------------------------------
# Cases and providers
# --------------------------------------------------------------------------------------------


def test_round_trip_cases_encode_and_decode() -> None:
    data = datasets.load("int32_counts", SMALL)
    cases = harness.round_trip_cases(
        "zlib", "gzip level=1", "int32_counts", data, lambda a: zlib.compress(a, 1), zlib.decompress
    )
    assert [c.operation for c in cases] == ["encode", "decode"]
    assert all(c.nbytes == SMALL and c.encoded_nbytes for c in cases)
    assert zlib.decompress(cases[0].fn()) == data.tobytes()  # type: ignore[arg-type]
    assert cases[1].fn() == data.tobytes()


def test_round_trip_cases_reject_a_broken_codec() -> None:
    data = datasets.load("uint8_image", SMALL)

    def decode(encoded: Buffer) -> Buffer:
        return bytes(len(zlib.decompress(encoded)))

    with pytest.raises(ValueError, match="does not round-trip"):
        harness.round_trip_cases("bad", "g", "d", data, zlib.compress, decode)


@pytest.mark.parametrize("provider", peers.PEERS, ids=lambda p: p.name)
def test_peer_providers_make_paired_cases(provider: peers.Provider) -> None:
    try:
        factory = provider.load()
    except ImportError as exc:
        pytest.skip(str(exc))
    data = datasets.load("float32_field", SMALL)
    cases = factory("float32_field", data)
    assert cases
    assert {c.operation for c in cases} == {"encode", "decode"}
    for case in cases:
        assert case.dataset == "float32_field"
        assert case.nbytes == SMALL
        case.fn()


def test_a_provider_that_fails_to_import_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> peers.CaseFactory:
        raise ImportError("No module named 'zarr_codec_nope'")

    nope = peers.Provider("nope", "missing", broken)
    monkeypatch.setattr(run, "PROVIDERS", (nope, peers.MEMCPY))
    factories, notes = run.load_providers(None)
    assert [name for name, _ in factories] == ["memcpy"]
    assert notes == ["skipped nope: No module named 'zarr_codec_nope'"]


def test_cli_rejects_unknown_providers() -> None:
    with pytest.raises(SystemExit):
        run.parse_args(["--codecs", "nope"])


def test_size_in_bytes_fits_every_dtype() -> None:
    assert run.size_in_bytes(16) == 16 * 1024 * 1024
    assert run.size_in_bytes(0.0625) == 65536
    assert run.size_in_bytes(1e-9) == 8


def test_cli_end_to_end_writes_markdown(tmp_path: Path) -> None:
    out = tmp_path / "results" / "bench.md"
    command = [sys.executable, "-m", "benchmarks.run", "--size", "0.0625", "--repeats", "1"]
    proc = subprocess.run(
        [*command, "--markdown", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert text in proc.stdout
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    body = rows[1:]
    for name in datasets.DATASETS:
        assert any(row.startswith(f"| {name} | encode | copy | memcpy |") for row in body)
        assert any(f"| {name} | decode | gzip level=5 | zlib |" in row for row in body)
    # Every provider gives each dataset the same cases (casts, with values in or out of
    # range: the float datasets only); memcpy is its own baseline.
    casts = [row for row in body if any(f"| {kind} " in row for kind in ("cast", "clamp", "wrap"))]
    assert len(body) - len(casts) > 0 and (len(body) - len(casts)) % len(datasets.DATASETS) == 0
    assert {row.split("|")[1].strip() for row in casts} == {"float32_field", "float64_field"}
    assert "| copy | memcpy |" in text
    assert all("| 1.00x |" in row for row in body if "| memcpy |" in row)


def test_cli_selects_datasets_and_codecs(tmp_path: Path) -> None:
    out = tmp_path / "bench.md"
    argv = ["--size", "0.01", "--repeats", "1", "--min-time", "0", "--markdown", str(out)]
    assert run.main([*argv, "--datasets", "uint8_image", "--codecs", "zlib"]) == 0
    body = [line for line in out.read_text().splitlines() if line.startswith("| uint8_image")]
    assert len(body) == 2 * len(peers.GZIP_LEVELS)
    assert all("| zlib |" in row for row in body)


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------


def _results() -> list[Result]:
    return [result("a", 1.0), result("b", 0.5), result("a", 0.5, op="decode")]


def test_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "bench.png"
    harness.plot(_results(), path)
    assert path.read_bytes().startswith(b"\x89PNG")


def test_plot_without_matplotlib_says_what_to_install(tmp_path: Path) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("matplotlib is installed")
    with pytest.raises(ImportError, match="pip install matplotlib"):
        harness.plot(_results(), tmp_path / "bench.png")


# -- cast_value on out-of-range data ----------------------------------------------------------


@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.5, 1.0])
@pytest.mark.parametrize("target", ["uint8", "int8", "int16", "float16"])
def test_out_of_range_datasets_have_the_fraction_asked_for(fraction: float, target: str) -> None:
    from zarr_codecs_bench import cast_ranges

    field = datasets.load("float64_field", 1 << 16)
    values = cast_ranges.out_of_range(field, target, fraction)
    top = cast_ranges._largest(target)
    above = float(np.mean(np.rint(values) > top))
    assert abs(above - fraction) <= 0.002, above
    assert values.dtype == field.dtype


def test_nan_patches_cover_the_fraction_asked_for() -> None:
    from zarr_codecs_bench import cast_ranges

    values = cast_ranges.with_nans(np.zeros(1 << 16), 0.3)
    assert abs(float(np.mean(np.isnan(values))) - 0.3) <= 0.01


def test_cast_range_providers_agree_with_numpy_on_every_job() -> None:
    """Ours is checked against numpy's expression for every group (strict), so the rows
    compare the same work; a peer that differs is labelled instead."""
    from zarr_codecs_bench import cast_ranges

    for dataset in cast_ranges.DATASETS:
        data = datasets.load(dataset, 1 << 14)
        cases = cast_ranges.OURS.load()(dataset, data)
        jobs = cast_ranges.jobs(dataset, data)
        assert len(cases) == len(jobs) > 0
        assert all(case.codec_label == "zarr-codec-cast-value" for case in cases)
        assert {case.group for case in cases} == {job[0] for job in jobs}


def test_compressor_floor_times_the_layouts_filtered_chunks() -> None:
    from benchmarks import compressor_floor

    cases = compressor_floor.cases("16 MiB")
    assert sorted(cases) == ["[bitround, zstd]", "[delta, lz4] int32"]
    for pieces, codec in cases.values():
        assert len(pieces) == 64  # 2048 x 2048 in chunks of 256 x 256
        assert all(piece.nbytes == 256 * 256 * 4 for piece in pieces)
        assert bytes(codec.decode(codec.encode(pieces[5]))) == pieces[5].tobytes()
