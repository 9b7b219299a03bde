//! The plugins: `scale_offset` and `cast_value` at compile time (zarrs has neither), and our
//! gzip, blosc, zstd, crc32c and numcodecs' fixedscaleoffset at run time in place of zarrs'
//! own ([`register`]).

use std::sync::{Mutex, MutexGuard, PoisonError};

use zarrs_codec::{
    CodecPluginV3, CodecRuntimePluginV2, CodecRuntimePluginV3, CodecRuntimeRegistryHandleV2,
    CodecRuntimeRegistryHandleV3, CodecTraitsV2, CodecTraitsV3, register_codec_v2,
    register_codec_v3, unregister_codec_v2, unregister_codec_v3,
};

use crate::{
    BloscCodec, CastValueCodec, Crc32cCodec, FixedScaleOffsetCodec, GzipCodec, ScaleOffsetCodec,
    ZstdCodec,
};

inventory::submit! { CodecPluginV3::new::<ScaleOffsetCodec>() }
inventory::submit! { CodecPluginV3::new::<CastValueCodec>() }

/// The codecs [`register`] replaces: their Zarr v3 name and Zarr v2 id.
pub const REPLACED: [(&str, &str); 5] = [
    ("gzip", "gzip"),
    ("blosc", "blosc"),
    ("zstd", "zstd"),
    ("crc32c", "crc32c"),
    ("numcodecs.fixedscaleoffset", "fixedscaleoffset"),
];

/// What [`register`] put in zarrs' run-time registry: each codec's Zarr v3 and v2 entries.
struct Handles(Vec<(CodecRuntimeRegistryHandleV3, CodecRuntimeRegistryHandleV2)>);

static REGISTERED: Mutex<Option<Handles>> = Mutex::new(None);

fn registered() -> MutexGuard<'static, Option<Handles>> {
    // The lock guards no invariant a panic could break: the handles are valid either way.
    REGISTERED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers codec `T` for the Zarr v3 `name` and the Zarr v2 `id`.
fn register_both<T: CodecTraitsV3 + CodecTraitsV2 + 'static>(
    (name, id): (&'static str, &'static str),
) -> (CodecRuntimeRegistryHandleV3, CodecRuntimeRegistryHandleV2) {
    let v3 = CodecRuntimePluginV3::new(
        move |candidate| candidate == name,
        <T as CodecTraitsV3>::create,
    );
    let v2 = CodecRuntimePluginV2::new(
        move |candidate| candidate == id,
        <T as CodecTraitsV2>::create,
    );
    (register_codec_v3(v3), register_codec_v2(v2))
}

/// Makes zarrs use our gzip, blosc, zstd, crc32c and fixedscaleoffset ([`REPLACED`]) for
/// every array opened or created from now on, in Zarr v3 and v2 metadata, in place of its
/// own. Returns `false` (and does nothing) if they are registered already.
#[allow(clippy::must_use_candidate)] // the answer is for those who care; most calls ignore it
pub fn register() -> bool {
    let mut guard = registered();
    if guard.is_some() {
        return false;
    }
    let [gzip, blosc, zstd, crc32c, fixed] = REPLACED;
    *guard = Some(Handles(vec![
        register_both::<GzipCodec>(gzip),
        register_both::<BloscCodec>(blosc),
        register_both::<ZstdCodec>(zstd),
        register_both::<Crc32cCodec>(crc32c),
        register_both::<FixedScaleOffsetCodec>(fixed),
    ]));
    true
}

/// Undoes [`register`]: zarrs uses its own gzip, blosc, zstd, crc32c and fixedscaleoffset again for arrays
/// opened or created from now on (arrays already open keep their codecs). Returns `false` if
/// nothing was registered.
#[allow(clippy::must_use_candidate)] // as for register()
pub fn unregister() -> bool {
    let Some(handles) = registered().take() else {
        return false;
    };
    for (v3, v2) in &handles.0 {
        unregister_codec_v3(v3);
        unregister_codec_v2(v2);
    }
    true
}

/// Whether [`register`] is in effect.
#[must_use]
pub fn is_registered() -> bool {
    registered().is_some()
}
