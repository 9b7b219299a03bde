//! [`Kernel`]: one codec's decoding or encoding of one chunk, as a chain step runs it.
//!
//! A kernel is what the runtime calls per chunk; it knows its codec's configuration and, for
//! an array codec, the chunk's spec. [`native`] makes kernels of any codec implementing the
//! [`zarr_codec_shapes`] traits; other sources (the Python bindings' codecs compiled into
//! other extension modules) implement the trait themselves.

use std::sync::Arc;

use zarr_codec_shapes::{ArrayToArrayCodec, BytesToBytesCodec, ChunkSpec, Result};

use crate::target::Target;

/// One direction of one codec, for one kind of chunk.
pub trait Kernel: Send + Sync {
    /// Runs the codec on `input`, writing at the start of `output`; the bytes written.
    ///
    /// An [`OutputSize`](zarr_codec_shapes::CodecError::OutputSize) error when `output` is too
    /// small; a step whose output size is fixed checks that all of it was written.
    fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize>;

    /// The most bytes [`run`](Self::run) writes for `input_len` input bytes, when the kernel
    /// knows (compressors, checksums); `None` when only the chain knows the size (array
    /// codecs, the innermost decompressor).
    fn max_output_len(&self, input_len: usize) -> Option<usize> {
        let _ = input_len;
        None
    }
}

impl<K: Kernel + ?Sized> Kernel for Arc<K> {
    fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
        (**self).run(input, output)
    }

    fn max_output_len(&self, input_len: usize) -> Option<usize> {
        (**self).max_output_len(input_len)
    }
}

/// Kernels of codecs that implement the [`zarr_codec_shapes`] traits.
pub mod native {
    use super::{Arc, ArrayToArrayCodec, BytesToBytesCodec, ChunkSpec, Kernel, Result, Target};

    /// A bytes-to-bytes codec's decoding.
    pub struct BytesDecode {
        /// The codec.
        pub codec: Arc<dyn BytesToBytesCodec>,
        /// The chunk's decoded spec, handed to the codec.
        pub spec: ChunkSpec,
    }

    impl Kernel for BytesDecode {
        fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
            self.codec
                .decode_into(input, output.into_init(), &self.spec)
        }
    }

    /// A bytes-to-bytes codec's encoding; its bound is the codec's
    /// [`max_encoded_size`](BytesToBytesCodec::max_encoded_size).
    pub struct BytesEncode {
        /// The codec.
        pub codec: Arc<dyn BytesToBytesCodec>,
        /// The chunk's decoded spec, handed to the codec.
        pub spec: ChunkSpec,
    }

    impl Kernel for BytesEncode {
        fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
            self.codec
                .encode_into(input, output.into_init(), &self.spec)
        }

        fn max_output_len(&self, input_len: usize) -> Option<usize> {
            self.codec.max_encoded_size(input_len)
        }
    }

    /// An array-to-array codec's decoding into arrays of `spec`.
    pub struct ArrayDecode {
        /// The codec.
        pub codec: Arc<dyn ArrayToArrayCodec>,
        /// The decoded array's spec.
        pub spec: ChunkSpec,
    }

    impl Kernel for ArrayDecode {
        fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
            self.codec
                .decode_into(input, output.into_init(), &self.spec)
        }
    }

    /// An array-to-array codec's encoding of arrays of `spec`.
    pub struct ArrayEncode {
        /// The codec.
        pub codec: Arc<dyn ArrayToArrayCodec>,
        /// The decoded array's spec.
        pub spec: ChunkSpec,
    }

    impl Kernel for ArrayEncode {
        fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
            self.codec
                .encode_into(input, output.into_init(), &self.spec)
        }
    }
}
