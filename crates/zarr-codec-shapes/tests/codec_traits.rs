//! The codec traits used as trait objects shared across threads, with the default `*_into`
//! methods.

use std::sync::Arc;

use zarr_codec_shapes::{
    ArrayToBytesCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, ErrorKind,
    ZarrFormat, json,
};

type TestResult = Result<(), CodecError>;

/// The (empty) configuration of [`BigEndian`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoConfiguration {}

/// A `bytes`-like codec writing big-endian elements.
#[derive(Debug, PartialEq)]
struct BigEndian;

impl Codec for BigEndian {
    fn name(&self) -> &'static str {
        "big_endian"
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value, CodecError> {
        match format {
            ZarrFormat::V3 => json::to_v3_json(self.name(), &()),
            ZarrFormat::V2 => Err(CodecError::unsupported("big_endian has no v2 form")),
        }
    }
}

impl CodecFromJson for BigEndian {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self, CodecError> {
        match format {
            ZarrFormat::V3 => {
                let NoConfiguration {} = json::parse_v3_config(json, "big_endian")?;
                Ok(Self)
            }
            ZarrFormat::V2 => Err(CodecError::unsupported("big_endian has no v2 form")),
        }
    }
}

fn swap(input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>, CodecError> {
    if input.len() != spec.num_bytes() {
        return Err(CodecError::corrupt(format!(
            "{} bytes for a chunk of {}",
            input.len(),
            spec.num_bytes()
        )));
    }
    let size = spec.data_type().size();
    Ok(input
        .chunks_exact(size)
        .flat_map(|element| element.iter().rev().copied())
        .collect())
}

impl ArrayToBytesCodec for BigEndian {
    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>, CodecError> {
        swap(input, spec)
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>, CodecError> {
        swap(input, spec)
    }

    fn max_encoded_size(&self, spec: &ChunkSpec) -> Option<usize> {
        Some(spec.num_bytes())
    }
}

#[test]
fn array_to_bytes_through_a_shared_trait_object() -> TestResult {
    let codec: Arc<dyn ArrayToBytesCodec> = Arc::new(BigEndian);
    let spec = ChunkSpec::with_default_fill_value(vec![2], DataType::UInt16)?;
    let worker = {
        let codec = Arc::clone(&codec);
        let spec = spec.clone();
        std::thread::spawn(move || codec.encode(&[1, 0, 2, 0], &spec))
    };
    let encoded = worker
        .join()
        .map_err(|_| CodecError::corrupt("worker panicked"))??;
    assert_eq!(encoded, [0, 1, 0, 2]);
    assert_eq!(codec.max_encoded_size(&spec), Some(4));

    let mut out = [0u8; 4];
    assert_eq!(codec.decode_into(&encoded, &mut out, &spec)?, 4);
    assert_eq!(out, [1, 0, 2, 0]);
    let mut short = [0u8; 3];
    let error = codec
        .decode_into(&encoded, &mut short, &spec)
        .expect_err("short output");
    assert_eq!(
        error,
        CodecError::OutputSize {
            expected: 4,
            actual: 3
        }
    );
    let mut long = [0u8; 6];
    assert_eq!(codec.encode_into(&[1, 0, 2, 0], &mut long, &spec)?, 4);
    assert_eq!(long[..4], [0, 1, 0, 2]);
    let error = codec.decode(&[0, 1, 0], &spec).expect_err("corrupt");
    assert_eq!(error.kind(), ErrorKind::Corrupt);
    Ok(())
}

#[test]
fn from_json_and_to_json_agree() -> TestResult {
    let json = serde_json::json!({"name": "big_endian"});
    let codec = BigEndian::from_json(&json, ZarrFormat::V3)?;
    assert_eq!(codec.to_json(ZarrFormat::V3)?, json);
    assert_eq!(
        BigEndian::from_json(&serde_json::json!("big_endian"), ZarrFormat::V3)?,
        codec
    );
    let error = BigEndian::from_json(
        &serde_json::json!({"name": "big_endian", "configuration": {"endian": "big"}}),
        ZarrFormat::V3,
    )
    .expect_err("no configuration keys");
    assert_eq!(error.kind(), ErrorKind::Configuration);
    let error = codec.to_json(ZarrFormat::V2).expect_err("no v2 form");
    assert_eq!(error.kind(), ErrorKind::Unsupported);
    Ok(())
}
