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

/// Shuffle for `N`-byte elements: blocks of [`BLOCK_ELEMENTS`] elements, each read once and
/// written as `N` runs, one per byte position.
fn shuffle_fixed<const N: usize>(input: &[u8], out: &mut [MaybeUninit<u8>]) {
    let count = input.len() / N;
    let (blocks, _) = input.as_chunks::<N>();
    let full = count / BLOCK_ELEMENTS * BLOCK_ELEMENTS;
    for start in (0..full).step_by(BLOCK_ELEMENTS) {
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

/// Unshuffle for `N`-byte elements: blocks of [`BLOCK_ELEMENTS`] elements, each gathered from
/// `N` runs and written once.
fn unshuffle_fixed<const N: usize>(input: &[u8], out: &mut [MaybeUninit<u8>]) {
    let count = input.len() / N;
    let (elements, _) = out.as_chunks_mut::<N>();
    let full = count / BLOCK_ELEMENTS * BLOCK_ELEMENTS;
    for start in (0..full).step_by(BLOCK_ELEMENTS) {
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
            let lengths = [0, width, 31 * width, 33 * width];
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
