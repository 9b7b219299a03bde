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

    /// What a native kernel needs of a codec: one direction of it into initialised memory,
    /// and the bound on what encoding writes where the codec states one.
    pub trait NativeCodec: Send + Sync {
        /// Encodes (`encode`) or decodes `input` into the start of `output`; the bytes
        /// written.
        fn run_into(
            &self,
            encode: bool,
            input: &[u8],
            output: &mut [u8],
            spec: &ChunkSpec,
        ) -> Result<usize>;

        /// The most bytes encoding `input_len` bytes writes, `None` when the chain knows.
        fn max_encoded_len(&self, input_len: usize) -> Option<usize> {
            let _ = input_len;
            None
        }
    }

    /// `NativeCodec::run_into` of a codec kind whose `encode_into` and `decode_into` share
    /// one signature, as both kinds' do.
    macro_rules! run_into {
        () => {
            fn run_into(
                &self,
                encode: bool,
                input: &[u8],
                output: &mut [u8],
                spec: &ChunkSpec,
            ) -> Result<usize> {
                if encode {
                    self.encode_into(input, output, spec)
                } else {
                    self.decode_into(input, output, spec)
                }
            }
        };
    }

    impl NativeCodec for dyn BytesToBytesCodec {
        run_into!();

        fn max_encoded_len(&self, input_len: usize) -> Option<usize> {
            self.max_encoded_size(input_len)
        }
    }

    impl NativeCodec for dyn ArrayToArrayCodec {
        run_into!();
    }

    /// One direction (`ENCODE` or not) of a codec object, for chunks of `spec`.
    pub struct Native<C: ?Sized, const ENCODE: bool> {
        /// The codec.
        pub codec: Arc<C>,
        /// The chunk's decoded spec (for an array codec, the decoded array's), handed to the
        /// codec.
        pub spec: ChunkSpec,
    }

    impl<C: NativeCodec + ?Sized, const ENCODE: bool> Kernel for Native<C, ENCODE> {
        fn run(&self, input: &[u8], output: Target<'_>) -> Result<usize> {
            self.codec
                .run_into(ENCODE, input, output.into_init(), &self.spec)
        }

        fn max_output_len(&self, input_len: usize) -> Option<usize> {
            if ENCODE {
                self.codec.max_encoded_len(input_len)
            } else {
                None
            }
        }
    }

    /// The encoding and the decoding kernel of `codec` for chunks of `spec`.
    pub fn kernels<C: NativeCodec + ?Sized + 'static>(
        codec: &Arc<C>,
        spec: &ChunkSpec,
    ) -> (Arc<dyn Kernel>, Arc<dyn Kernel>) {
        let encode = Native::<C, true> {
            codec: Arc::clone(codec),
            spec: spec.clone(),
        };
        let decode = Native::<C, false> {
            codec: Arc::clone(codec),
            spec: spec.clone(),
        };
        (Arc::new(encode), Arc::new(decode))
    }

    /// A bytes-to-bytes codec's decoding.
    pub type BytesDecode = Native<dyn BytesToBytesCodec, false>;

    /// A bytes-to-bytes codec's encoding; its bound is the codec's
    /// [`max_encoded_size`](BytesToBytesCodec::max_encoded_size).
    pub type BytesEncode = Native<dyn BytesToBytesCodec, true>;

    /// An array-to-array codec's decoding into arrays of `spec`.
    pub type ArrayDecode = Native<dyn ArrayToArrayCodec, false>;

    /// An array-to-array codec's encoding of arrays of `spec`.
    pub type ArrayEncode = Native<dyn ArrayToArrayCodec, true>;
}
