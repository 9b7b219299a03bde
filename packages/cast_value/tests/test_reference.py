"""Property tests: ``CastValue`` against a slow reference written with ints and ``Fraction``.

The reference follows the ``cast_value`` specification literally, one element at a time:
decode the element to its exact value (a ``Fraction``; NaN, ±inf and -0.0 as floats, since a
``Fraction`` cannot hold them), apply ``scalar_map`` (keys match by numerical value, every NaN
matches a NaN key, the first of repeated keys wins, mappings never chain), then round the exact
value once to the target's precision and only then check the range and apply ``out_of_range``.

Float formats are rounded with an unbounded exponent above (a rounded magnitude beyond the
largest finite value is out of range) and subnormals below. ``float8_e8m0fnu`` holds the
powers of two 2^-127..2^127 only: its significand is the implicit 1, so ties go up, and zero,
negative values and values rounding below 2^-127 are out of range (``clamp`` gives 2^-127).

Element bits are compared exactly (for the sub-byte types only the value bits, since the data
type specifications leave the upper bits of the byte arbitrary); NaNs are compared by NaN-ness
only, as the specification does not require payloads to be kept.

A single refused element makes a whole array call raise, so elements the reference refuses are
cast one at a time (each must raise ``OutOfRangeError``) and the rest in one array.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pytest
from exact_values import (
    HAVE_ML_DTYPES,
    BitFormat,
    Value,
    array_bits,
    bit_format,
    decode_bits,
    floor_log2,
    is_finite,
    is_nan,
    is_negative,
    needs_ml_dtypes,
    pow2,
    round_to_format,
    round_to_integer,
    show,
    to_array,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zarr_codec_cast_value import ROUNDING_MODES, CastValue
from zarr_codec_shapes import ChunkSpec, ConfigurationError, OutOfRangeError

CORE = (
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bfloat16",
)
SMALL = (
    "int2",
    "int4",
    "uint2",
    "uint4",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
)
# The small types are cast to and from these (every bit pattern, and back).
PARTNERS = ("float64", "float32", "int16")
DIRECTIONS = ("encode", "decode")

# A scalar_map direction as the codec's JSON: [input, output] pairs.
MapJson = list[list[Any]]

# -- exact values --------------------------------------------------------------------------


def same_number(a: Value, b: Value) -> bool:
    """scalar_map key matching: by numerical value, so -0.0 == 0.0 and NaN == NaN."""
    if is_nan(a) or is_nan(b):
        return is_nan(a) and is_nan(b)
    return a == b


def encode(v: Value, t: BitFormat) -> int:
    """The bits of a value ``t`` holds exactly (NaN: the type's "NaN" constant)."""
    if t.is_int:
        assert isinstance(v, Fraction) and v.denominator == 1
        return int(v) & t.mask
    if is_nan(v):
        assert t.nan_bits is not None
        return t.nan_bits
    sign = (1 << (t.bits - 1)) if is_negative(v) and t.encoding != "e8m0" else 0
    if not is_finite(v):
        return sign | (((1 << t.exponent_bits) - 1) << t.mantissa_bits)
    magnitude = abs(Fraction(v))
    if magnitude == 0:
        return sign if t.has_negative_zero else 0
    e = floor_log2(magnitude)
    if t.encoding == "e8m0":
        return e + 127
    m = t.mantissa_bits
    if e < t.min_exponent:
        biased, scaled = 0, magnitude / pow2(t.min_exponent - m)
    else:
        biased, scaled = e + t.bias, magnitude / pow2(e - m) - (1 << m)
    assert scaled.denominator == 1, f"{show(v)} is not a {t.name} value"
    return sign | (biased << m) | int(scaled)


# -- the reference cast --------------------------------------------------------------------


def reference(
    x: Value,
    t: BitFormat,
    rounding: str,
    out_of_range: str | None,
    scalar_map: Sequence[tuple[Value, Value]] = (),
) -> Value | None:
    """The specification's cast of the exact value ``x`` into ``t``; ``None``: an error."""
    for key, output in scalar_map:  # first match wins; the output is final (no chaining)
        if same_number(x, key):
            return output
    if is_nan(x):
        return math.nan if t.has_nan else None
    if not is_finite(x):
        return x if t.has_inf else None  # clamp and wrap do not apply to ±inf
    exact = Fraction(x)
    if t.is_int:
        r = round_to_integer(exact, rounding)
        if t.int_min <= r <= t.int_max:
            return Fraction(r)
        if out_of_range == "clamp":
            return Fraction(t.int_min if r < t.int_min else t.int_max)
        if out_of_range == "wrap":
            return Fraction((r - t.int_min) % (1 << t.bits) + t.int_min)
        return None
    rounded = round_to_format(exact, t, rounding) if exact else Fraction(0)
    if t.encoding == "e8m0":
        if rounded < pow2(-127) or rounded > pow2(127):
            if out_of_range != "clamp":
                return None
            return pow2(-127) if rounded < pow2(-127) else pow2(127)
        return rounded
    if abs(rounded) > t.max_finite:
        # "wrap" has no meaning for a float type: an element it would need is an error.
        if out_of_range != "clamp":
            return None
        top: Value = math.inf if t.has_inf else t.max_finite
        return -top if rounded < 0 else top
    if rounded == 0 and is_negative(x) and t.has_negative_zero:
        return -0.0
    return rounded


def value_from_json(scalar: Any, t: BitFormat) -> Value:
    """A scalar_map scalar in fill-value JSON (numbers round to nearest-even for floats)."""
    if isinstance(scalar, str):
        if scalar.startswith("0x"):
            return decode_bits(int(scalar, 16), t)
        specials = {"NaN": math.nan, "Infinity": math.inf, "+Infinity": math.inf}
        return (specials | {"-Infinity": -math.inf})[scalar]
    if t.is_int:
        return Fraction(scalar)
    number = float(scalar) if scalar == 0 else Fraction(scalar)  # a float keeps -0.0's sign
    exact = reference(number, t, "nearest-even", None)
    assert exact is not None
    return exact


def value_to_json(v: Value, t: BitFormat, hex_form: bool) -> Any:
    if t.is_int:
        return int(v)
    if hex_form:
        return f"0x{encode(v, t):0{2 * t.itemsize}x}"
    if is_nan(v):
        return "NaN"
    if not is_finite(v):
        return "-Infinity" if v < 0 else "Infinity"
    return float(v)  # exact: every value of these formats is a float64


# -- running the codec ---------------------------------------------------------------------


def out_of_range_options(source: str, target: str, direction: str) -> list[str | None]:
    # "wrap" is allowed when the codec's data_type is an integer: the target when encoding,
    # the source (the encoded type) when decoding.
    codec_type = target if direction == "encode" else source
    wrap = ["wrap"] if bit_format(codec_type).is_int else []
    return [None, "clamp", *wrap]


@cache
def make_codec(
    data_type: str, rounding: str, out_of_range: str | None, scalar_map: str | None
) -> CastValue:
    # Cached so its compiled plans are reused; scalar_map is JSON text to be hashable.
    mapping = None if scalar_map is None else json.loads(scalar_map)
    return CastValue(data_type, rounding, out_of_range, mapping)


@dataclass(frozen=True)
class Cast:
    """One cast ``source -> target`` through the codec, in one direction."""

    source: BitFormat
    target: BitFormat
    rounding: str = "nearest-even"
    out_of_range: str | None = None
    direction: str = "encode"
    scalar_map: MapJson | None = None

    def codec(self) -> CastValue:
        data_type = self.target if self.direction == "encode" else self.source
        mapping = None
        if self.scalar_map is not None:
            mapping = json.dumps({self.direction: self.scalar_map})
        return make_codec(data_type.name, self.rounding, self.out_of_range, mapping)

    def __call__(self, array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        if self.direction == "encode":
            return self.codec().encode(array, ChunkSpec(array.shape, self.source.name))
        return self.codec().decode(array, ChunkSpec(array.shape, self.target.name))

    def expected(self, bits: Sequence[int]) -> list[Expected]:
        if self.scalar_map is None:  # the common case, cached across directions
            names = (self.source.name, self.target.name, self.rounding, self.out_of_range)
            return [expected_of(b, *names) for b in bits]
        pairs = [
            (value_from_json(k, self.source), value_from_json(o, self.target))
            for k, o in self.scalar_map
        ]
        values = [decode_bits(b, self.source) for b in bits]
        rules = (self.target, self.rounding, self.out_of_range, pairs)
        return [expect(reference(v, *rules), self.target) for v in values]

    def __str__(self) -> str:
        mapping = f" scalar_map={self.scalar_map}" if self.scalar_map else ""
        return (
            f"{self.direction} {self.source.name} -> {self.target.name} "
            f"rounding={self.rounding} out_of_range={self.out_of_range}{mapping}"
        )


# What the reference expects of one element: its value and bits (None for NaN: any NaN will
# do), or None when the element must raise OutOfRangeError.
Expected = tuple[Value, int | None] | None


def expect(value: Value | None, t: BitFormat) -> Expected:
    return None if value is None else (value, None if is_nan(value) else encode(value, t))


@cache
def expected_of(
    bits: int, source: str, target: str, rounding: str, out_of_range: str | None
) -> Expected:
    value = reference(
        decode_bits(bits, bit_format(source)), bit_format(target), rounding, out_of_range
    )
    return expect(value, bit_format(target))


def matches(expected: tuple[Value, int | None], got_bits: int, t: BitFormat) -> bool:
    if expected[1] is None:
        return is_nan(decode_bits(got_bits, t))
    return got_bits == expected[1]


def check(cast: Cast, bits: Sequence[int]) -> None:
    """Every element of ``cast.source`` given by ``bits`` casts as the reference says."""
    expected = cast.expected(bits)
    good = [i for i, e in enumerate(expected) if e is not None]
    if good:
        try:
            out = cast(to_array([bits[i] for i in good], cast.source))
        except OutOfRangeError as err:
            culprit = next(i for i in good if _refuses(cast, bits[i]))
            want = expected[culprit]
            assert want is not None
            pytest.fail(
                f"{cast}: {show(decode_bits(bits[culprit], cast.source))} (0x{bits[culprit]:x}) "
                f"raised {err}, expected {show(want[0])}"
            )
        for i, got in zip(good, array_bits(out, cast.target), strict=True):
            want = expected[i]
            assert want is not None
            if not matches(want, got, cast.target):
                pytest.fail(
                    f"{cast}: {show(decode_bits(bits[i], cast.source))} (0x{bits[i]:x}) gave "
                    f"{show(decode_bits(got, cast.target))} (0x{got:x}), expected {show(want[0])}"
                )
    for i, e in enumerate(expected):
        if e is None and not _refuses(cast, bits[i]):
            got = array_bits(cast(to_array([bits[i]], cast.source)), cast.target)[0]
            pytest.fail(
                f"{cast}: {show(decode_bits(bits[i], cast.source))} (0x{bits[i]:x}) gave "
                f"{show(decode_bits(got, cast.target))}, expected OutOfRangeError"
            )


def _refuses(cast: Cast, bits: int) -> bool:
    try:
        cast(to_array([bits], cast.source))
    except OutOfRangeError:
        return True
    return False


# -- edge values ---------------------------------------------------------------------------

TINY = Fraction(1, 1 << 1100)  # below every format's resolution: finds a value's neighbours
COMMON = {Fraction(k, 2) for k in range(1, 8)} | {
    Fraction((1 << p) + d) for p in (7, 8, 11, 15, 16, 24, 31, 32, 53, 63, 64) for d in (-1, 0, 1)
}


def landmarks(t: BitFormat) -> set[Fraction]:
    """Positive values where ``t``'s behaviour changes: its limits and ties around them."""
    if t.is_int:
        top, bottom = t.int_max, -t.int_min
        ends = {Fraction(k) for k in (top, top + 1, bottom, bottom + 1) if k > 0}
        ties = {Fraction(2 * k + 1, 2) for k in (0, 1, top - 1, top, bottom - 1, bottom) if k >= 0}
        return ends | ties
    tiny, largest = t.min_positive, t.max_finite
    ulp_one, ulp_top = pow2(-t.mantissa_bits), pow2(floor_log2(largest) - t.mantissa_bits)
    normal = pow2(t.min_exponent)
    found = {tiny, tiny / 2, tiny * 3 / 2, normal, normal - tiny, normal + tiny / 2}
    found |= {1 + ulp_one / 2, 1 + ulp_one * 3 / 2, largest, largest - ulp_top / 2}
    found |= {largest + ulp_top / 2, largest + ulp_top, 2 * pow2(floor_log2(largest))}
    return {v for v in found if v > 0}


def all_values(t: BitFormat) -> list[Value]:
    return [decode_bits(b, t) for b in range(1 << t.bits)]


@cache
def edge_bits(source: str, target: str) -> tuple[int, ...]:
    """Elements of ``source`` around every landmark of both types (and, for a small target,
    around each of its values), with their neighbours just above and below."""
    s, t = bit_format(source), bit_format(target)
    if s.bits <= 8:
        return tuple(range(1 << s.bits))  # every bit pattern
    magnitudes = COMMON | landmarks(s) | landmarks(t)
    candidates: set[Value] = {Fraction(0), -0.0, math.inf, -math.inf}
    candidates |= {sign * m for m in magnitudes for sign in (1, -1)}
    if t.name in SMALL:  # each value of a small target, and the ties between them
        ladder = sorted(Fraction(v) for v in all_values(t) if is_finite(v))
        candidates |= set(ladder) | {(a + b) / 2 for a, b in itertools.pairwise(ladder)}
    found = {encode(math.nan, s)} if s.has_nan else set()
    for c in candidates:
        for mode, step in (("towards-negative", -TINY), ("towards-positive", TINY)):
            near = reference(c, s, mode, None)  # the source values on either side of c
            if near is None:
                continue
            found.add(encode(near, s))
            if same_number(near, c) and is_finite(c):  # c itself: add its neighbours too
                beyond = reference(Fraction(c) + step, s, mode, None)
                if beyond is not None:
                    found.add(encode(beyond, s))
    return tuple(sorted(found))


# -- 1, 2, 3: every pair, edge values, both directions --------------------------------------

PAIRS = [(s, t) for s in CORE for t in CORE]
PAIRS += [(s, t) for s in SMALL for t in PARTNERS] + [(s, t) for s in PARTNERS for t in SMALL]


def edge_cases() -> list[Any]:
    cases = []
    for source, target in PAIRS:
        for direction in DIRECTIONS:
            for oor in out_of_range_options(source, target, direction):
                cases.append(
                    pytest.param(
                        source,
                        target,
                        direction,
                        oor,
                        id=f"{direction}-{source}-{target}-{oor}",
                    )
                )
    return cases


@pytest.mark.parametrize(("source", "target", "direction", "out_of_range"), edge_cases())
def test_edge_values_match_reference(
    source: str, target: str, direction: str, out_of_range: str | None
) -> None:
    needs_ml_dtypes(source, target)
    bits = edge_bits(source, target)
    for rounding in ROUNDING_MODES:
        check(Cast(bit_format(source), bit_format(target), rounding, out_of_range, direction), bits)


@pytest.mark.parametrize("small", SMALL)
@pytest.mark.parametrize("partner", PARTNERS)
def test_small_types_survive_a_round_trip(small: str, partner: str) -> None:
    # Every value of a small type that the wider type holds exactly comes back bit for bit
    # (float32 and float64 hold them all, int16 the integers); NaN comes back as NaN.
    needs_ml_dtypes(small)
    s, p = bit_format(small), bit_format(partner)
    kept = [b for b in range(1 << s.bits) if is_nan(decode_bits(b, s)) and p.has_nan]
    kept += [b for b in range(1 << s.bits) if _holds(p, decode_bits(b, s))]
    for direction in DIRECTIONS:
        there = Cast(s, p, direction=direction)(to_array(kept, s))
        back = Cast(p, s, direction=direction)(there)
        for b, got in zip(kept, array_bits(back, s), strict=True):
            want = expect(decode_bits(b, s), s)
            assert want is not None and matches(want, got, s), f"{direction} {small} 0x{b:x}"


@pytest.mark.parametrize("small", [n for n in SMALL if bit_format(n).bits < 8])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_sub_byte_upper_bits_are_ignored(small: str, direction: str) -> None:
    # The data type specs leave the bits above a sub-byte value arbitrary: every byte reads
    # as its low bits (decode_bits() masks them).
    needs_ml_dtypes(small)
    check(Cast(bit_format(small), bit_format("float64"), direction=direction), range(256))


def _holds(t: BitFormat, v: Value) -> bool:
    exact = reference(v, t, "towards-zero", None)
    return (
        exact is not None and not is_nan(v) and exact == v and is_negative(exact) == is_negative(v)
    )


# -- random arrays -------------------------------------------------------------------------


def element_bits(source: str, target: str, edges: bool = True) -> st.SearchStrategy[int]:
    """Source elements: edge values, any bit pattern, or values on the target's scale."""
    s, t = bit_format(source), bit_format(target)
    if t.is_int:
        low, high = -14, t.bits - 10
    else:
        low, high = t.min_exponent - t.mantissa_bits - 12, floor_log2(t.max_finite) - 8

    def on_target_scale(k: int, e: int) -> int:
        near = reference(Fraction(k) * pow2(e), s, "towards-zero", "clamp")
        assert near is not None
        return encode(near, s)

    scaled = st.builds(on_target_scale, st.integers(-(1 << 12), 1 << 12), st.integers(low, high))
    raw = st.integers(0, (1 << s.bits) - 1)
    if not edges:  # computing them for every pair of a sampled test would be slow
        return st.one_of(raw, scaled)
    return st.one_of(st.sampled_from(edge_bits(source, target)), raw, scaled)


@st.composite
def random_casts(draw: st.DrawFn, source: str, target: str) -> tuple[Cast, list[int]]:
    direction = draw(st.sampled_from(DIRECTIONS))
    options = out_of_range_options(source, target, direction)
    cast = Cast(
        bit_format(source),
        bit_format(target),
        draw(st.sampled_from(ROUNDING_MODES)),
        draw(st.sampled_from(options)),
        direction,
    )
    return cast, draw(st.lists(element_bits(source, target), min_size=1, max_size=40))


RANDOM = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize(("source", "target"), PAIRS)
@RANDOM
@given(data=st.data())
def test_random_arrays_match_reference(source: str, target: str, data: st.DataObject) -> None:
    needs_ml_dtypes(source, target)
    cast, bits = data.draw(random_casts(source, target))
    expected = cast.expected(bits)
    array = to_array(bits, cast.source)
    if any(e is None for e in expected):
        with pytest.raises(OutOfRangeError):
            cast(array)
        return
    got = array_bits(cast(array), cast.target)
    for b, want, g in zip(bits, expected, got, strict=True):
        assert want is not None
        assert matches(want, g, cast.target), f"{cast}: 0x{b:x} gave 0x{g:x}, want {show(want[0])}"


@pytest.mark.parametrize(("source", "target"), [(s, t) for s in CORE for t in CORE])
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_long_arrays_match_reference(source: str, target: str, data: st.DataObject) -> None:
    # Arrays over several of the fast kernels' 512-element blocks, with a tail: edge values
    # shuffled, and sometimes one refused element somewhere, which must fail the whole call.
    needs_ml_dtypes(source, target)
    cast, _ = data.draw(random_casts(source, target))
    edges = edge_bits(source, target)
    expected = cast.expected(edges)
    good = [b for b, e in zip(edges, expected, strict=True) if e is not None]
    bad = [b for b, e in zip(edges, expected, strict=True) if e is None]
    bits = data.draw(st.permutations((good * (1300 // len(good) + 1))[:1300]))
    check(cast, bits)
    if bad:
        where = data.draw(st.integers(0, len(bits)))
        bits.insert(where, data.draw(st.sampled_from(bad)))
        with pytest.raises(OutOfRangeError):
            cast(to_array(bits, cast.source))


# -- the reference's own footing -----------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in CORE + SMALL if not bit_format(n).is_int])
def test_reference_decoder_agrees_with_numpy(name: str) -> None:
    # The reference decodes bits itself; numpy/ml_dtypes must read them the same way, and
    # encode() must invert decode_bits() (NaNs aside).
    needs_ml_dtypes(name)
    t = bit_format(name)
    rng = np.random.default_rng(0)
    if t.bits <= 16:
        bits = np.arange(1 << t.bits, dtype=np.uint64)
    else:
        bits = rng.integers(0, 1 << t.bits, size=4000, dtype=np.uint64)
    with np.errstate(invalid="ignore"):  # numpy warns about signalling NaNs
        widened = bits.astype(t.uint).view(t.dtype).astype(np.float64).tolist()
    for b, theirs in zip(bits.tolist(), widened, strict=True):
        ours = decode_bits(b, t)
        if is_nan(ours) or math.isnan(theirs):
            assert is_nan(ours) and math.isnan(theirs), f"{name} 0x{b:x}: {show(ours)}"
            continue
        assert ours == theirs and is_negative(ours) == is_negative(theirs), (
            f"{name} 0x{b:x}: {show(ours)} vs {theirs!r}"
        )
        assert encode(ours, t) == b
    info = np.finfo(t.dtype) if t.bits > 16 or name == "float16" else _ml_finfo(t)
    assert t.max_finite == Fraction(float(info.max))
    assert t.min_positive == Fraction(float(info.smallest_subnormal))


def _ml_finfo(t: BitFormat) -> Any:
    import ml_dtypes

    finfo: Callable[[Any], Any] = ml_dtypes.finfo  # untyped
    return finfo(t.dtype)


@pytest.mark.parametrize(
    ("value", "name", "rounding", "expected"),
    [
        (Fraction(65519), "float16", "nearest-even", Fraction(65504)),
        (Fraction(65520), "float16", "nearest-even", None),
        (Fraction(65535), "float16", "towards-zero", Fraction(65504)),
        (Fraction(3), "float8_e8m0fnu", "nearest-even", Fraction(4)),
        (Fraction(3), "float8_e8m0fnu", "towards-zero", Fraction(2)),
        (pow2(-128), "float8_e8m0fnu", "towards-positive", None),
        (pow2(-128) * 3 / 2, "float8_e8m0fnu", "nearest-even", pow2(-127)),
        (Fraction(255, 2), "int8", "towards-zero", Fraction(127)),
        (Fraction(255, 2), "int8", "nearest-even", None),
        (Fraction(-5, 2), "int8", "nearest-even", Fraction(-2)),
        (Fraction(-5, 2), "int8", "nearest-away", Fraction(-3)),
        (Fraction(-5, 2), "int8", "towards-positive", Fraction(-2)),
        (Fraction(-5, 2), "int8", "towards-negative", Fraction(-3)),
        (Fraction(-2, 5), "uint8", "nearest-even", Fraction(0)),
        (-pow2(-30), "float16", "towards-zero", -0.0),
        (-pow2(-30), "float8_e4m3fnuz", "towards-zero", Fraction(0)),
        (-pow2(-30), "float16", "towards-negative", -pow2(-24)),
    ],
)
def test_reference_rounding_examples(
    value: Fraction, name: str, rounding: str, expected: Value | None
) -> None:
    # The reference itself, on the spec's examples and hand-worked cases.
    got = reference(value, bit_format(name), rounding, None)
    assert (got is None) == (expected is None)
    if got is not None and expected is not None:
        assert got == expected and is_negative(got) == is_negative(expected)


def test_reference_out_of_range_examples() -> None:
    # The spec's examples: 128.0 into int8, and int16 wrapping.
    int8, int16 = bit_format("int8"), bit_format("int16")
    assert reference(Fraction(128), int8, "nearest-even", None) is None
    assert reference(Fraction(128), int8, "nearest-even", "clamp") == 127
    assert reference(Fraction(128), int8, "nearest-even", "wrap") == -128
    for value, wrapped in ((32768, -32768), (32769, -32767), (-32769, 32767)):
        assert reference(Fraction(value), int16, "nearest-even", "wrap") == wrapped
    e8m0 = bit_format("float8_e8m0fnu")
    assert reference(Fraction(-1), e8m0, "nearest-even", "clamp") == pow2(-127)
    assert reference(pow2(200), e8m0, "nearest-even", "clamp") == pow2(127)
    assert reference(pow2(200), bit_format("float8_e4m3fnuz"), "nearest-even", "clamp") == 240
    assert reference(-pow2(200), bit_format("bfloat16"), "nearest-even", "clamp") == -math.inf
    assert reference(math.inf, bit_format("float8_e4m3fnuz"), "nearest-even", "clamp") is None


ALL_TYPES = CORE + SMALL


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_pair_matches_reference(data: st.DataObject) -> None:
    # Pairs the parametrized tests leave out (small <-> small, small <-> core), sampled.
    pytest.importorskip("ml_dtypes")
    source, target = data.draw(st.sampled_from(ALL_TYPES)), data.draw(st.sampled_from(ALL_TYPES))
    direction = data.draw(st.sampled_from(DIRECTIONS))
    options = out_of_range_options(source, target, direction)
    rounding = data.draw(st.sampled_from(ROUNDING_MODES))
    cast = Cast(
        bit_format(source),
        bit_format(target),
        rounding,
        data.draw(st.sampled_from(options)),
        direction,
    )
    check(cast, data.draw(st.lists(element_bits(source, target, edges=False), max_size=30)))


# -- 4: scalar_map -------------------------------------------------------------------------


def test_scalar_map_first_key_wins_and_never_chains() -> None:
    cast = Cast(bit_format("int32"), bit_format("int8"), scalar_map=[[1, 2], [2, 3], [1, 9]])
    assert cast(np.array([1, 2, 3], np.int32)).tolist() == [2, 3, 3]
    with pytest.raises(OutOfRangeError):  # unmapped and out of range
        cast(np.array([1, 1000], np.int32))
    check(cast, [1, 2, 3, 1000 & 0xFFFFFFFF])


def test_scalar_map_comes_before_every_other_rule() -> None:
    # A representable value is still mapped, an out-of-range one needs no out_of_range, and a
    # NaN needs no NaN in the target.
    cast = Cast(
        bit_format("float64"), bit_format("uint8"), scalar_map=[[5, 100], [1000.5, 7], ["NaN", 0]]
    )
    got = cast(np.array([5.0, 1000.5, np.nan, 6.0]))
    assert got.tolist() == [100, 7, 0, 6]


@pytest.mark.parametrize(
    ("source", "key", "inputs"),
    [
        ("float64", "NaN", [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001]),
        ("float64", "0x7ff8000000000001", [0x7FF8000000000000, 0xFFFFFFFFFFFFFFFF]),
        ("float32", "0x7fc00000", [0x7FC00000, 0xFFC00001, 0x7F800001]),
        ("float32", "0xffc00001", [0x7FC00000]),
        ("float16", "NaN", [0x7E00, 0xFC01]),
        ("bfloat16", "0x7fc0", [0xFFC1]),
        ("float8_e4m3fnuz", "NaN", [0x80]),
        ("float8_e8m0fnu", "0xff", [0xFF]),
    ],
)
def test_scalar_map_nan_key_matches_every_nan(source: str, key: str, inputs: list[int]) -> None:
    needs_ml_dtypes(source)
    cast = Cast(bit_format(source), bit_format("int8"), scalar_map=[[key, -7]])
    assert cast(to_array(inputs, bit_format(source))).tolist() == [-7] * len(inputs)
    check(cast, inputs)


def test_scalar_map_zero_keys_match_either_sign() -> None:
    plus, minus = 0x00000000, 0x80000000
    for key in (0.0, -0.0, "0x00000000", "0x80000000"):
        cast = Cast(bit_format("float32"), bit_format("int8"), scalar_map=[[key, 9]])
        assert cast(to_array([plus, minus], bit_format("float32"))).tolist() == [9, 9], key
    # Both keys are the number 0: the first one wins for both zeros.
    cast = Cast(bit_format("float32"), bit_format("int8"), scalar_map=[[-0.0, 1], [0.0, 2]])
    assert cast(to_array([plus, minus], bit_format("float32"))).tolist() == [1, 1]
    # An integer 0 matches a float zero key of either sign when decoding too.
    back = Cast(
        bit_format("int8"),
        bit_format("float32"),
        direction="decode",
        scalar_map=[[0, "0x80000000"]],
    )
    assert array_bits(back(np.array([0], np.int8)), bit_format("float32")) == [minus]


def test_scalar_map_hex_scalars_are_bit_patterns() -> None:
    float32 = bit_format("float32")
    cast = Cast(float32, bit_format("int16"), scalar_map=[["0x3f800000", 11], ["0x40490fdb", 22]])
    pi = 0x40490FDB
    assert cast(to_array([0x3F800000, pi], float32)).tolist() == [11, 22]
    out = Cast(bit_format("int16"), float32, scalar_map=[[3, "0x40490fdb"], [4, "-Infinity"]])
    assert array_bits(out(np.array([3, 4, 5], np.int16)), float32) == [pi, 0xFF800000, 0x40A00000]


@pytest.mark.parametrize(
    ("source", "target", "direction", "pair"),
    [
        # Outputs the output type cannot hold.
        ("int32", "int8", "encode", [1, 300]),
        ("int32", "uint8", "encode", [1, -1]),
        ("int32", "int8", "encode", [1, 1.5]),
        ("float32", "int8", "encode", [1, "NaN"]),
        ("float32", "int16", "encode", [1, "Infinity"]),
        ("float32", "float16", "encode", [1, 1e10]),
        ("float32", "float8_e4m3fnuz", "encode", [1, "Infinity"]),
        ("float32", "float4_e2m1fn", "encode", [1, "NaN"]),
        ("float32", "float8_e8m0fnu", "encode", [1, 0]),
        ("float32", "float8_e8m0fnu", "encode", [1, -2]),
        ("float32", "float16", "encode", [1, "0x7e"]),
        ("int8", "float16", "decode", [1, 1e10]),
        ("int8", "uint8", "decode", [1, 256]),
        ("float32", "int8", "decode", [1.0, "NaN"]),
        # Inputs the input type cannot hold.
        ("int32", "int8", "encode", [1.5, 1]),
        ("int32", "int8", "encode", ["NaN", 1]),
        ("uint8", "int8", "encode", [-1, 1]),
        ("int8", "float32", "decode", [300, 1.0]),
        ("float16", "int8", "encode", [1e10, 1]),
    ],
)
def test_scalar_map_scalars_must_fit_their_types(
    source: str, target: str, direction: str, pair: list[Any]
) -> None:
    # At construction (the codec's own type) or at first use (the array's type).
    needs_ml_dtypes(source, target)
    cast = Cast(bit_format(source), bit_format(target), direction=direction, scalar_map=[pair])
    with pytest.raises(ConfigurationError):
        cast(to_array([0], bit_format(source)))


@pytest.mark.parametrize("source", ["float64", "float32", "float16", "bfloat16"])
def test_scalar_map_number_keys_match_exactly(source: str) -> None:
    # Every finite edge value (subnormals, the largest, ties) as a JSON number key, each
    # mapped to its position: the parsed keys must be exactly these values.
    needs_ml_dtypes(source)
    s = bit_format(source)
    bits = [b for b in edge_bits(source, "int16") if is_finite(decode_bits(b, s))]
    pairs = [[value_to_json(decode_bits(b, s), s, False), i] for i, b in enumerate(bits)]
    check(Cast(s, bit_format("int16"), scalar_map=pairs), bits)


def map_pairs(source: str, target: str) -> st.SearchStrategy[list[list[Any]]]:
    """Up to four [input, output] pairs in fill-value JSON, keys often repeated."""
    s, t = bit_format(source), bit_format(target)
    keys = [decode_bits(b, s) for b in edge_bits(source, target)]
    outputs = [decode_bits(b, t) for b in edge_bits(target, source)]
    pair = st.tuples(st.sampled_from(keys), st.sampled_from(outputs), st.booleans())
    return st.lists(pair, min_size=1, max_size=4).map(
        lambda pairs: [[value_to_json(k, s, h), value_to_json(o, t, h)] for k, o, h in pairs]
    )


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_scalar_maps_match_reference(data: st.DataObject) -> None:
    types = CORE if HAVE_ML_DTYPES else CORE[:-1]
    source, target = data.draw(st.sampled_from(types)), data.draw(st.sampled_from(types))
    direction = data.draw(st.sampled_from(DIRECTIONS))
    options = out_of_range_options(source, target, direction)
    pairs = data.draw(map_pairs(source, target))
    cast = Cast(
        bit_format(source),
        bit_format(target),
        data.draw(st.sampled_from(ROUNDING_MODES)),
        data.draw(st.sampled_from(options)),
        direction,
        pairs,
    )
    keys = [encode(value_from_json(k, cast.source), cast.source) for k, _ in pairs]
    check(cast, keys + data.draw(st.lists(element_bits(source, target), max_size=20)))


def test_spec_numpy_example_encodes() -> None:
    codec = CastValue(
        "uint8",
        "towards-zero",
        "wrap",
        {"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]},
    )
    array = np.array([np.nan, np.inf, -np.inf, 3.9, -1.5, 257.0, 1e300])
    want = [0, 0, 0, 3, 255, 1, 0]  # as numpy: truncation, then modulo 256
    assert codec.encode(array, ChunkSpec(array.shape, "float64")).tolist() == want


def test_spec_numpy_example_decodes() -> None:
    # Every uint8 value is a float64: decoding cannot fail, whatever out_of_range says.
    codec = CastValue("uint8", "towards-zero", "wrap")
    encoded = np.arange(256, dtype=np.uint8)
    decoded = codec.decode(encoded, ChunkSpec(encoded.shape, "float64"))
    assert decoded.tolist() == list(range(256))


def test_wrap_needs_an_integer_data_type() -> None:
    for name in ("float16", "float32", "float64"):
        with pytest.raises(ConfigurationError):
            CastValue(name, out_of_range="wrap")


# -- 5: layouts, byte order, decode_into, batches ------------------------------------------

VIEWS: list[tuple[str, Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]]] = [
    ("C", lambda a: a),
    ("F", np.asfortranarray),
    ("rows", lambda a: a[::2]),
    ("columns", lambda a: a[:, ::3]),
    ("T", lambda a: a.T),
    ("reversed", lambda a: a[::-1, ::-2]),
    ("0-d", lambda a: a[2, 3, ...]),
    ("empty", lambda a: a[:, :0]),
    ("3-d", lambda a: a.reshape(2, 3, 8)[:, ::-1].transpose(2, 0, 1)),
]
LAYOUT_PAIRS = [
    ("float64", "int16"),
    ("int32", "float16"),
    ("float32", "bfloat16"),
    ("uint64", "float32"),
    ("float16", "int8"),
    ("int64", "float64"),
]


def byte_swapped(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The same values in the other byte order."""
    return array.astype(array.dtype.newbyteorder(">" if np.little_endian else "<"))


def layout_input(cast: Cast) -> np.ndarray[Any, Any]:
    """A 6 x 8 array of edge values that all cast without error."""
    edges = edge_bits(cast.source.name, cast.target.name)
    bits = [b for b, e in zip(edges, cast.expected(edges), strict=True) if e is not None]
    bits = (bits * 48)[:: max(1, len(bits) // 48)][:48]
    return to_array(bits, cast.source).reshape(6, 8)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize(("source", "target"), LAYOUT_PAIRS)
def test_any_layout_and_byte_order_gives_the_same_result(
    source: str, target: str, direction: str
) -> None:
    needs_ml_dtypes(source, target)
    cast = Cast(bit_format(source), bit_format(target), "nearest-even", "clamp", direction)
    array = layout_input(cast)
    check(cast, array_bits(array, cast.source))
    want = cast(array)
    swapped = byte_swapped(array)
    for name, view in VIEWS:
        for order, data in (("native", array), ("swapped", swapped)):
            got = cast(view(data))
            expected = view(want)
            assert got.dtype == cast.target.dtype and got.shape == expected.shape, (name, order)
            assert array_bits(got, cast.target) == array_bits(expected, cast.target), (name, order)


def test_decode_into_writes_the_callers_array() -> None:
    codec = CastValue("int16", "towards-negative", "clamp")
    spec = ChunkSpec((6, 8), "float64")
    encoded = codec.encode(np.linspace(-4e4, 4e4, 48).reshape(6, 8), spec)
    want = codec.decode(encoded, spec)
    check(
        Cast(bit_format("int16"), bit_format("float64"), "towards-negative", "clamp", "decode"),
        array_bits(encoded, bit_format("int16")),
    )
    outs = {
        "C": np.full((6, 8), np.nan),
        "F": np.full((6, 8), np.nan, order="F"),
        "strided": np.full((6, 16), np.nan)[:, ::2],
    }
    for name, out in outs.items():
        codec.decode_into(encoded, out, spec)
        assert np.array_equal(out, want), name
    # From a strided, byte-swapped encoded array too.
    swapped = np.asfortranarray(byte_swapped(encoded))
    out = np.empty((6, 8))
    codec.decode_into(swapped, out, spec)
    assert np.array_equal(out, want)


def test_decode_into_a_byte_swapped_array() -> None:
    codec = CastValue("int16")
    spec = ChunkSpec((4,), "float64")
    encoded = np.array([-2, 0, 1, 300], np.int16)
    out = byte_swapped(np.zeros(4))
    codec.decode_into(encoded, out, spec)
    assert out.tolist() == [-2.0, 0.0, 1.0, 300.0]


def test_decode_into_raises_for_a_refused_element() -> None:
    codec = CastValue("int16")
    with pytest.raises(OutOfRangeError):
        codec.decode_into(
            np.array([1, -1], np.int16), np.empty(2, np.uint8), ChunkSpec((2,), "uint8")
        )


@pytest.mark.parametrize(("source", "target"), LAYOUT_PAIRS)
def test_batches_equal_chunk_by_chunk(source: str, target: str) -> None:
    needs_ml_dtypes(source, target)
    codec = CastValue(target, "nearest-away", "clamp")
    array = layout_input(Cast(bit_format(source), bit_format(target), "nearest-away", "clamp"))
    chunks = [array, array.T, array[::2, 1:], array[0, 0, ...], array[:0], byte_swapped(array)]
    spec = ChunkSpec(array.shape, source)  # the batch methods read the data type only
    encoded = codec.encode_batch(chunks, spec, threads=2)
    for chunk, got in zip(chunks, encoded, strict=True):
        assert_same_array(got, codec.encode(chunk, spec), bit_format(target))
    # Decoding: target elements that all decode without error.
    back = layout_input(
        Cast(bit_format(target), bit_format(source), "nearest-away", "clamp", "decode")
    )
    chunks = [back, back.T, back[::2, 1:], back[0, 0, ...], back[:0], byte_swapped(back)]
    decoded = codec.decode_batch(chunks, spec, threads=2)
    for chunk, got in zip(chunks, decoded, strict=True):
        assert_same_array(got, codec.decode(chunk, spec), bit_format(source))


def test_a_refused_element_fails_the_whole_batch() -> None:
    codec = CastValue("int8")
    spec = ChunkSpec((3,), "float32")
    good = np.array([1.0, -2.0, 3.0], np.float32)
    for bad in (np.float32(np.nan), np.float32(128.0)):
        chunks = [good, good.copy(), good.copy()]
        chunks[1][1] = bad
        with pytest.raises(OutOfRangeError):
            codec.encode_batch(chunks, spec, threads=2)
    with pytest.raises(OutOfRangeError):
        CastValue("int16").decode_batch([np.array([300], np.int16)], ChunkSpec((1,), "int8"))


def assert_same_array(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any], t: BitFormat) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    assert array_bits(got, t) == array_bits(want, t)
