//! The codec traits: bytes-to-bytes, array-to-array and array-to-bytes.
//!
//! They follow the three codec kinds of the
//! [Zarr v3 core specification](https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html#codecs).
//! One chunk in, one chunk out, synchronously. All traits are object safe and require
//! `Send + Sync`, so codecs can be shared across threads as `Arc<dyn ...>`.
//!
//! Arrays are passed as their element bytes: C order (last dimension fastest), each element
//! in **native** byte order, [`DataType::size`](crate::DataType::size) bytes per element
//! (sub-byte types one byte each). Endianness on disk is the business of the array-to-bytes
//! codec (`bytes`). The [`ChunkSpec`] passed to every array method describes the **decoded**
//! side of that codec; the encoded side of an array-to-array codec is
//! [`ArrayToArrayCodec::resolve`] of it.
//!
//! One call shape for the three kinds, as in the Python API: `encode(input, spec)`,
//! `decode(input, spec)`, `encode_into(input, out, spec)` and `decode_into(input, out, spec)`.
//! The `*_into` methods write into a buffer the caller owns and return the number of bytes
//! written. Their default implementations call the allocating method and copy; codecs that
//! can write in place override them.
//!
//! **Overlapping buffers.** In these traits `input` and `out` are a shared and a mutable
//! borrow, so they never overlap and implementations may rely on that (`copy_nonoverlapping`,
//! vectorised loops). Code that builds the two slices from raw memory it does not control
//! (the Python glue, from buffers a caller passes) must not hand over overlapping ones: for
//! one chunk it reads an overlapping input from a copy, so the call gives what separate
//! buffers give; a batch refuses outputs that overlap any input or each other with
//! [`CodecError::Configuration`] before writing anything.

use std::mem::MaybeUninit;

use crate::capability::{PartialDecodeCapability, RecommendedConcurrency};
use crate::chunk_spec::ChunkSpec;
use crate::error::{CodecError, Result};
use crate::json::ZarrFormat;

/// What every codec has: its name and its JSON metadata.
pub trait Codec: Send + Sync {
    /// The Zarr v3 codec name (`"gzip"`, `"cast_value"`, ...).
    fn name(&self) -> &'static str;

    /// The codec's JSON metadata in the given Zarr format: `{"name": ..., "configuration":
    /// {...}}` for v3, `{"id": ..., ...}` for v2 (see [`crate::json`]).
    /// [`CodecError::Unsupported`] for a codec without a form in that format.
    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value>;

    /// How many threads the codec can use on one chunk of `spec` (the decoded chunk); one by
    /// default.
    fn recommended_concurrency(&self, spec: &ChunkSpec) -> RecommendedConcurrency {
        let _ = spec;
        RecommendedConcurrency::ONE
    }

    /// Whether part of a chunk can be read or decoded without the rest; neither by default.
    fn partial_decode_capability(&self) -> PartialDecodeCapability {
        PartialDecodeCapability::NONE
    }
}

/// Construction of a codec from its JSON metadata. Separate from [`Codec`] so that the codec
/// traits stay object safe.
pub trait CodecFromJson: Codec + Sized {
    /// Parses the codec's JSON metadata in the given Zarr format, rejecting unknown keys
    /// ([`CodecError::Configuration`]).
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self>;
}

/// A codec from bytes to bytes (compression, checksums). `spec` describes the decoded chunk;
/// such codecs accept it, as every kind does, and may ignore it.
pub trait BytesToBytesCodec: Codec {
    /// Encodes `input`.
    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>>;

    /// Decodes `input`. [`CodecError::Corrupt`] for input this codec did not produce.
    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>>;

    /// Encodes `input` into the start of `out` and returns the number of bytes written;
    /// [`CodecError::OutputSize`] when `out` is too small.
    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        copy_prefix(&self.encode(input, spec)?, out)
    }

    /// Decodes `input` into the start of `out` and returns the number of bytes written;
    /// [`CodecError::OutputSize`] when `out` is too small.
    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        copy_prefix(&self.decode(input, spec)?, out)
    }

    /// An upper bound on the encoded size of `decoded_len` bytes, `None` when unknown.
    fn max_encoded_size(&self, decoded_len: usize) -> Option<usize> {
        let _ = decoded_len;
        None
    }

    /// An upper bound on the decoded size of `encoded_len` bytes when the format itself sets
    /// one (a checksum's: its input less the checksum), `None` otherwise (compressors).
    fn max_decoded_size(&self, encoded_len: usize) -> Option<usize> {
        let _ = encoded_len;
        None
    }

    /// The size `input` most likely decodes to, as its own header or trailer states it
    /// (`None` where it states none). A binding decodes into exactly that much room and falls
    /// back to [`decode_limited`](Self::decode_limited) when the hint proves wrong, so a wrong
    /// hint costs time, never correctness. An error for input that cannot be this codec's.
    fn decoded_size_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        let _ = input;
        Ok(None)
    }

    /// [`decode`](Self::decode), refusing to produce more than `limit` bytes
    /// ([`CodecError::OutputLimit`]). The default decodes first and checks after; codecs that
    /// can stop early override it, so that a small input cannot claim a huge allocation.
    fn decode_limited(
        &self,
        input: &[u8],
        limit: Option<usize>,
        spec: &ChunkSpec,
    ) -> Result<Vec<u8>> {
        within_limit(self.decode(input, spec)?, limit)
    }

    /// [`encode_into`](Self::encode_into) memory not yet initialised (a new buffer that is
    /// never zeroed first); the bytes written at its start. The default encodes and copies.
    fn encode_into_uninit(
        &self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        spec: &ChunkSpec,
    ) -> Result<usize> {
        copy_prefix_uninit(&self.encode(input, spec)?, out)
    }

    /// [`decode_into`](Self::decode_into) memory not yet initialised; the bytes written at
    /// its start. The default decodes and copies.
    fn decode_into_uninit(
        &self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        spec: &ChunkSpec,
    ) -> Result<usize> {
        copy_prefix_uninit(&self.decode(input, spec)?, out)
    }
}

/// The bytes-to-bytes codecs that never look at the chunk spec and write straight into
/// memory not yet initialised (the compressors and the checksum): each implements these few
/// methods once, and the blanket implementation below makes it a [`BytesToBytesCodec`]
/// (`decode` is [`decode_bytes`](Self::decode_bytes) without a limit, and the `*_into`
/// methods view the caller's initialised memory as `MaybeUninit`).
///
/// # Safety
/// [`encode_bytes_uninit`](Self::encode_bytes_uninit) and
/// [`decode_bytes_uninit`](Self::decode_bytes_uninit) write only initialised values into
/// `out`: `encode_into` and `decode_into` hand them initialised memory through such a view.
pub unsafe trait UninitBytesCodec: Codec {
    /// [`BytesToBytesCodec::encode`].
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>>;

    /// [`BytesToBytesCodec::decode_limited`] (`None`: no limit).
    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>>;

    /// [`BytesToBytesCodec::encode_into_uninit`].
    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize>;

    /// [`BytesToBytesCodec::decode_into_uninit`].
    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize>;

    /// [`BytesToBytesCodec::max_encoded_size`]; `None` by default.
    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        let _ = decoded_len;
        None
    }

    /// [`BytesToBytesCodec::max_decoded_size`]; `None` by default.
    fn max_decoded_len(&self, encoded_len: usize) -> Option<usize> {
        let _ = encoded_len;
        None
    }

    /// [`BytesToBytesCodec::decoded_size_hint`]; no hint by default.
    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        let _ = input;
        Ok(None)
    }
}

impl<C: UninitBytesCodec> BytesToBytesCodec for C {
    fn encode(&self, input: &[u8], _spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.encode_bytes(input)
    }

    fn decode(&self, input: &[u8], _spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.decode_bytes(input, None)
    }

    fn encode_into(&self, input: &[u8], out: &mut [u8], _spec: &ChunkSpec) -> Result<usize> {
        // SAFETY: the trait's contract: only initialised values are written through the view.
        self.encode_bytes_uninit(input, unsafe { as_uninit_mut(out) })
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], _spec: &ChunkSpec) -> Result<usize> {
        // SAFETY: the trait's contract: only initialised values are written through the view.
        self.decode_bytes_uninit(input, unsafe { as_uninit_mut(out) })
    }

    fn max_encoded_size(&self, decoded_len: usize) -> Option<usize> {
        self.max_encoded_len(decoded_len)
    }

    fn max_decoded_size(&self, encoded_len: usize) -> Option<usize> {
        self.max_decoded_len(encoded_len)
    }

    fn decoded_size_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        self.decoded_len_hint(input)
    }

    fn decode_limited(
        &self,
        input: &[u8],
        limit: Option<usize>,
        _spec: &ChunkSpec,
    ) -> Result<Vec<u8>> {
        self.decode_bytes(input, limit)
    }

    fn encode_into_uninit(
        &self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        _spec: &ChunkSpec,
    ) -> Result<usize> {
        self.encode_bytes_uninit(input, out)
    }

    fn decode_into_uninit(
        &self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        _spec: &ChunkSpec,
    ) -> Result<usize> {
        self.decode_bytes_uninit(input, out)
    }
}

/// A codec from an array to an array of the same shape or another (transposes, casts,
/// scale and offset).
pub trait ArrayToArrayCodec: Codec {
    /// The spec of the encoded array, given `spec` of the decoded one (its data type, fill
    /// value and shape after encoding). [`CodecError::Unsupported`] for a data type the codec
    /// cannot handle.
    fn resolve(&self, spec: &ChunkSpec) -> Result<ChunkSpec>;

    /// Encodes the array `input`, described by `spec`, into the array described by
    /// [`resolve(spec)`](Self::resolve).
    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>>;

    /// Decodes the array `input`, described by [`resolve(spec)`](Self::resolve), into the
    /// array described by `spec`.
    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>>;

    /// Like [`encode`](Self::encode), into `out`, which must hold exactly the encoded array
    /// ([`CodecError::OutputSize`] otherwise). Returns the number of bytes written.
    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        copy_exact(&self.encode(input, spec)?, out)
    }

    /// Like [`decode`](Self::decode), into `out`, which must hold exactly
    /// [`spec.num_bytes()`](ChunkSpec::num_bytes) bytes ([`CodecError::OutputSize`]
    /// otherwise). Returns the number of bytes written.
    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        copy_exact(&self.decode(input, spec)?, out)
    }
}

/// A codec from an array to bytes (the `bytes` codec, sharding).
pub trait ArrayToBytesCodec: Codec {
    /// Encodes the array `input`, described by `spec`, to bytes.
    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>>;

    /// Decodes bytes into the array described by `spec`. [`CodecError::Corrupt`] for input
    /// this codec did not produce.
    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>>;

    /// Like [`encode`](Self::encode), into the start of `out` ([`CodecError::OutputSize`]
    /// when it is too small). Returns the number of bytes written.
    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        copy_prefix(&self.encode(input, spec)?, out)
    }

    /// Like [`decode`](Self::decode), into `out`, which must hold exactly
    /// [`spec.num_bytes()`](ChunkSpec::num_bytes) bytes ([`CodecError::OutputSize`]
    /// otherwise). Returns the number of bytes written.
    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        copy_exact(&self.decode(input, spec)?, out)
    }

    /// An upper bound on the encoded size of an array described by `spec`, `None` when
    /// unknown.
    fn max_encoded_size(&self, spec: &ChunkSpec) -> Option<usize> {
        let _ = spec;
        None
    }
}

/// Copies `data` to the start of `out`; [`CodecError::OutputSize`] when `out` is shorter.
pub fn copy_prefix(data: &[u8], out: &mut [u8]) -> Result<usize> {
    let actual = out.len();
    let target = out.get_mut(..data.len()).ok_or(CodecError::OutputSize {
        expected: data.len(),
        actual,
    })?;
    target.copy_from_slice(data);
    Ok(data.len())
}

/// Copies `data` to the start of `out`, memory not yet initialised;
/// [`CodecError::OutputSize`] when `out` is shorter.
pub fn copy_prefix_uninit(data: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let actual = out.len();
    let target = out.get_mut(..data.len()).ok_or(CodecError::OutputSize {
        expected: data.len(),
        actual,
    })?;
    for (to, from) in target.iter_mut().zip(data) {
        to.write(*from);
    }
    Ok(data.len())
}

/// `decoded`, unless it is longer than `limit` ([`CodecError::OutputLimit`]): the check of
/// decoders that cannot stop early.
pub fn within_limit(decoded: Vec<u8>, limit: Option<usize>) -> Result<Vec<u8>> {
    match limit {
        Some(limit) if decoded.len() > limit => Err(CodecError::OutputLimit { limit }),
        _ => Ok(decoded),
    }
}

/// Views initialised bytes as `MaybeUninit`, for writers that take memory not yet
/// initialised.
///
/// # Safety
/// Only initialised values may be written through the view (never `MaybeUninit::uninit()`):
/// the bytes are read as `u8` again once it ends.
pub unsafe fn as_uninit_mut(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller keeps the bytes initialised.
    unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) }
}

/// Copies `data` to `out`; [`CodecError::OutputSize`] unless both have the same length.
pub fn copy_exact(data: &[u8], out: &mut [u8]) -> Result<usize> {
    if data.len() != out.len() {
        return Err(CodecError::OutputSize {
            expected: data.len(),
            actual: out.len(),
        });
    }
    out.copy_from_slice(data);
    Ok(data.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::DataType;

    /// Reverses the bytes: an invertible bytes-to-bytes codec.
    struct Reverse;

    impl Codec for Reverse {
        fn name(&self) -> &'static str {
            "reverse"
        }

        fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
            match format {
                ZarrFormat::V3 => crate::json::to_v3_json(self.name(), &()),
                ZarrFormat::V2 => Err(CodecError::unsupported("no v2 form")),
            }
        }
    }

    impl BytesToBytesCodec for Reverse {
        fn encode(&self, input: &[u8], _spec: &ChunkSpec) -> Result<Vec<u8>> {
            Ok(input.iter().rev().copied().collect())
        }

        fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
            self.encode(input, spec)
        }
    }

    /// Negates int8 elements: an array-to-array codec that keeps the spec.
    struct Negate;

    impl Codec for Negate {
        fn name(&self) -> &'static str {
            "negate"
        }

        fn to_json(&self, _format: ZarrFormat) -> Result<serde_json::Value> {
            crate::json::to_v3_json(self.name(), &())
        }
    }

    impl ArrayToArrayCodec for Negate {
        fn resolve(&self, spec: &ChunkSpec) -> Result<ChunkSpec> {
            Ok(spec.clone())
        }

        fn encode(&self, input: &[u8], _spec: &ChunkSpec) -> Result<Vec<u8>> {
            Ok(input.iter().map(|byte| byte.wrapping_neg()).collect())
        }

        fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
            self.encode(input, spec)
        }
    }

    #[test]
    fn bytes_defaults() -> Result<()> {
        let codec: Box<dyn BytesToBytesCodec> = Box::new(Reverse);
        let spec = ChunkSpec::with_default_fill_value(vec![3], DataType::UInt8)?;
        let mut out = [0u8; 5];
        assert_eq!(codec.encode_into(b"abc", &mut out, &spec)?, 3);
        assert_eq!(&out[..3], b"cba");
        assert_eq!(codec.decode_into(b"cba", &mut out, &spec)?, 3);
        assert_eq!(&out[..3], b"abc");
        let error = codec
            .encode_into(b"abc", &mut out[..2], &spec)
            .expect_err("too small");
        assert_eq!(
            error,
            CodecError::OutputSize {
                expected: 3,
                actual: 2
            }
        );
        assert_eq!(codec.max_encoded_size(3), None);
        assert_eq!(
            codec.to_json(ZarrFormat::V3)?,
            serde_json::json!({"name": "reverse"})
        );
        Ok(())
    }

    #[test]
    fn array_defaults() -> Result<()> {
        let codec: std::sync::Arc<dyn ArrayToArrayCodec> = std::sync::Arc::new(Negate);
        let spec = ChunkSpec::with_default_fill_value(vec![3], DataType::Int8)?;
        let mut out = [0u8; 3];
        assert_eq!(codec.decode_into(&[1, 2, 3], &mut out, &spec)?, 3);
        assert_eq!(out, [255, 254, 253]);
        let mut long = [0u8; 4];
        let error = codec
            .encode_into(&[1, 2, 3], &mut long, &spec)
            .expect_err("wrong size");
        assert_eq!(error.kind(), crate::ErrorKind::OutputSize);
        Ok(())
    }
}
