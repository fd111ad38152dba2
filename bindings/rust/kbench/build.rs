//! Gives this crate's tests and examples an rpath to the libkbench that
//! kbench-sys linked (DEP_KBENCH_LIB_DIR, from its `links = "kbench"`), so
//! they run from the build tree. Programs that use the crate choose their
//! own way to find the library (installed, rpath, LD_LIBRARY_PATH).
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_KBENCH_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    if let Ok(dir) = std::env::var("DEP_KBENCH_LIB_DIR") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", dir);
        println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{}", dir);
    }
}
