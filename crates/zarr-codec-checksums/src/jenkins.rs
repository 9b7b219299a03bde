//! numcodecs' `jenkins_lookup3`: Bob Jenkins' lookup3 `hashlittle` (public domain), as HDF5's
//! `H5_checksum_lookup3` computes it, after the data; the hash of an optional prefix followed
//! by the data, from a seed (`initval`).

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecFromJson, Result};

use crate::Location;
use crate::framing::{Checksum32, checksum_bytes_codec};

/// The codec's id in Zarr v2 metadata.
pub const JENKINS_LOOKUP3_ID: &str = "jenkins_lookup3";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const JENKINS_LOOKUP3_NAME: &str = "numcodecs.jenkins_lookup3";

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(14));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(11));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(25));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(16));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(4));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(14));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(24));
}

/// lookup3's `hashlittle(data, initval)`: the bytes read as little-endian 32-bit words, 12
/// bytes per round, the last 1 to 12 bytes zero-padded.
pub fn jenkins_lookup3(data: &[u8], initval: u32) -> u32 {
    // The length enters modulo 2^32, as lookup3's `(uint32_t)length`.
    #[allow(clippy::cast_possible_truncation)]
    let start = 0xDEAD_BEEF_u32
        .wrapping_add(data.len() as u32)
        .wrapping_add(initval);
    let (mut a, mut b, mut c) = (start, start, start);
    if data.is_empty() {
        return c;
    }
    let word = |bytes: &[u8]| -> u32 {
        let mut padded = [0u8; 4];
        padded[..bytes.len()].copy_from_slice(bytes);
        u32::from_le_bytes(padded)
    };
    // Every block but the last (which may be a whole 12 bytes) goes through `mix`.
    let last_start = (data.len() - 1) / 12 * 12;
    let (body, last) = data.split_at(last_start);
    let (blocks, _) = body.as_chunks::<12>();
    for block in blocks {
        a = a.wrapping_add(word(&block[0..4]));
        b = b.wrapping_add(word(&block[4..8]));
        c = c.wrapping_add(word(&block[8..12]));
        mix(&mut a, &mut b, &mut c);
    }
    let part = |range: std::ops::Range<usize>| last.get(range.start..range.end.min(last.len()));
    a = a.wrapping_add(part(0..4).map_or(0, word));
    b = b.wrapping_add(part(4..8).map_or(0, word));
    c = c.wrapping_add(part(8..12).map_or(0, word));
    final_mix(&mut a, &mut b, &mut c);
    c
}

/// numcodecs' `JenkinsLookup3(initval=0, prefix=None)`: the hash of `prefix` then the data,
/// after the data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct JenkinsLookup3 {
    initval: u32,
    prefix: Option<Vec<u8>>,
}

impl JenkinsLookup3 {
    /// The codec with seed `initval` and bytes `prefix` hashed before the data.
    pub fn new(initval: u32, prefix: Option<Vec<u8>>) -> Self {
        Self { initval, prefix }
    }

    /// The seed.
    pub fn initval(&self) -> u32 {
        self.initval
    }

    /// The bytes hashed before the data, if any.
    pub fn prefix(&self) -> Option<&[u8]> {
        self.prefix.as_deref()
    }
}

/// The v2 configuration as numcodecs writes it: both keys, always (`prefix` as a list of
/// byte values, or `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigV2 {
    #[serde(default)]
    initval: u32,
    #[serde(default)]
    prefix: Option<Vec<u8>>,
}

/// The v3 configuration as zarr-python writes it: what was given, no `null`s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigV3 {
    #[serde(default, skip_serializing_if = "is_zero")]
    initval: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prefix: Option<Vec<u8>>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl Checksum32 for JenkinsLookup3 {
    const ID: &'static str = JENKINS_LOOKUP3_ID;

    fn checksum(&self, data: &[u8]) -> u32 {
        match self.prefix.as_deref() {
            None | Some([]) => jenkins_lookup3(data, self.initval),
            // The hash reads its input once, start to end: the prefix joined to the data.
            Some(prefix) => jenkins_lookup3(&[prefix, data].concat(), self.initval),
        }
    }

    fn location(&self) -> Location {
        Location::End
    }
}

impl Codec for JenkinsLookup3 {
    fn name(&self) -> &'static str {
        JENKINS_LOOKUP3_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let (initval, prefix) = (self.initval, self.prefix.clone());
        match format {
            ZarrFormat::V3 => to_v3_json(JENKINS_LOOKUP3_NAME, &ConfigV3 { initval, prefix }),
            ZarrFormat::V2 => to_v2_json(JENKINS_LOOKUP3_ID, &ConfigV2 { initval, prefix }),
        }
    }
}

impl CodecFromJson for JenkinsLookup3 {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let (initval, prefix) = match format {
            ZarrFormat::V3 => {
                let config: ConfigV3 = parse_v3_config(json, JENKINS_LOOKUP3_NAME)?;
                (config.initval, config.prefix)
            }
            ZarrFormat::V2 => {
                let config: ConfigV2 = parse_v2_config(json, JENKINS_LOOKUP3_ID)?;
                (config.initval, config.prefix)
            }
        };
        Ok(Self { initval, prefix })
    }
}

checksum_bytes_codec!(JenkinsLookup3);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup3_check_values() {
        // lookup3.c's driver5(): hashlittle("", 0) and the "Four score" sentence.
        assert_eq!(jenkins_lookup3(b"", 0), 0xDEAD_BEEF);
        assert_eq!(jenkins_lookup3(b"", 0xDEAD_BEEF), 0xBD5B_7DDE);
        let text = b"Four score and seven years ago";
        assert_eq!(jenkins_lookup3(text, 0), 0x1777_0551);
        assert_eq!(jenkins_lookup3(text, 1), 0xCD62_8161);
    }
}
