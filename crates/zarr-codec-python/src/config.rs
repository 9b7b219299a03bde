//! One source of truth for a codec's configuration: the Rust configuration type parses and
//! validates the JSON, and the Python class keeps what it returns.

use pyo3::prelude::*;
use zarr_codec_shapes::{CodecError, CodecFromJson, ZarrFormat};

use crate::to_py_err;

/// The canonical configuration of codec metadata `json` (JSON text) in Zarr format
/// `zarr_format` (2 or 3), as the codec type `C` reads it and writes it back in that format:
/// JSON text of the v3 `configuration` object (`{}` when the codec writes none), or of the v2
/// object without its `id`. A `ConfigurationError` for anything the type refuses.
pub fn canonical_configuration<C: CodecFromJson>(
    py: Python<'_>,
    json: &str,
    zarr_format: u8,
) -> PyResult<String> {
    let configuration = |message: String| to_py_err(py, &CodecError::configuration(message));
    let format = match zarr_format {
        2 => ZarrFormat::V2,
        3 => ZarrFormat::V3,
        other => return Err(configuration(format!("no Zarr format {other}"))),
    };
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|err| configuration(format!("the configuration is not JSON: {err}")))?;
    let codec = C::from_json(&value, format).map_err(|err| to_py_err(py, &err))?;
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
