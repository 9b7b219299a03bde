//! Between our types and zarrs': data types (by their Zarr v3 name), fill values, codec JSON
//! and errors. Nothing here knows a particular codec.

use std::num::NonZeroU64;

use serde_json::Value;
use zarr_codec_shapes::{ChunkSpec, CodecError as OurError, CodecFromJson, ZarrFormat};
use zarrs_codec::{CodecError, InvalidBytesLengthError};
use zarrs_data_type::{DataType, FillValue};
use zarrs_metadata::{Configuration, v2::MetadataV2, v3::MetadataV3};
use zarrs_plugin::{
    ExtensionName, PluginConfigurationInvalidError, PluginCreateError, ZarrVersion,
};

/// Our data type of the same Zarr v3 name as zarrs' `data_type`.
pub(crate) fn data_type_from_zarrs(
    data_type: &DataType,
) -> Result<zarr_codec_shapes::DataType, CodecError> {
    let unsupported = || CodecError::UnsupportedDataType(data_type.clone(), "zarr-codecs".into());
    let name = data_type.name_v3().ok_or_else(unsupported)?;
    zarr_codec_shapes::DataType::from_name(&name).map_err(|_| unsupported())
}

/// zarrs' data type of the same Zarr v3 name as ours.
pub(crate) fn data_type_to_zarrs(
    data_type: zarr_codec_shapes::DataType,
) -> Result<DataType, CodecError> {
    DataType::from_metadata(&MetadataV3::new(data_type.to_string()))
        .map_err(|err| CodecError::Other(format!("zarrs has no data type {data_type}: {err}")))
}

/// zarrs holds fill values in native byte order, we in little-endian order (each half of a
/// complex number on its own).
fn swap_to_or_from_native(bytes: &mut [u8], data_type: zarr_codec_shapes::DataType) {
    if cfg!(target_endian = "big") {
        let parts = if matches!(
            data_type,
            zarr_codec_shapes::DataType::Complex64 | zarr_codec_shapes::DataType::Complex128
        ) {
            2
        } else {
            1
        };
        for part in bytes.chunks_mut((bytes.len() / parts).max(1)) {
            part.reverse();
        }
    }
}

/// The chunk spec our codecs take, from what zarrs passes an array codec.
pub(crate) fn chunk_spec(
    shape: &[NonZeroU64],
    data_type: &DataType,
    fill_value: &FillValue,
) -> Result<ChunkSpec, CodecError> {
    let ours = data_type_from_zarrs(data_type)?;
    let mut bytes = fill_value.as_ne_bytes().to_vec();
    swap_to_or_from_native(&mut bytes, ours);
    let fill = zarr_codec_shapes::FillValue::from_bytes(ours, &bytes)
        .map_err(|err| error(err, Some(data_type)))?;
    let shape = shape
        .iter()
        .map(|&n| usize::try_from(n.get()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| CodecError::Other("a chunk dimension does not fit in usize".into()))?;
    ChunkSpec::new(shape, ours, fill).map_err(|err| error(err, Some(data_type)))
}

/// zarrs' fill value for ours.
pub(crate) fn fill_value_to_zarrs(fill: &zarr_codec_shapes::FillValue) -> FillValue {
    let mut bytes = fill.as_bytes().to_vec();
    swap_to_or_from_native(&mut bytes, fill.data_type());
    FillValue::new(bytes)
}

/// A spec for a bytes -> bytes codec, which zarrs calls with bytes alone: `len` bytes of
/// `uint8` (what a codec of ours would look at, its item size, is 1).
pub(crate) fn bytes_spec(len: usize) -> Result<ChunkSpec, CodecError> {
    ChunkSpec::with_default_fill_value(vec![len], zarr_codec_shapes::DataType::UInt8)
        .map_err(|err| error(err, None))
}

/// zarrs' codec error for ours: the same message, and zarrs' own variant where it has one.
#[allow(clippy::needless_pass_by_value)] // taken as map_err hands it over
pub(crate) fn error(err: OurError, data_type: Option<&DataType>) -> CodecError {
    match (&err, data_type) {
        (OurError::Unsupported(message), Some(data_type)) => {
            CodecError::UnsupportedDataType(data_type.clone(), message.clone())
        }
        (OurError::OutputSize { expected, actual }, _) => {
            CodecError::UnexpectedChunkDecodedSize(InvalidBytesLengthError::new(*actual, *expected))
        }
        _ => CodecError::Other(format!("{:?}: {err}", err.kind())),
    }
}

/// A codec of ours from zarrs' metadata of either Zarr version.
pub(crate) fn codec_from_v3<C: CodecFromJson>(
    metadata: &MetadataV3,
) -> Result<C, PluginCreateError> {
    from_json(&metadata_json(metadata)?, ZarrFormat::V3)
}

/// A codec of ours from zarrs' Zarr v2 metadata (`{"id": ..., ...}`).
pub(crate) fn codec_from_v2<C: CodecFromJson>(
    metadata: &MetadataV2,
) -> Result<C, PluginCreateError> {
    from_json(&metadata_json(metadata)?, ZarrFormat::V2)
}

fn metadata_json(metadata: &impl serde::Serialize) -> Result<Value, PluginCreateError> {
    serde_json::to_value(metadata).map_err(|err| PluginCreateError::Other(err.to_string()))
}

fn from_json<C: CodecFromJson>(json: &Value, format: ZarrFormat) -> Result<C, PluginCreateError> {
    C::from_json(json, format).map_err(|err| match err {
        OurError::Configuration(reason) => {
            PluginCreateError::ConfigurationInvalid(PluginConfigurationInvalidError::new(reason))
        }
        other => PluginCreateError::Other(other.to_string()),
    })
}

/// The configuration zarrs writes for a codec of ours: our JSON's `configuration` (v3) or
/// everything but its `id` (v2); `None` where the codec has no form in that version.
pub(crate) fn configuration(
    codec: &impl zarr_codec_shapes::Codec,
    version: ZarrVersion,
) -> Option<Configuration> {
    let format = match version {
        ZarrVersion::V2 => ZarrFormat::V2,
        ZarrVersion::V3 => ZarrFormat::V3,
    };
    let json = codec.to_json(format).ok()?;
    let Value::Object(mut object) = json else {
        return None;
    };
    let map = match format {
        ZarrFormat::V3 => match object.remove("configuration") {
            Some(Value::Object(configuration)) => configuration,
            _ => serde_json::Map::new(),
        },
        ZarrFormat::V2 => {
            object.remove("id");
            object
        }
    };
    Some(Configuration::from(map))
}

/// zarrs' concurrency recommendation for ours.
pub(crate) fn concurrency(
    ours: zarr_codec_shapes::RecommendedConcurrency,
) -> zarrs_codec::RecommendedConcurrency {
    zarrs_codec::RecommendedConcurrency::new(ours.min()..=ours.max())
}

/// zarrs' partial decoding capability for ours.
pub(crate) fn partial_decoding(
    ours: zarr_codec_shapes::PartialDecodeCapability,
) -> zarrs_codec::PartialDecoderCapability {
    zarrs_codec::PartialDecoderCapability {
        partial_read: ours.partial_read,
        partial_decode: ours.partial_decode,
    }
}
