//! The codec's configuration in its two JSON forms, validated here and nowhere else.

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::Result;

use crate::invalid;

/// A compression level, [`Level::MIN`] to [`Level::MAX`]; 0 means libzstd's default (3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub struct Level(i32);

impl Level {
    /// The fastest level libzstd has (`ZSTD_minCLevel()`), and the spec's minimum.
    pub const MIN: i32 = -131_072;
    /// The smallest output libzstd can produce (`ZSTD_maxCLevel()`), and the spec's maximum.
    pub const MAX: i32 = 22;
    /// libzstd's default, which level 0 stands for.
    pub const DEFAULT: Self = Self(0);

    /// The level, or a configuration error outside [`Level::MIN`]..=[`Level::MAX`].
    pub fn new(level: i64) -> Result<Self> {
        i32::try_from(level)
            .ok()
            .filter(|l| (Self::MIN..=Self::MAX).contains(l))
            .map(Self)
            .ok_or_else(|| {
                invalid(format!(
                    "level must be an integer {} to {}, got {level}",
                    Self::MIN,
                    Self::MAX
                ))
            })
    }

    /// The level libzstd uses for `level`: numcodecs hands any integer to libzstd, which
    /// clamps it into range, so Zarr v2 metadata may hold levels beyond it.
    pub fn clamped(level: i64) -> Self {
        // The clamp keeps the value in i32 range, so the conversion cannot fail.
        Self(i32::try_from(level.clamp(Self::MIN.into(), Self::MAX.into())).unwrap_or(0))
    }

    /// The level as a number.
    pub fn get(self) -> i32 {
        self.0
    }
}

impl TryFrom<i64> for Level {
    type Error = zarr_codec_shapes::CodecError;
    fn try_from(level: i64) -> Result<Self> {
        Self::new(level)
    }
}

impl From<Level> for i64 {
    fn from(level: Level) -> i64 {
        level.0.into()
    }
}

/// The v3 configuration: `{"level": N, "checksum": bool}`, `checksum` optional when read.
///
/// `checksum` is always written, `false` too, although the spec says it "should be omitted if
/// false" (a recommendation, not a requirement): zarr-python writes it so, and zarrs (0.23)
/// refuses a zstd configuration without it, so an array whose metadata omitted it could not
/// be opened with zarrs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZstdConfig {
    /// The compression level.
    pub level: Level,
    /// Whether each frame stores a checksum of its content.
    #[serde(default)]
    pub checksum: bool,
}

/// The v2 configuration, as numcodecs' `Zstd` writes it: both keys optional (level 0, no
/// checksum), any integer level (libzstd clamps it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZstdConfigV2 {
    /// The level as written; [`Level::clamped`] gives the one used.
    #[serde(default)]
    pub level: i64,
    /// Whether each frame stores a checksum of its content.
    #[serde(default)]
    pub checksum: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_in_range_only() {
        assert_eq!(Level::new(22).map(Level::get), Ok(22));
        assert_eq!(Level::new(-131_072).map(Level::get), Ok(-131_072));
        assert!(Level::new(23).is_err());
        assert!(Level::new(-131_073).is_err());
        assert!(Level::new(i64::MAX).is_err());
        assert_eq!(Level::clamped(100).get(), 22);
        assert_eq!(Level::clamped(i64::MIN).get(), -131_072);
        assert_eq!(Level::clamped(5).get(), 5);
    }
}
