//! crc32 and adler32: numcodecs' `Checksum32` codecs, whose one option is `location`.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{Codec, CodecFromJson, Result};

use crate::Location;
use crate::framing::{Checksum32, checksum_bytes_codec};

/// One checksum function with its names: what tells crc32 from adler32.
pub trait Sum: Send + Sync {
    /// The numcodecs id (Zarr v2).
    const ID: &'static str;
    /// zarr-python's name (Zarr v3).
    const NAME: &'static str;
    /// The checksum of `data`.
    fn sum(data: &[u8]) -> u32;
}

/// The configuration, both formats: numcodecs writes `location` only when it was given
/// (`"start"`, its default, or `"end"`), and so does this codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LocationConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    location: Option<Location>,
}

/// A checksum codec `S` with numcodecs' `location` option.
#[derive(Debug)]
pub struct Located<S> {
    location: Option<Location>,
    sum: PhantomData<fn() -> S>,
}

// Written out: derives would ask `S` (a marker type) for these traits too.
impl<S> Clone for Located<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Located<S> {}

impl<S> PartialEq for Located<S> {
    fn eq(&self, other: &Self) -> bool {
        self.location == other.location
    }
}

impl<S> Eq for Located<S> {}

impl<S> std::hash::Hash for Located<S> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.location.hash(state);
    }
}

impl<S> Default for Located<S> {
    /// numcodecs' default: the checksum at the start, the location not written.
    fn default() -> Self {
        Self {
            location: None,
            sum: PhantomData,
        }
    }
}

impl<S> Located<S> {
    /// The codec with its checksum at `location` (written in the metadata).
    pub fn new(location: Location) -> Self {
        Self {
            location: Some(location),
            sum: PhantomData,
        }
    }

    /// The location as given: `None` for numcodecs' default (the start), left unwritten.
    pub fn given_location(&self) -> Option<Location> {
        self.location
    }
}

impl<S: Sum> Checksum32 for Located<S> {
    const ID: &'static str = S::ID;

    fn checksum(&self, data: &[u8]) -> u32 {
        S::sum(data)
    }

    fn location(&self) -> Location {
        self.location.unwrap_or(Location::Start)
    }
}

impl<S: Sum> Codec for Located<S> {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let config = LocationConfig {
            location: self.location,
        };
        match format {
            ZarrFormat::V3 => to_v3_json(S::NAME, &config),
            ZarrFormat::V2 => to_v2_json(S::ID, &config),
        }
    }
}

impl<S: Sum> CodecFromJson for Located<S> {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let config: LocationConfig = match format {
            ZarrFormat::V3 => parse_v3_config(json, S::NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, S::ID)?,
        };
        Ok(Self {
            location: config.location,
            sum: PhantomData,
        })
    }
}

checksum_bytes_codec!(Located<S>, S: Sum);
