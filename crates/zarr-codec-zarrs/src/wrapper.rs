//! What every codec type of this crate shares: a newtype around the codec crate's own type,
//! and zarrs' `CodecTraits` from it (configuration through our JSON, capabilities from ours).

/// `pub struct $name($inner)` with `new` and `inner`, and its `CodecTraits`.
macro_rules! codec_wrapper {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name($inner);

        impl $name {
            /// The zarrs codec for our codec `inner`.
            #[must_use]
            pub fn new(inner: $inner) -> Self {
                Self(inner)
            }

            /// Our codec inside.
            #[must_use]
            pub fn inner(&self) -> &$inner {
                &self.0
            }
        }

        impl zarrs_codec::CodecTraits for $name {
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }

            fn configuration(
                &self,
                version: zarrs_plugin::ZarrVersion,
                _options: &zarrs_codec::CodecMetadataOptions,
            ) -> Option<zarrs_metadata::Configuration> {
                $crate::convert::configuration(&self.0, version)
            }

            fn partial_decoder_capability(&self) -> zarrs_codec::PartialDecoderCapability {
                $crate::convert::partial_decoding(zarr_codec_shapes::Codec::partial_decode_capability(&self.0))
            }

            fn partial_encoder_capability(&self) -> zarrs_codec::PartialEncoderCapability {
                zarrs_codec::PartialEncoderCapability { partial_encode: false }
            }
        }
    };
}

/// zarrs' `CodecTraitsV3` for `$name`, and `CodecTraitsV2` where it has a v2 form: our codec
/// `$inner` from the metadata, as zarrs' `Codec::$kind`.
macro_rules! codec_create {
    ($name:ident($inner:ty), $kind:ident $(, v2: $v2:literal)?) => {
        impl CodecTraitsV3 for $name {
            fn create(metadata: &MetadataV3) -> Result<Codec, PluginCreateError> {
                let inner = convert::codec_from_v3::<$inner>(metadata)?;
                Ok(Codec::$kind(Arc::new(Self(inner))))
            }
        }

        $(
            impl CodecTraitsV2 for $name {
                fn create(metadata: &MetadataV2) -> Result<Codec, PluginCreateError> {
                    let _: &str = $v2; // (a use of `$v2`, which this block repeats on)
                    let inner = convert::codec_from_v2::<$inner>(metadata)?;
                    Ok(Codec::$kind(Arc::new(Self(inner))))
                }
            }
        )?
    };
}
