"""``python -m benchmarks.strings``: string arrays read and written through zarr-python by each
codec pipeline, side by side in one process.

One million short strings (words and identifiers of 1 to 16 characters, some non-ASCII, some
empty, as labels and names in users' tables look), one-dimensional, in chunks of 100 000 and of
10 000 items. Layouts: Zarr v3's default string chain ``[vlen-utf8, zstd]`` (numpy
``StringDType`` out), and a Zarr v2 object array as zarr-python 2 wrote them (numcodecs'
``VLenUTF8`` filter, Blosc lz4 with shuffle; object arrays out). Stores: ``LocalStore`` on tmpfs
and ``MemoryStore``. Operations: one element, one chunk, the whole array; each read and
written.

Pipelines: zarr-python's default (numcodecs' codecs), ours
(``zarr_codecs.install(pipeline=True)``) and zarrs-python where it opens the array. Rounds take
the pipelines in turn; the table gives medians in ms and each pipeline's ratio to zarr's default
(above 1: faster). Quote figures only from release wheels. Never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import statistics
import sys
import warnings
from typing import Any

import numpy as np
from zarr_codecs_bench import pipelines as pipeline_bench

from benchmarks.layouts import _store, ratio_table
from benchmarks.selections import _timed

#: Items in the array.
ITEMS = 1_000_000
#: label: items per chunk
CHUNKS = {"100k-item chunks": 100_000, "10k-item chunks": 10_000}
LAYOUTS = ("v3 [vlen-utf8, zstd]", "v2 object [VLenUTF8] blosc")


def strings(count: int, seed: int = 0) -> np.ndarray[Any, Any]:
    """``count`` short strings as a user's labels look: words, identifiers, some non-ASCII,
    a few empty."""
    rng = np.random.default_rng(seed)
    words = np.array(
        ["", "a", "id", "zarr", "label", "sensor", "station-12", "température", "東京", "ok"]
        + [f"item{n}" for n in range(40)],
        dtype=object,
    )
    picks = words[rng.integers(0, len(words), size=count)]
    suffix = rng.integers(0, 1000, size=count)
    return np.array([f"{w}{s}" if s % 3 else w for w, s in zip(picks, suffix, strict=True)])


def _create(store: Any, layout: str, chunk: int) -> Any:
    import numcodecs
    import zarr

    if layout.startswith("v3"):
        return zarr.create_array(store, shape=(ITEMS,), chunks=(chunk,), dtype=str)
    return zarr.create_array(
        store,
        shape=(ITEMS,),
        chunks=(chunk,),
        dtype=str,
        zarr_format=2,
        filters=[numcodecs.VLenUTF8()],
        compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
        fill_value="",
    )


def _pipelines(store: str) -> list[str]:
    names = [n for n in pipeline_bench.pipelines() if n != "default + our codecs"]
    return [n for n in names if n != "zarr fused" and (n != "zarrs" or store == "local")]


def _opened(new_store: Any, names: list[str], layout: str, chunk: int, data: Any) -> dict[str, Any]:
    """Each pipeline's array, written through zarr's default pipeline, opened under the
    pipeline; pipelines that cannot read it are left out."""
    import zarr

    arrays = {}
    reference = None
    for name in names:
        store = new_store(name)
        _create(store, layout, chunk)[...] = data
        with pipeline_bench._setup(name):
            array = zarr.open_array(store, mode="r+")
            try:
                got = array[...]
            except Exception as error:  # zarrs-python without this data type or chain
                print(f"{name} cannot read {layout}: {error}", file=sys.stderr)
                continue
        if reference is None:
            reference = got
        np.testing.assert_array_equal(got, reference, err_msg=name)
        arrays[name] = (array, name)
    return arrays


Key = tuple[str, str, str, str, str]  # chunks, store, layout, direction, operation


def run(rounds: int, stores: list[str], chunk_sizes: list[str]) -> dict[Key, dict[str, float]]:
    """Median seconds per call, ``{key: {pipeline: seconds}}``."""
    data = strings(ITEMS)
    results: dict[Key, dict[str, float]] = {}
    for chunks in chunk_sizes:
        chunk = CHUNKS[chunks]
        operations: list[tuple[str, Any, int]] = [
            ("one element", (chunk + 7,), 20),
            ("one chunk", (slice(chunk, 2 * chunk),), 5),
            ("whole array", (slice(None),), 1),
        ]
        for store in stores:
            for layout in LAYOUTS:
                with _store(store) as new_store:
                    arrays = _opened(new_store, _pipelines(store), layout, chunk, data)
                    names = list(arrays)
                    samples: dict[Key, dict[str, list[float]]] = {}
                    for round_ in range(rounds):
                        turn = names[round_ % len(names) :] + names[: round_ % len(names)]
                        for op, selection, calls in operations:
                            value = data[selection]
                            for name in turn:
                                array, _ = arrays[name]
                                read = functools.partial(array.__getitem__, selection)
                                write = functools.partial(array.__setitem__, selection, value)
                                for direction, call in (("read", read), ("write", write)):
                                    with pipeline_bench._setup(name):
                                        key = (chunks, store, layout, direction, op)
                                        by_name = samples.setdefault(key, {})
                                        by_name.setdefault(name, []).extend(_timed(call, calls))
                    print(f"{chunks} {store} {layout}: done", file=sys.stderr)
                    for key, by_name in samples.items():
                        results[key] = {n: statistics.median(s) for n, s in by_name.items()}
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stores", nargs="+", choices=["local", "memory"], default=["local"])
    parser.add_argument("--chunks", nargs="+", choices=list(CHUNKS), default=list(CHUNKS))
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr's warnings on v2 object arrays and StringDType
        results = run(args.rounds, args.stores, args.chunks)
    print(ratio_table(["chunks", "store", "layout", "op", "selection"], results))


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
