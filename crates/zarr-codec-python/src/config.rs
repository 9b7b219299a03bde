//! One source of truth for a codec's configuration: the Rust configuration type parses and
//! validates the JSON, and the Python class keeps what it returns.

use pyo3::prelude::*;
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, ZarrFormat};

use crate::to_py_err;

/// The codec of type `C` that metadata `json` (JSON text) in Zarr format `zarr_format` (2 or
/// 3) describes; a `ConfigurationError` for anything the type refuses.
pub fn parse_codec_json<C: CodecFromJson>(
    py: Python<'_>,
    json: &str,
    zarr_format: u8,
) -> PyResult<C> {
    let format = zarr_format_of(zarr_format).map_err(|err| to_py_err(py, &err))?;
    let value: serde_json::Value = serde_json::from_str(json).map_err(|err| {
        let message = format!("the configuration is not JSON: {err}");
        to_py_err(py, &CodecError::configuration(message))
    })?;
    C::from_json(&value, format).map_err(|err| to_py_err(py, &err))
}

/// The canonical configuration of `codec` in Zarr format `zarr_format`, as JSON text: the v3
/// `configuration` object (`{}` when the codec writes none), or the v2 object without its
/// `id`.
pub fn canonical_of(py: Python<'_>, codec: &dyn Codec, zarr_format: u8) -> PyResult<String> {
    let format = zarr_format_of(zarr_format).map_err(|err| to_py_err(py, &err))?;
    let canonical = codec.to_json(format).map_err(|err| to_py_err(py, &err))?;
    let config = match format {
        ZarrFormat::V3 => canonical
            .get("configuration")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({})),
        ZarrFormat::V2 => {
            let mut object = canonical;
            if let Some(map) = object.as_object_mut() {
                map.remove("id");
            }
            object
        }
    };
    Ok(config.to_string())
}

/// The Zarr format of a Python argument (2 or 3).
fn zarr_format_of(zarr_format: u8) -> Result<ZarrFormat> {
    match zarr_format {
        2 => Ok(ZarrFormat::V2),
        3 => Ok(ZarrFormat::V3),
        other => Err(CodecError::configuration(format!("no Zarr format {other}"))),
    }
}
