//! The page in headless Chromium: mount the app, click, read the DOM.
//! Shared by every `tests/*.rs` file of the web crate.
#![allow(dead_code)]

use offsetlab_web::{App, AppProps};
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement};
use yew::AppHandle;

/// The app mounted into a fresh `<div>`; unmounted (its timer cleared) on drop.
pub struct Page {
    pub root: Element,
    handle: Option<AppHandle<App>>,
}

impl Page {
    pub async fn mount(props: Option<AppProps>) -> Page {
        let document = web_sys::window().unwrap().document().unwrap();
        let root = document.create_element("div").unwrap();
        document.body().unwrap().append_child(&root).unwrap();
        let renderer = match props {
            Some(props) => yew::Renderer::<App>::with_root_and_props(root.clone(), props),
            None => yew::Renderer::<App>::with_root_and_props(
                root.clone(),
                AppProps { detached: true, ..AppProps::default() },
            ),
        };
        let page = Page { root, handle: Some(renderer.render()) };
        settle().await;
        page
    }

    pub async fn with_seed(seed: u64) -> Page {
        let page =
            Page::mount(Some(AppProps { seed: Some(seed), detached: true, ..AppProps::default() })).await;
        // Stop the clock so only the test's clicks move the simulation.
        if page.text("[data-field=clock]") == "playing" {
            page.click("[data-action=play]").await;
        }
        assert_eq!(page.text("[data-field=clock]"), "paused");
        page
    }

    /// The page of a link (`scenario=NAME`, …), paused at tick 0: the clock
    /// stopped, the run started again, stopped again if it plays.
    pub async fn with_link(link: &str) -> Page {
        let page =
            Page::mount(Some(AppProps { link: Some(link.into()), detached: true, ..AppProps::default() }))
                .await;
        page.pause().await;
        page.click("[data-action=restart]").await;
        page.pause().await;
        assert_eq!(page.text("[data-field=clock]"), "paused");
        page
    }

    /// Stops the clock if it plays.
    pub async fn pause(&self) {
        if self.text("[data-field=clock]") == "playing" {
            self.click("[data-action=play]").await;
        }
    }

    pub fn find(&self, selector: &str) -> Element {
        self.root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector} in the page"))
    }

    pub fn text(&self, selector: &str) -> String {
        self.find(selector).text_content().unwrap_or_default()
    }

    pub fn counter(&self, key: &str) -> u64 {
        let text = self.text(&format!("[data-counter={key}]"));
        text.parse().unwrap_or_else(|_| panic!("counter {key} reads {text:?}"))
    }

    /// Loads a built-in from its chapter, as a reader does: the Set up / Watch it button of a
    /// card, or the link of an experiment the chapter lists as a link.
    pub async fn open_experiment(&self, name: &str) {
        let button = format!(".chapters [data-scenario={name}]");
        let has_button = self.root.query_selector(&button).unwrap().is_some();
        self.click(&if has_button { button } else { format!(".chapters [data-jump={name}]") }).await;
    }

    pub async fn click(&self, selector: &str) {
        self.find(selector).dyn_into::<HtmlElement>().unwrap().click();
        settle().await;
    }

    /// Scrolls the first match into view, as a reader does before reading it: a section
    /// that draws the run only while on screen (`components/shown.rs`) is current there.
    pub async fn show(&self, selector: &str) {
        self.find(selector).scroll_into_view();
        settle().await;
        settle().await;
    }

    pub async fn step(&self, ticks: u32) {
        for _ in 0..ticks {
            self.click("[data-action=step]").await;
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.destroy();
        }
        self.root.remove();
    }
}

/// Yew renders asynchronously, after the event that changed the state: wait
/// for the browser to run its queued tasks twice, with margin for a loaded
/// machine (CI builds in parallel).
pub async fn settle() {
    for _ in 0..2 {
        yew::platform::time::sleep(Duration::from_millis(15)).await;
    }
}

pub fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap()
}

impl Page {
    /// All elements matching `selector`.
    pub fn all(&self, selector: &str) -> Vec<Element> {
        let list = self.root.query_selector_all(selector).unwrap();
        (0..list.length()).map(|i| list.item(i).unwrap().dyn_into().unwrap()).collect()
    }

    /// Dispatches a keydown of `key` on the element.
    pub async fn key(&self, selector: &str, key: &str) {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(key);
        init.set_bubbles(true);
        let event = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        self.find(selector).dispatch_event(&event).unwrap();
        settle().await;
    }

    /// Opens one of the panels under the simulation (`settings`, `offset-storage`,
    /// `operations`, `share`) unless it is open already.
    pub async fn open_panel(&self, slug: &str) {
        let open = self.root.query_selector(&format!("[data-open-panel={slug}]")).unwrap().is_some();
        if !open {
            self.click(&format!("button[data-panel={slug}]")).await;
        }
        self.find(&format!("[data-open-panel={slug}]"));
    }

    /// Sets an `<input>` or `<select>` value and fires `input` and `change`.
    pub async fn set_value(&self, selector: &str, value: &str) {
        let element = self.find(selector);
        if let Some(input) = element.dyn_ref::<web_sys::HtmlInputElement>() {
            input.set_value(value);
        } else if let Some(select) = element.dyn_ref::<web_sys::HtmlSelectElement>() {
            select.set_value(value);
        } else {
            panic!("{selector} is neither an input nor a select");
        }
        for kind in ["input", "change"] {
            let init = web_sys::EventInit::new();
            init.set_bubbles(true);
            element.dispatch_event(&web_sys::Event::new_with_event_init_dict(kind, &init).unwrap()).unwrap();
        }
        settle().await;
    }
}

/// The view on screen, as `window.offsetlab_view()` returns it.
pub fn view() -> JsValue {
    offsetlab_web::js_api::install().unwrap();
    let window = web_sys::window().unwrap();
    let function: js_sys::Function = get(&window, "offsetlab_view").dyn_into().unwrap();
    function.call0(&JsValue::NULL).unwrap()
}
