//! What the four codecs share: a 4-byte little-endian checksum before or after the data,
//! computed when encoding, checked when decoding.

use std::mem::MaybeUninit;

use zarr_codec_shapes::{CodecError, Result};

use crate::Location;

/// The size of a stored checksum in bytes.
pub const CHECKSUM_LEN: usize = 4;

/// A 32-bit checksum stored beside a chunk's bytes.
pub trait Checksum32 {
    /// The numcodecs id, for messages.
    const ID: &'static str;

    /// The checksum of `data`.
    fn checksum(&self, data: &[u8]) -> u32;

    /// Where the checksum is stored.
    fn location(&self) -> Location;
}

/// `input`'s data and its stored checksum.
fn split<'a, C: Checksum32>(codec: &C, input: &'a [u8]) -> Result<(&'a [u8], u32)> {
    if input.len() < CHECKSUM_LEN {
        return Err(CodecError::corrupt(format!(
            "{}: {} bytes cannot hold a 4-byte checksum",
            C::ID,
            input.len()
        )));
    }
    let (data, stored) = match codec.location() {
        Location::End => input.split_at(input.len() - CHECKSUM_LEN),
        Location::Start => {
            let (stored, data) = input.split_at(CHECKSUM_LEN);
            (data, stored)
        }
    };
    let mut word = [0u8; CHECKSUM_LEN];
    word.copy_from_slice(stored);
    Ok((data, u32::from_le_bytes(word)))
}

/// The data of `input`, its checksum checked.
pub(crate) fn verify<'a, C: Checksum32>(codec: &C, input: &'a [u8]) -> Result<&'a [u8]> {
    let (data, stored) = split(codec, input)?;
    let computed = codec.checksum(data);
    if computed != stored {
        return Err(CodecError::corrupt(format!(
            "{}: checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the \
             data is damaged",
            C::ID
        )));
    }
    Ok(data)
}

/// The data's length in `input` (without checking the checksum).
pub(crate) fn data_len<C: Checksum32>(codec: &C, input: &[u8]) -> Result<usize> {
    split(codec, input).map(|(data, _)| data.len())
}

/// `input` with its checksum.
pub(crate) fn encode<C: Checksum32>(codec: &C, input: &[u8]) -> Vec<u8> {
    let sum = codec.checksum(input).to_le_bytes();
    let mut out = Vec::with_capacity(input.len() + CHECKSUM_LEN);
    match codec.location() {
        Location::End => {
            out.extend_from_slice(input);
            out.extend_from_slice(&sum);
        }
        Location::Start => {
            out.extend_from_slice(&sum);
            out.extend_from_slice(input);
        }
    }
    out
}

/// [`encode`] into memory not yet initialised; the bytes written.
pub(crate) fn encode_into_uninit<C: Checksum32>(
    codec: &C,
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    let total = input
        .len()
        .checked_add(CHECKSUM_LEN)
        .ok_or(CodecError::OutputLimit { limit: out.len() })?;
    let limit = out.len();
    let out = out
        .get_mut(..total)
        .ok_or(CodecError::OutputLimit { limit })?;
    let sum = codec.checksum(input).to_le_bytes();
    let (data, stored) = match codec.location() {
        Location::End => out.split_at_mut(input.len()),
        Location::Start => {
            let (stored, data) = out.split_at_mut(CHECKSUM_LEN);
            (data, stored)
        }
    };
    write_bytes(data, input);
    write_bytes(stored, &sum);
    Ok(total)
}

/// The checked data of `input` copied into memory not yet initialised; its length.
pub(crate) fn decode_into_uninit<C: Checksum32>(
    codec: &C,
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    let data = verify(codec, input)?;
    let limit = out.len();
    let target = out
        .get_mut(..data.len())
        .ok_or(CodecError::OutputLimit { limit })?;
    write_bytes(target, data);
    Ok(data.len())
}

/// Copies `source` to the start of `target` (callers pass equal lengths).
fn write_bytes(target: &mut [MaybeUninit<u8>], source: &[u8]) {
    let len = source.len().min(target.len());
    // SAFETY: both ranges hold `len` bytes; they cannot overlap, since `target` is borrowed
    // mutably while `source` is borrowed shared; any byte is a valid `MaybeUninit<u8>`.
    unsafe {
        std::ptr::copy_nonoverlapping(source.as_ptr(), target.as_mut_ptr().cast::<u8>(), len);
    }
}

/// The `UninitBytesCodec` of a [`Checksum32`] type: every method through the framing above.
macro_rules! checksum_bytes_codec {
    ($codec:ty $(, $generic:ident: $bound:path)?) => {
        // SAFETY: the framing writes only bytes into the `MaybeUninit` memory it is given.
        unsafe impl$(<$generic: $bound>)? zarr_codec_shapes::UninitBytesCodec for $codec {
            fn encode_bytes(&self, input: &[u8]) -> zarr_codec_shapes::Result<Vec<u8>> {
                Ok($crate::framing::encode(self, input))
            }

            /// The data is checked in full before anything is copied: a limit saves nothing.
            fn decode_bytes(
                &self,
                input: &[u8],
                limit: Option<usize>,
            ) -> zarr_codec_shapes::Result<Vec<u8>> {
                let data = $crate::framing::verify(self, input)?;
                zarr_codec_shapes::codec::within_limit(data.to_vec(), limit)
            }

            fn encode_bytes_uninit(
                &self,
                input: &[u8],
                out: &mut [std::mem::MaybeUninit<u8>],
            ) -> zarr_codec_shapes::Result<usize> {
                $crate::framing::encode_into_uninit(self, input, out)
            }

            fn decode_bytes_uninit(
                &self,
                input: &[u8],
                out: &mut [std::mem::MaybeUninit<u8>],
            ) -> zarr_codec_shapes::Result<usize> {
                $crate::framing::decode_into_uninit(self, input, out)
            }

            fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
                decoded_len.checked_add($crate::CHECKSUM_LEN)
            }

            fn max_decoded_len(&self, encoded_len: usize) -> Option<usize> {
                Some(encoded_len.saturating_sub($crate::CHECKSUM_LEN))
            }

            fn decoded_len_hint(&self, input: &[u8]) -> zarr_codec_shapes::Result<Option<usize>> {
                $crate::framing::data_len(self, input).map(Some)
            }
        }
    };
}

pub(crate) use checksum_bytes_codec;
