//! gzip, blosc, zstd and crc32c as zarrs bytes -> bytes codecs.

use std::borrow::Cow;
use std::sync::Arc;

use zarr_codec_shapes::BytesToBytesCodec;
use zarrs_codec::{
    ArrayBytesRaw, BytesRepresentation, BytesToBytesCodecTraits, Codec, CodecError, CodecOptions,
    CodecTraitsV2, CodecTraitsV3, InvalidBytesLengthError, RecommendedConcurrency,
};
use zarrs_metadata::{v2::MetadataV2, v3::MetadataV3};
use zarrs_plugin::PluginCreateError;

use crate::convert;

pub(crate) fn encode<'a>(
    codec: &impl BytesToBytesCodec,
    decoded: &ArrayBytesRaw<'a>,
) -> Result<ArrayBytesRaw<'a>, CodecError> {
    let spec = convert::bytes_spec(decoded.len())?;
    let encoded = codec
        .encode(decoded, &spec)
        .map_err(|e| convert::error(e, None))?;
    Ok(Cow::Owned(encoded))
}

/// Decodes straight into a buffer of the size zarrs expects where it knows one (no growing,
/// and a stream that would decode to more stops there), otherwise to whatever size.
pub(crate) fn decode<'a>(
    codec: &impl BytesToBytesCodec,
    encoded: &ArrayBytesRaw<'a>,
    decoded: &BytesRepresentation,
) -> Result<ArrayBytesRaw<'a>, CodecError> {
    let limit = decoded.size().and_then(|n| usize::try_from(n).ok());
    let spec = convert::bytes_spec(limit.unwrap_or(0))?;
    let Some(limit) = limit else {
        let bytes = codec
            .decode(encoded, &spec)
            .map_err(|e| convert::error(e, None))?;
        return Ok(Cow::Owned(bytes));
    };
    let mut out = vec![0; limit];
    let len = codec
        .decode_into(encoded, &mut out, &spec)
        .map_err(|e| convert::error(e, None))?;
    if matches!(decoded, BytesRepresentation::FixedSize(_)) && len != limit {
        return Err(InvalidBytesLengthError::new(len, limit).into());
    }
    out.truncate(len);
    Ok(Cow::Owned(out))
}

pub(crate) fn encoded_representation(
    codec: &impl BytesToBytesCodec,
    decoded: &BytesRepresentation,
) -> BytesRepresentation {
    let bound = decoded
        .size()
        .and_then(|n| usize::try_from(n).ok())
        .and_then(|n| codec.max_encoded_size(n))
        .and_then(|n| u64::try_from(n).ok());
    bound.map_or(
        BytesRepresentation::UnboundedSize,
        BytesRepresentation::BoundedSize,
    )
}

/// A bytes -> bytes codec of ours as a zarrs codec: `$name` wraps `$inner`, named `$v3` in
/// Zarr v3 and `$v2` in Zarr v2 metadata.
macro_rules! bytes_codec {
    ($(#[$doc:meta])* $name:ident($inner:ty), v3: $v3:literal, v2: $v2:literal) => {
        codec_wrapper!($(#[$doc])* $name($inner));

        zarrs_plugin::impl_extension_aliases!($name, v3: $v3, v2: $v2);

        codec_create!($name($inner), BytesToBytes, v2: $v2);


        impl BytesToBytesCodecTraits for $name {
            fn into_dyn(self: Arc<Self>) -> Arc<dyn BytesToBytesCodecTraits> {
                self
            }

            fn recommended_concurrency(
                &self,
                decoded: &BytesRepresentation,
            ) -> Result<RecommendedConcurrency, CodecError> {
                let len = decoded.size().map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
                let spec = convert::bytes_spec(len)?;
                Ok(convert::concurrency(zarr_codec_shapes::Codec::recommended_concurrency(&self.0, &spec)))
            }

            fn encoded_representation(&self, decoded: &BytesRepresentation) -> BytesRepresentation {
                encoded_representation(&self.0, decoded)
            }

            fn encode<'a>(
                &self,
                decoded: ArrayBytesRaw<'a>,
                _options: &CodecOptions,
            ) -> Result<ArrayBytesRaw<'a>, CodecError> {
                encode(&self.0, &decoded)
            }

            fn decode<'a>(
                &self,
                encoded: ArrayBytesRaw<'a>,
                decoded: &BytesRepresentation,
                _options: &CodecOptions,
            ) -> Result<ArrayBytesRaw<'a>, CodecError> {
                decode(&self.0, &encoded, decoded)
            }
        }
    };
}

bytes_codec!(
    /// `gzip` on libdeflate ([`zarr_codec_gzip`]): streams any gzip reader reads, decoding
    /// bounded by the chunk's size.
    GzipCodec(zarr_codec_gzip::Gzip), v3: "gzip", v2: "gzip"
);
bytes_codec!(
    /// `blosc` ([`zarr_codec_blosc`]): the c-blosc 1.x format, frames checked before decoding.
    /// In Zarr v2, where blosc's `typesize` comes from the array, a zarrs built with its own
    /// `blosc` feature creates its own codec for v2 arrays whatever is registered.
    BloscCodec(zarr_codec_blosc::Blosc), v3: "blosc", v2: "blosc"
);
bytes_codec!(
    /// `zstd` on libzstd 1.5.6 ([`zarr_codec_zstd`]): numcodecs' frames byte for byte,
    /// checksums verified, decoding bounded.
    ZstdCodec(zarr_codec_zstd::Zstd), v3: "zstd", v2: "zstd"
);
bytes_codec!(
    /// `crc32c` ([`zarr_codec_crc32c`]): the checksum appended, verified on decoding.
    Crc32cCodec(zarr_codec_crc32c::Crc32c), v3: "crc32c", v2: "crc32c"
);
