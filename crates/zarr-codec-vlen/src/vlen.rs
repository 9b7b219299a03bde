//! numcodecs' `VLenUTF8`, `VLenBytes` and `VLenArray`: variable-length items in the layout of
//! [`framing`](crate::framing), and their JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, DataType, Result};

use crate::framing;

/// `vlen-utf8`'s name in Zarr v3 metadata and id in Zarr v2.
pub const VLEN_UTF8_ID: &str = "vlen-utf8";
/// `vlen-bytes`' name in Zarr v3 metadata and id in Zarr v2.
pub const VLEN_BYTES_ID: &str = "vlen-bytes";
/// `vlen-array`'s id in Zarr v2 metadata.
pub const VLEN_ARRAY_ID: &str = "vlen-array";
/// `vlen-array`'s name in Zarr v3 metadata (zarr-python's form of numcodecs' codecs).
pub const VLEN_ARRAY_NAME: &str = "numcodecs.vlen-array";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoConfig {}

fn no_config_json(name: &str, format: ZarrFormat) -> Result<Value> {
    match format {
        ZarrFormat::V3 => to_v3_json(name, &NoConfig {}),
        ZarrFormat::V2 => to_v2_json(name, &NoConfig {}),
    }
}

fn parse_no_config(json: &Value, name: &str, format: ZarrFormat) -> Result<()> {
    let NoConfig {} = match format {
        ZarrFormat::V3 => parse_v3_config(json, name)?,
        ZarrFormat::V2 => parse_v2_config(json, name)?,
    };
    Ok(())
}

/// numcodecs' `VLenUTF8()` (and Zarr v3's `vlen-utf8`): strings as UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VlenUtf8;

impl VlenUtf8 {
    /// The strings in numcodecs' layout.
    pub fn encode<'a, I>(self, items: I) -> Result<Vec<u8>>
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        framing::encode(items.into_iter().map(str::as_bytes))
    }

    /// The strings of `input`; `Corrupt` for a truncated buffer or an item that is not UTF-8.
    pub fn decode(self, input: &[u8]) -> Result<Vec<&str>> {
        framing::decode(input)?
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                std::str::from_utf8(item).map_err(|err| {
                    CodecError::corrupt(format!("vlen-utf8: item {index} is not UTF-8: {err}"))
                })
            })
            .collect()
    }
}

/// numcodecs' `VLenBytes()` (and Zarr v3's `vlen-bytes`): byte strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VlenBytes;

impl VlenBytes {
    /// The byte strings in numcodecs' layout.
    pub fn encode<'a, I>(self, items: I) -> Result<Vec<u8>>
    where
        I: IntoIterator<Item = &'a [u8]>,
        I::IntoIter: Clone,
    {
        framing::encode(items)
    }

    /// The byte strings of `input`; `Corrupt` for a truncated buffer.
    pub fn decode(self, input: &[u8]) -> Result<Vec<&[u8]>> {
        framing::decode(input)
    }
}

macro_rules! no_config_codec {
    ($codec:ty, $name:expr) => {
        impl Codec for $codec {
            fn name(&self) -> &'static str {
                $name
            }

            fn to_json(&self, format: ZarrFormat) -> Result<Value> {
                no_config_json($name, format)
            }
        }

        impl CodecFromJson for $codec {
            fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
                parse_no_config(json, $name, format)?;
                Ok(Self)
            }
        }
    };
}

no_config_codec!(VlenUtf8, VLEN_UTF8_ID);
no_config_codec!(VlenBytes, VLEN_BYTES_ID);

/// `VLenArray`'s configuration: the items' numpy type string, kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArrayConfig {
    dtype: String,
}

/// numcodecs' `VLenArray(dtype)`: one-dimensional arrays of a fixed-size numpy type, each
/// stored as its elements' bytes (in the type's own byte order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlenArray {
    config: ArrayConfig,
    item_size: usize,
}

impl VlenArray {
    /// numcodecs' `VLenArray(dtype)`: `dtype` a numpy type string (`"<i2"`, `"|b1"`) or name.
    pub fn new(dtype: &str) -> Result<Self> {
        let data_type = DataType::from_name(dtype).or_else(|_| {
            let prefixed = if dtype.starts_with(['<', '>', '|', '=']) {
                dtype.to_owned()
            } else {
                format!("<{dtype}")
            };
            DataType::from_v2_str(&prefixed).map(|(data_type, _)| data_type)
        });
        let data_type = data_type.map_err(|_| {
            CodecError::configuration(format!(
                "{VLEN_ARRAY_ID}: dtype {dtype:?} is not a numpy type"
            ))
        })?;
        Ok(Self {
            config: ArrayConfig {
                dtype: dtype.to_owned(),
            },
            item_size: data_type.size(),
        })
    }

    /// The element type as configured.
    pub fn dtype(&self) -> &str {
        &self.config.dtype
    }

    /// The bytes of one element.
    pub fn item_size(&self) -> usize {
        self.item_size
    }

    /// The arrays (each its elements' bytes) in numcodecs' layout.
    pub fn encode<'a, I>(&self, items: I) -> Result<Vec<u8>>
    where
        I: IntoIterator<Item = &'a [u8]>,
        I::IntoIter: Clone,
    {
        let items = items.into_iter();
        if let Some(item) = items.clone().find(|item| item.len() % self.item_size != 0) {
            return Err(CodecError::configuration(format!(
                "{VLEN_ARRAY_ID}: {} bytes are not whole {} elements",
                item.len(),
                self.config.dtype
            )));
        }
        framing::encode(items)
    }

    /// Each array's bytes; `Corrupt` for a truncated buffer or an item that is not a whole
    /// number of elements (numpy's "buffer size must be a multiple of element size").
    pub fn decode<'a>(&self, input: &'a [u8]) -> Result<Vec<&'a [u8]>> {
        let items = framing::decode(input)?;
        if let Some((index, item)) = items
            .iter()
            .enumerate()
            .find(|(_, item)| item.len() % self.item_size != 0)
        {
            return Err(CodecError::corrupt(format!(
                "{VLEN_ARRAY_ID}: item {index}: {} bytes are not whole {} elements",
                item.len(),
                self.config.dtype
            )));
        }
        Ok(items)
    }
}

impl Codec for VlenArray {
    fn name(&self) -> &'static str {
        VLEN_ARRAY_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(VLEN_ARRAY_NAME, &self.config),
            ZarrFormat::V2 => to_v2_json(VLEN_ARRAY_ID, &self.config),
        }
    }
}

impl CodecFromJson for VlenArray {
    fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
        let config: ArrayConfig = match format {
            ZarrFormat::V3 => parse_v3_config(json, VLEN_ARRAY_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, VLEN_ARRAY_ID)?,
        };
        Self::new(&config.dtype)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_bytes_and_arrays_round_trip() -> Result<()> {
        let encoded = VlenUtf8.encode(["foo", "", "ünïcode ✓"])?;
        assert_eq!(VlenUtf8.decode(&encoded)?, ["foo", "", "ünïcode ✓"]);
        let mut broken = VlenUtf8.encode(["ab"])?;
        broken[8] = 0xff;
        assert!(matches!(
            VlenUtf8.decode(&broken),
            Err(CodecError::Corrupt(_))
        ));
        let items: [&[u8]; 2] = [b"\x00\x01", b""];
        assert_eq!(VlenBytes.decode(&VlenBytes.encode(items)?)?, items);
        let arrays = VlenArray::new("<i2")?;
        let encoded = arrays.encode([&[1u8, 0, 3, 0][..], &[4, 0][..]])?;
        assert_eq!(arrays.decode(&encoded)?, [&[1u8, 0, 3, 0][..], &[4, 0][..]]);
        assert!(arrays.encode([&[1u8][..]]).is_err());
        assert!(
            arrays
                .decode(&VlenBytes.encode([&[1u8, 2, 3][..]])?)
                .is_err()
        );
        Ok(())
    }

    #[test]
    fn json_both_ways() -> Result<()> {
        assert_eq!(
            VlenUtf8.to_json(ZarrFormat::V3)?,
            json!({"name": "vlen-utf8", "configuration": {}})
        );
        assert_eq!(
            VlenBytes.to_json(ZarrFormat::V2)?,
            json!({"id": "vlen-bytes"})
        );
        let arrays =
            VlenArray::from_json(&json!({"id": "vlen-array", "dtype": "<f8"}), ZarrFormat::V2)?;
        assert_eq!(arrays.item_size(), 8);
        assert_eq!(
            arrays.to_json(ZarrFormat::V3)?,
            json!({"name": "numcodecs.vlen-array", "configuration": {"dtype": "<f8"}})
        );
        assert!(
            VlenUtf8::from_json(
                &json!({"name": "vlen-utf8", "configuration": {"x": 1}}),
                ZarrFormat::V3
            )
            .is_err()
        );
        assert!(VlenArray::new("nope").is_err());
        Ok(())
    }
}
