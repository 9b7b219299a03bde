//! [`Chain`]: a Zarr v3 codec chain of codec objects, planned once for one kind of chunk.

use std::sync::Arc;

use zarr_codec_shapes::{
    ArrayToArrayCodec, BytesToBytesCodec, ChunkSpec, CodecError, Endian, Result,
};

use crate::kernel::Kernel;
use crate::kernel::native::kernels;
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

/// One array-to-array codec of a chain, as the planner takes it.
#[derive(Clone)]
pub enum ArrayStage {
    /// A codec's two kernels, between C-order arrays of `decoded_len` bytes (the codec's
    /// input when encoding) and `encoded_len` bytes.
    Kernels {
        /// The codec's name, for error messages.
        name: String,
        /// Encoding one chunk.
        encode: Arc<dyn Kernel>,
        /// Decoding one chunk.
        decode: Arc<dyn Kernel>,
        /// The decoded array's bytes.
        decoded_len: usize,
        /// The encoded array's bytes.
        encoded_len: usize,
    },
    /// The `transpose` codec: C-order arrays of `shape` (elements of `item` bytes) to the
    /// C-order arrays whose dimension `k` is the input's dimension `order[k]`.
    Transpose {
        /// The decoded array's shape.
        shape: Vec<usize>,
        /// The permutation.
        order: Vec<usize>,
        /// The element size.
        item: usize,
    },
}

/// One bytes-to-bytes codec of a chain, as the planner takes it: its name and two kernels.
#[derive(Clone)]
pub struct BytesStage {
    /// The codec's name, for error messages.
    pub name: String,
    /// Encoding one chunk (its kernel states its output bound).
    pub encode: Arc<dyn Kernel>,
    /// Decoding one chunk.
    pub decode: Arc<dyn Kernel>,
}

impl ArrayStage {
    /// The two steps, encoding and decoding.
    fn steps(self) -> Result<(Step, Step)> {
        match self {
            Self::Kernels {
                name,
                encode,
                decode,
                decoded_len,
                encoded_len,
            } => Ok((
                Step::kernel(name.clone(), encode, Output::Exact(encoded_len)),
                Step::kernel(name, decode, Output::Exact(decoded_len)),
            )),
            Self::Transpose { shape, order, item } => {
                let encode = Step::permute(&shape, &order, item)?;
                let encoded: Vec<usize> = order.iter().map(|&axis| shape[axis]).collect();
                let mut inverse = vec![0; order.len()];
                for (position, &axis) in order.iter().enumerate() {
                    inverse[axis] = position;
                }
                Ok((encode, Step::permute(&encoded, &inverse, item)?))
            }
        }
    }
}

/// What the `bytes` codec stores: the elements after the array codecs.
pub struct Stored<'a> {
    /// Their bytes.
    pub len: usize,
    /// The bytes reversed together when the byte order changes
    /// ([`DataType::swap_size`](zarr_codec_shapes::DataType::swap_size)).
    pub swap_size: usize,
    /// Their data type's name, for error messages.
    pub data_type: &'a str,
}

/// The one planner of every chain, both directions (decoding, encoding): `array` stages (in
/// encoding order), the `bytes` codec storing `stored` in `endian` order (`None` only where
/// every element is one byte), then the `bytes` stages (in encoding order), for chunks of
/// `decoded_len` bytes. It decides the byte swap, each step's output size (the decompressor
/// nearest the array writes exactly the stored elements) and the size every input must have.
pub fn plan(
    array: Vec<ArrayStage>,
    endian: Option<Endian>,
    stored: &Stored<'_>,
    bytes: Vec<BytesStage>,
    decoded_len: usize,
) -> Result<(Plan, Plan)> {
    let mut encode = Vec::new();
    let mut decode_array = Vec::new();
    for stage in array {
        let (encoding, decoding) = stage.steps()?;
        encode.push(encoding);
        decode_array.push(decoding);
    }
    let swap = match endian {
        _ if stored.swap_size < 2 => None,
        Some(order) if order == Endian::NATIVE => None,
        Some(_) => Some(Step::swap(stored.swap_size, stored.len)?),
        None => {
            return Err(CodecError::configuration(format!(
                "bytes: an endian is needed for {} elements",
                stored.data_type
            )));
        }
    };
    encode.extend(swap.clone());
    let plain = bytes.is_empty();
    let mut decode_bytes = Vec::new();
    for (position, stage) in bytes.into_iter().enumerate() {
        encode.push(Step::kernel(
            stage.name.clone(),
            stage.encode,
            Output::Bounded,
        ));
        // The decompressor nearest the array writes exactly the stored elements.
        let output = if position == 0 {
            Output::Exact(stored.len)
        } else {
            Output::Bounded
        };
        decode_bytes.push(Step::kernel(stage.name, stage.decode, output));
    }
    let mut decode: Vec<Step> = decode_bytes.into_iter().rev().collect();
    decode.extend(swap);
    decode.extend(decode_array.into_iter().rev());
    Ok((
        Plan::new(decode, plain.then_some(stored.len)),
        Plan::new(encode, Some(decoded_len)),
    ))
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
        let mut stages = Vec::with_capacity(array.len());
        let mut current = spec.clone();
        for codec in array {
            let encoded = codec.resolve(&current)?;
            let (encode, decode) = kernels(codec, &current);
            stages.push(ArrayStage::Kernels {
                name: codec.name().into(),
                encode,
                decode,
                decoded_len: current.num_bytes(),
                encoded_len: encoded.num_bytes(),
            });
            current = encoded;
        }
        let bytes = bytes
            .iter()
            .map(|codec| {
                let (encode, decode) = kernels(codec, &spec);
                BytesStage {
                    name: codec.name().into(),
                    encode,
                    decode,
                }
            })
            .collect();
        let stored = Stored {
            len: current.num_bytes(),
            swap_size: current.data_type().swap_size(),
            data_type: current.data_type().name(),
        };
        let (decode, encode) = plan(stages, endian, &stored, bytes, spec.num_bytes())?;
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

    /// Whether a chunk's stored bytes are its elements as they lie in memory (the `bytes`
    /// codec alone, no swap): a chunk file can be read straight into place.
    #[must_use]
    pub fn stored_as_is(&self) -> bool {
        self.decode.steps().is_empty()
    }
}
