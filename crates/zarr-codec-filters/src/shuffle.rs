//! numcodecs' `shuffle`: the chunk's bytes as a matrix of `elementsize` columns, transposed,
//! so that the first bytes of every element come first, then the second bytes, and so on
//! (what blosc's byte shuffle does within a block, here over the whole chunk).

use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

/// The codec's id in Zarr v2 metadata.
pub const SHUFFLE_ID: &str = "shuffle";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const SHUFFLE_NAME: &str = "numcodecs.shuffle";

/// numcodecs' `Shuffle(elementsize=4)`; an element size of 1 or less leaves bytes as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shuffle {
    elementsize: i64,
}

impl Default for Shuffle {
    fn default() -> Self {
        Self { elementsize: 4 }
    }
}

impl Shuffle {
    /// The codec for elements of `elementsize` bytes (kept as given).
    pub fn new(elementsize: i64) -> Self {
        Self { elementsize }
    }

    /// The element size as given.
    pub fn elementsize(&self) -> i64 {
        self.elementsize
    }

    /// The element size that shuffles, or `None` for one that leaves bytes as they are.
    fn width(self) -> Option<usize> {
        usize::try_from(self.elementsize).ok().filter(|&n| n > 1)
    }

    /// `input` (a whole number of elements) shuffled or unshuffled into `out`.
    fn run(self, input: &[u8], out: &mut [MaybeUninit<u8>], forward: bool) -> Result<usize> {
        let limit = out.len();
        let out = out
            .get_mut(..input.len())
            .ok_or(CodecError::OutputLimit { limit })?;
        match self.width() {
            None => copy(input, out),
            Some(width) if !input.len().is_multiple_of(width) => {
                let what = if forward {
                    CodecError::out_of_range
                } else {
                    CodecError::corrupt
                };
                return Err(what(format!(
                    "shuffle: {} bytes are not a whole number of {width}-byte elements",
                    input.len()
                )));
            }
            Some(width) if forward => shuffle_into(input, out, width),
            Some(width) => unshuffle_into(input, out, width),
        }
        Ok(input.len())
    }
}

/// The bytes of `input` shuffled for elements of `width` bytes (a whole number of them).
pub fn shuffle(input: &[u8], width: usize) -> Result<Vec<u8>> {
    Shuffle::new(i64::try_from(width).unwrap_or(i64::MAX)).encode_bytes(input)
}

/// [`shuffle`] undone.
pub fn unshuffle(input: &[u8], width: usize) -> Result<Vec<u8>> {
    Shuffle::new(i64::try_from(width).unwrap_or(i64::MAX)).decode_bytes(input, None)
}

fn copy(input: &[u8], out: &mut [MaybeUninit<u8>]) {
    for (slot, &byte) in out.iter_mut().zip(input) {
        slot.write(byte);
    }
}

/// Elements per block of the fixed-width loops: each of the `N` output streams gets a run
/// of this many bytes at a time.
const BLOCK_ELEMENTS: usize = 32;

/// `input` shuffled for elements of `width` bytes: the widths arrays have (2, 4, 8, 16) by
/// loops the compiler unrolls for that width, any other by the general transpose.
fn shuffle_into(input: &[u8], out: &mut [MaybeUninit<u8>], width: usize) {
    match width {
        2 => shuffle_fixed::<2>(input, out),
        4 => shuffle_fixed::<4>(input, out),
        8 => shuffle_fixed::<8>(input, out),
        16 => shuffle_fixed::<16>(input, out),
        _ => transpose(input, out, width, input.len() / width),
    }
}

/// [`shuffle_into`] undone.
fn unshuffle_into(input: &[u8], out: &mut [MaybeUninit<u8>], width: usize) {
    match width {
        2 => unshuffle_fixed::<2>(input, out),
        4 => unshuffle_fixed::<4>(input, out),
        8 => unshuffle_fixed::<8>(input, out),
        16 => unshuffle_fixed::<16>(input, out),
        _ => transpose(input, out, input.len() / width, width),
    }
}

/// Shuffle for `N`-byte elements: vectors where the CPU has them, then blocks of
/// [`BLOCK_ELEMENTS`] elements, each read once and written as `N` runs, one per byte position.
fn shuffle_fixed<const N: usize>(input: &[u8], out: &mut [MaybeUninit<u8>]) {
    let count = input.len() / N;
    let (blocks, _) = input.as_chunks::<N>();
    let first = vectors::where_supported(true, N, input, out, count);
    let full = first + (count - first) / BLOCK_ELEMENTS * BLOCK_ELEMENTS;
    for start in (first..full).step_by(BLOCK_ELEMENTS) {
        let block = &blocks[start..start + BLOCK_ELEMENTS];
        for byte in 0..N {
            let run = &mut out[byte * count + start..][..BLOCK_ELEMENTS];
            for (slot, element) in run.iter_mut().zip(block) {
                slot.write(element[byte]);
            }
        }
    }
    for (index, element) in blocks.iter().enumerate().skip(full) {
        for (byte, &value) in element.iter().enumerate() {
            out[byte * count + index].write(value);
        }
    }
}

/// Unshuffle for `N`-byte elements: vectors where the CPU has them, then blocks of
/// [`BLOCK_ELEMENTS`] elements, each gathered from `N` runs and written once.
fn unshuffle_fixed<const N: usize>(input: &[u8], out: &mut [MaybeUninit<u8>]) {
    let count = input.len() / N;
    let first = vectors::where_supported(false, N, input, out, count);
    let (elements, _) = out.as_chunks_mut::<N>();
    let full = first + (count - first) / BLOCK_ELEMENTS * BLOCK_ELEMENTS;
    for start in (first..full).step_by(BLOCK_ELEMENTS) {
        let block = &mut elements[start..start + BLOCK_ELEMENTS];
        for byte in 0..N {
            let run = &input[byte * count + start..][..BLOCK_ELEMENTS];
            for (element, &value) in block.iter_mut().zip(run) {
                element[byte].write(value);
            }
        }
    }
    for (index, element) in elements.iter_mut().enumerate().take(count).skip(full) {
        for (byte, slot) in element.iter_mut().enumerate() {
            slot.write(input[byte * count + index]);
        }
    }
}

/// Shuffles of 4- and 8-byte elements, 16 elements at a time, as SSSE3 transpositions: each
/// interleaving of two vectors' bytes (or words) moves the bits of a byte's index one place, so
/// a few rounds of them put every byte in its row. Elsewhere, and for other widths, nothing:
/// the loops above do all.
#[cfg(target_arch = "x86_64")]
mod vectors {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16,
        _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpacklo_epi8, _mm_unpacklo_epi16,
        _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    };
    use std::mem::MaybeUninit;

    /// [`shuffle`] (`forward`) or [`unshuffle`] where the CPU has SSSE3 (its byte shuffle
    /// turns each round's permutation into one instruction); else nothing done (0).
    pub(super) fn where_supported(
        forward: bool,
        width: usize,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        count: usize,
    ) -> usize {
        if !std::arch::is_x86_feature_detected!("ssse3") {
            return 0;
        }
        // SAFETY: the CPU has SSSE3, checked just above.
        unsafe {
            if forward {
                shuffle(width, input, out, count)
            } else {
                unshuffle(width, input, out, count)
            }
        }
    }

    /// The elements shuffled: the leading multiple of 16 for widths 4 and 8, else 0.
    #[target_feature(enable = "ssse3")]
    fn shuffle(width: usize, input: &[u8], out: &mut [MaybeUninit<u8>], count: usize) -> usize {
        let blocks = count / 16;
        for block in 0..blocks {
            let start = 16 * block;
            let source = &input[width * start..][..16 * width];
            match width {
                4 => {
                    // Three byte rounds: each pair of vectors (8 elements) as two rows each.
                    let (low, high) = bytes3(load(source, 0), load(source, 1));
                    let (low2, high2) = bytes3(load(source, 2), load(source, 3));
                    let rows = [
                        _mm_unpacklo_epi64(low, low2),
                        _mm_unpackhi_epi64(low, low2),
                        _mm_unpacklo_epi64(high, high2),
                        _mm_unpackhi_epi64(high, high2),
                    ];
                    store_rows(&rows, out, count, start);
                }
                8 => {
                    // Two byte rounds: each pair of vectors (4 elements) as rows of 4 bytes,
                    // then rounds of 32- and 64-bit words join the four pairs' rows.
                    let mut halves = [zero(); 8];
                    for pair in 0..4 {
                        let (low, high) =
                            bytes2(load(source, 2 * pair), load(source, 2 * pair + 1));
                        halves[pair] = low;
                        halves[4 + pair] = high;
                    }
                    let mut rows = [zero(); 8];
                    for (half, quarter) in [(0, 0), (4, 4)] {
                        let [a, b, c, d] = [0, 1, 2, 3].map(|k| halves[half + k]);
                        let (ab_low, ab_high) =
                            (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b));
                        let (cd_low, cd_high) =
                            (_mm_unpacklo_epi32(c, d), _mm_unpackhi_epi32(c, d));
                        rows[quarter] = _mm_unpacklo_epi64(ab_low, cd_low);
                        rows[quarter + 1] = _mm_unpackhi_epi64(ab_low, cd_low);
                        rows[quarter + 2] = _mm_unpacklo_epi64(ab_high, cd_high);
                        rows[quarter + 3] = _mm_unpackhi_epi64(ab_high, cd_high);
                    }
                    store_rows(&rows, out, count, start);
                }
                _ => return 0,
            }
        }
        16 * blocks
    }

    /// The elements unshuffled: the leading multiple of 16 for widths 4 and 8, else 0.
    #[target_feature(enable = "ssse3")]
    fn unshuffle(width: usize, input: &[u8], out: &mut [MaybeUninit<u8>], count: usize) -> usize {
        let blocks = count / 16;
        for block in 0..blocks {
            let start = 16 * block;
            let rows = input_rows(input, width, count, start);
            let target = &mut out[width * start..][..16 * width];
            match width {
                4 => {
                    // Bytes, then 16-bit pairs, interleaved: whole elements, 4 per vector.
                    let (b01_low, b01_high) = interleave8(rows[0], rows[1]);
                    let (b23_low, b23_high) = interleave8(rows[2], rows[3]);
                    let elements = [
                        _mm_unpacklo_epi16(b01_low, b23_low),
                        _mm_unpackhi_epi16(b01_low, b23_low),
                        _mm_unpacklo_epi16(b01_high, b23_high),
                        _mm_unpackhi_epi16(b01_high, b23_high),
                    ];
                    store_all(&elements, target);
                }
                8 => {
                    // Bytes, 16-bit pairs, then 32-bit quads: whole elements, 2 per vector.
                    let mut pairs = [zero(); 8];
                    for (k, first) in [0, 2, 4, 6].into_iter().enumerate() {
                        let (low, high) = interleave8(rows[first], rows[first + 1]);
                        pairs[k] = low;
                        pairs[4 + k] = high;
                    }
                    let mut elements = [zero(); 8];
                    for (half, at) in [(0, 0), (4, 4)] {
                        let [b01, b23, b45, b67] = [0, 1, 2, 3].map(|k| pairs[half + k]);
                        let quads = [
                            _mm_unpacklo_epi16(b01, b23),
                            _mm_unpackhi_epi16(b01, b23),
                            _mm_unpacklo_epi16(b45, b67),
                            _mm_unpackhi_epi16(b45, b67),
                        ];
                        elements[at] = _mm_unpacklo_epi32(quads[0], quads[2]);
                        elements[at + 1] = _mm_unpackhi_epi32(quads[0], quads[2]);
                        elements[at + 2] = _mm_unpacklo_epi32(quads[1], quads[3]);
                        elements[at + 3] = _mm_unpackhi_epi32(quads[1], quads[3]);
                    }
                    store_all(&elements, target);
                }
                _ => return 0,
            }
        }
        16 * blocks
    }

    #[inline]
    #[target_feature(enable = "ssse3")]
    fn zero() -> __m128i {
        std::arch::x86_64::_mm_setzero_si128()
    }

    /// The bytes of `a` and `b` interleaved: (low halves, high halves).
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn interleave8(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b))
    }

    /// Two rounds of [`interleave8`].
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn bytes2(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        let (low, high) = interleave8(a, b);
        interleave8(low, high)
    }

    /// Three rounds of [`interleave8`].
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn bytes3(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        let (low, high) = bytes2(a, b);
        interleave8(low, high)
    }

    /// Elements `start..start + 16` of each of the `width` (up to 8) byte rows of `input`,
    /// `count` bytes each (the other vectors left zero).
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn input_rows(input: &[u8], width: usize, count: usize, start: usize) -> [__m128i; 8] {
        let mut rows = [zero(); 8];
        for (byte, row) in rows.iter_mut().enumerate().take(width) {
            if let Some(bytes) = input
                .get(byte * count + start..)
                .and_then(|rest| rest.get(..16))
            {
                *row = load(bytes, 0);
            }
        }
        rows
    }

    /// The 16 bytes of `bytes` at vector `index`.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn load(bytes: &[u8], index: usize) -> __m128i {
        let chunk = &bytes[16 * index..][..16];
        // SAFETY: reads the 16 bytes of `chunk` (unaligned loads allowed).
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }

    /// Row `byte` of `rows` at `byte * count + start` in `out`.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn store_rows(rows: &[__m128i], out: &mut [MaybeUninit<u8>], count: usize, start: usize) {
        for (byte, &row) in rows.iter().enumerate() {
            let slot = &mut out[byte * count + start..][..16];
            // SAFETY: writes the 16 bytes of `slot` (unaligned stores allowed).
            unsafe { _mm_storeu_si128(slot.as_mut_ptr().cast(), row) };
        }
    }

    /// `vectors` one after another at the start of `out`.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn store_all(vectors: &[__m128i], out: &mut [MaybeUninit<u8>]) {
        for (index, &vector) in vectors.iter().enumerate() {
            let slot = &mut out[16 * index..][..16];
            // SAFETY: writes the 16 bytes of `slot` (unaligned stores allowed).
            unsafe { _mm_storeu_si128(slot.as_mut_ptr().cast(), vector) };
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod vectors {
    use std::mem::MaybeUninit;

    /// No vectors here: nothing done.
    pub(super) fn where_supported(
        _: bool,
        _: usize,
        _: &[u8],
        _: &mut [MaybeUninit<u8>],
        _: usize,
    ) -> usize {
        0
    }
}

/// `input` read as `rows` rows of `columns` bytes, written transposed: `out[c * rows + r] =
/// input[r * columns + c]`. Blocked so that each block's reads and writes stay in cache.
fn transpose(input: &[u8], out: &mut [MaybeUninit<u8>], columns: usize, rows: usize) {
    const BLOCK: usize = 64;
    for row_start in (0..rows).step_by(BLOCK) {
        let row_end = (row_start + BLOCK).min(rows);
        for column_start in (0..columns).step_by(BLOCK) {
            let column_end = (column_start + BLOCK).min(columns);
            for row in row_start..row_end {
                let source = &input[row * columns..][column_start..column_end];
                for (offset, &byte) in source.iter().enumerate() {
                    out[(column_start + offset) * rows + row].write(byte);
                }
            }
        }
    }
}

/// The configuration, both formats: `elementsize`, numcodecs' default 4, always written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ShuffleConfig {
    #[serde(default = "default_elementsize")]
    elementsize: i64,
}

fn default_elementsize() -> i64 {
    4
}

impl Codec for Shuffle {
    fn name(&self) -> &'static str {
        SHUFFLE_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let config = ShuffleConfig {
            elementsize: self.elementsize,
        };
        match format {
            ZarrFormat::V3 => to_v3_json(SHUFFLE_NAME, &config),
            ZarrFormat::V2 => to_v2_json(SHUFFLE_ID, &config),
        }
    }
}

impl CodecFromJson for Shuffle {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let config: ShuffleConfig = match format {
            ZarrFormat::V3 => parse_v3_config(json, SHUFFLE_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, SHUFFLE_ID)?,
        };
        Ok(Self::new(config.elementsize))
    }
}

// SAFETY: the transpose and the copy write only bytes into the `MaybeUninit` memory they are
// given, every byte of its first `input.len()`.
unsafe impl UninitBytesCodec for Shuffle {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(input.len());
        let written = self.run(input, out.spare_capacity_mut(), true)?;
        // SAFETY: `run` initialised the first `written` bytes of the spare capacity.
        unsafe { out.set_len(written) };
        Ok(out)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        if let Some(limit) = limit.filter(|&limit| input.len() > limit) {
            return Err(CodecError::OutputLimit { limit });
        }
        let mut out = Vec::with_capacity(input.len());
        let written = self.run(input, out.spare_capacity_mut(), false)?;
        // SAFETY: `run` initialised the first `written` bytes of the spare capacity.
        unsafe { out.set_len(written) };
        Ok(out)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        self.run(input, out, true)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        self.run(input, out, false)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(decoded_len)
    }

    fn max_decoded_len(&self, encoded_len: usize) -> Option<usize> {
        Some(encoded_len)
    }

    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        Ok(Some(input.len()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zarr_codec_shapes::ErrorKind;

    use super::*;

    /// numcodecs' `_doShuffle`, as written.
    fn reference(input: &[u8], width: usize) -> Vec<u8> {
        let count = input.len() / width;
        let mut out = vec![0u8; input.len()];
        for i in 0..count {
            for byte in 0..width {
                out[byte * count + i] = input[i * width + byte];
            }
        }
        out
    }

    #[test]
    fn equals_numcodecs_loop_and_round_trips() -> Result<()> {
        let data: Vec<u8> = (0..30_000u32)
            .map(|i| (i * 37 % 251).to_le_bytes()[0])
            .collect();
        for width in [2usize, 3, 4, 5, 8, 16, 100, 1000] {
            let len = data.len() / width * width;
            let lengths = [
                0,
                width,
                15 * width,
                16 * width,
                17 * width,
                31 * width,
                33 * width,
                47 * width,
            ];
            for short in lengths.into_iter().filter(|&n| n <= data.len()) {
                let input = &data[..short];
                assert_eq!(
                    shuffle(input, width)?,
                    reference(input, width),
                    "{width} {short}"
                );
                assert_eq!(unshuffle(&shuffle(input, width)?, width)?, input);
            }
            let input = &data[..len];
            let encoded = shuffle(input, width)?;
            assert_eq!(encoded, reference(input, width), "width {width}");
            assert_eq!(unshuffle(&encoded, width)?, input);
        }
        for width in [-3, 0, 1] {
            let codec = Shuffle::new(width);
            assert_eq!(codec.encode_bytes(&data[..7])?, &data[..7]);
            assert_eq!(codec.decode_bytes(&data[..7], None)?, &data[..7]);
        }
        Ok(())
    }

    #[test]
    fn partial_elements_are_refused() {
        let codec = Shuffle::new(4);
        assert_eq!(
            codec.encode_bytes(b"abcde").map_err(|e| e.kind()),
            Err(ErrorKind::OutOfRange)
        );
        assert_eq!(
            codec.decode_bytes(b"abcde", None).map_err(|e| e.kind()),
            Err(ErrorKind::Corrupt)
        );
        assert_eq!(
            codec
                .decode_bytes(b"abcdefgh", Some(7))
                .map_err(|e| e.kind()),
            Err(ErrorKind::OutputSize)
        );
    }

    #[test]
    fn json_forms() -> Result<()> {
        let codec = Shuffle::from_json(&json!({"id": "shuffle"}), ZarrFormat::V2)?;
        assert_eq!(codec, Shuffle::default());
        assert_eq!(
            codec.to_json(ZarrFormat::V2)?,
            json!({"id": "shuffle", "elementsize": 4})
        );
        assert_eq!(
            codec.to_json(ZarrFormat::V3)?,
            json!({"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}})
        );
        assert!(
            Shuffle::from_json(
                &json!({"id": "shuffle", "elementsize": 2.5}),
                ZarrFormat::V2
            )
            .is_err()
        );
        Ok(())
    }
}
