//! The binary trunk builds for the page.

#[cfg(target_arch = "wasm32")]
fn main() {
    offsetlab_web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("offsetlab-web is a web page: build and serve it with `trunk serve` (see the README).");
    std::process::exit(2);
}
