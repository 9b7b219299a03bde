// The array codecs `cast_value` and `scale_offset`, one element at a time, for the GPU.
//
// This file is compiled twice:
// - by NVRTC (through CuPy) for the device, with a prefix of `#define`s that names one plan
//   (`ZC_PLAN_*`, written by `zarr_codecs.gpu.kernels`), so that every branch on the plan folds
//   away; `--fmad=false` keeps every float operation rounded on its own, as on the CPU;
// - by the host C++ compiler for the tests (`ZC_HOST`), where the plan is a run-time argument,
//   so that one build checks every pair of types and every mode against the Rust codecs.
//
// It mirrors the Rust crates `zarr-codec-cast-value` (numeric.rs, round.rs) and
// `zarr-codec-scale-offset` (lib.rs) step by step; any change there must be made here too (the
// host tests compare the two bit for bit over the CPU reference tests' edge values).
//
// Elements are little-endian, `size` bytes each (sub-byte types take a byte). A refused element
// does not stop the kernel: its index goes to `failed` (the smallest index wins) and the caller
// asks the CPU codec about that element for the exact exception.

typedef unsigned long long zc_u64;
typedef long long zc_i64;
typedef unsigned int zc_u32;

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define ZC_FN __device__ __forceinline__
#define ZC_DEVICE 1
#else
#define ZC_FN static inline
#include <math.h>
#endif

// Plan constants (the same numbers as `zarr_codecs.gpu.kernels`).
#define ZC_INT 0
#define ZC_FLOAT 1
#define ZC_IEEE 0
#define ZC_FNUZ 1
#define ZC_FN_ 2
#define ZC_FNU 3
#define ZC_NEAREST_EVEN 0
#define ZC_TOWARDS_ZERO 1
#define ZC_TOWARDS_POSITIVE 2
#define ZC_TOWARDS_NEGATIVE 3
#define ZC_NEAREST_AWAY 4
#define ZC_OOR_ERROR 0
#define ZC_OOR_CLAMP 1
#define ZC_OOR_WRAP 2
#define ZC_SCALAR_FINITE 0
#define ZC_SCALAR_INFINITY 1
#define ZC_SCALAR_NAN 2

// A data type: an integer of `bits` bits, or a float format.
struct ZcType {
    int kind;      // ZC_INT or ZC_FLOAT
    int size;      // bytes per element
    int bits;      // integers: value bits
    int is_signed; // integers
    int exp_bits;  // floats
    int man_bits;  // floats
    int bias;      // floats
    int encoding;  // floats: ZC_IEEE, ZC_FNUZ, ZC_FN_, ZC_FNU
};

// One direction of a `cast_value` codec for one pair of types.
struct ZcCast {
    ZcType from;
    ZcType to;
    int rounding;
    int out_of_range;
    int map_len; // entries of the scalar map: keys as source bits, outputs as target bits
};

// The exact value of one element: `±sig × 2^exp`, or infinity, or NaN.
struct ZcScalar {
    int cls;
    int negative;
    zc_u64 sig;
    int exp;
};

// ---------------------------------------------------------------------------------------------
// Bits and formats

ZC_FN zc_u64 zc_low_mask(int bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }

ZC_FN int zc_leading_zeros(zc_u64 v) {
#ifdef ZC_DEVICE
    return __clzll((zc_i64)v);
#else
    return v == 0 ? 64 : __builtin_clzll(v);
#endif
}

ZC_FN int zc_trailing_zeros(zc_u64 v) {
#ifdef ZC_DEVICE
    return v == 0 ? 64 : __ffsll((zc_i64)v) - 1;
#else
    return v == 0 ? 64 : __builtin_ctzll(v);
#endif
}

ZC_FN zc_i64 zc_sign_extend(zc_u64 raw, int bits) {
    int shift = 64 - bits;
    return ((zc_i64)(raw << shift)) >> shift;
}

// IEEE operations rounded on their own (never fused into one multiply-add).
#ifdef ZC_DEVICE
#define ZC_FSUB(a, b) __fsub_rn((a), (b))
#define ZC_FADD(a, b) __fadd_rn((a), (b))
#define ZC_FMUL(a, b) __fmul_rn((a), (b))
#define ZC_FDIV(a, b) __fdiv_rn((a), (b))
#define ZC_DSUB(a, b) __dsub_rn((a), (b))
#define ZC_DADD(a, b) __dadd_rn((a), (b))
#define ZC_DMUL(a, b) __dmul_rn((a), (b))
#define ZC_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define ZC_FSUB(a, b) ((a) - (b))
#define ZC_FADD(a, b) ((a) + (b))
#define ZC_FMUL(a, b) ((a) * (b))
#define ZC_FDIV(a, b) ((a) / (b))
#define ZC_DSUB(a, b) ((a) - (b))
#define ZC_DADD(a, b) ((a) + (b))
#define ZC_DMUL(a, b) ((a) * (b))
#define ZC_DDIV(a, b) ((a) / (b))
#endif

ZC_FN float zc_f32_of(zc_u32 bits) {
#ifdef ZC_DEVICE
    return __int_as_float((int)bits);
#else
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
#endif
}
ZC_FN zc_u32 zc_f32_bits(float f) {
#ifdef ZC_DEVICE
    return (zc_u32)__float_as_int(f);
#else
    zc_u32 bits;
    __builtin_memcpy(&bits, &f, 4);
    return bits;
#endif
}
ZC_FN double zc_f64_of(zc_u64 bits) {
#ifdef ZC_DEVICE
    return __longlong_as_double((zc_i64)bits);
#else
    double d;
    __builtin_memcpy(&d, &bits, 8);
    return d;
#endif
}
ZC_FN zc_u64 zc_f64_bits(double d) {
#ifdef ZC_DEVICE
    return (zc_u64)__double_as_longlong(d);
#else
    zc_u64 bits;
    __builtin_memcpy(&bits, &d, 8);
    return bits;
#endif
}

ZC_FN int zc_has_sign(const ZcType& t) { return t.encoding != ZC_FNU; }
ZC_FN int zc_total_bits(const ZcType& t) { return zc_has_sign(t) + t.exp_bits + t.man_bits; }
ZC_FN zc_u64 zc_sign_bit(const ZcType& t) {
    return zc_has_sign(t) ? (1ull << (zc_total_bits(t) - 1)) : 0ull;
}
ZC_FN zc_u64 zc_exp_ones(const ZcType& t) { return zc_low_mask(t.exp_bits); }
ZC_FN int zc_has_inf(const ZcType& t) { return t.encoding == ZC_IEEE; }
ZC_FN int zc_has_negative_zero(const ZcType& t) {
    return t.encoding == ZC_IEEE || t.encoding == ZC_FN_;
}
ZC_FN zc_u64 zc_max_finite_exponent(const ZcType& t) {
    return (t.encoding == ZC_IEEE || t.encoding == ZC_FNU) ? zc_exp_ones(t) - 1 : zc_exp_ones(t);
}
ZC_FN zc_u64 zc_max_finite_bits(const ZcType& t) {
    return (zc_max_finite_exponent(t) << t.man_bits) | zc_low_mask(t.man_bits);
}
ZC_FN zc_u64 zc_inf_bits(const ZcType& t) { return zc_exp_ones(t) << t.man_bits; }
// The canonical NaN; only meaningful where the format has one (not ZC_FN_).
ZC_FN zc_u64 zc_nan_bits(const ZcType& t) {
    if (t.encoding == ZC_IEEE) return (zc_exp_ones(t) << t.man_bits) | (1ull << (t.man_bits - 1));
    if (t.encoding == ZC_FNUZ) return zc_sign_bit(t);
    return zc_low_mask(zc_total_bits(t));
}
ZC_FN int zc_is_nan_bits(const ZcType& t, zc_u64 bits) {
    bits &= zc_low_mask(zc_total_bits(t));
    if (t.encoding == ZC_IEEE) return (bits & ~zc_sign_bit(t)) > zc_inf_bits(t);
    if (t.encoding == ZC_FNUZ) return bits == zc_sign_bit(t);
    if (t.encoding == ZC_FNU) return bits == zc_low_mask(zc_total_bits(t));
    return 0;
}
ZC_FN int zc_is_inf_bits(const ZcType& t, zc_u64 bits) {
    return zc_has_inf(t) && ((bits & zc_low_mask(zc_total_bits(t)) & ~zc_sign_bit(t)) == zc_inf_bits(t));
}

// ---------------------------------------------------------------------------------------------
// Decoding an element to its exact value (numeric.rs `decode`)

ZC_FN ZcScalar zc_decode(zc_u64 raw, const ZcType& t) {
    ZcScalar s;
    s.cls = ZC_SCALAR_FINITE;
    s.exp = 0;
    if (t.kind == ZC_INT) {
        if (t.is_signed) {
            zc_i64 v = zc_sign_extend(raw, t.bits);
            s.negative = v < 0;
            s.sig = v < 0 ? 0ull - (zc_u64)v : (zc_u64)v;
        } else {
            s.negative = 0;
            s.sig = raw & zc_low_mask(t.bits);
        }
        return s;
    }
    zc_u64 bits = raw & zc_low_mask(zc_total_bits(t));
    s.negative = (bits & zc_sign_bit(t)) != 0;
    if (zc_is_nan_bits(t, bits)) {
        s.cls = ZC_SCALAR_NAN;
        s.sig = 0;
        return s;
    }
    if (zc_is_inf_bits(t, bits)) {
        s.cls = ZC_SCALAR_INFINITY;
        s.sig = 0;
        return s;
    }
    zc_u64 mantissa = bits & zc_low_mask(t.man_bits);
    int biased = (int)((bits >> t.man_bits) & zc_low_mask(t.exp_bits));
    if (t.encoding == ZC_FNU) {
        s.sig = 1;
        s.exp = biased - t.bias;
    } else if (biased == 0) {
        s.sig = mantissa;
        s.exp = 1 - t.bias - t.man_bits;
    } else {
        s.sig = mantissa | (1ull << t.man_bits);
        s.exp = biased - t.bias - t.man_bits;
    }
    return s;
}

// The form in which two scalars are equal exactly when their values are (`Scalar::key`).
ZC_FN ZcScalar zc_key(ZcScalar s) {
    if (s.cls == ZC_SCALAR_NAN) {
        s.negative = 0;
        return s;
    }
    if (s.cls == ZC_SCALAR_FINITE) {
        if (s.sig == 0) {
            s.negative = 0;
            s.exp = 0;
        } else {
            int zeros = zc_trailing_zeros(s.sig);
            s.sig >>= zeros;
            s.exp += zeros;
        }
    }
    return s;
}

ZC_FN int zc_same_key(ZcScalar a, ZcScalar b) {
    if (a.cls != b.cls) return 0;
    if (a.cls == ZC_SCALAR_NAN) return 1;
    if (a.cls == ZC_SCALAR_INFINITY) return a.negative == b.negative;
    return a.negative == b.negative && a.sig == b.sig && a.exp == b.exp;
}

// ---------------------------------------------------------------------------------------------
// Rounding (round.rs `round_magnitude`), for results below 2^64

// Rounds `sig × 2^exp` to a multiple `kept` of `2^quantum`; the caller guarantees a left shift
// stays below 2^64. `odd_always`: the lower candidate counts as odd (float8_e8m0fnu).
ZC_FN zc_u64 zc_round(int negative, zc_u64 sig, int exp, int quantum, int rounding, int odd_always) {
    zc_i64 shift = (zc_i64)exp - (zc_i64)quantum;
    if (shift >= 0) return shift >= 64 ? 0ull : sig << shift;
    zc_u64 right = (zc_u64)(-shift);
    zc_u64 kept;
    int discarded; // 0 nothing, 1 below half, 2 half, 3 above half
    if (right > 64) {
        kept = 0;
        discarded = sig == 0 ? 0 : 1;
    } else {
        zc_u64 remainder, half;
        if (right == 64) {
            kept = 0;
            remainder = sig;
            half = 1ull << 63;
        } else {
            kept = sig >> right;
            remainder = sig & ((1ull << right) - 1);
            half = 1ull << (right - 1);
        }
        discarded = remainder == 0 ? 0 : (remainder < half ? 1 : (remainder == half ? 2 : 3));
    }
    int up;
    if (discarded == 0 || rounding == ZC_TOWARDS_ZERO) {
        up = 0;
    } else if (rounding == ZC_TOWARDS_POSITIVE) {
        up = !negative;
    } else if (rounding == ZC_TOWARDS_NEGATIVE) {
        up = negative;
    } else if (discarded == 1) {
        up = 0;
    } else if (discarded == 3) {
        up = 1;
    } else if (rounding == ZC_NEAREST_AWAY) {
        up = 1;
    } else {
        up = odd_always || (kept & 1ull);
    }
    return kept + (zc_u64)up;
}

// ---------------------------------------------------------------------------------------------
// Converting an exact value (numeric.rs `Rules::convert`); returns 0 when refused

ZC_FN zc_u64 zc_signed_zero(int negative, const ZcType& t) {
    return (negative && zc_has_negative_zero(t)) ? zc_sign_bit(t) : 0ull;
}

ZC_FN zc_u64 zc_clamp_float(int negative, const ZcType& t) {
    if (t.encoding == ZC_FNU) return negative ? 0ull : zc_max_finite_bits(t);
    zc_u64 magnitude = zc_has_inf(t) ? zc_inf_bits(t) : zc_max_finite_bits(t);
    return negative ? (magnitude | zc_sign_bit(t)) : magnitude;
}

// to_float: 1 with `*out` set, or 0 with `*outside_negative` saying which end was passed.
ZC_FN int zc_to_float(int negative, zc_u64 sig, int exp, const ZcType& t, int rounding,
                      zc_u64* out, int* outside_negative) {
    int fnu = t.encoding == ZC_FNU;
    if (sig == 0) {
        if (fnu) {
            *outside_negative = 1;
            return 0;
        }
        *out = zc_signed_zero(negative, t);
        return 1;
    }
    if (negative && fnu) {
        *outside_negative = 1;
        return 0;
    }
    int length = 64 - zc_leading_zeros(sig);
    int leading = exp + length - 1;
    int min_normal = 1 - t.bias;
    int quantum = fnu ? leading : (leading > min_normal ? leading : min_normal) - t.man_bits;
    zc_u64 kept = zc_round(negative, sig, exp, quantum, rounding, fnu);
    if (kept == 0) {
        *out = zc_signed_zero(negative, t);
        return 1;
    }
    zc_u64 implicit = 1ull << t.man_bits;
    if (kept >= (implicit << 1)) {
        kept >>= 1;
        quantum += 1;
    }
    zc_i64 biased;
    zc_u64 mantissa;
    if (kept >= implicit) {
        biased = (zc_i64)quantum + t.man_bits + t.bias;
        mantissa = kept - implicit;
    } else {
        biased = 0;
        mantissa = kept;
    }
    zc_i64 max_biased = (zc_i64)(zc_max_finite_bits(t) >> t.man_bits);
    if (biased > max_biased) {
        *outside_negative = negative;
        return 0;
    }
    if (fnu && biased < 0) {
        *outside_negative = 1;
        return 0;
    }
    zc_u64 magnitude = ((zc_u64)biased << t.man_bits) | mantissa;
    *out = negative ? (magnitude | zc_sign_bit(t)) : magnitude;
    return 1;
}

ZC_FN int zc_to_int(int negative, zc_u64 sig, int exp, const ZcType& t, int rounding,
                    int out_of_range, zc_u64* out) {
    // The rounded magnitude: its low 64 bits and whether it is 2^64 or more.
    zc_u64 lo;
    int over;
    if (exp >= 0) {
        int length = 64 - zc_leading_zeros(sig);
        over = sig != 0 && exp + length > 64;
        lo = exp >= 64 ? 0ull : sig << exp;
    } else {
        lo = zc_round(negative, sig, exp, 0, rounding, 0);
        over = 0;
    }
    zc_u64 max_positive = t.is_signed ? (1ull << (t.bits - 1)) - 1 : zc_low_mask(t.bits);
    int fits;
    if (over) {
        fits = 0;
    } else if (negative) {
        fits = t.is_signed ? lo <= (1ull << (t.bits - 1)) : lo == 0;
    } else {
        fits = lo <= max_positive;
    }
    zc_u64 low64 = negative ? 0ull - lo : lo;
    if (fits) {
        *out = low64;
        return 1;
    }
    if (out_of_range == ZC_OOR_CLAMP) {
        if (negative) {
            *out = t.is_signed ? (~0ull << (t.bits - 1)) : 0ull;
        } else {
            *out = max_positive;
        }
        return 1;
    }
    if (out_of_range == ZC_OOR_WRAP) {
        zc_u64 residue = low64 & zc_low_mask(t.bits);
        *out = t.is_signed ? (zc_u64)zc_sign_extend(residue, t.bits) : residue;
        return 1;
    }
    return 0;
}

ZC_FN int zc_convert(ZcScalar v, const ZcType& t, int rounding, int out_of_range, zc_u64* out) {
    if (t.kind == ZC_INT) {
        if (v.cls != ZC_SCALAR_FINITE) return 0;
        return zc_to_int(v.negative, v.sig, v.exp, t, rounding, out_of_range, out);
    }
    if (v.cls == ZC_SCALAR_NAN) {
        if (t.encoding == ZC_FN_) return 0;
        zc_u64 nan = zc_nan_bits(t);
        *out = (v.negative && t.encoding == ZC_IEEE) ? (nan | zc_sign_bit(t)) : nan;
        return 1;
    }
    if (v.cls == ZC_SCALAR_INFINITY) {
        if (!zc_has_inf(t)) return 0;
        *out = v.negative ? (zc_inf_bits(t) | zc_sign_bit(t)) : zc_inf_bits(t);
        return 1;
    }
    int outside_negative = 0;
    if (zc_to_float(v.negative, v.sig, v.exp, t, rounding, out, &outside_negative)) return 1;
    if (out_of_range == ZC_OOR_CLAMP) {
        *out = zc_clamp_float(outside_negative, t);
        return 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Fast paths: the common pairs by hardware conversions, each exact by construction where it
// answers at all; NaN, infinities, values out of range and every other pair return 0 and take
// the exact path (the host tests hold both to the Rust codecs over the same cases).

ZC_FN double zc_round_f64(double x, int rounding) {
    if (rounding == ZC_NEAREST_EVEN) return rint(x);
    if (rounding == ZC_TOWARDS_ZERO) return trunc(x);
    if (rounding == ZC_TOWARDS_POSITIVE) return ceil(x);
    if (rounding == ZC_TOWARDS_NEGATIVE) return floor(x);
    return round(x); // halves away from zero
}

ZC_FN float zc_round_f32(float x, int rounding) {
    if (rounding == ZC_NEAREST_EVEN) return rintf(x);
    if (rounding == ZC_TOWARDS_ZERO) return truncf(x);
    if (rounding == ZC_TOWARDS_POSITIVE) return ceilf(x);
    if (rounding == ZC_TOWARDS_NEGATIVE) return floorf(x);
    return roundf(x);
}

ZC_FN int zc_is_f32(const ZcType& t) {
    return t.kind == ZC_FLOAT && t.exp_bits == 8 && t.man_bits == 23;
}
ZC_FN int zc_is_f64(const ZcType& t) {
    return t.kind == ZC_FLOAT && t.exp_bits == 11 && t.man_bits == 52;
}

// The bounds [low, high) of an integer target of at most 32 bits, as powers of two (exact in
// every float type here).
ZC_FN double zc_int_low(const ZcType& t) {
    return t.is_signed ? -(double)(1ull << (t.bits - 1)) : 0.0;
}
ZC_FN double zc_int_high(const ZcType& t) {
    return (double)(1ull << (t.is_signed ? t.bits - 1 : t.bits));
}

ZC_FN int zc_cast_fast(zc_u64 raw, const ZcCast& c, zc_u64* out) {
    const ZcType& from = c.from;
    const ZcType& to = c.to;
    // An integer into float32/float64 that holds each of its values exactly.
    if (from.kind == ZC_INT && from.bits <= 32 && (zc_is_f32(to) || zc_is_f64(to))) {
        if (from.bits > to.man_bits + 1) return 0;
        zc_i64 v = from.is_signed ? zc_sign_extend(raw, from.bits) : (zc_i64)(raw & zc_low_mask(from.bits));
        *out = zc_is_f32(to) ? (zc_u64)zc_f32_bits((float)v) : zc_f64_bits((double)v);
        return 1;
    }
    // float32/float64 into an integer of at most 32 bits: round in the float type, then the
    // range check against exact powers of two.
    if (to.kind == ZC_INT && to.bits <= 32 && (zc_is_f32(from) || zc_is_f64(from))) {
        double r;
        if (zc_is_f32(from)) {
            float x = zc_f32_of((zc_u32)raw);
            if (!(x == x) || x - x != 0.0f) return 0; // NaN or infinite
            r = (double)zc_round_f32(x, c.rounding);
        } else {
            double x = zc_f64_of(raw);
            if (!(x == x) || x - x != 0.0) return 0;
            r = zc_round_f64(x, c.rounding);
        }
        if (!(r >= zc_int_low(to) && r < zc_int_high(to))) return 0;
        *out = (zc_u64)(zc_i64)r;
        return 1;
    }
    // float64 to float32, nearest-even: the IEEE conversion, when it gives a finite value (a
    // finite input that overflows is out of range: the exact path applies the rule).
    if (zc_is_f64(from) && zc_is_f32(to) && c.rounding == ZC_NEAREST_EVEN) {
        double x = zc_f64_of(raw);
        if (!(x == x)) return 0;
#ifdef ZC_DEVICE
        float y = __double2float_rn(x);
#else
        float y = (float)x;
#endif
        if (y - y != 0.0f && x - x == 0.0) return 0; // overflowed
        *out = zc_f32_bits(y);
        return 1;
    }
    // float32 to float64: exact, but for NaN payloads (the exact path's canonical NaN).
    if (zc_is_f32(from) && zc_is_f64(to)) {
        float x = zc_f32_of((zc_u32)raw);
        if (!(x == x)) return 0;
        *out = zc_f64_bits((double)x);
        return 1;
    }
    return 0;
}

// One element through a cast: the scalar map first, then the rules.
ZC_FN int zc_cast(zc_u64 raw, const ZcCast& c, const zc_u64* map_keys, const zc_u64* map_values,
                  zc_u64* out) {
    ZcScalar v = zc_decode(raw, c.from);
    if (c.map_len > 0) {
        ZcScalar key = zc_key(v);
        for (int i = 0; i < c.map_len; ++i) {
            if (zc_same_key(key, zc_key(zc_decode(map_keys[i], c.from)))) {
                *out = map_values[i];
                return 1;
            }
        }
    }
    if (zc_cast_fast(raw, c, out)) return 1;
    return zc_convert(v, c.to, c.rounding, c.out_of_range, out);
}

// ---------------------------------------------------------------------------------------------
// scale_offset (lib.rs `Affine`): integers exactly, float32 and float64 natively

// A value in (-2^64, 2^64) as a sign and a magnitude.
struct ZcWide {
    int negative;
    zc_u64 magnitude;
};

ZC_FN ZcWide zc_wide_of(zc_u64 raw, const ZcType& t) {
    ZcWide w;
    if (t.is_signed) {
        zc_i64 v = zc_sign_extend(raw, t.bits);
        w.negative = v < 0;
        w.magnitude = v < 0 ? 0ull - (zc_u64)v : (zc_u64)v;
    } else {
        w.negative = 0;
        w.magnitude = raw & zc_low_mask(t.bits);
    }
    return w;
}

ZC_FN int zc_wide_fits(ZcWide w, const ZcType& t) {
    if (w.negative && w.magnitude != 0) {
        return t.is_signed && w.magnitude <= (1ull << (t.bits - 1));
    }
    return w.magnitude <= (t.is_signed ? (1ull << (t.bits - 1)) - 1 : zc_low_mask(t.bits));
}

// a + b for a, b with magnitudes below 2^64 whose sum is known to stay below 2^64 in magnitude
// when both are values of a 64-bit type or narrower and one is negated (a difference), or
// that may overflow (then `*ok` is 0).
ZC_FN ZcWide zc_wide_add(ZcWide a, ZcWide b, int* ok) {
    ZcWide r;
    *ok = 1;
    if (a.negative == b.negative) {
        r.negative = a.negative;
        r.magnitude = a.magnitude + b.magnitude;
        if (r.magnitude < a.magnitude) *ok = 0;
    } else if (a.magnitude >= b.magnitude) {
        r.negative = a.negative;
        r.magnitude = a.magnitude - b.magnitude;
    } else {
        r.negative = b.negative;
        r.magnitude = b.magnitude - a.magnitude;
    }
    if (r.magnitude == 0) r.negative = 0;
    return r;
}

ZC_FN zc_u64 zc_mul_high(zc_u64 a, zc_u64 b) {
#ifdef ZC_DEVICE
    return __umul64hi(a, b);
#else
    return (zc_u64)(((unsigned __int128)a * b) >> 64);
#endif
}

ZC_FN zc_u64 zc_wide_bits(ZcWide w) { return w.negative ? 0ull - w.magnitude : w.magnitude; }

// Integer scale_offset of one element: 1 with `*out`, or 0 for a refused element.
ZC_FN int zc_scale_offset_int(zc_u64 raw, const ZcType& t, int encode, ZcWide offset,
                              ZcWide scale, zc_u64* out) {
    ZcWide x = zc_wide_of(raw, t);
    int ok;
    if (encode) {
        ZcWide negated = offset;
        negated.negative = offset.magnitude != 0 && !offset.negative;
        ZcWide shifted = zc_wide_add(x, negated, &ok);
        if (!ok || !zc_wide_fits(shifted, t)) return 0;
        ZcWide product;
        product.magnitude = shifted.magnitude * scale.magnitude;
        if (zc_mul_high(shifted.magnitude, scale.magnitude) != 0) return 0;
        product.negative = product.magnitude != 0 && (shifted.negative != scale.negative);
        if (!zc_wide_fits(product, t)) return 0;
        *out = zc_wide_bits(product);
        return 1;
    }
    if (x.magnitude % scale.magnitude != 0) return 0;
    ZcWide quotient;
    quotient.magnitude = x.magnitude / scale.magnitude;
    quotient.negative = quotient.magnitude != 0 && (x.negative != scale.negative);
    if (!zc_wide_fits(quotient, t)) return 0;
    ZcWide shifted = zc_wide_add(quotient, offset, &ok);
    if (!ok || !zc_wide_fits(shifted, t)) return 0;
    *out = zc_wide_bits(shifted);
    return 1;
}

// A NaN input comes out as x86 and ARM CPUs give it: the same NaN, made quiet (a GPU would
// give its canonical NaN). No other input gives NaN: offset and scale are finite, scale != 0.
ZC_FN zc_u64 zc_scale_offset_f32(zc_u64 raw, int encode, float offset, float scale) {
    zc_u32 bits = (zc_u32)raw;
    if ((bits & 0x7fffffffu) > 0x7f800000u) return bits | 0x00400000u;
    float x = zc_f32_of(bits);
    float r = encode ? ZC_FMUL(ZC_FSUB(x, offset), scale) : ZC_FADD(ZC_FDIV(x, scale), offset);
    return zc_f32_bits(r);
}

ZC_FN zc_u64 zc_scale_offset_f64(zc_u64 raw, int encode, double offset, double scale) {
    if ((raw & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return raw | 0x0008000000000000ull;
    double x = zc_f64_of(raw);
    double r = encode ? ZC_DMUL(ZC_DSUB(x, offset), scale) : ZC_DADD(ZC_DDIV(x, scale), offset);
    return zc_f64_bits(r);
}

// scale_offset of the float types the CPU computes in float64 (lib.rs `emulated` and `round`,
// float_format.rs `f64_to_bits_rounded`): each operation in float64, its result rounded to the
// format (nearest, ties to even) and read back; what the format cannot hold is refused.

ZC_FN double zc_format_to_f64(zc_u64 bits, const ZcType& t) {
    ZcScalar s = zc_decode(bits, t);
    if (s.cls == ZC_SCALAR_NAN) return zc_f64_of(0x7ff8000000000000ull);
    if (s.cls == ZC_SCALAR_INFINITY) {
        return zc_f64_of(s.negative ? 0xfff0000000000000ull : 0x7ff0000000000000ull);
    }
    double magnitude = ldexp((double)s.sig, s.exp); // exact: every value is a float64
    return s.negative ? -magnitude : magnitude;
}

ZC_FN int zc_zero_bits(int negative, const ZcType& t, zc_u64* out) {
    if (t.encoding == ZC_FNU) return 0; // float8_e8m0fnu has no zero
    *out = (t.encoding == ZC_FNUZ || !negative) ? 0ull : zc_sign_bit(t);
    return 1;
}

ZC_FN int zc_f64_to_format(double v, const ZcType& t, zc_u64* out) {
    if (v != v) {
        if (t.encoding == ZC_FN_) return 0;
        *out = zc_nan_bits(t);
        return 1;
    }
    zc_u64 raw = zc_f64_bits(v);
    int negative = (raw >> 63) != 0;
    if (v - v != 0.0) { // infinite
        if (!zc_has_inf(t)) return 0;
        *out = negative ? (zc_inf_bits(t) | zc_sign_bit(t)) : zc_inf_bits(t);
        return 1;
    }
    zc_u64 biased_exponent = (raw >> 52) & 0x7ffull;
    zc_u64 fraction = raw & ((1ull << 52) - 1);
    if (biased_exponent == 0 && fraction == 0) return zc_zero_bits(negative, t, out);
    zc_u64 sig = biased_exponent == 0 ? fraction : (fraction | (1ull << 52));
    int exp = biased_exponent == 0 ? -1074 : (int)biased_exponent - 1075;
    if (negative && !zc_has_sign(t)) return 0;
    int log2 = exp + (64 - zc_leading_zeros(sig)) - 1;
    int min_exponent = t.encoding == ZC_FNU ? -t.bias : 1 - t.bias;
    if (t.encoding == ZC_FNU && log2 < min_exponent) { // nearest is the smallest value
        *out = 0;
        return 1;
    }
    int quantum = (log2 > min_exponent ? log2 : min_exponent) - t.man_bits;
    zc_u64 rounded = zc_round(0, sig, exp, quantum, ZC_NEAREST_EVEN, 0);
    if (rounded == 0) return zc_zero_bits(negative, t, out);
    if ((rounded >> (t.man_bits + 1)) != 0) { // the rounding carried into a new leading bit
        rounded >>= 1;
        quantum += 1;
    }
    zc_u64 implicit = 1ull << t.man_bits;
    zc_i64 biased = rounded >= implicit ? (zc_i64)quantum + t.man_bits + t.bias : 0;
    zc_u64 mantissa = rounded >= implicit ? rounded - implicit : rounded;
    if (biased > (zc_i64)zc_max_finite_exponent(t)) {
        if (!zc_has_inf(t)) return 0;
        *out = negative ? (zc_inf_bits(t) | zc_sign_bit(t)) : zc_inf_bits(t);
        return 1;
    }
    zc_u64 magnitude = ((zc_u64)biased << t.man_bits) | mantissa;
    *out = negative ? (magnitude | zc_sign_bit(t)) : magnitude;
    return 1;
}

// lib.rs `round`: `v` rounded to the format and read back as float64; 0 when refused.
ZC_FN int zc_round_to_format(double v, const ZcType& t, double* rounded) {
    if (t.encoding == ZC_FNU && fabs(v) < ldexp(1.0, -t.bias)) return 0;
    zc_u64 bits;
    if (!zc_f64_to_format(v, t, &bits)) return 0;
    *rounded = zc_format_to_f64(bits, t);
    return 1;
}

ZC_FN int zc_scale_offset_emulated(zc_u64 raw, const ZcType& t, int encode, double offset,
                                   double scale, zc_u64* out) {
    double x = zc_format_to_f64(raw, t);
    double first, second;
    if (encode) {
        if (!zc_round_to_format(ZC_DSUB(x, offset), t, &first)) return 0;
        if (!zc_round_to_format(ZC_DMUL(first, scale), t, &second)) return 0;
    } else {
        if (!zc_round_to_format(ZC_DDIV(x, scale), t, &first)) return 0;
        if (!zc_round_to_format(ZC_DADD(first, offset), t, &second)) return 0;
    }
    return zc_f64_to_format(second, t, out);
}

// ---------------------------------------------------------------------------------------------
// Loading and storing elements

ZC_FN zc_u64 zc_load(const unsigned char* p, int size) {
    if (size == 1) return p[0];
    if (size == 2) return *(const unsigned short*)p;
    if (size == 4) return *(const zc_u32*)p;
    return *(const zc_u64*)p;
}

ZC_FN void zc_store(unsigned char* p, int size, zc_u64 v) {
    if (size == 1) {
        p[0] = (unsigned char)v;
    } else if (size == 2) {
        *(unsigned short*)p = (unsigned short)v;
    } else if (size == 4) {
        *(zc_u32*)p = (zc_u32)v;
    } else {
        *(zc_u64*)p = v;
    }
}

// One element of a chain step: the optional affine map (`ZC_AFFINE_*` below) around the
// optional cast. `mode`: 0 cast only, 1 scale_offset only, 2 affine then cast (encoding the
// fused pair), 3 cast then affine (decoding it).
struct ZcStep {
    int mode;
    int in_size;  // bytes per input element
    int out_size; // bytes per output element
    ZcCast cast;
    ZcType affine_type; // the scale_offset array's type
    int encode;         // scale_offset direction
    int affine_kind;    // 0 integer, 1 float32, 2 float64, 3 another float type in float64
    ZcWide int_offset;
    ZcWide int_scale;
    float f32_offset;
    float f32_scale;
    double f64_offset;
    double f64_scale;
};

ZC_FN int zc_affine(zc_u64 raw, const ZcStep& s, zc_u64* out) {
    if (s.affine_kind == 1) {
        *out = zc_scale_offset_f32(raw, s.encode, s.f32_offset, s.f32_scale);
        return 1;
    }
    if (s.affine_kind == 2) {
        *out = zc_scale_offset_f64(raw, s.encode, s.f64_offset, s.f64_scale);
        return 1;
    }
    if (s.affine_kind == 3) {
        return zc_scale_offset_emulated(raw, s.affine_type, s.encode, s.f64_offset, s.f64_scale,
                                        out);
    }
    return zc_scale_offset_int(raw, s.affine_type, s.encode, s.int_offset, s.int_scale, out);
}

ZC_FN int zc_step(zc_u64 raw, const ZcStep& s, const zc_u64* map_keys, const zc_u64* map_values,
                  zc_u64* out) {
    if (s.mode == 0) return zc_cast(raw, s.cast, map_keys, map_values, out);
    if (s.mode == 1) return zc_affine(raw, s, out);
    zc_u64 middle;
    if (s.mode == 2) {
        return zc_affine(raw, s, &middle) && zc_cast(middle, s.cast, map_keys, map_values, out);
    }
    return zc_cast(raw, s.cast, map_keys, map_values, &middle) && zc_affine(middle, s, out);
}

// ---------------------------------------------------------------------------------------------
// Entry points

#ifdef ZC_DEVICE
#ifdef ZC_PLAN_STEP
// The plan, as constants (`zarr_codecs.gpu.kernels` writes the `ZC_PLAN_*` definitions).
__constant__ zc_u64 zc_map_keys[ZC_PLAN_MAP_CAPACITY] = ZC_PLAN_MAP_KEYS;
__constant__ zc_u64 zc_map_values[ZC_PLAN_MAP_CAPACITY] = ZC_PLAN_MAP_VALUES;

// Elements a thread loads before it computes any of them: more memory requests in flight per
// thread, which the element-wise codecs (a few bytes read and written per element) need to
// come near the device's bandwidth.
#define ZC_UNROLL 4

ZC_FN void zc_run_one(const ZcStep& step, zc_u64 raw, unsigned char* output, zc_u64 i,
                      unsigned long long* failed) {
    zc_u64 result;
    if (zc_step(raw, step, zc_map_keys, zc_map_values, &result)) {
        zc_store(output + i * step.out_size, step.out_size, result);
    } else {
        atomicMin(failed, (unsigned long long)i);
    }
}

extern "C" __global__ void zc_run(const unsigned char* input, unsigned char* output,
                                  zc_u64 count, unsigned long long* failed) {
    const ZcStep step = ZC_PLAN_STEP;
    const int in_size = step.in_size;
    const zc_u64 stride = (zc_u64)blockDim.x * gridDim.x;
    zc_u64 i = (zc_u64)blockIdx.x * blockDim.x + threadIdx.x;
    // Rounds of ZC_UNROLL elements, `stride` apart (each warp's loads stay coalesced), then
    // the rest one at a time: every element once.
    for (; i + (ZC_UNROLL - 1) * stride < count; i += ZC_UNROLL * stride) {
        zc_u64 raw[ZC_UNROLL];
#pragma unroll
        for (int k = 0; k < ZC_UNROLL; ++k) raw[k] = zc_load(input + (i + k * stride) * in_size, in_size);
#pragma unroll
        for (int k = 0; k < ZC_UNROLL; ++k) zc_run_one(step, raw[k], output, i + k * stride, failed);
    }
    for (; i < count; i += stride) {
        zc_run_one(step, zc_load(input + i * in_size, in_size), output, i, failed);
    }
}
#endif

// The same steps with the plan read from device memory at run time (one build for every
// plan): what the GPU tests run over the whole matrix of types and modes, with `refused[i]`
// set for each refused element, as the host build does.
extern "C" __global__ void zc_run_dynamic(const unsigned char* input, unsigned char* output,
                                          zc_u64 count, const ZcStep* plan,
                                          const zc_u64* map_keys, const zc_u64* map_values,
                                          unsigned char* refused) {
    const ZcStep step = *plan;
    zc_u64 stride = (zc_u64)blockDim.x * gridDim.x;
    for (zc_u64 i = (zc_u64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        zc_u64 result;
        if (zc_step(zc_load(input + i * step.in_size, step.in_size), step, map_keys, map_values,
                    &result)) {
            zc_store(output + i * step.out_size, step.out_size, result);
            refused[i] = 0;
        } else {
            refused[i] = 1;
        }
    }
}
#else
// The host build for the tests: the same steps, the plan an argument; `refused[i]` is set
// for each element refused. Returns the index of the first refused element, or `count`.
extern "C" zc_u64 zc_run_host(const unsigned char* input, unsigned char* output, zc_u64 count,
                              const ZcStep* step, const zc_u64* map_keys,
                              const zc_u64* map_values, unsigned char* refused) {
    int in_size = step->in_size;
    int out_size = step->out_size;
    zc_u64 failed = count;
    for (zc_u64 i = 0; i < count; ++i) {
        zc_u64 result;
        if (zc_step(zc_load(input + i * in_size, in_size), *step, map_keys, map_values, &result)) {
            zc_store(output + i * out_size, out_size, result);
            refused[i] = 0;
        } else {
            refused[i] = 1;
            if (failed == count) failed = i;
        }
    }
    return failed;
}

#ifdef ZC_PLAN_STEP
// The host build with a plan given as the device gets it (`#define`s): checks that the
// rendering of a plan means what the run-time structure means.
static const zc_u64 zc_host_map_keys[ZC_PLAN_MAP_CAPACITY] = ZC_PLAN_MAP_KEYS;
static const zc_u64 zc_host_map_values[ZC_PLAN_MAP_CAPACITY] = ZC_PLAN_MAP_VALUES;

extern "C" zc_u64 zc_run_host_constant(const unsigned char* input, unsigned char* output,
                                       zc_u64 count, unsigned char* refused) {
    static const ZcStep step = ZC_PLAN_STEP;
    return zc_run_host(input, output, count, &step, zc_host_map_keys, zc_host_map_values,
                       refused);
}
#endif
#endif
