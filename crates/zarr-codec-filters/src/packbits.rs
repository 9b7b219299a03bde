//! numcodecs' `PackBits()`: a boolean array as bits, eight to a byte (first element in the
//! high bit, numpy's `packbits`), after one byte holding how many bits pad the last byte.
//!
//! A chunk of `n` booleans encodes to `1 + ceil(n / 8)` bytes (zarr-python's
//! `numcodecs.packbits` resolves to that one-dimensional `uint8` shape); any nonzero byte is
//! `true`, as numpy's `packbits` takes it, and decoding writes `0` and `1`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, FillValue, Result,
};

/// The codec's name in Zarr v3 metadata (zarr-python's).
pub const PACKBITS_NAME: &str = "numcodecs.packbits";
/// The codec's id in Zarr v2 metadata.
pub const PACKBITS_ID: &str = "packbits";

/// `PackBits` takes no configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {}

/// numcodecs' `PackBits()`: boolean arrays only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PackBits;

/// The bytes `count` booleans pack into (the padding byte included).
pub fn packed_len(count: usize) -> usize {
    1 + count.div_ceil(8)
}

/// The booleans a packed buffer holds, from its length and padding byte; `Corrupt` for a
/// buffer numcodecs could not have written (empty, or padding over 7 bits or past the data).
pub fn unpacked_len(packed: &[u8]) -> Result<usize> {
    let Some((&padding, bits)) = packed.split_first() else {
        return Err(CodecError::corrupt(format!(
            "{PACKBITS_ID}: empty input (no padding byte)"
        )));
    };
    if padding > 7 || (bits.is_empty() && padding != 0) {
        return Err(CodecError::corrupt(format!(
            "{PACKBITS_ID}: {padding} padding bits for {} bytes of bits",
            bits.len()
        )));
    }
    Ok(bits.len() * 8 - usize::from(padding))
}

/// Packs every boolean byte of `input` into `output` ([`packed_len`] bytes).
pub fn pack(input: &[u8], output: &mut [u8]) -> Result<()> {
    if output.len() != packed_len(input.len()) {
        return Err(CodecError::OutputSize {
            expected: packed_len(input.len()),
            actual: output.len(),
        });
    }
    let Some((padding, bits)) = output.split_first_mut() else {
        return Ok(());
    };
    #[allow(clippy::cast_possible_truncation)] // at most 7
    {
        *padding = ((8 - input.len() % 8) % 8) as u8;
    }
    let done = pack_vectors(input, bits);
    let (groups, rest) = input[8 * done..].as_chunks::<8>();
    for (group, byte) in groups.iter().zip(bits[done..].iter_mut()) {
        *byte = pack_word(u64::from_le_bytes(*group));
    }
    if let Some(last) = bits.last_mut().filter(|_| !rest.is_empty()) {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        *last = pack_word(u64::from_le_bytes(word));
    }
    Ok(())
}

/// Packs the leading booleans with the widest vectors the CPU has; returns the bytes of `bits`
/// written.
#[cfg(target_arch = "x86_64")]
fn pack_vectors(input: &[u8], bits: &mut [u8]) -> usize {
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { pack_vectors_avx2(input, bits) };
    }
    pack_vectors_sse2(input, bits)
}

/// Packs the leading whole groups of 32 booleans with AVX2: each group of 8 bytes reversed in
/// place (a byte shuffle), so that one compare and `movemask` per 32 bytes put element 0 of
/// each group in its byte's high bit, as numpy does. Returns the bytes of `bits` written.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pack_vectors_avx2(input: &[u8], bits: &mut [u8]) -> usize {
    use std::arch::x86_64::{
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_setr_epi8,
        _mm256_setzero_si256, _mm256_shuffle_epi8,
    };
    let (groups, _) = input.as_chunks::<32>();
    let (words, _) = bits.as_chunks_mut::<4>();
    #[rustfmt::skip]
    let reverse = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
    );
    for (group, word) in groups.iter().zip(words.iter_mut()) {
        // SAFETY: the load reads the 32 bytes of `group` (unaligned loads allowed).
        let vector = unsafe { _mm256_loadu_si256(group.as_ptr().cast()) };
        let zero = _mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_shuffle_epi8(vector, reverse),
            _mm256_setzero_si256(),
        ));
        #[allow(clippy::cast_sign_loss)] // the 32 mask bits
        {
            *word = (!(zero as u32)).to_le_bytes();
        }
    }
    4 * groups.len().min(words.len())
}

/// Packs the leading whole groups of 64 booleans with SSE2 (x86-64's baseline): a compare
/// and a `movemask` per 16 bytes give a bit per element, low bit first; one pass of SWAR bit
/// reversal puts element 0 in each byte's high bit, as numpy does. Returns the bytes of `bits`
/// written.
#[cfg(target_arch = "x86_64")]
fn pack_vectors_sse2(input: &[u8], bits: &mut [u8]) -> usize {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
    };
    let (groups, _) = input.as_chunks::<64>();
    let (words, _) = bits.as_chunks_mut::<8>();
    for (group, word) in groups.iter().zip(words.iter_mut()) {
        let mut zero: u64 = 0;
        for (lane, sixteen) in group.as_chunks::<16>().0.iter().enumerate() {
            // SAFETY: SSE2 is part of every x86-64 target; the load reads the 16 bytes of
            // `sixteen` (unaligned loads allowed) and the other intrinsics touch registers only.
            let mask = unsafe {
                let vector = _mm_loadu_si128(sixteen.as_ptr().cast());
                _mm_movemask_epi8(_mm_cmpeq_epi8(vector, _mm_setzero_si128()))
            };
            #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)] // 16 mask bits
            let mask = u64::from(mask as u16);
            zero |= mask << (16 * lane);
        }
        *word = reverse_bits_in_bytes(!zero).to_le_bytes();
    }
    8 * groups.len().min(words.len())
}

/// The bits of each byte of `word` in reverse order (bit 0 to bit 7 and so on).
#[inline]
fn reverse_bits_in_bytes(word: u64) -> u64 {
    let word = ((word >> 1) & 0x5555_5555_5555_5555) | ((word & 0x5555_5555_5555_5555) << 1);
    let word = ((word >> 2) & 0x3333_3333_3333_3333) | ((word & 0x3333_3333_3333_3333) << 2);
    ((word >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((word & 0x0f0f_0f0f_0f0f_0f0f) << 4)
}

/// No vector path elsewhere: the word-at-a-time loop does all.
#[cfg(not(target_arch = "x86_64"))]
fn pack_vectors(_: &[u8], _: &mut [u8]) -> usize {
    0
}

/// Eight booleans (byte `i` of `word` is element `i`) as one byte, element 0 in the high bit.
#[inline(always)]
fn pack_word(word: u64) -> u8 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // 0x01 in each byte that is nonzero, 0x00 elsewhere (no carry crosses bytes).
    let ones = ((((word & LOW7) + LOW7) | word) >> 7) & 0x0101_0101_0101_0101;
    // Each byte's bit lands in the top byte at bit 7 - i; no two partial products share a bit.
    #[allow(clippy::cast_possible_truncation)] // the top byte
    {
        (ones.wrapping_mul(0x8040_2010_0804_0201) >> 56) as u8
    }
}

/// Every byte's eight bits as eight booleans (`0`/`1`), high bit first.
const SPREAD: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            #[allow(clippy::cast_possible_truncation)] // 0 or 1
            {
                table[byte][bit] = ((byte >> (7 - bit)) & 1) as u8;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// Unpacks `input` (padding byte first) into `output`, which must hold exactly the booleans
/// it holds (`Corrupt` otherwise).
pub fn unpack(input: &[u8], output: &mut [u8]) -> Result<()> {
    let count = unpacked_len(input)?;
    if count != output.len() {
        return Err(CodecError::corrupt(format!(
            "{PACKBITS_ID}: {} packed bytes hold {count} booleans, not the chunk's {}",
            input.len(),
            output.len()
        )));
    }
    let bits = &input[1..];
    let done = unpack_vectors(bits, output);
    let (groups, rest) = output[8 * done..].as_chunks_mut::<8>();
    for (group, &byte) in groups.iter_mut().zip(&bits[done..]) {
        *group = SPREAD[usize::from(byte)];
    }
    if let Some(&last) = bits.last().filter(|_| !rest.is_empty()) {
        let len = rest.len();
        rest.copy_from_slice(&SPREAD[usize::from(last)][..len]);
    }
    Ok(())
}

/// Unpacks the leading bytes of `bits` with AVX2 where the CPU has it; returns the bytes
/// unpacked (eight booleans each).
fn unpack_vectors(bits: &[u8], output: &mut [u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { unpack_vectors_avx2(bits, output) };
    }
    let _ = (bits, output);
    0
}

/// Four packed bytes at a time into 32 booleans: each byte copied to its eight output bytes (a
/// byte shuffle), each output byte tested against its own bit, high bit first.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unpack_vectors_avx2(bits: &[u8], output: &mut [u8]) -> usize {
    use std::arch::x86_64::{
        _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_set1_epi8, _mm256_set1_epi32, _mm256_setr_epi8,
        _mm256_shuffle_epi8, _mm256_storeu_si256,
    };
    let (words, _) = bits.as_chunks::<4>();
    let (groups, _) = output.as_chunks_mut::<32>();
    #[rustfmt::skip]
    let spread = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
        2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
    );
    #[rustfmt::skip]
    #[allow(clippy::cast_possible_wrap)] // bit patterns
    let bit = _mm256_setr_epi8(
        0x80u8 as i8, 0x40, 0x20, 0x10, 8, 4, 2, 1, 0x80u8 as i8, 0x40, 0x20, 0x10, 8, 4, 2, 1,
        0x80u8 as i8, 0x40, 0x20, 0x10, 8, 4, 2, 1, 0x80u8 as i8, 0x40, 0x20, 0x10, 8, 4, 2, 1,
    );
    let one = _mm256_set1_epi8(1);
    for (word, group) in words.iter().zip(groups.iter_mut()) {
        let bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(i32::from_le_bytes(*word)), spread);
        let set = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
        // SAFETY: the store writes the 32 bytes of `group` (unaligned stores allowed).
        unsafe { _mm256_storeu_si256(group.as_mut_ptr().cast(), _mm256_and_si256(set, one)) };
    }
    4 * words.len().min(groups.len())
}

impl PackBits {
    fn check(spec: &ChunkSpec) -> Result<()> {
        if spec.data_type() == DataType::Bool {
            return Ok(());
        }
        Err(CodecError::unsupported(format!(
            "{PACKBITS_ID}: only bool arrays can be bit-packed, not {}",
            spec.data_type()
        )))
    }
}

impl Codec for PackBits {
    fn name(&self) -> &'static str {
        PACKBITS_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(PACKBITS_NAME, &Config {}),
            ZarrFormat::V2 => to_v2_json(PACKBITS_ID, &Config {}),
        }
    }
}

impl CodecFromJson for PackBits {
    fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
        let Config {} = match format {
            ZarrFormat::V3 => parse_v3_config(json, PACKBITS_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, PACKBITS_ID)?,
        };
        Ok(Self)
    }
}

impl ArrayToArrayCodec for PackBits {
    /// One dimension of `1 + ceil(n / 8)` bytes, filled with 0.
    fn resolve(&self, spec: &ChunkSpec) -> Result<ChunkSpec> {
        Self::check(spec)?;
        let fill = FillValue::from_bytes(DataType::UInt8, &[0])?;
        ChunkSpec::new(vec![packed_len(spec.num_elements())], DataType::UInt8, fill)
    }

    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        Self::check(spec)?;
        check_chunk(input, spec)?;
        let mut output = vec![0u8; packed_len(input.len())];
        pack(input, &mut output)?;
        Ok(output)
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        Self::check(spec)?;
        let mut output = vec![0u8; spec.num_elements()];
        unpack(input, &mut output)?;
        Ok(output)
    }

    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        Self::check(spec)?;
        check_chunk(input, spec)?;
        pack(input, out)?;
        Ok(out.len())
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        Self::check(spec)?;
        if out.len() != spec.num_elements() {
            return Err(CodecError::OutputSize {
                expected: spec.num_elements(),
                actual: out.len(),
            });
        }
        unpack(input, out)?;
        Ok(out.len())
    }
}

fn check_chunk(input: &[u8], spec: &ChunkSpec) -> Result<()> {
    if input.len() == spec.num_elements() {
        return Ok(());
    }
    Err(CodecError::corrupt(format!(
        "{PACKBITS_ID}: {} bytes are not the chunk's {} booleans",
        input.len(),
        spec.num_elements()
    )))
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    #[test]
    fn numcodecs_docstring_example() -> Result<()> {
        let mut packed = [0u8; 2];
        pack(&[1, 0, 0, 1], &mut packed)?;
        assert_eq!(packed, [4, 144]);
        let mut unpacked = [9u8; 4];
        unpack(&packed, &mut unpacked)?;
        assert_eq!(unpacked, [1, 0, 0, 1]);
        Ok(())
    }

    #[test]
    fn every_length_round_trips_and_nonzero_is_true() -> Result<()> {
        for count in (0..140).chain([1000, 4099]) {
            let input: Vec<u8> = (0..count).map(|i| [0, 1, 7, 0, 0x80][i % 5]).collect();
            let mut packed = vec![0u8; packed_len(count)];
            pack(&input, &mut packed)?;
            assert_eq!(unpacked_len(&packed)?, count);
            let mut unpacked = vec![0u8; count];
            unpack(&packed, &mut unpacked)?;
            let expected: Vec<u8> = input.iter().map(|&b| u8::from(b != 0)).collect();
            assert_eq!(unpacked, expected);
        }
        Ok(())
    }

    #[test]
    fn vector_paths_are_the_word_loop() -> Result<()> {
        // Whatever vectors this CPU takes (AVX2 or SSE2), the bytes of the word-at-a-time loop.
        let input: Vec<u8> = (0..4099usize)
            .map(|i| [0, 1, 7, 0, 0x80, 0, 3][i * i % 7])
            .collect();
        let expected: Vec<u8> = input
            .chunks(8)
            .map(|group| {
                let mut word = [0u8; 8];
                word[..group.len()].copy_from_slice(group);
                pack_word(u64::from_le_bytes(word))
            })
            .collect();
        let mut packed = vec![0u8; packed_len(input.len())];
        pack(&input, &mut packed)?;
        assert_eq!(packed[1..], expected[..]);
        #[cfg(target_arch = "x86_64")]
        {
            let mut sse2 = vec![0u8; expected.len()];
            let done = pack_vectors_sse2(&input, &mut sse2);
            assert!(done > 500);
            assert_eq!(sse2[..done], expected[..done]);
        }
        let mut unpacked = vec![0u8; input.len()];
        unpack(&packed, &mut unpacked)?;
        let spread: Vec<u8> = expected
            .iter()
            .flat_map(|&byte| SPREAD[usize::from(byte)])
            .take(input.len())
            .collect();
        assert_eq!(unpacked, spread);
        Ok(())
    }

    #[test]
    fn corrupt_padding_is_refused() {
        assert!(unpacked_len(&[]).is_err());
        assert!(unpacked_len(&[8, 0]).is_err());
        assert!(unpacked_len(&[1]).is_err());
        assert!(unpack(&[3, 0xff], &mut [0u8; 6]).is_err());
    }
}
