//! Lets the tests, which embed Python, find libpython at run time without `LD_LIBRARY_PATH`.

fn main() {
    let config = pyo3_build_config::get();
    if let Some(dir) = config.lib_dir() {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
    }
}
