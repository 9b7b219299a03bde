//! numcodecs' `fletcher32`: HDF5's Fletcher-32 (`H5_checksum_fletcher32`), after the data.
//!
//! HDF5 adds the data as big-endian 16-bit words (a last odd byte as the high byte of a
//! word) into two sums, folding them with an end-around carry every 360 words so that 32 bits
//! never overflow. Folding keeps each sum's value modulo 65535 and keeps it nonzero once a
//! nonzero word has been added; at the end each is in `0..=0xFFFF`. So each final sum is 0
//! when every word is 0, and otherwise the exact sum modulo 65535 written as `1..=0xFFFF`
//! (65535 for a multiple of it), whatever order the words are added in. That lets the
//! words be added 16 lanes at a time, with the same result as HDF5's loop (the tests check
//! against that loop, written out).

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecFromJson, Result};

use crate::Location;
use crate::framing::{Checksum32, checksum_bytes_codec};

/// The codec's id in Zarr v2 metadata.
pub const FLETCHER32_ID: &str = "fletcher32";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const FLETCHER32_NAME: &str = "numcodecs.fletcher32";

const MODULUS: u64 = 65535;
/// Words per row: one per lane.
const LANES: usize = 16;
/// Rows added before the lanes are folded into the totals: a lane's running sum of sums
/// stays below 2^32 (256 * 257 / 2 * 65535 < 2^32).
const ROWS: usize = 256;

/// The Fletcher-32 of `data` as HDF5 and numcodecs compute it.
pub fn fletcher32(data: &[u8]) -> u32 {
    let (words, tail) = data.as_chunks::<2>();
    let mut sums = Sums::default();
    let (rows, rest) = words.as_chunks::<LANES>();
    for block in rows.chunks(ROWS) {
        sums.add_rows(block);
    }
    for word in rest {
        sums.add_word(u16::from_be_bytes(*word));
    }
    if let [last] = tail {
        sums.add_word(u16::from(*last) << 8);
    }
    sums.finish()
}

/// The two sums modulo 65535, and whether any word was nonzero.
#[derive(Default)]
struct Sums {
    sum1: u64,
    sum2: u64,
    nonzero: bool,
}

impl Sums {
    fn add_word(&mut self, word: u16) {
        self.nonzero |= word != 0;
        self.sum1 = (self.sum1 + u64::from(word)) % MODULUS;
        self.sum2 = (self.sum2 + self.sum1) % MODULUS;
    }

    /// Up to [`ROWS`] rows of [`LANES`] words, in the lanes.
    fn add_rows(&mut self, rows: &[[[u8; 2]; LANES]]) {
        // Per lane: the sum of its words, and the sum over rows of that sum before the row.
        let mut lane_sum = [0u32; LANES];
        let mut lane_before = [0u32; LANES];
        for row in rows {
            for ((sum, before), word) in lane_sum.iter_mut().zip(&mut lane_before).zip(row) {
                *before += *sum;
                *sum += u32::from(u16::from_be_bytes(*word));
            }
        }
        let count = rows.len() as u64 * LANES as u64;
        let mut block_sum = 0u64;
        let mut weighted = 0u64; // sum over words of (words after it in the block + 1) * word
        for (lane, (&sum, &before)) in lane_sum.iter().zip(&lane_before).enumerate() {
            block_sum += u64::from(sum);
            let lanes = LANES as u64;
            weighted += lanes * (u64::from(before) + u64::from(sum)) - lane as u64 * u64::from(sum);
        }
        self.nonzero |= block_sum != 0;
        self.sum2 = (self.sum2 + (count % MODULUS) * self.sum1 + weighted) % MODULUS;
        self.sum1 = (self.sum1 + block_sum) % MODULUS;
    }

    fn finish(&self) -> u32 {
        let folded = |sum: u64| -> u32 {
            match (self.nonzero, sum) {
                (false, _) => 0,
                (true, 0) => 0xFFFF,
                // Below 65535: the cast keeps every bit.
                (true, sum) => u32::try_from(sum).unwrap_or(0xFFFF),
            }
        };
        (folded(self.sum2) << 16) | folded(self.sum1)
    }
}

/// numcodecs' `Fletcher32()`: the Fletcher-32 after the data. No configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Fletcher32;

/// The configuration: none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoConfig {}

impl Checksum32 for Fletcher32 {
    const ID: &'static str = FLETCHER32_ID;

    fn checksum(&self, data: &[u8]) -> u32 {
        fletcher32(data)
    }

    fn location(&self) -> Location {
        Location::End
    }
}

impl Codec for Fletcher32 {
    fn name(&self) -> &'static str {
        FLETCHER32_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(FLETCHER32_NAME, &NoConfig {}),
            ZarrFormat::V2 => to_v2_json(FLETCHER32_ID, &NoConfig {}),
        }
    }
}

impl CodecFromJson for Fletcher32 {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let _: NoConfig = match format {
            ZarrFormat::V3 => parse_v3_config(json, FLETCHER32_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, FLETCHER32_ID)?,
        };
        Ok(Self)
    }
}

checksum_bytes_codec!(Fletcher32);

#[cfg(test)]
mod tests {
    use super::*;

    /// HDF5's `H5_checksum_fletcher32`, step by step, in 32-bit arithmetic.
    fn hdf5(data: &[u8]) -> u32 {
        let (mut sum1, mut sum2) = (0u32, 0u32);
        let mut words = data.chunks_exact(2);
        let mut left = data.len() / 2;
        while left > 0 {
            let run = left.min(360);
            left -= run;
            for word in words.by_ref().take(run) {
                sum1 = sum1.wrapping_add((u32::from(word[0]) << 8) | u32::from(word[1]));
                sum2 = sum2.wrapping_add(sum1);
            }
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16);
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16);
        }
        if data.len() % 2 == 1 {
            sum1 += u32::from(data[data.len() - 1]) << 8;
            sum2 += sum1;
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16);
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16);
        }
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16);
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16);
        (sum2 << 16) | sum1
    }

    #[test]
    fn equals_hdf5_on_every_shape_of_input() {
        let mut state = 0x2545_F491_u32;
        let noise: Vec<u8> = (0..40_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        let lengths = (0..80).chain([719, 720, 721, 8191, 8192, 8193, 16_384, 39_999, 40_000]);
        for len in lengths {
            for data in [&noise[..len], &vec![0xFF; len][..], &vec![0; len][..]] {
                assert_eq!(fletcher32(data), hdf5(data), "length {len}");
            }
        }
        // Sums that land on multiples of 65535: HDF5 writes them as 0xFFFF, not 0.
        assert_eq!(fletcher32(&[0xFF, 0xFF]), 0xFFFF_FFFF);
        assert_eq!(fletcher32(&[]), 0);
        assert_eq!(fletcher32(&[0, 0, 0]), 0);
    }
}
