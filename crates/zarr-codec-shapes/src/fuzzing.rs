//! Fuzz-target bodies for codec authors (ours use them in `crates/*/fuzz`): each takes the raw
//! bytes libFuzzer or cargo-fuzz hands over and drives a codec with them. A codec passes when
//! nothing panics, reads out of bounds or allocates out of proportion to the input; every
//! failure must be an `Err`.

use std::fmt::Debug;

use crate::{ArrayToArrayCodec, ChunkSpec, CodecFromJson, DataType, FillValue, Result, ZarrFormat};

/// The decoded size a decoder fuzzed by [`decoders`] may allocate.
pub const DECODE_LIMIT: usize = 1 << 24;

/// `data`, if it is JSON, as the configuration of codec type `C` in both Zarr formats: what
/// parses serializes, and parses back to the same codec.
///
/// # Panics
/// When a parsed codec does not serialize, or does not come back the same: the bug sought.
pub fn config_round_trip<C: CodecFromJson + PartialEq + Debug>(data: &[u8]) {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    for format in [ZarrFormat::V3, ZarrFormat::V2] {
        if let Ok(codec) = C::from_json(&json, format) {
            let again = codec.to_json(format).expect("a parsed codec serializes");
            assert_eq!(C::from_json(&again, format), Ok(codec));
        }
    }
}

/// `data` through a bytes codec's two decoders: `decode` limited to [`DECODE_LIMIT`] bytes,
/// and `decode_into` a 4 KiB buffer, which it must not claim to overfill.
///
/// # Panics
/// When `decode_into` claims more bytes than its buffer holds.
pub fn decoders(
    data: &[u8],
    decode: impl FnOnce(&[u8], Option<usize>) -> Result<Vec<u8>>,
    decode_into: impl FnOnce(&[u8], &mut [u8]) -> Result<usize>,
) {
    let _ = decode(data, Some(DECODE_LIMIT));
    let mut out = vec![0u8; 4096];
    if let Ok(written) = decode_into(data, &mut out) {
        assert!(written <= out.len());
    }
}

/// Any configuration, then any chunk of any data type, in both directions, for an
/// array-to-array codec type `C`.
///
/// `data`: one byte choosing the array's data type (its low 7 bits index [`DataType::ALL`]; the
/// high bit picks Zarr v2 JSON), the configuration's JSON text up to a newline, then the
/// chunk's bytes. The chunk is encoded and the result decoded, and the chunk is also decoded
/// as if it were an encoded array.
pub fn array_codec_config_and_chunk<C: ArrayToArrayCodec + CodecFromJson>(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let split = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let (json, chunk) = rest.split_at(split);
    let chunk = chunk.get(1..).unwrap_or_default();
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(json) else {
        return;
    };
    let format = if selector & 0x80 == 0 {
        ZarrFormat::V3
    } else {
        ZarrFormat::V2
    };
    let Ok(codec) = C::from_json(&json, format) else {
        return;
    };
    let data_type = DataType::ALL[usize::from(selector & 0x7f) % DataType::ALL.len()];
    let whole = |size: usize| chunk.len() / size.max(1);
    let spec_of = |count: usize| {
        ChunkSpec::new(vec![count], data_type, FillValue::default_for(data_type)).ok()
    };
    let count = whole(data_type.size());
    let Some(spec) = spec_of(count) else {
        return;
    };
    if let Ok(encoded) = codec.encode(&chunk[..count * data_type.size()], &spec) {
        let _ = codec.decode(&encoded, &spec);
    }
    // The chunk as an encoded array, decoded.
    if let Ok(inner) = codec.resolve(&spec) {
        let size = inner.data_type().size();
        let count = whole(size);
        if let Some(outer) = spec_of(count) {
            let _ = codec.decode(&chunk[..count * size], &outer);
        }
    }
}
