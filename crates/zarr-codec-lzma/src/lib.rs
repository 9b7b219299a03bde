//! numcodecs' `lzma` codec: a bytes-to-bytes codec storing a chunk as an xz, lzma-alone or raw
//! LZMA stream, with numcodecs' options (`format`, `check`, `preset`, `filters`), as numcodecs
//! 0.17 (Python's `lzma` module) writes and reads it.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-lzma`.
//!
//! - Zarr v2: `{"id": "lzma", "format": 1, "check": -1, "preset": null, "filters": null}`;
//!   Zarr v3: zarr-python's `numcodecs.lzma` with the same keys (`null`s left out).
//! - `format`: 1 xz (numcodecs' default), 2 lzma-alone, 3 raw (needs `filters`), 0 any of the
//!   first two when decoding (not for encoding). `check` (xz only): -1 the format's default
//!   (CRC64), 0 none, 1 CRC32, 4 CRC64, 10 SHA-256. `preset`: 0 to 9, optionally or'ed with
//!   `0x80000000` (extreme); `null` means 6. `filters`: Python's filter chain, a list of
//!   `{"id": ..., options}` (LZMA1, LZMA2, delta and the branch filters), instead of a preset.
//! - Engine: liblzma from xz 5.8, built from source (`liblzma-sys`). Its encoder writes what
//!   the liblzma of Python's `lzma` writes for the same options (the tests compare).
//! - Decoding reads what `lzma.decompress` reads (streams one after another, bytes after them
//!   that are not a stream ignored), is [`CodecError::Corrupt`] for damaged or cut-short data,
//!   and stops with [`CodecError::OutputLimit`] at the caller's limit.
//!
//! ```
//! use zarr_codec_lzma::Lzma;
//! use zarr_codec_shapes::UninitBytesCodec;
//!
//! let codec = Lzma::default();
//! let encoded = codec.encode_bytes(b"zarr zarr zarr zarr zarr zarr")?;
//! assert_eq!(&encoded[..6], b"\xfd7zXZ\x00");
//! assert_eq!(codec.decode_bytes(&encoded, None)?, b"zarr zarr zarr zarr zarr zarr");
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

use std::mem::MaybeUninit;

use liblzma::stream::{Action, Check, Filters, LzmaOptions, MatchFinder, Mode, Status, Stream};
use serde::{Deserialize, Serialize};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::sink::{self, FixedSink, GrowingSink, Sink, Step, StreamFailure};
use zarr_codec_shapes::{Codec, CodecError, CodecFromJson, Result, UninitBytesCodec};

/// The codec's id in Zarr v2 metadata.
pub const LZMA_ID: &str = "lzma";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const LZMA_NAME: &str = "numcodecs.lzma";

/// Python's `lzma.FORMAT_*`.
const FORMAT_AUTO: i64 = 0;
const FORMAT_XZ: i64 = 1;
const FORMAT_ALONE: i64 = 2;
const FORMAT_RAW: i64 = 3;
/// Python's `lzma.PRESET_DEFAULT` and `PRESET_EXTREME`.
const PRESET_DEFAULT: u32 = 6;
const PRESET_EXTREME: u32 = 0x8000_0000;
/// Python's `lzma.FILTER_*` ids.
const FILTER_LZMA1: u64 = 0x4000_0000_0000_0001;
const FILTER_LZMA2: u64 = 0x21;
const FILTER_DELTA: u64 = 0x03;
const BRANCH_FILTERS: [u64; 6] = [0x04, 0x05, 0x06, 0x07, 0x08, 0x09];

/// One filter of a chain, as Python's `lzma` takes it (`{"id": ..., options}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSpec {
    /// `lzma.FILTER_*`.
    pub id: u64,
    /// LZMA1/LZMA2: the preset the options start from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<u32>,
    /// LZMA1/LZMA2 options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dict_size: Option<u32>,
    /// LZMA1/LZMA2 literal context bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lc: Option<u32>,
    /// LZMA1/LZMA2 literal position bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lp: Option<u32>,
    /// LZMA1/LZMA2 position bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pb: Option<u32>,
    /// LZMA1/LZMA2 mode: 1 fast, 2 normal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// LZMA1/LZMA2 nice match length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nice_len: Option<u32>,
    /// LZMA1/LZMA2 match finder (`lzma.MF_*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mf: Option<u32>,
    /// LZMA1/LZMA2 match finder depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Delta: the distance, 1 to 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dist: Option<u32>,
    /// Branch filters: where the data starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_offset: Option<u32>,
}

/// numcodecs' `LZMA(format=1, check=-1, preset=None, filters=None)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lzma {
    format: i64,
    check: i64,
    preset: Option<u32>,
    filters: Option<Vec<FilterSpec>>,
}

impl Default for Lzma {
    fn default() -> Self {
        Self {
            format: FORMAT_XZ,
            check: -1,
            preset: None,
            filters: None,
        }
    }
}

/// The configuration, both formats. numcodecs writes every key (`null` for no preset or
/// filters); zarr-python's v3 form leaves the `null`s out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LzmaConfig {
    #[serde(default = "default_format")]
    format: i64,
    #[serde(default = "default_check")]
    check: i64,
    #[serde(default)]
    preset: Option<u32>,
    #[serde(default)]
    filters: Option<Vec<FilterSpec>>,
}

/// [`LzmaConfig`] as zarr-python writes it in v3: without the `null`s.
#[derive(Serialize)]
struct LzmaConfigV3<'a> {
    format: i64,
    check: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filters: Option<&'a Vec<FilterSpec>>,
}

fn default_format() -> i64 {
    FORMAT_XZ
}

fn default_check() -> i64 {
    -1
}

fn config_error(message: impl std::fmt::Display) -> CodecError {
    CodecError::configuration(format!("lzma: {message}"))
}

impl Lzma {
    /// The codec of these options, checked as Python's `lzma` checks them.
    pub fn new(
        format: i64,
        check: i64,
        preset: Option<u32>,
        filters: Option<Vec<FilterSpec>>,
    ) -> Result<Self> {
        if !(FORMAT_AUTO..=FORMAT_RAW).contains(&format) {
            return Err(config_error(format!("invalid format {format}")));
        }
        if ![-1, 0, 1, 4, 10].contains(&check) {
            return Err(config_error(format!("invalid check {check}")));
        }
        if format != FORMAT_XZ && ![-1, 0].contains(&check) {
            return Err(config_error(
                "integrity checks are only supported by the xz format (format 1)",
            ));
        }
        if preset.is_some() && filters.is_some() {
            return Err(config_error("cannot specify both preset and filters"));
        }
        if let Some(preset) = preset {
            check_preset(preset)?;
        }
        if format == FORMAT_RAW && filters.is_none() {
            return Err(config_error("the raw format (3) needs filters"));
        }
        let codec = Self {
            format,
            check,
            preset,
            filters,
        };
        if let Some(filters) = &codec.filters {
            codec.filter_chain(filters)?;
        }
        Ok(codec)
    }

    /// The liblzma filter chain of `filters`.
    fn filter_chain(&self, filters: &[FilterSpec]) -> Result<Filters> {
        if filters.is_empty() || filters.len() > 4 {
            return Err(config_error("a filter chain has 1 to 4 filters"));
        }
        if self.format == FORMAT_ALONE && !(filters.len() == 1 && filters[0].id == FILTER_LZMA1) {
            return Err(config_error(
                "the lzma-alone format (2) takes exactly one LZMA1 filter",
            ));
        }
        let mut chain = Filters::new();
        for filter in filters {
            match filter.id {
                FILTER_LZMA1 => {
                    chain.lzma1(&lzma_options(filter)?);
                }
                FILTER_LZMA2 => {
                    chain.lzma2(&lzma_options(filter)?);
                }
                FILTER_DELTA => {
                    let dist = filter.dist.unwrap_or(1);
                    let property = u8::try_from(dist.wrapping_sub(1))
                        .map_err(|_| config_error(format!("delta dist {dist} is not 1 to 256")))?;
                    chain
                        .delta_properties(&[property])
                        .map_err(|err| config_error(format!("delta filter: {err}")))?;
                }
                id if BRANCH_FILTERS.contains(&id) => {
                    branch_filter(&mut chain, id, filter.start_offset.unwrap_or(0))?;
                }
                id => return Err(config_error(format!("unknown filter id {id:#x}"))),
            }
        }
        Ok(chain)
    }

    fn check(&self) -> Check {
        match self.check {
            0 => Check::None,
            1 => Check::Crc32,
            10 => Check::Sha256,
            _ => Check::Crc64, // -1 (xz's default) and 4
        }
    }

    fn preset(&self) -> u32 {
        self.preset.unwrap_or(PRESET_DEFAULT)
    }

    fn encoder(&self) -> Result<Stream> {
        let started = match (self.format, &self.filters) {
            (FORMAT_XZ, None) => Stream::new_easy_encoder(self.preset(), self.check()),
            (FORMAT_XZ, Some(filters)) => {
                Stream::new_stream_encoder(&self.filter_chain(filters)?, self.check())
            }
            (FORMAT_ALONE, None) => Stream::new_lzma_encoder(&preset_options(self.preset())?),
            (FORMAT_ALONE, Some(filters)) => Stream::new_lzma_encoder(&lzma_options(&filters[0])?),
            (FORMAT_RAW, Some(filters)) => Stream::new_raw_encoder(&self.filter_chain(filters)?),
            _ => {
                return Err(config_error(
                    "format 0 (any) is for decoding only; encoding needs format 1, 2 or 3",
                ));
            }
        };
        started.map_err(|err| config_error(format!("the encoder refuses these options: {err}")))
    }

    /// A decoder for a stream whose output has `room` bytes at most.
    fn decoder(&self, room: usize) -> Result<Stream> {
        let memlimit = decoder_memory_limit(room);
        let started = match (self.format, &self.filters) {
            (FORMAT_AUTO, _) => Stream::new_auto_decoder(memlimit, 0),
            (FORMAT_XZ, _) => Stream::new_stream_decoder(memlimit, 0),
            (FORMAT_ALONE, _) => Stream::new_lzma_decoder(memlimit),
            (_, Some(filters)) => Stream::new_raw_decoder(&self.filter_chain(filters)?),
            (_, None) => return Err(config_error("the raw format (3) needs filters")),
        };
        started.map_err(|err| config_error(format!("the decoder refuses these options: {err}")))
    }
}

fn check_preset(preset: u32) -> Result<()> {
    if preset & !PRESET_EXTREME > 9 {
        return Err(config_error(format!("invalid preset {preset}")));
    }
    Ok(())
}

fn preset_options(preset: u32) -> Result<LzmaOptions> {
    check_preset(preset)?;
    LzmaOptions::new_preset(preset).map_err(|err| config_error(format!("preset {preset}: {err}")))
}

/// The options of an LZMA1 or LZMA2 filter: its preset's, then each option given.
fn lzma_options(filter: &FilterSpec) -> Result<LzmaOptions> {
    let mut options = preset_options(filter.preset.unwrap_or(PRESET_DEFAULT))?;
    if let Some(size) = filter.dict_size {
        options.dict_size(size);
    }
    if let Some(lc) = filter.lc {
        options.literal_context_bits(lc);
    }
    if let Some(lp) = filter.lp {
        options.literal_position_bits(lp);
    }
    if let Some(pb) = filter.pb {
        options.position_bits(pb);
    }
    if let Some(mode) = filter.mode {
        options.mode(match mode {
            1 => Mode::Fast,
            2 => Mode::Normal,
            other => return Err(config_error(format!("invalid mode {other}"))),
        });
    }
    if let Some(len) = filter.nice_len {
        options.nice_len(len);
    }
    if let Some(mf) = filter.mf {
        options.match_finder(match mf {
            0x03 => MatchFinder::HashChain3,
            0x04 => MatchFinder::HashChain4,
            0x12 => MatchFinder::BinaryTree2,
            0x13 => MatchFinder::BinaryTree3,
            0x14 => MatchFinder::BinaryTree4,
            other => return Err(config_error(format!("invalid match finder {other:#x}"))),
        });
    }
    if let Some(depth) = filter.depth {
        options.depth(depth);
    }
    Ok(options)
}

/// A branch (BCJ) filter `id` starting at `start_offset`.
fn branch_filter(chain: &mut Filters, id: u64, start_offset: u32) -> Result<()> {
    let properties = start_offset.to_le_bytes();
    let added = match id {
        0x04 => chain.x86_properties(&properties),
        0x05 => chain.powerpc_properties(&properties),
        0x06 => chain.ia64_properties(&properties),
        0x07 => chain.arm_properties(&properties),
        0x08 => chain.arm_thumb_properties(&properties),
        _ => chain.sparc_properties(&properties),
    };
    added
        .map(|_| ())
        .map_err(|err| config_error(format!("branch filter {id:#x}: {err}")))
}

/// The most bytes `len` input bytes can encode to, in any of the formats: LZMA2 (xz, raw)
/// stores data it cannot compress at a few bytes per 64 KiB, but LZMA1 (lzma-alone) has no
/// stored mode and codes such data a few percent larger.
pub fn max_encoded_len(len: usize) -> Option<usize> {
    len.checked_add(len / 16)?.checked_add(4096)
}

impl Lzma {
    /// `input` encoded into `out`; the bytes written.
    pub fn encode_into_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        let mut stream = self.encoder()?;
        let (mut read, mut written) = (0usize, 0usize);
        loop {
            let (before_in, before_out) = (stream.total_in(), stream.total_out());
            let status = stream
                .process_uninit(&input[read..], &mut out[written..], Action::Finish)
                .map_err(|err| config_error(format!("the encoder failed: {err}")))?;
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

    /// `input` encoded, as numcodecs writes it.
    pub fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let room = max_encoded_len(input.len())
            .ok_or_else(|| CodecError::out_of_range("lzma: a chunk larger than memory"))?;
        let mut out = Vec::with_capacity(room);
        let written = self.encode_into_uninit(input, &mut out.spare_capacity_mut()[..room])?;
        // SAFETY: the encoder initialised the first `written` bytes of the spare capacity.
        unsafe { out.set_len(written) };
        Ok(out)
    }

    /// One stream of `input` into `sink`: the input bytes it took. A raw stream has no end
    /// marker: the input's end is its end.
    fn decode_stream(
        &self,
        input: &[u8],
        sink: &mut dyn Sink,
    ) -> std::result::Result<usize, StreamFailure> {
        let room = sink.limit().saturating_sub(sink.len());
        let mut stream = self.decoder(room).map_err(StreamFailure::Other)?;
        let truncated = || corrupt("the data ends before the end-of-stream marker (truncated)");
        let step = |rest: &[u8], room: &mut [MaybeUninit<u8>]| {
            let (before_in, before_out) = (stream.total_in(), stream.total_out());
            let status = match stream.process_uninit(rest, room, Action::Run) {
                Ok(status) => status,
                Err(liblzma::stream::Error::MemLimit) => {
                    return Err(StreamFailure::Other(dictionary_too_large(
                        stream.memlimit(),
                    )));
                }
                Err(err) => return Err(StreamFailure::Invalid(corrupt(&err.to_string()))),
            };
            Ok(Step {
                took: usize::try_from(stream.total_in() - before_in).unwrap_or(usize::MAX),
                gave: usize::try_from(stream.total_out() - before_out).unwrap_or(usize::MAX),
                ended: status == Status::StreamEnd,
            })
        };
        let raw = self.format == FORMAT_RAW;
        // SAFETY: liblzma initialises the bytes it reports written at the start of the room.
        unsafe { sink::decode_stream(input, sink, raw, truncated, step) }
    }

    /// Every stream of `input` into `sink`, as `lzma.decompress` reads them (one, for the raw
    /// format; no bytes at all are refused, as a stream cut short).
    fn decode_streams(&self, input: &[u8], sink: &mut dyn Sink) -> Result<()> {
        if self.format == FORMAT_RAW {
            return self
                .decode_stream(input, sink)
                .map(|_| ())
                .map_err(|(StreamFailure::Invalid(err) | StreamFailure::Other(err))| err);
        }
        sink::decode_concatenated(input, sink, false, |rest, sink| {
            self.decode_stream(rest, sink)
        })
    }

    /// The chunk `input` decoded into `out`; the bytes written.
    pub fn decode_into_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        let mut sink = FixedSink::new(out);
        self.decode_streams(input, &mut sink)?;
        Ok(sink.len())
    }

    /// The chunk `input` decoded, stopped with [`CodecError::OutputLimit`] past `limit` bytes.
    pub fn decode(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        let mut sink = GrowingSink::new(limit);
        self.decode_streams(input, &mut sink)?;
        Ok(sink.into_vec())
    }
}

/// Memory a decoder may take whatever the chunk: the most any preset needs (preset 9's 64 MiB
/// dictionary and its state), with room to spare.
const DECODER_MEMORY_FLOOR: u64 = 128 << 20;

/// The memory liblzma may allocate to decode `room` bytes. A stream declares its dictionary's
/// size in its header and liblzma allocates all of it before reading any data, so without a
/// limit a few bytes could ask for 4 GiB. A dictionary larger than the output is never needed
/// (no match reaches further back than the data decoded), so the limit is the larger of the
/// floor and the output's room; an output of unknown size (no limit) gets the floor.
fn decoder_memory_limit(room: usize) -> u64 {
    // An unlimited sink's room is about isize::MAX.
    if room > isize::MAX.unsigned_abs() / 2 {
        return DECODER_MEMORY_FLOOR;
    }
    let room = u64::try_from(room).unwrap_or(u64::MAX);
    DECODER_MEMORY_FLOOR.max(room.saturating_add(DECODER_MEMORY_FLOOR / 8))
}

fn dictionary_too_large(limit: u64) -> CodecError {
    CodecError::Unsupported(format!(
        "lzma: the stream declares a dictionary needing more than {} MiB to decode: more than \
         any preset uses and more than this chunk's size could need; decode with the chunk's \
         size (an output buffer of that size) to allow a larger dictionary",
        limit >> 20,
    ))
}

fn corrupt(message: &str) -> CodecError {
    CodecError::corrupt(format!("lzma: {message}"))
}

impl Codec for Lzma {
    fn name(&self) -> &'static str {
        LZMA_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(
                LZMA_NAME,
                &LzmaConfigV3 {
                    format: self.format,
                    check: self.check,
                    preset: self.preset,
                    filters: self.filters.as_ref(),
                },
            ),
            ZarrFormat::V2 => to_v2_json(
                LZMA_ID,
                &LzmaConfig {
                    format: self.format,
                    check: self.check,
                    preset: self.preset,
                    filters: self.filters.clone(),
                },
            ),
        }
    }
}

impl CodecFromJson for Lzma {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let config: LzmaConfig = match format {
            ZarrFormat::V3 => parse_v3_config(json, LZMA_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, LZMA_ID)?,
        };
        Self::new(config.format, config.check, config.preset, config.filters)
    }
}

// SAFETY: liblzma writes only bytes into the `MaybeUninit` memory it is given.
unsafe impl UninitBytesCodec for Lzma {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        self.encode(input)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        self.decode(input, limit)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        self.encode_into_uninit(input, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        self.decode_into_uninit(input, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        max_encoded_len(decoded_len)
    }

    fn max_decoded_len(&self, _encoded_len: usize) -> Option<usize> {
        None // an LZMA stream does not bound its output by its length usefully
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
        (0..100_000u32)
            .map(|i| (i / 7 % 251).to_le_bytes()[0])
            .collect()
    }

    fn raw_chain() -> Vec<FilterSpec> {
        vec![
            FilterSpec {
                id: FILTER_DELTA,
                dist: Some(4),
                ..FilterSpec::default()
            },
            FilterSpec {
                id: FILTER_LZMA2,
                preset: Some(1),
                ..FilterSpec::default()
            },
        ]
    }

    #[test]
    fn every_format_round_trips() -> Result<()> {
        let data = sample();
        let codecs = [
            Lzma::default(),
            Lzma::new(FORMAT_XZ, 0, Some(9 | PRESET_EXTREME), None)?,
            Lzma::new(FORMAT_XZ, 10, None, Some(raw_chain()))?,
            Lzma::new(FORMAT_ALONE, -1, Some(2), None)?,
            Lzma::new(FORMAT_RAW, -1, None, Some(raw_chain()))?,
        ];
        for codec in codecs {
            let encoded = codec.encode(&data)?;
            assert!(encoded.len() < data.len() / 10, "{codec:?}");
            assert_eq!(codec.decode(&encoded, None)?, data, "{codec:?}");
            let mut out = vec![MaybeUninit::new(0); data.len()];
            assert_eq!(codec.decode_into_uninit(&encoded, &mut out)?, data.len());
            assert_eq!(
                codec.decode(&encoded, Some(1000)).map_err(|e| e.kind()),
                Err(ErrorKind::OutputSize)
            );
            assert_eq!(codec.decode(&codec.encode(b"")?, None)?, b"");
        }
        let any = Lzma::new(FORMAT_AUTO, -1, None, None)?;
        assert_eq!(any.decode(&Lzma::default().encode(&data)?, None)?, data);
        assert!(any.encode(&data).is_err());
        Ok(())
    }

    #[test]
    fn damaged_streams_are_corrupt() -> Result<()> {
        let codec = Lzma::default();
        let encoded = codec.encode(&sample())?;
        let mut damaged = encoded.clone();
        damaged[40] ^= 0xFF;
        for bad in [&b""[..], b"not xz", &encoded[..encoded.len() - 5], &damaged] {
            assert_eq!(
                codec.decode(bad, None).map_err(|e| e.kind()),
                Err(ErrorKind::Corrupt)
            );
        }
        let two = [encoded.clone(), encoded.clone()].concat();
        assert_eq!(codec.decode(&two, None)?.len(), 2 * sample().len());
        // As lzma.decompress(data, format=FORMAT_XZ): bytes after a stream that are not one
        // are ignored once liblzma can tell (a whole stream header), refused before.
        let trailing = [encoded.clone(), b"garbage longer than a header".to_vec()].concat();
        assert_eq!(codec.decode(&trailing, None)?, sample());
        let short = [encoded, b"garbage".to_vec()].concat();
        assert_eq!(
            codec.decode(&short, None).map_err(|e| e.kind()),
            Err(ErrorKind::Corrupt)
        );
        Ok(())
    }

    /// liblzma allocates a stream's declared dictionary before reading any data: a header
    /// declaring 4 GiB is refused (the fuzzer's input, and a real stream so patched), one
    /// declaring what a preset may is decoded.
    #[test]
    fn declared_dictionaries_are_bounded() -> Result<()> {
        let fuzzed =
            b"\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x91\x01\x00\x80";
        let alone = Lzma::new(2, -1, Some(0), None)?;
        let any = Lzma::new(0, -1, None, None)?;
        for codec in [&alone, &any] {
            assert_eq!(
                codec.decode(fuzzed, Some(4096)).map_err(|e| e.kind()),
                Err(ErrorKind::Unsupported)
            );
        }
        let data = sample();
        let mut stream = alone.encode(&data)?;
        stream[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        let refused = alone.decode(&stream, None).map_err(|e| e.to_string());
        assert!(refused.is_err_and(|message| message.contains("more than 128 MiB")));
        assert_eq!(
            alone
                .decode(&stream, Some(data.len()))
                .map_err(|e| e.kind()),
            Err(ErrorKind::Unsupported)
        );
        stream[1..5].copy_from_slice(&(64u32 << 20).to_le_bytes());
        assert_eq!(alone.decode(&stream, None)?, data);
        assert_eq!(any.decode(&stream, None)?, data);
        Ok(())
    }

    #[test]
    fn json_forms_and_refusals() -> Result<()> {
        let codec = Lzma::from_json(&json!({"id": "lzma"}), ZarrFormat::V2)?;
        assert_eq!(codec, Lzma::default());
        assert_eq!(
            codec.to_json(ZarrFormat::V2)?,
            json!({"id": "lzma", "format": 1, "check": -1, "preset": null, "filters": null})
        );
        assert_eq!(
            codec.to_json(ZarrFormat::V3)?,
            json!({"name": "numcodecs.lzma", "configuration": {"format": 1, "check": -1}})
        );
        let raw = Lzma::new(FORMAT_RAW, -1, None, Some(raw_chain()))?;
        assert_eq!(
            Lzma::from_json(&raw.to_json(ZarrFormat::V3)?, ZarrFormat::V3)?,
            raw
        );
        assert_eq!(
            Lzma::from_json(&raw.to_json(ZarrFormat::V2)?, ZarrFormat::V2)?,
            raw
        );
        let refused = [
            json!({"id": "lzma", "format": 4}),
            json!({"id": "lzma", "check": 2}),
            json!({"id": "lzma", "format": 2, "check": 4}),
            json!({"id": "lzma", "preset": 10}),
            json!({"id": "lzma", "format": 3}),
            json!({"id": "lzma", "preset": 1, "filters": [{"id": 33}]}),
            json!({"id": "lzma", "filters": [{"id": 3, "dist": 0}, {"id": 33}]}),
            json!({"id": "lzma", "filters": [{"id": 99}]}),
            json!({"id": "lzma", "filters": []}),
        ];
        for config in refused {
            let found = Lzma::from_json(&config, ZarrFormat::V2).map_err(|e| e.kind());
            assert_eq!(found, Err(ErrorKind::Configuration), "{config}");
        }
        Ok(())
    }
}
