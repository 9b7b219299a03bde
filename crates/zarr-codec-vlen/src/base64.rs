//! numcodecs' `Base64()`: bytes as standard base64 text with `=` padding
//! (`base64.standard_b64encode`), decoded as Python's `base64.standard_b64decode` decodes:
//! characters outside the alphabet are skipped, a complete padding ends the data, and a final
//! group of one character or missing padding is an error.

use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

/// The codec's name in Zarr v3 metadata (zarr-python's form of numcodecs' codecs).
pub const BASE64_NAME: &str = "numcodecs.base64";
/// The codec's id in Zarr v2 metadata.
pub const BASE64_ID: &str = "base64";

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Each byte's value in the alphabet, or 64 for a byte outside it.
const VALUES: [u8; 256] = {
    let mut table = [64u8; 256];
    let mut index = 0;
    while index < 64 {
        #[allow(clippy::cast_possible_truncation)] // below 64
        {
            table[ALPHABET[index] as usize] = index as u8;
        }
        index += 1;
    }
    table
};

/// numcodecs' `Base64()` (no configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Base64;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {}

impl Base64 {
    /// `input` as base64 text.
    pub fn encode(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(input.len().div_ceil(3) * 4);
        let (groups, rest) = input.as_chunks::<3>();
        for &[a, b, c] in groups {
            let bits = u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c);
            out.extend([18, 12, 6, 0].map(|shift| ALPHABET[(bits >> shift) as usize & 63]));
        }
        match *rest {
            [a] => {
                let bits = u32::from(a) << 16;
                out.extend([
                    ALPHABET[(bits >> 18) as usize & 63],
                    ALPHABET[(bits >> 12) as usize & 63],
                ]);
                out.extend(*b"==");
            }
            [a, b] => {
                let bits = u32::from(a) << 16 | u32::from(b) << 8;
                out.extend([18, 12, 6].map(|shift| ALPHABET[(bits >> shift) as usize & 63]));
                out.push(b'=');
            }
            _ => {}
        }
        out
    }

    /// Base64 text decoded as Python's `binascii.a2b_base64` (not strict) decodes it.
    #[allow(clippy::cast_possible_truncation)] // each output byte is the low 8 bits meant
    pub fn decode(input: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(input.len() / 4 * 3 + 3);
        let (mut quad, mut pads, mut bits) = (0u32, 0u32, 0u32);
        let mut data_characters = 0usize;
        for &byte in input {
            if byte == b'=' {
                if quad >= 2 {
                    pads += 1;
                    if quad + pads >= 4 {
                        return Ok(out); // a complete padding: the data ends here
                    }
                }
                continue;
            }
            let value = VALUES[usize::from(byte)];
            if value == 64 {
                continue; // outside the alphabet: skipped
            }
            data_characters += 1;
            bits = (bits << 6) | u32::from(value);
            quad += 1;
            match quad {
                2 => out.push((bits >> 4) as u8),
                3 => out.push((bits >> 2) as u8),
                4 => {
                    out.push(bits as u8);
                    (quad, bits) = (0, 0);
                }
                _ => {}
            }
            bits &= 0xff; // only the bits not yet written matter
        }
        match quad {
            0 => Ok(out),
            1 => Err(CodecError::corrupt(format!(
                "base64: invalid base64-encoded string: number of data characters \
                 ({data_characters}) cannot be 1 more than a multiple of 4"
            ))),
            _ => Err(CodecError::corrupt("base64: incorrect padding")),
        }
    }
}

impl Codec for Base64 {
    fn name(&self) -> &'static str {
        BASE64_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(BASE64_NAME, &Config {}),
            ZarrFormat::V2 => to_v2_json(BASE64_ID, &Config {}),
        }
    }
}

impl CodecFromJson for Base64 {
    fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
        let Config {} = match format {
            ZarrFormat::V3 => parse_v3_config(json, BASE64_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, BASE64_ID)?,
        };
        Ok(Self)
    }
}

/// `data` into the start of `out`; `OutputSize` when it does not fit.
fn write_into(data: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let room = out.len();
    let target = out.get_mut(..data.len()).ok_or(CodecError::OutputSize {
        expected: data.len(),
        actual: room,
    })?;
    for (slot, &byte) in target.iter_mut().zip(data) {
        slot.write(byte);
    }
    Ok(data.len())
}

// SAFETY: the `_uninit` methods write only initialised bytes (`write_into`).
unsafe impl UninitBytesCodec for Base64 {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        Ok(Self::encode(input))
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        let decoded = Self::decode(input)?;
        match limit {
            Some(limit) if decoded.len() > limit => Err(CodecError::OutputLimit { limit }),
            _ => Ok(decoded),
        }
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        write_into(&Self::encode(input), out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        write_into(&Self::decode(input)?, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.div_ceil(3).checked_mul(4)
    }

    fn max_decoded_len(&self, encoded_len: usize) -> Option<usize> {
        Some(encoded_len / 4 * 3 + 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pythons_bytes_both_ways() -> Result<()> {
        let cases: [(&[u8], &[u8]); 5] = [
            (b"", b""),
            (b"f", b"Zg=="),
            (b"fo", b"Zm8="),
            (b"foo", b"Zm9v"),
            (b"\xff\x00\xfe zarr", b"/wD+IHphcnI="),
        ];
        for (plain, text) in cases {
            assert_eq!(Base64::encode(plain), text);
            assert_eq!(Base64::decode(text)?, plain);
        }
        // Python skips characters outside the alphabet and stops at a complete padding.
        assert_eq!(Base64::decode(b"Zm 9v\nYg==trailing")?, b"foob");
        assert!(Base64::decode(b"Zm9vY").is_err());
        assert!(Base64::decode(b"Zm9vYg").is_err());
        Ok(())
    }

    /// What Python 3.11's `base64.standard_b64decode` gives for each (`None`: it raises).
    #[test]
    fn decodes_as_python_does() {
        let cases: [(&[u8], Option<&[u8]>); 18] = [
            (b"Zm9v", Some(b"foo")),
            (b"Zm9vYg==", Some(b"foob")),
            (b"Zm9vYg=", None),
            (b"Zm9vYmE=", Some(b"fooba")),
            (b"Zm=9v", Some(b"foo")),
            (b"Zg=x=", Some(b"f\x0c")),
            (b"=Zm9v", Some(b"foo")),
            (b"Z===m9v", Some(b"foo")),
            (b"Zm9vYg==Zm9v", Some(b"foob")),
            (b"!!Zm\x009v##", Some(b"foo")),
            (b"Zm9vY", None),
            (b"Zm9vYg", None),
            (b"Zg", None),
            (b"Z", None),
            (b"", Some(b"")),
            (b"===", Some(b"")),
            (b"Zm9vYmFy\n", Some(b"foobar")),
            (b"Y-_z", None),
        ];
        for (text, expected) in cases {
            assert_eq!(Base64::decode(text).ok().as_deref(), expected, "{text:?}");
        }
    }
}
