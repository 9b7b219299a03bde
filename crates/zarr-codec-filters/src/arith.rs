//! Adjacent differences and running sums over native-endian elements of one data type, with
//! numpy's arithmetic: integers wrap modulo 2^N, floats round each operation in their own
//! precision (float16 through `f32`, as numpy does), both sequentially, first to last.

use zarr_codec_shapes::DataType;

use crate::float16;

/// An element type numpy adds and subtracts in, over its native-endian bytes.
trait Word: Copy {
    type Bytes: Copy;
    /// `bytes` as whole elements (a trailing partial element is left out).
    fn split(bytes: &[u8]) -> &[Self::Bytes];
    fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes];
    fn load(bytes: Self::Bytes) -> Self;
    fn store(self) -> Self::Bytes;
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
}

macro_rules! word {
    ($word:ty, $size:expr, |$a:ident, $b:ident| $add:expr, |$c:ident, $d:ident| $sub:expr) => {
        impl Word for $word {
            type Bytes = [u8; $size];
            #[inline(always)]
            fn split(bytes: &[u8]) -> &[Self::Bytes] {
                bytes.as_chunks::<$size>().0
            }
            #[inline(always)]
            fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes] {
                bytes.as_chunks_mut::<$size>().0
            }
            #[inline(always)]
            fn load(bytes: Self::Bytes) -> Self {
                <$word>::from_ne_bytes(bytes)
            }
            #[inline(always)]
            fn store(self) -> Self::Bytes {
                self.to_ne_bytes()
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                let ($a, $b) = (self, other);
                $add
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                let ($c, $d) = (self, other);
                $sub
            }
        }
    };
}

word!(u8, 1, |a, b| a.wrapping_add(b), |a, b| a.wrapping_sub(b));
word!(u16, 2, |a, b| a.wrapping_add(b), |a, b| a.wrapping_sub(b));
word!(u32, 4, |a, b| a.wrapping_add(b), |a, b| a.wrapping_sub(b));
word!(u64, 8, |a, b| a.wrapping_add(b), |a, b| a.wrapping_sub(b));
word!(f32, 4, |a, b| a + b, |a, b| a - b);
word!(f64, 8, |a, b| a + b, |a, b| a - b);

/// A float16 element, computed in `f32` as numpy does.
#[derive(Clone, Copy)]
struct Half(u16);

impl Word for Half {
    type Bytes = [u8; 2];
    fn split(bytes: &[u8]) -> &[Self::Bytes] {
        bytes.as_chunks::<2>().0
    }
    fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes] {
        bytes.as_chunks_mut::<2>().0
    }
    fn load(bytes: Self::Bytes) -> Self {
        Self(u16::from_ne_bytes(bytes))
    }
    fn store(self) -> Self::Bytes {
        self.0.to_ne_bytes()
    }
    fn add(self, other: Self) -> Self {
        Self(float16::apply(self.0, other.0, |a, b| a + b))
    }
    fn sub(self, other: Self) -> Self {
        Self(float16::apply(self.0, other.0, |a, b| a - b))
    }
}

/// A bool element: numpy subtracts bools with `not_equal` (`np.diff`) and adds them with
/// `logical_or` (its `add` loop for bools).
#[derive(Clone, Copy)]
struct Flag(bool);

impl Word for Flag {
    type Bytes = [u8; 1];
    fn split(bytes: &[u8]) -> &[Self::Bytes] {
        bytes.as_chunks::<1>().0
    }
    fn split_mut(bytes: &mut [u8]) -> &mut [Self::Bytes] {
        bytes.as_chunks_mut::<1>().0
    }
    fn load(bytes: Self::Bytes) -> Self {
        Self(bytes[0] != 0)
    }
    fn store(self) -> Self::Bytes {
        [u8::from(self.0)]
    }
    fn add(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
    fn sub(self, other: Self) -> Self {
        Self(self.0 != other.0)
    }
}

/// Whether [`diff`] and [`cumsum`] compute in `data_type`: bool, integers of 1 to 8 bytes and
/// float16/32/64.
pub fn supports(data_type: DataType) -> bool {
    data_type == DataType::Bool
        || (data_type.is_integer() && data_type.numpy_str().is_some())
        || matches!(
            data_type,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        )
}

macro_rules! dispatch {
    ($data_type:expr, $function:ident ( $($arg:expr),* )) => {
        match $data_type {
            DataType::Bool => $function::<Flag>($($arg),*),
            DataType::Float16 => $function::<Half>($($arg),*),
            DataType::Float32 => $function::<f32>($($arg),*),
            DataType::Float64 => $function::<f64>($($arg),*),
            other => match other.size() {
                1 => $function::<u8>($($arg),*),
                2 => $function::<u16>($($arg),*),
                4 => $function::<u32>($($arg),*),
                _ => $function::<u64>($($arg),*),
            },
        }
    };
}

/// `output[0] = input[0]`, then `output[i] = input[i] - input[i - 1]`, in `data_type`
/// (one of [`supports`]); both hold the same whole number of elements.
pub fn diff(data_type: DataType, input: &[u8], output: &mut [u8]) {
    // Twice the lanes with AVX2 where the CPU has it; each difference is the same operation on
    // the same two elements, so the same result.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { diff_avx2(data_type, input, output) };
        return;
    }
    diff_typed(data_type, input, output);
}

/// [`diff`] into an integer type no wider than `from`'s, as numpy casts the differences (each
/// to its low bytes) but in one pass: subtraction wraps, so the low bytes of a difference are
/// the difference of the low bytes. Returns `false`, with nothing written, unless both types
/// are integers and `to` is no wider; both hold the same number of elements, native-endian.
pub fn diff_narrowing(from: DataType, to: DataType, input: &[u8], output: &mut [u8]) -> bool {
    if !(from.is_integer() && to.is_integer() && to.size() <= from.size()) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { diff_narrowing_avx2(from.size(), to.size(), input, output) };
    }
    diff_narrowing_sized(from.size(), to.size(), input, output)
}

/// The differences of `$from` elements as `$to` (its low bytes), in one loop.
macro_rules! diff_narrow {
    ($input:expr, $output:expr, $from:ty => $to:ty) => {{
        const FROM: usize = std::mem::size_of::<$from>();
        const TO: usize = std::mem::size_of::<$to>();
        let (values, _) = $input.as_chunks::<FROM>();
        let (results, _) = $output.as_chunks_mut::<TO>();
        #[allow(clippy::cast_possible_truncation)] // numpy's integer cast: the low bytes
        let low = |x: &[u8; FROM]| <$from>::from_ne_bytes(*x) as $to;
        if let (Some(first), Some(target)) = (values.first(), results.first_mut()) {
            *target = low(first).to_ne_bytes();
        }
        let after = values.get(1..).unwrap_or_default();
        for ((before, after), out) in values.iter().zip(after).zip(results.iter_mut().skip(1)) {
            *out = low(after).wrapping_sub(low(before)).to_ne_bytes();
        }
        true
    }};
}

/// [`diff_narrowing`] by element sizes, inlined into each caller (see [`diff_typed`]).
#[inline(always)]
#[allow(clippy::inline_always)] // the point: the AVX2 copy must hold its own loops
fn diff_narrowing_sized(from: usize, to: usize, input: &[u8], output: &mut [u8]) -> bool {
    match (from, to) {
        (8, 8) => diff_narrow!(input, output, u64 => u64),
        (8, 4) => diff_narrow!(input, output, u64 => u32),
        (8, 2) => diff_narrow!(input, output, u64 => u16),
        (8, 1) => diff_narrow!(input, output, u64 => u8),
        (4, 4) => diff_narrow!(input, output, u32 => u32),
        (4, 2) => diff_narrow!(input, output, u32 => u16),
        (4, 1) => diff_narrow!(input, output, u32 => u8),
        (2, 2) => diff_narrow!(input, output, u16 => u16),
        (2, 1) => diff_narrow!(input, output, u16 => u8),
        (1, 1) => diff_narrow!(input, output, u8 => u8),
        _ => false,
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn diff_narrowing_avx2(from: usize, to: usize, input: &[u8], output: &mut [u8]) -> bool {
    diff_narrowing_sized(from, to, input, output)
}

/// [`diff`]'s loops, inlined into each caller so that they are compiled for its features.
#[inline(always)]
#[allow(clippy::inline_always)] // the point: the AVX2 copy must hold its own loops
fn diff_typed(data_type: DataType, input: &[u8], output: &mut [u8]) {
    dispatch!(data_type, diff_words(input, output));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn diff_avx2(data_type: DataType, input: &[u8], output: &mut [u8]) {
    diff_typed(data_type, input, output);
}

/// Each element replaced by the sum of it and all before it, in `data_type` (one of
/// [`supports`]), added first to last.
pub fn cumsum(data_type: DataType, data: &mut [u8]) {
    // Integer sums wrap, so they may be reassociated: four 32-bit lanes at a time. Float sums
    // may not (each rounding depends on the order): first to last, one at a time.
    if data_type.is_integer() && data_type.size() == 4 {
        let groups = data.len() / 16;
        let at = data.as_mut_ptr();
        // SAFETY: `at` is valid for reads and writes of the `16 * groups` bytes of `data`,
        // borrowed mutably here; reading and writing the same place is allowed.
        let done = unsafe { prefix_sums_u32(at, at, groups) };
        cumsum_words::<u32>(&mut data[done.saturating_sub(4)..]);
        return;
    }
    dispatch!(data_type, cumsum_words(data));
}

/// [`cumsum`] of `input` into `output` (the same length) in one pass where it can.
pub fn cumsum_into(data_type: DataType, input: &[u8], output: &mut [u8]) {
    if !(data_type.is_integer() && data_type.size() == 4) || input.len() != output.len() {
        output.copy_from_slice(input);
        cumsum(data_type, output);
        return;
    }
    let groups = input.len() / 16;
    // SAFETY: `input` is valid for reads and `output` (borrowed mutably, so apart from
    // `input`) for writes of their `16 * groups` bytes.
    let done = unsafe { prefix_sums_u32(input.as_ptr(), output.as_mut_ptr(), groups) };
    output[done..].copy_from_slice(&input[done..]);
    cumsum_words::<u32>(&mut output[done.saturating_sub(4)..]);
}

/// Running sums (wrapping) of `groups` whole groups of four native-endian `u32` read from
/// `from` and written to `to`, eight at a time with AVX2 where the CPU has it, else four with
/// SSE2 (x86-64's baseline). Returns the bytes done; the last element done holds the running
/// sum, so the caller continues from it. Integer sums wrap, so any grouping gives the same sums.
///
/// # Safety
///
/// `from` must be valid for reads and `to` for writes of `16 * groups` bytes; they may be the
/// same place (each group is read before it is written) but must not overlap otherwise.
#[cfg(target_arch = "x86_64")]
unsafe fn prefix_sums_u32(from: *const u8, to: *mut u8, groups: usize) -> usize {
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above); the caller's contract is this one's.
        let done = unsafe { prefix_sums_u32_avx2(from, to, groups / 2) };
        if groups.is_multiple_of(2) {
            return done;
        }
        // The odd group last, carrying on from the sum just written. SAFETY: as above, for the
        // group after the `done` bytes; the sum is the 4 bytes before them, written above.
        unsafe {
            let before = match done.checked_sub(4) {
                Some(at) => u32::from_ne_bytes(*to.add(at).cast::<[u8; 4]>()),
                None => 0,
            };
            prefix_sums_u32_sse2(from.add(done), to.add(done), 1, before);
        }
        return 16 * groups;
    }
    // SAFETY: the caller's contract is this one's.
    unsafe { prefix_sums_u32_sse2(from, to, groups, 0) }
}

/// [`prefix_sums_u32`] with SSE2, four at a time, `start` added to every sum: two shifted adds
/// make each group's own prefix sums, and the sum of the groups before, broadcast, is added.
///
/// # Safety
///
/// As [`prefix_sums_u32`].
#[cfg(target_arch = "x86_64")]
unsafe fn prefix_sums_u32_sse2(from: *const u8, to: *mut u8, groups: usize, start: u32) -> usize {
    use std::arch::x86_64::{
        _mm_add_epi32, _mm_loadu_si128, _mm_set1_epi32, _mm_shuffle_epi32, _mm_slli_si128,
        _mm_storeu_si128,
    };
    // SAFETY: SSE2 is part of every x86-64 target; this works on registers only. The cast
    // keeps the bits (the sums wrap either way).
    #[allow(clippy::cast_possible_wrap)]
    let mut carry = unsafe { _mm_set1_epi32(start as i32) };
    for group in 0..groups {
        // SAFETY: the caller's contract covers these 16 bytes of each side (unaligned access
        // allowed); SSE2 is part of every x86-64 target.
        unsafe {
            let mut sums = _mm_loadu_si128(from.add(16 * group).cast());
            sums = _mm_add_epi32(sums, _mm_slli_si128::<4>(sums));
            sums = _mm_add_epi32(sums, _mm_slli_si128::<8>(sums));
            // The group's total joins the carry apart from its sums, so that the chain from
            // one group to the next is one add (not an add and a shuffle).
            let total = _mm_shuffle_epi32::<0xff>(sums);
            _mm_storeu_si128(to.add(16 * group).cast(), _mm_add_epi32(sums, carry));
            carry = _mm_add_epi32(carry, total);
        }
    }
    16 * groups
}

/// [`prefix_sums_u32`] with AVX2, eight at a time (`pairs` pairs of groups): each 128-bit half
/// makes its own four sums as SSE2 does, the low half's total is added to the high half, and
/// the carry chain stays one add per eight elements.
///
/// # Safety
///
/// As [`prefix_sums_u32`] for `2 * pairs` groups, and the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn prefix_sums_u32_avx2(from: *const u8, to: *mut u8, pairs: usize) -> usize {
    use std::arch::x86_64::{
        _mm256_add_epi32, _mm256_loadu_si256, _mm256_permute2x128_si256, _mm256_setzero_si256,
        _mm256_shuffle_epi32, _mm256_slli_si256, _mm256_storeu_si256,
    };
    let mut carry = _mm256_setzero_si256();
    for pair in 0..pairs {
        // SAFETY: the caller's contract covers these 32 bytes of each side (unaligned access
        // allowed).
        unsafe {
            let mut sums = _mm256_loadu_si256(from.add(32 * pair).cast());
            sums = _mm256_add_epi32(sums, _mm256_slli_si256::<4>(sums));
            sums = _mm256_add_epi32(sums, _mm256_slli_si256::<8>(sums));
            // Each half's total in all its lanes; the low half's moved to the high half (the
            // low half zeroed: 0x08), then both halves' totals in every lane (0x11).
            let totals = _mm256_shuffle_epi32::<0xff>(sums);
            sums = _mm256_add_epi32(sums, _mm256_permute2x128_si256::<0x08>(totals, totals));
            let total = _mm256_shuffle_epi32::<0xff>(sums);
            let total = _mm256_permute2x128_si256::<0x11>(total, total);
            _mm256_storeu_si256(to.add(32 * pair).cast(), _mm256_add_epi32(sums, carry));
            carry = _mm256_add_epi32(carry, total);
        }
    }
    32 * pairs
}

/// No vector path elsewhere: [`cumsum_words`] does all.
///
/// # Safety
///
/// None needed (the x86-64 version's contract, unused).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn prefix_sums_u32(_: *const u8, _: *mut u8, _: usize) -> usize {
    0
}

#[inline(always)]
#[allow(clippy::inline_always)] // see diff_typed
fn diff_words<W: Word>(input: &[u8], output: &mut [u8]) {
    let (values, results) = (W::split(input), W::split_mut(output));
    let (Some(&first), Some((target, rest))) = (values.first(), results.split_first_mut()) else {
        return;
    };
    *target = first;
    for ((before, after), out) in values.iter().zip(&values[1..]).zip(rest) {
        *out = W::load(*after).sub(W::load(*before)).store();
    }
}

fn cumsum_words<W: Word>(data: &mut [u8]) {
    let Some((first, rest)) = W::split_mut(data).split_first_mut() else {
        return;
    };
    let mut sum = W::load(*first);
    for element in rest {
        sum = sum.add(W::load(*element));
        *element = sum.store();
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    fn bytes<const N: usize, T: Copy>(values: &[T], to: fn(T) -> [u8; N]) -> Vec<u8> {
        values.iter().flat_map(|&v| to(v)).collect()
    }

    /// Both vector paths (SSE2 always, AVX2 where the CPU has it) against the scalar sums,
    /// every length around their groups' edges, sums that wrap, in place and into a buffer.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn each_vector_path_gives_the_scalar_sums() {
        for count in 0..80u32 {
            let values: Vec<u32> = (0..count).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
            let input = bytes(&values, u32::to_ne_bytes);
            let mut expected = input.clone();
            cumsum_words::<u32>(&mut expected);
            let groups = input.len() / 16;
            let mut sse2 = input.clone();
            // SAFETY: `sse2` holds `16 * groups` bytes at least; in place is allowed.
            let done = unsafe { prefix_sums_u32_sse2(sse2.as_ptr(), sse2.as_mut_ptr(), groups, 0) };
            assert_eq!(sse2[..done], expected[..done], "{count}");
            if std::arch::is_x86_feature_detected!("avx2") {
                let mut avx2 = vec![0u8; input.len()];
                // SAFETY: the CPU has AVX2; both hold `32 * (groups / 2)` bytes at least.
                let done =
                    unsafe { prefix_sums_u32_avx2(input.as_ptr(), avx2.as_mut_ptr(), groups / 2) };
                assert_eq!(avx2[..done], expected[..done], "{count}");
            }
        }
    }

    #[test]
    fn running_sums_into_a_buffer_are_the_sums_in_place() {
        // Every length around the vector groups' edges, sums that wrap included.
        for count in 0..70u32 {
            let values: Vec<u32> = (0..count).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
            let input = bytes(&values, u32::to_ne_bytes);
            let mut expected = input.clone();
            cumsum_words::<u32>(&mut expected);
            let mut in_place = input.clone();
            cumsum(DataType::Int32, &mut in_place);
            let mut into = vec![0u8; input.len()];
            cumsum_into(DataType::UInt32, &input, &mut into);
            assert_eq!((&in_place, &into), (&expected, &expected), "{count}");
        }
    }

    #[test]
    fn narrowing_differences_are_the_differences_cast() {
        let values: Vec<i32> = (0..1000)
            .map(|i: i32| i.wrapping_mul(0x2f6b_6a35) >> 3)
            .collect();
        let input = bytes(&values, i32::to_ne_bytes);
        let mut wide = vec![0u8; input.len()];
        diff(DataType::Int32, &input, &mut wide);
        let (cast, _) = wide.as_chunks::<4>();
        #[allow(clippy::cast_possible_truncation)] // numpy's cast: the low bytes
        let expected: Vec<u8> = cast
            .iter()
            .flat_map(|x| (i32::from_ne_bytes(*x) as i16).to_ne_bytes())
            .collect();
        let mut narrow = vec![0u8; values.len() * 2];
        assert!(diff_narrowing(
            DataType::Int32,
            DataType::UInt16,
            &input,
            &mut narrow
        ));
        assert_eq!(narrow, expected);
        assert!(!diff_narrowing(
            DataType::Int16,
            DataType::Int32,
            &narrow,
            &mut wide
        ));
        assert!(!diff_narrowing(
            DataType::Float32,
            DataType::Int16,
            &input,
            &mut narrow
        ));
    }

    #[test]
    fn integers_wrap_both_ways() {
        let input = bytes(&[250u8, 4, 10], u8::to_ne_bytes);
        let mut output = vec![0; 3];
        diff(DataType::UInt8, &input, &mut output);
        assert_eq!(output, [250, 10, 6]);
        cumsum(DataType::UInt8, &mut output);
        assert_eq!(output, input);
        let input = bytes(&[i64::MAX, i64::MIN, -1], i64::to_ne_bytes);
        let mut output = vec![0; 24];
        diff(DataType::Int64, &input, &mut output);
        cumsum(DataType::Int64, &mut output);
        assert_eq!(output, input);
    }

    #[test]
    fn floats_keep_the_first_element_and_signed_zero() {
        let input = bytes(&[-0.0f32, 1.5, f32::NAN], f32::to_ne_bytes);
        let mut output = vec![0; 12];
        diff(DataType::Float32, &input, &mut output);
        assert_eq!(&output[..4], &(-0.0f32).to_ne_bytes());
        cumsum(DataType::Float32, &mut output);
        assert_eq!(&output[..8], &input[..8]);
    }

    #[test]
    fn vector_sums_match_one_at_a_time_for_every_length() {
        for count in 0..70u32 {
            let values: Vec<u32> = (0..count).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
            let mut data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
            cumsum(DataType::Int32, &mut data);
            let mut sum = 0u32;
            let expected: Vec<u8> = values
                .iter()
                .flat_map(|&v| {
                    sum = sum.wrapping_add(v);
                    sum.to_ne_bytes()
                })
                .collect();
            assert_eq!(data, expected, "{count}");
        }
    }

    #[test]
    fn empty_and_single_elements() {
        diff(DataType::Float16, &[], &mut []);
        cumsum(DataType::Int32, &mut []);
        let mut output = [0u8; 2];
        diff(DataType::Float16, &[0x00, 0x3c], &mut output);
        assert_eq!(output, [0x00, 0x3c]);
    }
}
