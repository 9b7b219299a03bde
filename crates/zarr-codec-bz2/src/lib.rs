//! numcodecs' `bz2` codec: a bytes-to-bytes codec storing a chunk as one bzip2 stream, byte for
//! byte as numcodecs 0.17 (Python's `bz2` module over libbzip2 1.0.8) writes it.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-bz2`.
//!
//! - Zarr v2: `{"id": "bz2", "level": 1}`; Zarr v3: zarr-python's
//!   `{"name": "numcodecs.bz2", "configuration": {"level": 1}}`. `level` 1 to 9 is the block
//!   size in units of 100 kB.
//! - Engine: libbzip2 1.0.8, built from source by `bzip2-sys`: the library Python's `bz2`
//!   module links (the tests compare against it).
//! - Decoding reads what `bz2.decompress` reads: one stream or several one after another; bytes
//!   after the last whole stream that are not a stream are ignored, no bytes at all decode to
//!   none, and a stream cut short is [`CodecError::Corrupt`]. A bzip2 stream does not say how large it decodes, so decoding
//!   stops with [`CodecError::OutputLimit`] at the caller's limit, before using more memory.
//!
//! ```
//! use zarr_codec_bz2::Bz2;
//! use zarr_codec_shapes::UninitBytesCodec;
//!
//! let codec = Bz2::new(9)?;
//! let encoded = codec.encode_bytes(b"zarr zarr zarr zarr zarr zarr")?;
//! assert_eq!(&encoded[..4], b"BZh9");
//! assert_eq!(codec.decode_bytes(&encoded, None)?, b"zarr zarr zarr zarr zarr zarr");
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

use std::mem::MaybeUninit;

use bzip2::{Action, Compress, Compression, Decompress, Status};
use serde::{Deserialize, Serialize};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::sink::{self, FixedSink, GrowingSink, Sink, Step, StreamFailure};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

/// The codec's id in Zarr v2 metadata.
pub const BZ2_ID: &str = "bz2";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const BZ2_NAME: &str = "numcodecs.bz2";

/// libbzip2's default work factor, which Python's `bz2.compress` uses.
const WORK_FACTOR: u32 = 30;

/// numcodecs' `BZ2(level=1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bz2 {
    level: u8,
}

impl Default for Bz2 {
    fn default() -> Self {
        Self { level: 1 }
    }
}

impl Bz2 {
    /// The codec at `level` (1 to 9); [`CodecError::Configuration`] otherwise.
    pub fn new(level: i64) -> Result<Self> {
        u8::try_from(level)
            .ok()
            .filter(|level| (1..=9).contains(level))
            .map(|level| Self { level })
            .ok_or_else(|| {
                CodecError::configuration(format!("bz2: level must be 1 to 9, got {level}"))
            })
    }

    /// The level, 1 to 9.
    pub fn level(&self) -> u8 {
        self.level
    }
}

/// The configuration, both formats: `level`, numcodecs' default 1, always written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Bz2Config {
    #[serde(default = "default_level")]
    level: i64,
}

fn default_level() -> i64 {
    1
}

/// The most bytes `len` input bytes can compress to (libbzip2's documented bound: 1% more,
/// plus 600 bytes).
pub fn max_encoded_len(len: usize) -> Option<usize> {
    len.checked_add(len / 100)?.checked_add(600)
}

fn encode_error(err: bzip2::Error) -> CodecError {
    CodecError::configuration(format!("bz2: the compressor failed: {err}"))
}

/// `input` compressed at `level` into `out`; the bytes written.
pub fn encode_into_uninit(input: &[u8], level: u8, out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let mut stream = Compress::new(Compression::new(u32::from(level)), WORK_FACTOR);
    let mut read = 0usize;
    let mut written = 0usize;
    loop {
        let (before_in, before_out) = (stream.total_in(), stream.total_out());
        let status = stream
            .compress_uninit(&input[read..], &mut out[written..], Action::Finish)
            .map_err(encode_error)?;
        read += usize::try_from(stream.total_in() - before_in).unwrap_or(usize::MAX);
        written += usize::try_from(stream.total_out() - before_out).unwrap_or(usize::MAX);
        if status == Status::StreamEnd {
            return Ok(written);
        }
        if written >= out.len() {
            return Err(CodecError::OutputLimit { limit: out.len() });
        }
    }
}

/// `input` compressed at `level`, as numcodecs writes it.
pub fn encode(input: &[u8], level: u8) -> Result<Vec<u8>> {
    let room = max_encoded_len(input.len())
        .ok_or_else(|| CodecError::out_of_range("bz2: a chunk larger than memory"))?;
    let mut out = Vec::with_capacity(room);
    let written = encode_into_uninit(input, level, &mut out.spare_capacity_mut()[..room])?;
    // SAFETY: the compressor initialised the first `written` bytes of the spare capacity.
    unsafe { out.set_len(written) };
    Ok(out)
}

fn corrupt(err: bzip2::Error) -> CodecError {
    CodecError::corrupt(format!("bz2: not a valid bzip2 stream ({err})"))
}

/// One stream of `input` decoded into `sink`: the input bytes it took.
fn decode_stream(input: &[u8], sink: &mut dyn Sink) -> std::result::Result<usize, StreamFailure> {
    let mut stream = Decompress::new(false);
    let truncated = || CodecError::corrupt("bz2: the data ends before the end-of-stream marker");
    let step = |rest: &[u8], room: &mut [MaybeUninit<u8>]| {
        let (before_in, before_out) = (stream.total_in(), stream.total_out());
        let status = stream
            .decompress_uninit(rest, room)
            .map_err(|err| StreamFailure::Invalid(corrupt(err)))?;
        Ok(Step {
            took: usize::try_from(stream.total_in() - before_in).unwrap_or(usize::MAX),
            gave: usize::try_from(stream.total_out() - before_out).unwrap_or(usize::MAX),
            ended: status == Status::StreamEnd,
        })
    };
    // SAFETY: libbzip2 initialises the bytes it reports written at the start of the room.
    unsafe { sink::decode_stream(input, sink, false, truncated, step) }
}

/// Every stream of `input` into `sink`, as `bz2.decompress` reads them (no bytes: nothing).
fn decode_streams(input: &[u8], sink: &mut dyn Sink) -> Result<()> {
    sink::decode_concatenated(input, sink, true, decode_stream)
}

/// The chunk `input` decoded into `out`; the bytes written.
pub fn decode_into_uninit(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let mut sink = FixedSink::new(out);
    decode_streams(input, &mut sink)?;
    Ok(sink.len())
}

/// The chunk `input` decoded, stopped with [`CodecError::OutputLimit`] past `limit` bytes.
pub fn decode(input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
    let mut sink = GrowingSink::new(limit);
    decode_streams(input, &mut sink)?;
    Ok(sink.into_vec())
}

impl Codec for Bz2 {
    fn name(&self) -> &'static str {
        BZ2_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let config = Bz2Config {
            level: i64::from(self.level),
        };
        match format {
            ZarrFormat::V3 => to_v3_json(BZ2_NAME, &config),
            ZarrFormat::V2 => to_v2_json(BZ2_ID, &config),
        }
    }
}

impl CodecFromJson for Bz2 {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let config: Bz2Config = match format {
            ZarrFormat::V3 => parse_v3_config(json, BZ2_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, BZ2_ID)?,
        };
        Self::new(config.level)
    }
}

// SAFETY: libbzip2 writes only bytes into the `MaybeUninit` memory it is given.
unsafe impl UninitBytesCodec for Bz2 {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        encode(input, self.level)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        decode(input, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        encode_into_uninit(input, self.level, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        decode_into_uninit(input, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        max_encoded_len(decoded_len)
    }

    fn max_decoded_len(&self, _encoded_len: usize) -> Option<usize> {
        None // a bzip2 stream does not bound its output by its length usefully
    }

    fn decoded_len_hint(&self, _input: &[u8]) -> Result<Option<usize>> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zarr_codec_shapes::ErrorKind;

    use super::*;

    fn sample() -> Vec<u8> {
        (0..200_000u32)
            .map(|i| (i / 7 % 251).to_le_bytes()[0])
            .collect()
    }

    #[test]
    fn round_trips_at_every_level() -> Result<()> {
        let data = sample();
        for level in 1..=9 {
            let encoded = encode(&data, level)?;
            assert_eq!(&encoded[..4], format!("BZh{level}").as_bytes());
            assert_eq!(decode(&encoded, None)?, data);
            let mut out = vec![MaybeUninit::new(0); data.len()];
            assert_eq!(decode_into_uninit(&encoded, &mut out)?, data.len());
        }
        assert_eq!(decode(&encode(b"", 1)?, None)?, b"");
        Ok(())
    }

    #[test]
    fn streams_one_after_another_and_trailing_bytes_read_as_python_does() -> Result<()> {
        let (a, b) = (encode(b"first ", 1)?, encode(b"second", 9)?);
        let both = [a.clone(), b].concat();
        assert_eq!(decode(&both, None)?, b"first second");
        let trailing = [a.clone(), b"not a stream".to_vec()].concat();
        assert_eq!(decode(&trailing, None)?, b"first ");
        let cut = &a[..a.len() - 3];
        assert_eq!(
            decode(cut, None).map_err(|e| e.kind()),
            Err(ErrorKind::Corrupt)
        );
        assert_eq!(decode(b"", None)?, b""); // as bz2.decompress(b"")
        for bad in [&b"BZh"[..], b"not bzip2 at all"] {
            assert_eq!(
                decode(bad, None).map_err(|e| e.kind()),
                Err(ErrorKind::Corrupt)
            );
        }
        Ok(())
    }

    #[test]
    fn decoding_stops_at_the_limit() -> Result<()> {
        let data = vec![7u8; 1 << 20];
        let encoded = encode(&data, 9)?;
        assert!(encoded.len() < 200);
        assert_eq!(
            decode(&encoded, Some(1000)).map_err(|e| e.kind()),
            Err(ErrorKind::OutputSize)
        );
        let mut small = vec![MaybeUninit::new(0); 1000];
        assert!(decode_into_uninit(&encoded, &mut small).is_err());
        assert_eq!(decode(&encoded, Some(1 << 20))?.len(), 1 << 20);
        let mut exact = vec![MaybeUninit::new(0); 1 << 20];
        assert_eq!(decode_into_uninit(&encoded, &mut exact)?, 1 << 20);
        for len in [0usize, 1, 999, 4096] {
            let small = encode(&data[..len], 1)?;
            assert_eq!(decode(&small, Some(len))?.len(), len);
        }
        Ok(())
    }

    #[test]
    fn json_forms() -> Result<()> {
        let codec = Bz2::from_json(&json!({"id": "bz2"}), ZarrFormat::V2)?;
        assert_eq!(codec, Bz2::default());
        assert_eq!(
            codec.to_json(ZarrFormat::V2)?,
            json!({"id": "bz2", "level": 1})
        );
        assert_eq!(
            codec.to_json(ZarrFormat::V3)?,
            json!({"name": "numcodecs.bz2", "configuration": {"level": 1}})
        );
        for bad in [json!(0), json!(10), json!(-1), json!("9")] {
            assert!(Bz2::from_json(&json!({"id": "bz2", "level": bad}), ZarrFormat::V2).is_err());
        }
        Ok(())
    }
}
