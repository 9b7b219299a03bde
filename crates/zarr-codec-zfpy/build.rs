//! Builds zfp 1.0.1 from its vendored C sources (`zfp/`), as zfp's own `CMake` build does by
//! default (64-bit stream words, no rounding or tight-error options; serial execution), so
//! that it writes the streams the zfpy 1.0.1 wheels write.

fn main() {
    let sources = ["zfp.c", "bitstream.c"]
        .into_iter()
        .map(String::from)
        .chain(["encode", "decode"].into_iter().flat_map(|direction| {
            (1..=4).flat_map(move |dims| {
                ["f", "d", "i", "l"]
                    .into_iter()
                    .map(move |kind| format!("{direction}{dims}{kind}.c"))
            })
        }));
    let mut build = cc::Build::new();
    build
        .include("zfp/include")
        .include("zfp/src")
        .warnings(false);
    for source in sources {
        build.file(format!("zfp/src/{source}"));
    }
    build.compile("zfp");
    println!("cargo:rerun-if-changed=zfp");
}
