"""``python -m benchmarks.vlen_pairs``: numcodecs' codecs of strings and objects, ours against
numcodecs' own, interleaved in one process.

On one thousand and one hundred thousand short strings (as ``benchmarks.strings`` makes them):
``VLenUTF8`` and ``VLenBytes`` between object arrays and bytes (the numcodecs API), and
``vlen-utf8`` between numpy ``StringDType`` arrays and bytes as zarr-python uses it (numcodecs
decodes to objects which zarr-python then converts; ours fills the ``StringDType`` array in
place, ``decode_utf8_into``); ``Categorize`` on labels; ``JSON`` and ``MsgPack`` on object
arrays of strings, numbers and small dicts. Every encoded chunk is checked to be numcodecs'
bytes before it is timed; ratios above 1: ours is faster. Quote figures only from release
wheels.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.interleaved import best_of
from benchmarks.strings import strings

COUNTS = (1_000, 100_000)


Case = tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any], Callable[[], Any]]


def _cases(count: int) -> list[Case]:
    """(name, ours encode, numcodecs encode, ours decode, numcodecs decode) per codec."""
    import numcodecs
    from zarr_codec_vlen import _vlen
    from zarr_codec_vlen import numcodecs as ours

    text = strings(count).astype(object)
    packed = text.astype(np.dtypes.StringDType())
    raw = np.array([s.encode() for s in text], dtype=object)
    labels = sorted(set(text[:2000]))[:200]
    mixed = np.empty(count, dtype=object)
    mixed[:] = [
        {"k": i, "v": s} if i % 7 == 0 else (i * 0.5 if i % 3 == 0 else s)
        for i, s in enumerate(text)
    ]
    cases: list[Case] = []
    for name, mine, theirs, values in (
        ("vlen-utf8 objects", ours.VLenUTF8(), numcodecs.VLenUTF8(), text),
        ("vlen-bytes", ours.VLenBytes(), numcodecs.VLenBytes(), raw),
        ("categorize", ours.Categorize(labels, object), numcodecs.Categorize(labels, object), text),
        ("json2", ours.JSON(), numcodecs.JSON(), mixed),
        ("msgpack2", ours.MsgPack(), numcodecs.MsgPack(), mixed),
    ):
        encoded = theirs.encode(values)
        if bytes(mine.encode(values)) != bytes(encoded):
            raise AssertionError(f"{name}: ours and numcodecs' bytes differ")
        cases.append(
            (
                name,
                functools.partial(mine.encode, values),
                functools.partial(theirs.encode, values),
                functools.partial(mine.decode, encoded),
                functools.partial(theirs.decode, encoded),
            )
        )
    theirs_utf8 = numcodecs.VLenUTF8()
    encoded = theirs_utf8.encode(text)
    if _vlen.encode_utf8_strings(packed) != encoded:
        raise AssertionError("vlen-utf8: StringDType bytes differ")

    def decode_into() -> Any:
        out = np.empty(count, dtype=packed.dtype)
        _vlen.decode_utf8_into(encoded, out)
        return out

    cases.append(
        (
            "vlen-utf8 StringDType",
            lambda: _vlen.encode_utf8_strings(packed),
            lambda: theirs_utf8.encode(packed.astype(object)),
            decode_into,
            lambda: theirs_utf8.decode(encoded).astype(packed.dtype),
        )
    )
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(
        "| codec | items | enc numcodecs ms | enc ours ms | enc ratio | dec numcodecs ms | "
        "dec ours ms | dec ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for count in COUNTS:
        inner = max(1, 100_000 // count)
        for name, enc_ours, enc_theirs, dec_ours, dec_theirs in _cases(count):
            t = best_of(
                {"eo": enc_ours, "et": enc_theirs, "do": dec_ours, "dt": dec_theirs},
                args.rounds,
                inner,
            )
            print(
                f"| {name} | {count} | {t['et'] * 1e3:.3g} | {t['eo'] * 1e3:.3g} | "
                f"{t['et'] / t['eo']:.2f}x | {t['dt'] * 1e3:.3g} | {t['do'] * 1e3:.3g} | "
                f"{t['dt'] / t['do']:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
