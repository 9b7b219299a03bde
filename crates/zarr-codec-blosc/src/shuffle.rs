//! Byte and bit shuffles of one block, laid out exactly as c-blosc 1.x lays them out, with
//! AVX2 kernels chosen at run time.
//!
//! `blosc-src` compiles c-blosc for the target's baseline, so its own shuffles are the SSE2
//! ones; numcodecs' c-blosc has AVX2. Encoding therefore shuffles each block here and hands
//! c-blosc the shuffled blocks to compress unshuffled (see `crate::preshuffle`).
//!
//! Layouts (c-blosc's `shuffle` and `bitshuffle` of one block of `len` bytes, `n = len / T`
//! elements of `T` bytes):
//! - byte shuffle: byte `j` of element `i` goes to `j * n + i`; the `len % T` trailing bytes
//!   are copied as they are;
//! - bit shuffle (only when `n % 8 == 0`, else the block is copied as it is): bit `k` of byte
//!   `j` of element `i` goes to bit `(j * 8 + k) * n + i` of the output (bits counted from the
//!   least significant of each byte); the trailing bytes are copied.
//!
//! Decoding undoes them the same way (`crate::postshuffle`).

use std::mem::MaybeUninit;

/// Whether [`shuffle`] and [`bitshuffle`] have a fast kernel for `typesize` on this CPU;
/// otherwise c-blosc's own shuffle is the one to use.
pub(crate) fn has_kernel(typesize: usize) -> bool {
    matches!(typesize, 1 | 2 | 4 | 8) && avx2::available()
}

/// Byte-shuffle one block: `dst` and `src` have the same length. Call only where
/// [`has_kernel`] says so (other sizes take the portable loop).
pub(crate) fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "shuffle: block and output differ in size"
    );
    let whole = if avx2::available() {
        match typesize {
            // SAFETY: the CPU has AVX2 (checked above).
            2 => unsafe { avx2::shuffle2(src, dst) },
            // SAFETY: as above.
            4 => unsafe { avx2::shuffle4(src, dst) },
            // SAFETY: as above.
            8 => unsafe { avx2::shuffle8(src, dst) },
            _ => 0,
        }
    } else {
        0
    };
    shuffle_portable(typesize, src, dst, whole);
}

/// The byte shuffle of elements `from..` (the kernels' tail) and of the trailing bytes.
fn shuffle_portable(typesize: usize, src: &[u8], dst: &mut [u8], from: usize) {
    let n = src.len() / typesize;
    if typesize > 1 && n > 0 {
        for (j, row) in dst.chunks_exact_mut(n).take(typesize).enumerate() {
            for (i, byte) in row.iter_mut().enumerate().skip(from) {
                *byte = src[i * typesize + j];
            }
        }
    }
    let tail = if typesize > 1 { n * typesize } else { 0 };
    dst[tail..].copy_from_slice(&src[tail..]);
}

/// Bit-shuffle one block; `tmp` is scratch of at least the block's size (unused for 1-byte
/// elements). Call only where [`has_kernel`] says so.
pub(crate) fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8], tmp: &mut [u8]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "bitshuffle: block and output differ in size"
    );
    let n = src.len() / typesize;
    if n == 0 || !n.is_multiple_of(8) {
        // c-blosc leaves such blocks as they are.
        dst.copy_from_slice(src);
        return;
    }
    let body = n * typesize;
    let rows: &[u8] = if typesize == 1 {
        &src[..body]
    } else {
        let tmp = &mut tmp[..src.len()];
        shuffle(typesize, src, tmp);
        &tmp[..body]
    };
    let row_bytes = n / 8;
    for (row, bits) in rows
        .chunks_exact(n)
        .zip(dst[..body].chunks_exact_mut(8 * row_bytes))
    {
        transpose_bits(row, bits);
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Bit-transpose one row of `n` bytes (`n % 8 == 0`) into 8 rows of `n / 8` bytes: bit `k` of
/// byte `i` goes to bit `i % 8` of byte `i / 8` of row `k`.
fn transpose_bits(row: &[u8], bits: &mut [u8]) {
    let done = if avx2::available() {
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { avx2::transpose_bits(row, bits) }
    } else {
        0
    };
    let row_bytes = row.len() / 8;
    for (group, bytes) in row.chunks_exact(8).enumerate().skip(done / 8) {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(bytes).unwrap_or_default());
        for k in 0..8 {
            bits[k * row_bytes + group] = gather_bit(word, k);
        }
    }
}

/// Bit `k` of each byte of `word`, byte `e`'s bit landing at bit `e`.
fn gather_bit(word: u64, k: usize) -> u8 {
    // Move bit k of every byte to the bottom of its byte, then gather the eight bottoms
    // into one byte with a multiply (each byte's bit lands at a distinct position).
    let bottoms = (word >> k) & 0x0101_0101_0101_0101;
    (bottoms.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// Undo [`shuffle`]: `src` holds the shuffled block, `dst` (same length) gets the elements.
pub(crate) fn unshuffle(typesize: usize, src: &[u8], dst: &mut [MaybeUninit<u8>]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "unshuffle: block and output differ in size"
    );
    let whole = if avx2::available() {
        match typesize {
            // SAFETY: the CPU has AVX2 (checked above).
            2 => unsafe { avx2::unshuffle2(src, dst) },
            // SAFETY: as above.
            4 => unsafe { avx2::unshuffle4(src, dst) },
            // SAFETY: as above.
            8 => unsafe { avx2::unshuffle8(src, dst) },
            _ => 0,
        }
    } else {
        0
    };
    let n = src.len() / typesize;
    if typesize > 1 && n > 0 {
        for (i, element) in dst.chunks_exact_mut(typesize).enumerate().skip(whole) {
            for (j, byte) in element.iter_mut().enumerate() {
                byte.write(src[j * n + i]);
            }
        }
    }
    let tail = if typesize > 1 { n * typesize } else { 0 };
    copy_bytes(&mut dst[tail..], &src[tail..]);
}

/// Undo [`bitshuffle`]; `tmp` is scratch of at least the block's size.
pub(crate) fn bitunshuffle(
    typesize: usize,
    src: &[u8],
    dst: &mut [MaybeUninit<u8>],
    tmp: &mut [u8],
) {
    assert_eq!(
        src.len(),
        dst.len(),
        "bitunshuffle: block and output differ in size"
    );
    let n = src.len() / typesize;
    if n == 0 || !n.is_multiple_of(8) {
        copy_bytes(dst, src);
        return;
    }
    let body = n * typesize;
    let row_bytes = n / 8;
    if typesize == 1 {
        untranspose_bits(&src[..body], &mut dst[..body]);
    } else {
        let rows = &mut tmp[..body];
        for (bits, row) in src[..body]
            .chunks_exact(8 * row_bytes)
            .zip(rows.chunks_exact_mut(n))
        {
            // SAFETY: viewing initialised bytes as `MaybeUninit` is sound; only bytes are
            // written through the view.
            let row = unsafe { &mut *(std::ptr::from_mut(row) as *mut [MaybeUninit<u8>]) };
            untranspose_bits(bits, row);
        }
        unshuffle(typesize, rows, &mut dst[..body]);
    }
    copy_bytes(&mut dst[body..], &src[body..]);
}

/// Undo [`transpose_bits`]: 8 rows of `n / 8` bytes back into one row of `n` bytes.
fn untranspose_bits(bits: &[u8], row: &mut [MaybeUninit<u8>]) {
    let done = if avx2::available() {
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { avx2::untranspose_bits(bits, row) }
    } else {
        0
    };
    let row_bytes = row.len() / 8;
    for (group, bytes) in row.chunks_exact_mut(8).enumerate().skip(done / 8) {
        let planes: [u8; 8] = std::array::from_fn(|k| bits[k * row_bytes + group]);
        for (e, byte) in bytes.iter_mut().enumerate() {
            let value = (0..8).fold(0u8, |acc, k| acc | (((planes[k] >> e) & 1) << k));
            byte.write(value);
        }
    }
}

/// Copy `src` into the start of `dst` (which must be at least as long).
pub(crate) fn copy_bytes(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let dst = &mut dst[..src.len()];
    // SAFETY: `dst` is exactly `src.len()` bytes of writable memory that cannot overlap `src`
    // (it is borrowed mutably while `src` is borrowed); writing bytes initialises them.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len());
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The kernels: each handles whole groups of 32 elements and returns how many elements
    //! it did, leaving the rest to the portable loop.

    use std::arch::x86_64::{
        __m128i, __m256i, _mm_loadl_epi64, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm256_and_si256,
        _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_permute2x128_si256,
        _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32, _mm256_set_epi8, _mm256_set_m128i,
        _mm256_set1_epi64x, _mm256_setr_epi32, _mm256_shuffle_epi8, _mm256_slli_epi16,
        _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_unpackhi_epi8,
        _mm256_unpackhi_epi16, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi8,
        _mm256_unpacklo_epi16, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm256_xor_si256,
    };
    use std::mem::MaybeUninit;
    use std::sync::OnceLock;

    pub(super) fn available() -> bool {
        static AVAILABLE: OnceLock<bool> = OnceLock::new();
        *AVAILABLE.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
    }

    /// A per-lane byte permutation taking `order[i]` to position `i` in each 128-bit lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane_mask(order: [i8; 16]) -> __m256i {
        let o = order;
        _mm256_set_epi8(
            o[15], o[14], o[13], o[12], o[11], o[10], o[9], o[8], o[7], o[6], o[5], o[4], o[3],
            o[2], o[1], o[0], o[15], o[14], o[13], o[12], o[11], o[10], o[9], o[8], o[7], o[6],
            o[5], o[4], o[3], o[2], o[1], o[0],
        )
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load(src: &[u8], at: usize) -> __m256i {
        debug_assert!(at + 32 <= src.len());
        // SAFETY: the caller keeps `at + 32 <= src.len()`; unaligned loads are allowed.
        unsafe { _mm256_loadu_si256(src.as_ptr().add(at).cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store(dst: &mut [u8], at: usize, value: __m256i) {
        debug_assert!(at + 32 <= dst.len());
        // SAFETY: the caller keeps `at + 32 <= dst.len()`; unaligned stores are allowed.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(at).cast(), value) }
    }

    /// 2-byte elements, 32 per step: 64 bytes in, 32 bytes to each of the 2 rows.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst.len() == src.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn shuffle2(src: &[u8], dst: &mut [u8]) -> usize {
        let n = src.len() / 2;
        let steps = n / 32;
        let even_odd = lane_mask([0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15]);
        for step in 0..steps {
            let at = step * 64;
            // SAFETY: `at + 64 <= 2 * 32 * steps <= src.len()`.
            let (a, b) = unsafe { (load(src, at), load(src, at + 32)) };
            // Each lane: byte 0 of its 8 elements, then byte 1; then put lanes in order.
            let a = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_shuffle_epi8(a, even_odd));
            let b = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_shuffle_epi8(b, even_odd));
            let out = step * 32;
            // SAFETY: row j ends at `j * n + out + 32 <= (j + 1) * n <= dst.len()`.
            unsafe {
                store(dst, out, _mm256_permute2x128_si256::<0x20>(a, b));
                store(dst, n + out, _mm256_permute2x128_si256::<0x31>(a, b));
            }
        }
        steps * 32
    }

    /// 4-byte elements, 32 per step: 128 bytes in, 32 bytes to each of the 4 rows.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst.len() == src.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn shuffle4(src: &[u8], dst: &mut [u8]) -> usize {
        let n = src.len() / 4;
        let steps = n / 32;
        // Each lane (4 elements) to 4 dwords: byte 0 of each, byte 1, byte 2, byte 3.
        let bytes = lane_mask([0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]);
        // Then dwords to qwords: byte j of all 8 elements of the register in qword j.
        let pair = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for step in 0..steps {
            let at = step * 128;
            let mut q = [_mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0); 4];
            for (r, reg) in q.iter_mut().enumerate() {
                // SAFETY: `at + 32 * r + 32 <= 128 * steps <= src.len()`.
                let v = unsafe { load(src, at + 32 * r) };
                *reg = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, bytes), pair);
            }
            // A 4x4 transpose of qwords: row j takes qword j of each register.
            let lo01 = _mm256_unpacklo_epi64(q[0], q[1]);
            let hi01 = _mm256_unpackhi_epi64(q[0], q[1]);
            let lo23 = _mm256_unpacklo_epi64(q[2], q[3]);
            let hi23 = _mm256_unpackhi_epi64(q[2], q[3]);
            let out = step * 32;
            // SAFETY: row j ends at `j * n + out + 32 <= (j + 1) * n <= dst.len()`.
            unsafe {
                store(dst, out, _mm256_permute2x128_si256::<0x20>(lo01, lo23));
                store(dst, n + out, _mm256_permute2x128_si256::<0x20>(hi01, hi23));
                store(
                    dst,
                    2 * n + out,
                    _mm256_permute2x128_si256::<0x31>(lo01, lo23),
                );
                store(
                    dst,
                    3 * n + out,
                    _mm256_permute2x128_si256::<0x31>(hi01, hi23),
                );
            }
        }
        steps * 32
    }

    /// A 4x4 transpose of the dwords within each lane of `r`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn transpose_dwords(r: [__m256i; 4]) -> [__m256i; 4] {
        let lo01 = _mm256_unpacklo_epi32(r[0], r[1]);
        let hi01 = _mm256_unpackhi_epi32(r[0], r[1]);
        let lo23 = _mm256_unpacklo_epi32(r[2], r[3]);
        let hi23 = _mm256_unpackhi_epi32(r[2], r[3]);
        [
            _mm256_unpacklo_epi64(lo01, lo23),
            _mm256_unpackhi_epi64(lo01, lo23),
            _mm256_unpacklo_epi64(hi01, hi23),
            _mm256_unpackhi_epi64(hi01, hi23),
        ]
    }

    /// 8-byte elements, 32 per step: 256 bytes in, 32 bytes to each of the 8 rows.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst.len() == src.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn shuffle8(src: &[u8], dst: &mut [u8]) -> usize {
        let n = src.len() / 8;
        let steps = n / 32;
        // Each lane holds elements (a, b): interleave them, word j = (a_j, b_j).
        let interleave = lane_mask([0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15]);
        // After moving words j=0..3 of both lanes into lane 0 (j=4..7 into lane 1): dword j =
        // byte j of the register's 4 elements, in element order.
        let words = lane_mask([0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15]);
        for step in 0..steps {
            let at = step * 256;
            let mut g = [_mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0); 8];
            for (k, reg) in g.iter_mut().enumerate() {
                // SAFETY: `at + 32 * k + 32 <= 256 * steps <= src.len()`.
                let v = unsafe { load(src, at + 32 * k) };
                let v = _mm256_shuffle_epi8(v, interleave);
                let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
                *reg = _mm256_shuffle_epi8(v, words);
            }
            // Register k: lane 0 = dwords j=0..3 of elements 4k..4k+3, lane 1 = j=4..7.
            let t = transpose_dwords([g[0], g[1], g[2], g[3]]);
            let s = transpose_dwords([g[4], g[5], g[6], g[7]]);
            let out = step * 32;
            for j in 0..4 {
                // SAFETY: row j (and j + 4) ends at most at `(j + 1) * n <= dst.len()`.
                unsafe {
                    store(
                        dst,
                        j * n + out,
                        _mm256_permute2x128_si256::<0x20>(t[j], s[j]),
                    );
                    store(
                        dst,
                        (j + 4) * n + out,
                        _mm256_permute2x128_si256::<0x31>(t[j], s[j]),
                    );
                }
            }
        }
        steps * 32
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store_uninit(dst: &mut [MaybeUninit<u8>], at: usize, value: __m256i) {
        debug_assert!(at + 32 <= dst.len());
        // SAFETY: the caller keeps `at + 32 <= dst.len()`; storing bytes initialises them.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(at).cast(), value) }
    }

    /// Undo `shuffle2`, 32 elements per step.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst.len() == src.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn unshuffle2(src: &[u8], dst: &mut [MaybeUninit<u8>]) -> usize {
        let n = src.len() / 2;
        let steps = n / 32;
        for step in 0..steps {
            let at = step * 32;
            // SAFETY: row j ends at `j * n + at + 32 <= (j + 1) * n <= src.len()`.
            let (r0, r1) = unsafe { (load(src, at), load(src, n + at)) };
            // Byte pairs per lane: elements 0-7 and 16-23 (lo), 8-15 and 24-31 (hi).
            let lo = _mm256_unpacklo_epi8(r0, r1);
            let hi = _mm256_unpackhi_epi8(r0, r1);
            let out = step * 64;
            // SAFETY: `out + 64 <= 2 * 32 * steps <= dst.len()`.
            unsafe {
                store_uninit(dst, out, _mm256_permute2x128_si256::<0x20>(lo, hi));
                store_uninit(dst, out + 32, _mm256_permute2x128_si256::<0x31>(lo, hi));
            }
        }
        steps * 32
    }

    /// Undo `shuffle4`, 32 elements per step.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst.len() == src.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn unshuffle4(src: &[u8], dst: &mut [MaybeUninit<u8>]) -> usize {
        let n = src.len() / 4;
        let steps = n / 32;
        for step in 0..steps {
            let at = step * 32;
            // SAFETY: row j ends at `j * n + at + 32 <= (j + 1) * n <= src.len()`.
            let rows = unsafe {
                [
                    load(src, at),
                    load(src, n + at),
                    load(src, 2 * n + at),
                    load(src, 3 * n + at),
                ]
            };
            let low01 = _mm256_unpacklo_epi8(rows[0], rows[1]);
            let high01 = _mm256_unpackhi_epi8(rows[0], rows[1]);
            let low23 = _mm256_unpacklo_epi8(rows[2], rows[3]);
            let high23 = _mm256_unpackhi_epi8(rows[2], rows[3]);
            // Whole elements: 0-3 | 16-19, 4-7 | 20-23, 8-11 | 24-27, 12-15 | 28-31.
            let w0 = _mm256_unpacklo_epi16(low01, low23);
            let w1 = _mm256_unpackhi_epi16(low01, low23);
            let w2 = _mm256_unpacklo_epi16(high01, high23);
            let w3 = _mm256_unpackhi_epi16(high01, high23);
            let out = step * 128;
            // SAFETY: `out + 128 <= 4 * 32 * steps <= dst.len()`.
            unsafe {
                store_uninit(dst, out, _mm256_permute2x128_si256::<0x20>(w0, w1));
                store_uninit(dst, out + 32, _mm256_permute2x128_si256::<0x20>(w2, w3));
                store_uninit(dst, out + 64, _mm256_permute2x128_si256::<0x31>(w0, w1));
                store_uninit(dst, out + 96, _mm256_permute2x128_si256::<0x31>(w2, w3));
            }
        }
        steps * 32
    }

    /// Undo `shuffle8`, 32 elements per step.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst.len() == src.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn unshuffle8(src: &[u8], dst: &mut [MaybeUninit<u8>]) -> usize {
        let n = src.len() / 8;
        let steps = n / 32;
        for step in 0..steps {
            let at = step * 32;
            // SAFETY: row j ends at `j * n + at + 32 <= (j + 1) * n <= src.len()`.
            let r: [__m256i; 8] = std::array::from_fn(|j| unsafe { load(src, j * n + at) });
            // Bytes of rows (0,1), (2,3), ... paired: elements 0-7 | 16-23 (lo), 8-15 | 24-31.
            let lo: [__m256i; 4] =
                std::array::from_fn(|p| _mm256_unpacklo_epi8(r[2 * p], r[2 * p + 1]));
            let hi: [__m256i; 4] =
                std::array::from_fn(|p| _mm256_unpackhi_epi8(r[2 * p], r[2 * p + 1]));
            // Then rows 0-3 and 4-7 as dwords, four elements per register and lane.
            let quads = [
                _mm256_unpacklo_epi16(lo[0], lo[1]),
                _mm256_unpackhi_epi16(lo[0], lo[1]),
                _mm256_unpacklo_epi16(hi[0], hi[1]),
                _mm256_unpackhi_epi16(hi[0], hi[1]),
            ];
            let quads_high = [
                _mm256_unpacklo_epi16(lo[2], lo[3]),
                _mm256_unpackhi_epi16(lo[2], lo[3]),
                _mm256_unpacklo_epi16(hi[2], hi[3]),
                _mm256_unpackhi_epi16(hi[2], hi[3]),
            ];
            // Whole elements, two per lane: register 2q holds 4q, 4q+1 | 4q+16, 4q+17, and
            // register 2q+1 the next two of each.
            let mut x = [quads[0]; 8];
            for q in 0..4 {
                x[2 * q] = _mm256_unpacklo_epi32(quads[q], quads_high[q]);
                x[2 * q + 1] = _mm256_unpackhi_epi32(quads[q], quads_high[q]);
            }
            let out = step * 256;
            for q in 0..4 {
                // SAFETY: `out + 256 <= 8 * 32 * steps <= dst.len()`.
                unsafe {
                    store_uninit(
                        dst,
                        out + 32 * q,
                        _mm256_permute2x128_si256::<0x20>(x[2 * q], x[2 * q + 1]),
                    );
                    store_uninit(
                        dst,
                        out + 128 + 32 * q,
                        _mm256_permute2x128_si256::<0x31>(x[2 * q], x[2 * q + 1]),
                    );
                }
            }
        }
        steps * 32
    }

    /// An 8x8 bit transpose of each 64-bit lane (byte `k`, bit `e` to byte `e`, bit `k`): three
    /// swaps, each exchanging one bit of the byte index with the same bit of the bit index.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn transpose_8x8(x: __m256i) -> __m256i {
        let mut x = x;
        macro_rules! swap {
            ($shift:literal, $mask:literal) => {
                let mask = _mm256_set1_epi64x($mask);
                let t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64::<$shift>(x), x), mask);
                x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64::<$shift>(t));
            };
        }
        swap!(7, 0x00AA_00AA_00AA_00AA);
        swap!(14, 0x0000_CCCC_0000_CCCC);
        swap!(28, 0x0000_0000_F0F0_F0F0);
        x
    }

    /// Undo `transpose_bits` for whole groups of 64 bytes; returns the number of bytes done.
    ///
    /// # Safety
    /// The CPU must have AVX2; `row.len() == bits.len()` and `bits.len() % 8 == 0`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn untranspose_bits(bits: &[u8], row: &mut [MaybeUninit<u8>]) -> usize {
        let row_bytes = row.len() / 8;
        let steps = row.len() / 64;
        for step in 0..steps {
            // Eight bytes (64 elements) of each of the 8 planes.
            let p: [__m128i; 8] = std::array::from_fn(|k| {
                let at = k * row_bytes + 8 * step;
                debug_assert!(at + 8 <= bits.len());
                // SAFETY: plane k's bytes `8 * step..8 * step + 8` lie within its `row_bytes`
                // (`64 * steps <= row.len()`), so within `bits`.
                unsafe { _mm_loadl_epi64(bits.as_ptr().add(at).cast()) }
            });
            // Gather byte g of every plane into 64-bit lane g (plane k in byte k).
            let pairs: [__m128i; 4] =
                std::array::from_fn(|q| _mm_unpacklo_epi8(p[2 * q], p[2 * q + 1]));
            let low = [
                _mm_unpacklo_epi16(pairs[0], pairs[1]),
                _mm_unpackhi_epi16(pairs[0], pairs[1]),
            ];
            let high = [
                _mm_unpacklo_epi16(pairs[2], pairs[3]),
                _mm_unpackhi_epi16(pairs[2], pairs[3]),
            ];
            let groups = [
                _mm256_set_m128i(
                    _mm_unpackhi_epi32(low[0], high[0]),
                    _mm_unpacklo_epi32(low[0], high[0]),
                ),
                _mm256_set_m128i(
                    _mm_unpackhi_epi32(low[1], high[1]),
                    _mm_unpacklo_epi32(low[1], high[1]),
                ),
            ];
            // SAFETY: `64 * step + 64 <= row.len()`.
            unsafe {
                store_uninit(row, 64 * step, transpose_8x8(groups[0]));
                store_uninit(row, 64 * step + 32, transpose_8x8(groups[1]));
            }
        }
        steps * 64
    }

    /// Bit-transpose whole groups of 32 bytes of `row` into the 8 rows of `bits`; returns the
    /// number of bytes done.
    ///
    /// # Safety
    /// The CPU must have AVX2; `bits.len() == row.len()` and `row.len() % 8 == 0`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transpose_bits(row: &[u8], bits: &mut [u8]) -> usize {
        let row_bytes = row.len() / 8;
        let steps = row.len() / 32;
        for step in 0..steps {
            // SAFETY: `32 * step + 32 <= row.len()`.
            let v = unsafe { load(row, 32 * step) };
            // Bit k of each byte to its top, then one bit per byte gathered into a dword.
            let planes = [
                _mm256_movemask_epi8(_mm256_slli_epi16::<7>(v)),
                _mm256_movemask_epi8(_mm256_slli_epi16::<6>(v)),
                _mm256_movemask_epi8(_mm256_slli_epi16::<5>(v)),
                _mm256_movemask_epi8(_mm256_slli_epi16::<4>(v)),
                _mm256_movemask_epi8(_mm256_slli_epi16::<3>(v)),
                _mm256_movemask_epi8(_mm256_slli_epi16::<2>(v)),
                _mm256_movemask_epi8(_mm256_slli_epi16::<1>(v)),
                _mm256_movemask_epi8(v),
            ];
            for (k, plane) in planes.into_iter().enumerate() {
                let at = k * row_bytes + 4 * step;
                bits[at..at + 4].copy_from_slice(&plane.to_le_bytes());
            }
        }
        steps * 32
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod avx2 {
    //! No AVX2 off x86-64: c-blosc's own shuffles are used.

    use std::mem::MaybeUninit;

    pub(super) fn available() -> bool {
        false
    }

    pub(super) unsafe fn shuffle2(_: &[u8], _: &mut [u8]) -> usize {
        0
    }

    pub(super) unsafe fn shuffle4(_: &[u8], _: &mut [u8]) -> usize {
        0
    }

    pub(super) unsafe fn shuffle8(_: &[u8], _: &mut [u8]) -> usize {
        0
    }

    pub(super) unsafe fn transpose_bits(_: &[u8], _: &mut [u8]) -> usize {
        0
    }

    pub(super) unsafe fn unshuffle2(_: &[u8], _: &mut [MaybeUninit<u8>]) -> usize {
        0
    }

    pub(super) unsafe fn unshuffle4(_: &[u8], _: &mut [MaybeUninit<u8>]) -> usize {
        0
    }

    pub(super) unsafe fn unshuffle8(_: &[u8], _: &mut [MaybeUninit<u8>]) -> usize {
        0
    }

    pub(super) unsafe fn untranspose_bits(_: &[u8], _: &mut [MaybeUninit<u8>]) -> usize {
        0
    }
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // test data: truncation intended
mod tests {
    use super::*;

    /// The layouts of the module docs, written the plain way.
    fn shuffle_reference(typesize: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / typesize;
        let mut out = src.to_vec();
        for i in 0..n {
            for j in 0..typesize {
                out[j * n + i] = src[i * typesize + j];
            }
        }
        out
    }

    fn bitshuffle_reference(typesize: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / typesize;
        let mut out = src.to_vec();
        if !n.is_multiple_of(8) {
            return out;
        }
        out[..n * typesize].fill(0);
        for i in 0..n {
            for j in 0..typesize {
                for k in 0..8 {
                    let bit = (src[i * typesize + j] >> k) & 1;
                    let at = (j * 8 + k) * n + i;
                    out[at / 8] |= bit << (at % 8);
                }
            }
        }
        out
    }

    fn data(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn shuffles_match_the_layout_for_every_length() {
        for typesize in [1, 2, 4, 8] {
            for len in (0..700).chain([4096, 65_536 + 13, 262_144]) {
                let src = data(len, len as u64 + 7 * typesize as u64);
                let mut dst = vec![0xAA; len];
                shuffle(typesize, &src, &mut dst);
                assert_eq!(
                    dst,
                    shuffle_reference(typesize, &src),
                    "T={typesize} len={len}"
                );
                let mut back = vec![MaybeUninit::new(0xAA); len];
                unshuffle(typesize, &dst, &mut back);
                assert!(init(&back) == src, "unshuffle T={typesize} len={len}");
                let mut tmp = vec![0x55; len];
                bitshuffle(typesize, &src, &mut dst, &mut tmp);
                assert_eq!(
                    dst,
                    bitshuffle_reference(typesize, &src),
                    "T={typesize} len={len}"
                );
                let mut back = vec![MaybeUninit::new(0xAA); len];
                bitunshuffle(typesize, &dst, &mut back, &mut tmp);
                assert!(init(&back) == src, "bitunshuffle T={typesize} len={len}");
            }
        }
    }

    fn init(bytes: &[MaybeUninit<u8>]) -> Vec<u8> {
        // SAFETY: the tests fill every byte before looking.
        bytes.iter().map(|b| unsafe { b.assume_init() }).collect()
    }

    #[test]
    fn gather_bit_takes_bit_k_of_each_byte_in_order() {
        let word = u64::from_le_bytes([0b1, 0b10, 0b11, 0, 0xFF, 0, 0b1000_0000, 1]);
        assert_eq!(gather_bit(word, 0), 0b1001_0101);
        assert_eq!(gather_bit(word, 1), 0b0001_0110);
        assert_eq!(gather_bit(word, 7), 0b0101_0000);
    }
}
