//! Rendering the app natively and putting the HTML into the page.

use offsetlab_web::App;
use offsetlab_web::prerender::{MARKER, first_render_props};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// The largest first render taken, in bytes. The first render shows tick 0 of
/// the default scenario; a page this big would mean a view that grows with
/// something it should not (and it would delay the first paint on a slow
/// connection).
pub const HTML_BYTES_MAX: usize = 512 * 1024;

/// The HTML of [`App`]'s first render with [`first_render_props`], without
/// hydration markers (the live app mounts fresh, see `offsetlab_web::prerender`).
#[must_use]
pub fn first_render() -> String {
    let renderer = yew::ServerRenderer::<App>::with_props(first_render_props).hydratable(false);
    let html = block_on(renderer.render());
    assert!(!html.is_empty(), "the app rendered nothing");
    assert!(html.len() <= HTML_BYTES_MAX, "the first render is {} bytes, over {HTML_BYTES_MAX}", html.len());
    html
}

/// `page` with its one [`MARKER`] replaced by `html`.
pub fn inject(page: &str, html: &str) -> Result<String, String> {
    crate::replace_once(page, MARKER, html).map_err(|n| match n {
        0 => format!("the page has no {MARKER} to replace (index.html's body holds it)"),
        n => format!("the page has {n} of {MARKER}, not one"),
    })
}

/// Wakes the thread that waits in [`block_on`].
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to completion on this thread. `ServerRenderer` renders on
/// its own runtime's thread and hands the HTML back through a channel, so
/// waiting here needs nothing more than parking until woken.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injects_in_place_of_the_one_marker() {
        let page = format!("<body><div id=\"x\">{MARKER}</div></body>");
        assert_eq!(inject(&page, "<p>hi</p>").unwrap(), "<body><div id=\"x\"><p>hi</p></div></body>");
        assert!(inject("<body></body>", "<p>hi</p>").is_err());
        assert!(inject(&format!("{MARKER}{MARKER}"), "<p>hi</p>").is_err());
    }

    #[test]
    fn the_first_render_is_the_whole_page_with_its_controls() {
        let html = first_render();
        assert!(html.contains("<main"), "no <main> in the first render");
        for control in ["data-action=\"play\"", "data-action=\"send-10\"", "data-action=\"step\""] {
            assert!(html.contains(control), "no {control} in the first render");
        }
        assert!(!html.contains(MARKER));
    }
}
