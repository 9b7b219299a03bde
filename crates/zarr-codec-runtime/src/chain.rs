//! [`Chain`]: a Zarr v3 codec chain of codec objects, planned once for one kind of chunk.

use std::sync::Arc;

use zarr_codec_shapes::{
    ArrayToArrayCodec, BytesToBytesCodec, ChunkSpec, CodecError, Endian, Result,
};

use crate::kernel::native::{ArrayDecode, ArrayEncode, BytesDecode, BytesEncode};
use crate::plan::Plan;
use crate::step::{Output, Step};

/// A whole codec chain (array-to-array codecs, the `bytes` codec, bytes-to-bytes codecs)
/// bound to the spec of its chunks, with both directions planned.
///
/// ```
/// use std::sync::Arc;
/// use zarr_codec_runtime::Chain;
/// use zarr_codec_shapes::{ChunkSpec, DataType, Endian};
///
/// let spec = ChunkSpec::with_default_fill_value(vec![4, 4], DataType::Float32)?;
/// let gzip = zarr_codec_gzip::Gzip::new(zarr_codec_gzip::Level::new(5)?);
/// let chain = Chain::new(&[], Some(Endian::Little), &[Arc::new(gzip)], spec)?;
/// let chunk: Vec<u8> = (0..64).collect();
/// let stored = chain.encode(&chunk)?;
/// let mut decoded = vec![0; 64];
/// chain.decode_into(&stored, &mut decoded)?;
/// assert_eq!(decoded, chunk);
/// # Ok::<(), zarr_codec_shapes::CodecError>(())
/// ```
#[derive(Clone)]
pub struct Chain {
    spec: ChunkSpec,
    decode: Plan,
    encode: Plan,
}

impl Chain {
    /// The chain of `array` codecs (in encoding order), the `bytes` codec storing elements in
    /// `endian` order (`None` only where every element is one byte) and `bytes` codecs (in
    /// encoding order), for chunks of `spec`.
    pub fn new(
        array: &[Arc<dyn ArrayToArrayCodec>],
        endian: Option<Endian>,
        bytes: &[Arc<dyn BytesToBytesCodec>],
        spec: ChunkSpec,
    ) -> Result<Self> {
        let mut encode = Vec::new();
        let mut decode_array = Vec::new();
        let mut current = spec.clone();
        for codec in array {
            let encoded = codec.resolve(&current)?;
            let name = codec.name();
            let encoding = ArrayEncode {
                codec: Arc::clone(codec),
                spec: current.clone(),
            };
            encode.push(Step::kernel(
                name,
                Arc::new(encoding),
                Output::Exact(encoded.num_bytes()),
            ));
            let decoding = ArrayDecode {
                codec: Arc::clone(codec),
                spec: current.clone(),
            };
            decode_array.push(Step::kernel(
                name,
                Arc::new(decoding),
                Output::Exact(current.num_bytes()),
            ));
            current = encoded;
        }
        let stored_len = current.num_bytes();
        let size = current.data_type().swap_size();
        let swap = match endian {
            _ if size < 2 => None,
            Some(order) if order == Endian::NATIVE => None,
            Some(_) => Some(Step::swap(size, stored_len)?),
            None => {
                return Err(CodecError::configuration(format!(
                    "bytes: an endian is needed for {} elements",
                    current.data_type().name()
                )));
            }
        };
        encode.extend(swap.clone());
        let mut decode_bytes = Vec::new();
        for (position, codec) in bytes.iter().enumerate() {
            encode.push(Step::kernel(
                codec.name(),
                Arc::new(BytesEncode {
                    codec: Arc::clone(codec),
                    spec: spec.clone(),
                }),
                Output::Bounded,
            ));
            // The decompressor nearest the array writes exactly the stored elements.
            let output = if position == 0 {
                Output::Exact(stored_len)
            } else {
                Output::Bounded
            };
            decode_bytes.push(Step::kernel(
                codec.name(),
                Arc::new(BytesDecode {
                    codec: Arc::clone(codec),
                    spec: spec.clone(),
                }),
                output,
            ));
        }
        let plain = bytes.is_empty();
        let mut decode: Vec<Step> = decode_bytes.into_iter().rev().collect();
        decode.extend(swap);
        decode.extend(decode_array.into_iter().rev());
        let decode = Plan::new(decode, plain.then_some(stored_len));
        let encode = Plan::new(encode, Some(spec.num_bytes()));
        Ok(Self {
            spec,
            decode,
            encode,
        })
    }

    /// The spec of the chain's decoded chunks.
    #[must_use]
    pub fn spec(&self) -> &ChunkSpec {
        &self.spec
    }

    /// Decoding, planned.
    #[must_use]
    pub fn decode_plan(&self) -> &Plan {
        &self.decode
    }

    /// Encoding, planned.
    #[must_use]
    pub fn encode_plan(&self) -> &Plan {
        &self.encode
    }

    /// One chunk's stored bytes decoded into all of `out` (the chunk's element bytes: C
    /// order, native byte order).
    pub fn decode_into(&self, stored: &[u8], out: &mut [u8]) -> Result<()> {
        self.decode.run_exact(stored, out)
    }

    /// One chunk (its element bytes) encoded to its stored bytes.
    pub fn encode(&self, chunk: &[u8]) -> Result<Vec<u8>> {
        self.encode.run_to_vec(chunk)
    }
}
