//! Codec metadata helpers: v3 `{"name", "configuration"}` and v2 `{"id", ...}` forms.

use serde::{Deserialize, Serialize};
use serde_json::json;
use zarr_codec_shapes::json::{parse_v2_config, parse_v3_config, to_v2_json, to_v3_json};
use zarr_codec_shapes::{CodecError, ErrorKind, V2CodecJson, V3CodecJson, ZarrFormat};

type TestResult = Result<(), CodecError>;

/// A configuration like gzip's: one required field.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Required {
    level: u8,
}

/// A codec without configuration.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

fn configuration_error<T: std::fmt::Debug>(result: Result<T, CodecError>) -> String {
    let error = result.expect_err("must be rejected");
    assert_eq!(error.kind(), ErrorKind::Configuration, "{error}");
    error.to_string()
}

#[test]
fn v3_round_trip() -> TestResult {
    let json = json!({"name": "gzip", "configuration": {"level": 5}});
    let config: Required = parse_v3_config(&json, "gzip")?;
    assert_eq!(config, Required { level: 5 });
    assert_eq!(to_v3_json("gzip", &config)?, json);
    let metadata = V3CodecJson::from_value(&json)?;
    assert_eq!(metadata.to_value(), json);
    Ok(())
}

#[test]
fn v3_short_hand_and_must_understand() -> TestResult {
    let config: Empty = parse_v3_config(&json!("crc32c"), "crc32c")?;
    assert_eq!(config, Empty {});
    let config: Empty = parse_v3_config(&json!({"name": "crc32c"}), "crc32c")?;
    assert_eq!(config, Empty {});
    let json = json!({"name": "crc32c", "must_understand": false});
    let metadata = V3CodecJson::from_value(&json)?;
    assert_eq!(metadata.must_understand, Some(false));
    assert_eq!(metadata.to_value(), json);
    let _: Empty = parse_v3_config(&json, "crc32c")?;
    Ok(())
}

#[test]
fn v3_rejections_name_the_problem() {
    let message = configuration_error(parse_v3_config::<Required>(
        &json!({"name": "gzip", "configuration": {"level": 5, "lvl": 1}}),
        "gzip",
    ));
    assert!(
        message.contains("gzip") && message.contains("`lvl`"),
        "{message}"
    );
    let message = configuration_error(parse_v3_config::<Required>(
        &json!({"name": "gzip"}),
        "gzip",
    ));
    assert!(message.contains("level"), "{message}");
    let message = configuration_error(parse_v3_config::<Required>(
        &json!({"name": "zstd", "configuration": {"level": 5}}),
        "gzip",
    ));
    assert!(
        message.contains("zstd") && message.contains("gzip"),
        "{message}"
    );
    let message = configuration_error(parse_v3_config::<Required>(
        &json!({"name": "gzip", "configuration": {"level": 5}, "id": "gzip"}),
        "gzip",
    ));
    assert!(message.contains("`id`"), "{message}");
    configuration_error(parse_v3_config::<Required>(
        &json!({"name": "gzip", "configuration": {"level": "5"}}),
        "gzip",
    ));
    configuration_error(parse_v3_config::<Required>(
        &json!({"name": "gzip", "configuration": {"level": 300}}),
        "gzip",
    ));
    configuration_error(parse_v3_config::<Empty>(
        &json!({"name": "crc32c", "must_understand": "no"}),
        "crc32c",
    ));
    configuration_error(parse_v3_config::<Empty>(&json!({"name": 3}), "crc32c"));
    configuration_error(parse_v3_config::<Empty>(&json!(null), "crc32c"));
    // A v2 form is not a v3 form.
    configuration_error(parse_v3_config::<Required>(
        &json!({"id": "gzip", "level": 5}),
        "gzip",
    ));
}

#[test]
fn v2_round_trip_and_rejections() -> TestResult {
    let json = json!({"id": "gzip", "level": 1});
    let config: Required = parse_v2_config(&json, "gzip")?;
    assert_eq!(config, Required { level: 1 });
    assert_eq!(to_v2_json("gzip", &config)?, json);
    assert_eq!(V2CodecJson::from_value(&json)?.to_value(), json);
    assert_eq!(to_v2_json("crc32c", &Empty {})?, json!({"id": "crc32c"}));

    let message = configuration_error(parse_v2_config::<Required>(
        &json!({"id": "zlib", "level": 1}),
        "gzip",
    ));
    assert!(message.contains("zlib"), "{message}");
    let message = configuration_error(parse_v2_config::<Required>(
        &json!({"id": "gzip", "level": 1, "x": 0}),
        "gzip",
    ));
    assert!(message.contains("`x`"), "{message}");
    configuration_error(parse_v2_config::<Required>(&json!({"level": 1}), "gzip"));
    configuration_error(parse_v2_config::<Required>(
        &json!({"id": 1, "level": 1}),
        "gzip",
    ));
    configuration_error(parse_v2_config::<Required>(&json!("gzip"), "gzip"));
    // A v3 form is not a v2 form.
    configuration_error(parse_v2_config::<Required>(
        &json!({"name": "gzip", "configuration": {"level": 1}}),
        "gzip",
    ));
    Ok(())
}

#[test]
fn serialising_a_configuration_that_is_not_an_object_fails() {
    configuration_error(to_v3_json("odd", &3));
    configuration_error(to_v2_json("odd", &[1, 2]));
    configuration_error(to_v2_json("odd", &json!({"id": "other"})));
}

#[test]
fn zarr_format_numbers() -> TestResult {
    assert_eq!(ZarrFormat::try_from(3)?, ZarrFormat::V3);
    assert_eq!(ZarrFormat::try_from(2)?, ZarrFormat::V2);
    configuration_error(ZarrFormat::try_from(1));
    Ok(())
}

#[test]
fn a_fields_own_check_is_named_once_as_a_configuration_error() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(try_from = "u32")]
    struct Small(#[allow(dead_code)] u32);
    impl TryFrom<u32> for Small {
        type Error = zarr_codec_shapes::CodecError;
        fn try_from(value: u32) -> Result<Self, Self::Error> {
            if value < 10 {
                Ok(Self(value))
            } else {
                Err(zarr_codec_shapes::CodecError::configuration(
                    "small: at most 9",
                ))
            }
        }
    }
    #[derive(Debug, serde::Deserialize)]
    struct Config {
        #[allow(dead_code)]
        level: Small,
    }
    let json = serde_json::json!({"name": "small", "configuration": {"level": 10}});
    let error =
        zarr_codec_shapes::json::parse_v3_config::<Config>(&json, "small").expect_err("refused");
    assert_eq!(
        error.to_string().matches("invalid configuration").count(),
        1,
        "{error}"
    );
    assert!(error.to_string().contains("small: at most 9"), "{error}");
}
