//! `scale_offset`, `cast_value` and numcodecs' `fixedscaleoffset` as zarrs array -> array
//! codecs.
//!
//! zarrs passes an array codec the decoded side's shape, data type and fill value, in both
//! directions; ours take the same as a [`ChunkSpec`](zarr_codec_shapes::ChunkSpec).

use std::num::NonZeroU64;
use std::sync::Arc;

use zarr_codec_shapes::{ArrayToArrayCodec, ChunkSpec};
use zarrs_codec::{
    ArrayBytes, ArrayCodecTraits, ArrayToArrayCodecTraits, Codec, CodecError, CodecOptions,
    CodecTraitsV2, CodecTraitsV3, RecommendedConcurrency,
};
use zarrs_data_type::{DataType, FillValue};
use zarrs_metadata::{v2::MetadataV2, v3::MetadataV3};
use zarrs_plugin::PluginCreateError;

use crate::convert;

/// The spec of a one-element array of `data_type` filled with `fill_value`: what the encoded
/// data type and fill value follow from.
fn element_spec(
    data_type: &DataType,
    fill_value: Option<&FillValue>,
) -> Result<ChunkSpec, CodecError> {
    let one = [NonZeroU64::MIN];
    if let Some(fill) = fill_value {
        return convert::chunk_spec(&one, data_type, fill);
    }
    let ours = convert::data_type_from_zarrs(data_type)?;
    ChunkSpec::with_default_fill_value(vec![1], ours)
        .map_err(|e| convert::error(e, Some(data_type)))
}

pub(crate) fn encoded_data_type(
    codec: &impl ArrayToArrayCodec,
    decoded: &DataType,
) -> Result<DataType, CodecError> {
    let spec = element_spec(decoded, None)?;
    let encoded = codec
        .resolve(&spec)
        .map_err(|e| convert::error(e, Some(decoded)))?;
    convert::data_type_to_zarrs(encoded.data_type())
}

pub(crate) fn encoded_fill_value(
    codec: &impl ArrayToArrayCodec,
    decoded: &DataType,
    fill: &FillValue,
) -> Result<FillValue, CodecError> {
    let spec = element_spec(decoded, Some(fill))?;
    let encoded = codec
        .resolve(&spec)
        .map_err(|e| convert::error(e, Some(decoded)))?;
    Ok(convert::fill_value_to_zarrs(encoded.fill_value()))
}

pub(crate) fn recommended_concurrency(
    codec: &impl ArrayToArrayCodec,
    shape: &[NonZeroU64],
    data_type: &DataType,
) -> Result<RecommendedConcurrency, CodecError> {
    let ours = convert::data_type_from_zarrs(data_type)?;
    let shape = shape
        .iter()
        .map(|n| usize::try_from(n.get()).unwrap_or(usize::MAX))
        .collect();
    let spec = ChunkSpec::with_default_fill_value(shape, ours)
        .map_err(|e| convert::error(e, Some(data_type)))?;
    Ok(convert::concurrency(
        zarr_codec_shapes::Codec::recommended_concurrency(codec, &spec),
    ))
}

/// Runs `direction` (our encode or decode) on zarrs' fixed-size array bytes.
pub(crate) fn apply<'a>(
    bytes: ArrayBytes<'a>,
    shape: &[NonZeroU64],
    data_type: &DataType,
    fill_value: &FillValue,
    direction: impl FnOnce(&[u8], &ChunkSpec) -> zarr_codec_shapes::Result<Vec<u8>>,
) -> Result<ArrayBytes<'a>, CodecError> {
    let spec = convert::chunk_spec(shape, data_type, fill_value)?;
    let input = bytes.into_fixed()?;
    let output = direction(&input, &spec).map_err(|e| convert::error(e, Some(data_type)))?;
    Ok(ArrayBytes::new_flen(output))
}

/// zarrs' `encode` or `decode` of an array -> array codec (named as ours) on our codec.
macro_rules! array_direction {
    ($direction:ident) => {
        fn $direction<'a>(
            &self,
            bytes: ArrayBytes<'a>,
            shape: &[NonZeroU64],
            data_type: &DataType,
            fill_value: &FillValue,
            _options: &CodecOptions,
        ) -> Result<ArrayBytes<'a>, CodecError> {
            apply(bytes, shape, data_type, fill_value, |input, spec| {
                ArrayToArrayCodec::$direction(&self.0, input, spec)
            })
        }
    };
}

/// An array -> array codec of ours as a zarrs codec, named `$v3` in Zarr v3 metadata and
/// `$v2` in v2 metadata where it has a v2 form.
macro_rules! array_codec {
    ($(#[$doc:meta])* $name:ident($inner:ty), v3: $v3:literal $(, v2: $v2:literal)?) => {
        codec_wrapper!($(#[$doc])* $name($inner));

        zarrs_plugin::impl_extension_aliases!($name, v3: $v3 $(, v2: $v2)?);

        codec_create!($name($inner), ArrayToArray $(, v2: $v2)?);


        impl ArrayCodecTraits for $name {
            fn recommended_concurrency(
                &self,
                shape: &[NonZeroU64],
                data_type: &DataType,
            ) -> Result<RecommendedConcurrency, CodecError> {
                recommended_concurrency(&self.0, shape, data_type)
            }
        }

        impl ArrayToArrayCodecTraits for $name {
            fn into_dyn(self: Arc<Self>) -> Arc<dyn ArrayToArrayCodecTraits> {
                self
            }

            fn encoded_data_type(&self, decoded: &DataType) -> Result<DataType, CodecError> {
                encoded_data_type(&self.0, decoded)
            }

            fn encoded_fill_value(
                &self,
                decoded: &DataType,
                fill: &FillValue,
            ) -> Result<FillValue, CodecError> {
                encoded_fill_value(&self.0, decoded, fill)
            }

            array_direction!(encode);
            array_direction!(decode);
        }
    };
}

array_codec!(
    /// `scale_offset` ([`zarr_codec_scale_offset`]): `(x - offset) * scale` in the array's own
    /// type, exact for integers. zarrs has none: registered as a plugin.
    ScaleOffsetCodec(zarr_codec_scale_offset::ScaleOffset), v3: "scale_offset"
);
array_codec!(
    /// `cast_value` ([`zarr_codec_cast_value`]): every integer and float type, correctly
    /// rounded in all five modes, out-of-range values clamped or wrapped, `scalar_map`. zarrs
    /// has none: registered as a plugin.
    CastValueCodec(zarr_codec_cast_value::CastValue), v3: "cast_value"
);
array_codec!(
    /// numcodecs' `fixedscaleoffset` ([`zarr_codec_scale_offset::FixedScaleOffset`]): numpy's
    /// own arithmetic, exactly, with `offset` and `scale` as written (zarrs' own computes in
    /// `f32` and casts through it). Replaces zarrs' own after [`register`](crate::register).
    FixedScaleOffsetCodec(zarr_codec_scale_offset::FixedScaleOffset),
    v3: "numcodecs.fixedscaleoffset",
    v2: "fixedscaleoffset"
);
