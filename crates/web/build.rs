//! The page's split build (`--features split` on wasm) keeps the link's
//! relocations in the binary: the trunk hook that splits the wasm in two
//! (crates/prerender/src/split.rs) finds with them which code and data each
//! function refers to. wasm-bindgen and the split drop them from what the page
//! loads.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let split = std::env::var_os("CARGO_FEATURE_SPLIT").is_some();
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    if split && wasm {
        println!("cargo::rustc-link-arg-bin=offsetlab-web=--emit-relocs");
    }
}
