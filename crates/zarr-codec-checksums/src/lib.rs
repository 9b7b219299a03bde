//! numcodecs' checksum codecs, for Zarr v2 (`{"id": "crc32"}`) and Zarr v3 (zarr-python's
//! `numcodecs.crc32`): bytes-to-bytes codecs that store a 32-bit checksum of the chunk beside
//! its bytes and check it when decoding.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-checksums`.
//!
//! | codec | numcodecs class | checksum | where |
//! |---|---|---|---|
//! | [`Crc32`] | `CRC32(location=None)` | CRC-32 (zlib's, ISO-HDLC) | `"start"` (default) or `"end"` |
//! | [`Adler32`] | `Adler32(location=None)` | Adler-32 (zlib's) | `"start"` (default) or `"end"` |
//! | [`Fletcher32`] | `Fletcher32()` | HDF5's Fletcher-32 (big-endian 16-bit words) | end |
//! | [`JenkinsLookup3`] | `JenkinsLookup3(initval=0, prefix=None)` | HDF5's lookup3 `hashlittle` | end |
//!
//! Every checksum is stored as a little-endian `u32`, byte for byte as numcodecs 0.17 writes
//! it. A chunk too short to hold one, or whose checksum does not match, is
//! [`CodecError::Corrupt`](zarr_codec_shapes::CodecError::Corrupt) naming both values. Engines: `crc-fast` (carry-less multiplication
//! chosen at run time) for CRC-32, `simd-adler32` (AVX2, SSSE3 or NEON, chosen at run time)
//! for Adler-32, and Rust here for the other two (Fletcher-32 in 16 lanes at a time).
//!
//! ```
//! use zarr_codec_checksums::{Crc32, Location};
//! use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType};
//!
//! let codec = Crc32::new(Location::Start);
//! let spec = ChunkSpec::with_default_fill_value(vec![9], DataType::UInt8)?;
//! let encoded = codec.encode(b"123456789", &spec)?;
//! assert_eq!(&encoded[..4], &0xCBF4_3926_u32.to_le_bytes()); // CRC-32's check value
//! assert_eq!(codec.decode(&encoded, &spec)?, b"123456789");
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

use serde::{Deserialize, Serialize};

mod adler32;
mod crc32;
mod fletcher32;
mod framing;
mod jenkins;
mod located;

pub use adler32::Adler32Sum;
pub use adler32::{ADLER32_ID, ADLER32_NAME, Adler32, adler32};
pub use crc32::Crc32Sum;
pub use crc32::{CRC32_ID, CRC32_NAME, Crc32, crc32};
pub use fletcher32::{FLETCHER32_ID, FLETCHER32_NAME, Fletcher32, fletcher32};
pub use framing::{CHECKSUM_LEN, Checksum32};
pub use jenkins::{JENKINS_LOOKUP3_ID, JENKINS_LOOKUP3_NAME, JenkinsLookup3, jenkins_lookup3};
pub use located::{Located, Sum};

/// Where the checksum goes relative to the data (numcodecs' `location`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// Before the data: numcodecs' default for `crc32` and `adler32`.
    Start,
    /// After the data.
    End,
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zarr_codec_shapes::json::ZarrFormat::{V2, V3};
    use zarr_codec_shapes::{Codec, CodecFromJson, ErrorKind, Result, UninitBytesCodec};

    use super::*;

    #[test]
    fn check_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(b""), 1);
        assert_eq!(crc32(b""), 0);
    }

    fn round_trip<C: UninitBytesCodec>(codec: &C, start: bool) -> Result<()> {
        let encoded = codec.encode_bytes(b"zarr chunk")?;
        assert_eq!(encoded.len(), 14);
        let data = if start { &encoded[4..] } else { &encoded[..10] };
        assert_eq!(data, b"zarr chunk");
        assert_eq!(codec.decode_bytes(&encoded, None)?, b"zarr chunk");
        for i in 0..encoded.len() {
            let mut damaged = encoded.clone();
            damaged[i] ^= 0x10;
            let found = codec.decode_bytes(&damaged, None).map_err(|e| e.kind());
            assert_eq!(found, Err(ErrorKind::Corrupt), "byte {i}");
        }
        for short in [&b""[..], b"abc"] {
            let found = codec.decode_bytes(short, None).map_err(|e| e.kind());
            assert_eq!(found, Err(ErrorKind::Corrupt));
        }
        assert_eq!(codec.decode_bytes(&codec.encode_bytes(b"")?, None)?, b"");
        assert!(codec.decode_bytes(&encoded, Some(9)).is_err());
        Ok(())
    }

    #[test]
    fn every_codec_round_trips_and_detects_damage() -> Result<()> {
        round_trip(&Crc32::default(), true)?;
        round_trip(&Crc32::new(Location::End), false)?;
        round_trip(&Adler32::default(), true)?;
        round_trip(&Adler32::new(Location::End), false)?;
        round_trip(&Fletcher32, false)?;
        round_trip(&JenkinsLookup3::default(), false)?;
        round_trip(&JenkinsLookup3::new(7, Some(b"pre".to_vec())), false)
    }

    #[test]
    fn json_forms_are_numcodecs_and_zarr_python_ones() -> Result<()> {
        let crc = Crc32::from_json(&json!({"id": "crc32"}), V2)?;
        assert_eq!(crc, Crc32::default());
        assert_eq!(crc.to_json(V2)?, json!({"id": "crc32"}));
        // zarr-python writes an empty configuration for its numcodecs codecs.
        let v3 = json!({"name": "numcodecs.crc32", "configuration": {}});
        assert_eq!(crc.to_json(V3)?, v3);
        let end = Adler32::from_json(
            &json!({"name": "numcodecs.adler32", "configuration": {"location": "end"}}),
            V3,
        )?;
        assert_eq!(end.location(), Location::End);
        assert_eq!(
            end.to_json(V2)?,
            json!({"id": "adler32", "location": "end"})
        );
        assert!(Crc32::from_json(&json!({"id": "crc32", "location": "middle"}), V2).is_err());
        assert!(Crc32::from_json(&json!({"id": "adler32"}), V2).is_err());
        assert_eq!(Fletcher32.to_json(V2)?, json!({"id": "fletcher32"}));
        assert!(Fletcher32::from_json(&json!({"id": "fletcher32", "x": 1}), V2).is_err());
        let jenkins = JenkinsLookup3::from_json(
            &json!({"id": "jenkins_lookup3", "initval": 5, "prefix": null}),
            V2,
        )?;
        assert_eq!(jenkins, JenkinsLookup3::new(5, None));
        assert_eq!(
            jenkins.to_json(V2)?,
            json!({"id": "jenkins_lookup3", "initval": 5, "prefix": null})
        );
        assert_eq!(
            jenkins.to_json(V3)?,
            json!({"name": "numcodecs.jenkins_lookup3", "configuration": {"initval": 5}})
        );
        let prefixed = JenkinsLookup3::new(0, Some(vec![1, 2]));
        assert_eq!(
            JenkinsLookup3::from_json(&prefixed.to_json(V3)?, V3)?,
            prefixed
        );
        for bad in [json!(-1), json!(1u64 << 32), json!("5")] {
            let config = json!({"id": "jenkins_lookup3", "initval": bad});
            assert!(JenkinsLookup3::from_json(&config, V2).is_err());
        }
        Ok(())
    }
}
