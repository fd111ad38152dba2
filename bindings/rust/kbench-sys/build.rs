//! Links libkbench. Where it is, in order:
//! 1. $KBENCH_LIB_DIR (CMake sets it to the build tree);
//! 2. the repository's default build folder, <repo>/build, when it holds
//!    libkbench.so (scripts/build.sh builds there);
//! 3. the linker's default paths (after `cmake --install`).
//!
//! No pkg-config and no build dependencies: this must build offline.
use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=KBENCH_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let repo_build = manifest.join("../../../build");
    let dir = match env::var_os("KBENCH_LIB_DIR") {
        Some(d) => Some(PathBuf::from(d)),
        None if repo_build.join("libkbench.so").exists() => Some(repo_build),
        None => None,
    };
    if let Some(dir) = dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        // Read by the kbench crate's build script (links = "kbench").
        println!("cargo:lib_dir={}", dir.display());
        // This crate's own tests run against that library without LD_LIBRARY_PATH.
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib=kbench");
}
