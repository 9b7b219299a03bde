//! Codec metadata JSON in its two forms, and configuration structs read from and written to
//! them.
//!
//! - Zarr v3 ([codec metadata](https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html#extension-definition)):
//!   `{"name": "gzip", "configuration": {"level": 1}}`, optionally with
//!   `"must_understand": false`; a codec without configuration may be written as the bare
//!   name `"gzip"`.
//! - Zarr v2 ([compressor and filters](https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html#metadata)):
//!   numcodecs' flat form `{"id": "gzip", "level": 1}`.
//!
//! A codec crate defines one configuration struct with `#[serde(deny_unknown_fields)]` and
//! reads both forms with [`parse_v3_config`] and [`parse_v2_config`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{CodecError, Result};

/// A Zarr format version, for choosing a JSON form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZarrFormat {
    /// Zarr v2: `{"id": ..., ...}`.
    V2,
    /// Zarr v3: `{"name": ..., "configuration": {...}}`.
    V3,
}

impl TryFrom<u64> for ZarrFormat {
    type Error = CodecError;

    /// `2` or `3`; [`CodecError::Configuration`] for other numbers.
    fn try_from(version: u64) -> Result<Self> {
        match version {
            2 => Ok(Self::V2),
            3 => Ok(Self::V3),
            other => Err(CodecError::configuration(format!(
                "unknown Zarr format {other}, expected 2 or 3"
            ))),
        }
    }
}

/// Zarr v3 codec metadata.
///
/// Parses from `"name"` or `{"name": ..., "configuration": {...}, "must_understand": bool}`
/// (no other keys); writes the object form, leaving out absent members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Value")]
pub struct V3CodecJson {
    /// The codec name.
    pub name: String,
    /// The configuration object, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<Map<String, Value>>,
    /// The `must_understand` flag, if present (`false` lets a reader that does not know the
    /// codec go on without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub must_understand: Option<bool>,
}

impl V3CodecJson {
    /// Parses v3 codec metadata; [`CodecError::Configuration`] for anything else.
    pub fn from_value(json: &Value) -> Result<Self> {
        let object = match json {
            Value::String(name) => {
                return Ok(Self {
                    name: name.clone(),
                    configuration: None,
                    must_understand: None,
                });
            }
            Value::Object(object) => object,
            other => {
                return Err(CodecError::configuration(format!(
                    "v3 codec metadata must be an object or a name, not {other}"
                )));
            }
        };
        let name = match object.get("name") {
            Some(Value::String(name)) => name.clone(),
            Some(other) => {
                return Err(CodecError::configuration(format!(
                    "v3 codec `name` must be a string, not {other}"
                )));
            }
            None => {
                return Err(CodecError::configuration("v3 codec metadata has no `name`"));
            }
        };
        let mut parsed = Self {
            name,
            configuration: None,
            must_understand: None,
        };
        for (key, value) in object {
            match (key.as_str(), value) {
                ("name", _) => {}
                ("configuration", Value::Object(configuration)) => {
                    parsed.configuration = Some(configuration.clone());
                }
                ("must_understand", Value::Bool(flag)) => parsed.must_understand = Some(*flag),
                ("configuration" | "must_understand", other) => {
                    return Err(CodecError::configuration(format!(
                        "codec `{}`: invalid `{key}`: {other}",
                        parsed.name
                    )));
                }
                _ => {
                    return Err(CodecError::configuration(format!(
                        "codec `{}`: unknown key `{key}` in v3 codec metadata",
                        parsed.name
                    )));
                }
            }
        }
        Ok(parsed)
    }

    /// The JSON object form.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("name".to_owned(), Value::String(self.name.clone()));
        if let Some(configuration) = &self.configuration {
            object.insert(
                "configuration".to_owned(),
                Value::Object(configuration.clone()),
            );
        }
        if let Some(flag) = self.must_understand {
            object.insert("must_understand".to_owned(), Value::Bool(flag));
        }
        Value::Object(object)
    }
}

impl TryFrom<Value> for V3CodecJson {
    type Error = CodecError;

    fn try_from(json: Value) -> Result<Self> {
        Self::from_value(&json)
    }
}

/// Zarr v2 (numcodecs) codec metadata: `"id"` and the configuration keys beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Value")]
pub struct V2CodecJson {
    /// The codec id.
    pub id: String,
    /// Every other key of the object.
    #[serde(flatten)]
    pub configuration: Map<String, Value>,
}

impl V2CodecJson {
    /// Parses v2 codec metadata; [`CodecError::Configuration`] for anything but an object
    /// with a string `"id"`.
    pub fn from_value(json: &Value) -> Result<Self> {
        let Value::Object(object) = json else {
            return Err(CodecError::configuration(format!(
                "v2 codec metadata must be an object, not {json}"
            )));
        };
        let mut configuration = object.clone();
        match configuration.remove("id") {
            Some(Value::String(id)) => Ok(Self { id, configuration }),
            Some(other) => Err(CodecError::configuration(format!(
                "v2 codec `id` must be a string, not {other}"
            ))),
            None => Err(CodecError::configuration("v2 codec metadata has no `id`")),
        }
    }

    /// The flat JSON object form.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("id".to_owned(), Value::String(self.id.clone()));
        object.extend(self.configuration.clone());
        Value::Object(object)
    }
}

impl TryFrom<Value> for V2CodecJson {
    type Error = CodecError;

    fn try_from(json: Value) -> Result<Self> {
        Self::from_value(&json)
    }
}

/// Reads the configuration of the v3 codec `expected_name` from its metadata.
///
/// A missing configuration reads as `{}`, so the struct `C` decides which fields are
/// required; `C` should use `#[serde(deny_unknown_fields)]`. Errors are
/// [`CodecError::Configuration`] naming the codec and the offending key or value.
pub fn parse_v3_config<C: DeserializeOwned>(json: &Value, expected_name: &str) -> Result<C> {
    let metadata = V3CodecJson::from_value(json)?;
    check_codec("codec", &metadata.name, expected_name)?;
    deserialize_config(metadata.configuration.unwrap_or_default(), expected_name)
}

/// Reads the configuration of the v2 codec `expected_id` from its metadata: every key but
/// `"id"`. The same rules as [`parse_v3_config`].
pub fn parse_v2_config<C: DeserializeOwned>(json: &Value, expected_id: &str) -> Result<C> {
    let metadata = V2CodecJson::from_value(json)?;
    check_codec("codec id", &metadata.id, expected_id)?;
    deserialize_config(metadata.configuration, expected_id)
}

/// [`CodecError::Configuration`] unless the metadata's codec (`what`: its name or id) is
/// `expected`.
fn check_codec(what: &str, found: &str, expected: &str) -> Result<()> {
    if found != expected {
        return Err(CodecError::configuration(format!(
            "expected {what} `{expected}`, got `{found}`"
        )));
    }
    Ok(())
}

fn deserialize_config<C: DeserializeOwned>(
    configuration: Map<String, Value>,
    codec: &str,
) -> Result<C> {
    serde_json::from_value(Value::Object(configuration)).map_err(|error| {
        // A field's own check (serde's `try_from`) reports its CodecError through Display:
        // its detail alone, so that the message says "invalid configuration" once.
        let text = error.to_string().replace("invalid configuration: ", "");
        CodecError::configuration(format!("codec `{codec}`: {text}"))
    })
}

/// The configuration `config` serialized to a JSON object, or `None` when it serializes to
/// `null` (a unit struct or `()`: a codec without configuration).
fn config_object<C: Serialize>(config: &C, codec: &str) -> Result<Option<Map<String, Value>>> {
    match serde_json::to_value(config) {
        Ok(Value::Object(object)) => Ok(Some(object)),
        Ok(Value::Null) => Ok(None),
        Ok(other) => Err(CodecError::configuration(format!(
            "codec `{codec}`: configuration must serialize to an object, not {other}"
        ))),
        Err(error) => Err(CodecError::configuration(format!(
            "codec `{codec}`: {error}"
        ))),
    }
}

/// v3 metadata `{"name": name, "configuration": config}`; the configuration is left out when
/// `config` serializes to `null`.
pub fn to_v3_json<C: Serialize>(name: &str, config: &C) -> Result<Value> {
    Ok(V3CodecJson {
        name: name.to_owned(),
        configuration: config_object(config, name)?,
        must_understand: None,
    }
    .to_value())
}

/// v2 metadata `{"id": id, ...config}`. [`CodecError::Configuration`] when `config` has its
/// own `"id"` key.
pub fn to_v2_json<C: Serialize>(id: &str, config: &C) -> Result<Value> {
    let configuration = config_object(config, id)?.unwrap_or_default();
    if configuration.contains_key("id") {
        return Err(CodecError::configuration(format!(
            "codec `{id}`: a v2 configuration cannot have a key `id`"
        )));
    }
    Ok(V2CodecJson {
        id: id.to_owned(),
        configuration,
    }
    .to_value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Level {
        #[serde(default = "default_level")]
        level: u8,
    }

    fn default_level() -> u8 {
        5
    }

    #[test]
    fn v3_forms() -> Result<()> {
        let config: Level = parse_v3_config(
            &json!({"name": "gzip", "configuration": {"level": 1}}),
            "gzip",
        )?;
        assert_eq!(config, Level { level: 1 });
        let config: Level = parse_v3_config(&json!("gzip"), "gzip")?;
        assert_eq!(config, Level { level: 5 });
        let config: Level =
            parse_v3_config(&json!({"name": "gzip", "must_understand": false}), "gzip")?;
        assert_eq!(config, Level { level: 5 });
        assert_eq!(
            to_v3_json("gzip", &Level { level: 3 })?,
            json!({"name": "gzip", "configuration": {"level": 3}})
        );
        Ok(())
    }

    #[test]
    fn v3_rejections() {
        let error = parse_v3_config::<Level>(
            &json!({"name": "gzip", "configuration": {"lvl": 1}}),
            "gzip",
        )
        .expect_err("unknown key");
        let message = error.to_string();
        assert!(
            message.contains("gzip") && message.contains("lvl"),
            "{message}"
        );
        assert!(parse_v3_config::<Level>(&json!({"name": "zstd"}), "gzip").is_err());
        assert!(parse_v3_config::<Level>(&json!({"name": "gzip", "extra": 1}), "gzip").is_err());
        assert!(
            parse_v3_config::<Level>(&json!({"name": "gzip", "must_understand": 1}), "gzip")
                .is_err()
        );
        assert!(
            parse_v3_config::<Level>(&json!({"name": "gzip", "configuration": 1}), "gzip").is_err()
        );
        assert!(parse_v3_config::<Level>(&json!({"configuration": {}}), "gzip").is_err());
        assert!(parse_v3_config::<Level>(&json!(["gzip"]), "gzip").is_err());
    }

    #[test]
    fn v2_forms() -> Result<()> {
        let config: Level = parse_v2_config(&json!({"id": "gzip", "level": 1}), "gzip")?;
        assert_eq!(config, Level { level: 1 });
        assert_eq!(
            to_v2_json("gzip", &Level { level: 1 })?,
            json!({"id": "gzip", "level": 1})
        );
        assert_eq!(to_v2_json("crc32", &())?, json!({"id": "crc32"}));
        assert!(parse_v2_config::<Level>(&json!({"id": "zlib", "level": 1}), "gzip").is_err());
        assert!(parse_v2_config::<Level>(&json!({"level": 1}), "gzip").is_err());
        assert!(parse_v2_config::<Level>(&json!({"id": "gzip", "lvl": 1}), "gzip").is_err());
        Ok(())
    }

    #[test]
    fn serde_round_trips() -> Result<()> {
        let metadata: V3CodecJson = serde_json::from_value(json!("crc32c"))?;
        assert_eq!(serde_json::to_value(&metadata)?, json!({"name": "crc32c"}));
        let metadata: V2CodecJson = serde_json::from_value(json!({"id": "gzip", "level": 1}))?;
        assert_eq!(
            serde_json::to_value(&metadata)?,
            json!({"id": "gzip", "level": 1})
        );
        assert!(serde_json::from_value::<V3CodecJson>(json!({"name": "a", "b": 1})).is_err());
        assert_eq!(ZarrFormat::try_from(2)?, ZarrFormat::V2);
        assert!(ZarrFormat::try_from(4).is_err());
        Ok(())
    }
}
