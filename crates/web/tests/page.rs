//! The page in headless Chromium: mount the app, click, read the DOM.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p offsetlab-web --target wasm32-unknown-unknown`
#![cfg(target_arch = "wasm32")]

use offsetlab_web::{App, AppProps, js_api, panic};
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement};
use yew::AppHandle;

wasm_bindgen_test_configure!(run_in_browser);

/// The app mounted into a fresh `<div>`; unmounted (its timer cleared) on drop.
struct Page {
    root: Element,
    handle: Option<AppHandle<App>>,
}

impl Page {
    async fn mount(props: Option<AppProps>) -> Page {
        let document = web_sys::window().unwrap().document().unwrap();
        let root = document.create_element("div").unwrap();
        document.body().unwrap().append_child(&root).unwrap();
        let renderer = match props {
            Some(props) => yew::Renderer::<App>::with_root_and_props(root.clone(), props),
            None => yew::Renderer::<App>::with_root(root.clone()),
        };
        let page = Page { root, handle: Some(renderer.render()) };
        settle().await;
        page
    }

    async fn with_seed(seed: u64) -> Page {
        let page = Page::mount(Some(AppProps { seed: Some(seed), notice: None })).await;
        // Stop the clock so only the test's clicks move the simulation.
        if page.text("[data-field=clock]") == "playing" {
            page.click("[data-action=play]").await;
        }
        assert_eq!(page.text("[data-field=clock]"), "paused");
        page
    }

    fn find(&self, selector: &str) -> Element {
        self.root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector} in the page"))
    }

    fn text(&self, selector: &str) -> String {
        self.find(selector).text_content().unwrap_or_default()
    }

    fn counter(&self, key: &str) -> u64 {
        let text = self.text(&format!("[data-counter={key}]"));
        text.parse().unwrap_or_else(|_| panic!("counter {key} reads {text:?}"))
    }

    async fn click(&self, selector: &str) {
        self.find(selector).dyn_into::<HtmlElement>().unwrap().click();
        settle().await;
    }

    async fn step(&self, ticks: u32) {
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

/// Yew renders asynchronously: give it a moment.
async fn settle() {
    yew::platform::time::sleep(Duration::from_millis(10)).await;
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap()
}

#[wasm_bindgen_test]
async fn shows_the_describe_table_counters_tick_and_seed() {
    let page = Page::with_seed(1).await;
    assert_eq!(page.text("[data-field=tick]"), "tick 0");
    assert_eq!(page.text("[data-field=seed]"), "seed 1");
    assert_eq!(page.counter("delivered"), 0);
    for key in
        ["duplicates", "never-processed", "out-of-key-order", "total-lag", "active-consumers", "generation"]
    {
        page.counter(key);
    }
    // The group finishes its first rebalance, and the table gets its rows.
    page.step(2).await;
    assert_eq!(page.text("[data-field=tick]"), "tick 2");
    let table = page.text("pre.terminal");
    assert!(table.contains("GROUP"), "{table}");
    assert!(table.contains("CONSUMER-ID"), "{table}");
    assert!(table.contains("demo"), "{table}");
    assert_eq!(page.counter("generation"), 1);
    assert_eq!(page.counter("active-consumers"), 2);
}

#[wasm_bindgen_test]
async fn send_and_step_deliver_records() {
    let page = Page::with_seed(5).await;
    assert_eq!(page.counter("delivered"), 0);
    page.click("[data-action=send]").await;
    let lag = page.counter("total-lag");
    assert_eq!(lag, 16, "6 records from the scenario, 10 sent");
    page.step(6).await;
    assert!(page.counter("delivered") > 0);
    assert!(page.counter("total-lag") < lag);
    assert_eq!(page.text("[role=status]"), "");
}

#[wasm_bindgen_test]
async fn crash_changes_the_consumer_and_a_second_crash_is_refused() {
    let page = Page::with_seed(2).await;
    page.step(2).await;
    assert!(page.text("[data-consumer=c1]").contains("running"));
    page.click("[data-action=crash]").await;
    assert!(page.text("[data-consumer=c1]").contains("crashed"));
    assert_eq!(page.text("[role=status]"), "");
    page.click("[data-action=crash]").await;
    let status = page.find("[role=status]");
    assert_eq!(status.get_attribute("aria-live").as_deref(), Some("polite"));
    let message = status.text_content().unwrap();
    assert!(message.contains("c1 is crashed"), "{message}");
}

#[wasm_bindgen_test]
async fn keep_sending_toggles_the_producer() {
    let page = Page::with_seed(3).await;
    let toggle = "[data-action=keep-sending]";
    assert_eq!(page.find(toggle).get_attribute("aria-pressed").as_deref(), Some("false"));
    page.click(toggle).await;
    assert_eq!(page.find(toggle).get_attribute("aria-pressed").as_deref(), Some("true"));
    let lag = page.counter("total-lag");
    page.step(1).await;
    // One more record sent; nothing committed yet at tick 1.
    assert_eq!(page.counter("total-lag"), lag + 1);
    page.click(toggle).await;
    assert_eq!(page.find(toggle).get_attribute("aria-pressed").as_deref(), Some("false"));
}

#[wasm_bindgen_test]
async fn play_advances_on_the_timer_and_pause_stops_it() {
    let page = Page::mount(Some(AppProps { seed: Some(9), notice: None })).await;
    assert_eq!(page.text("[data-field=clock]"), "playing");
    assert_eq!(page.text("[data-action=play]"), "Pause");
    yew::platform::time::sleep(Duration::from_millis(700)).await;
    let tick = page.text("[data-field=tick]");
    assert_ne!(tick, "tick 0", "the timer ticks every 250 ms");
    page.click("[data-action=play]").await;
    assert_eq!(page.text("[data-action=play]"), "Play");
    let paused_at = page.text("[data-field=tick]");
    yew::platform::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(page.text("[data-field=tick]"), paused_at);
}

#[wasm_bindgen_test]
async fn default_props_pick_a_seed_and_a_notice_shows_in_the_status() {
    let page = Page::mount(None).await;
    let seed = page.text("[data-field=seed]");
    assert!(seed.strip_prefix("seed ").is_some_and(|n| n.parse::<u64>().is_ok()), "{seed}");
    drop(page);

    let notice = "The link's seed was not usable.";
    let page = Page::mount(Some(AppProps { seed: Some(4), notice: Some(notice.into()) })).await;
    assert_eq!(page.text("[role=status]"), notice);
}

#[wasm_bindgen_test]
async fn window_offsetlab_view_returns_the_view_on_screen() {
    js_api::install().unwrap();
    js_api::install().unwrap(); // idempotent
    let page = Page::with_seed(11).await;
    page.step(3).await;
    let window = web_sys::window().unwrap();
    let function: js_sys::Function = get(&window, "offsetlab_view").dyn_into().unwrap();
    let view = function.call0(&JsValue::NULL).unwrap();
    assert_eq!(get(&view, "seed").as_f64(), Some(11.0));
    assert_eq!(get(&view, "tick").as_f64(), Some(3.0));
    assert_eq!(get(&view, "group_state").as_string().as_deref(), Some("Stable"));
    let metrics = get(&view, "metrics");
    assert_eq!(get(&metrics, "produced").as_f64(), Some(6.0));
    let consumers: js_sys::Array = get(&view, "consumers").dyn_into().unwrap();
    assert_eq!(get(&consumers.get(0), "id").as_string().as_deref(), Some("c1"));
    // Absent values are null (JSON-compatible), not undefined.
    assert!(get(&consumers.get(0), "session_expires_at").is_null());
}

#[wasm_bindgen_test]
async fn every_control_is_a_labelled_button() {
    let page = Page::with_seed(1).await;
    let buttons = page.root.query_selector_all(".controls button").unwrap();
    assert_eq!(buttons.length(), 5);
    for i in 0..buttons.length() {
        let button: Element = buttons.item(i).unwrap().dyn_into().unwrap();
        assert_eq!(button.get_attribute("type").as_deref(), Some("button"));
        assert!(!button.text_content().unwrap().trim().is_empty());
    }
    let pre = page.find("pre.terminal");
    assert!(pre.get_attribute("aria-label").is_some());
}

#[wasm_bindgen_test]
fn the_panic_banner_goes_first_in_the_body_once() {
    let document = web_sys::window().unwrap().document().unwrap();
    let text = panic::report("boom", Some((42, 17)));
    panic::show_banner(&text, Some(42)).unwrap();
    panic::show_banner("a second panic", Some(1)).unwrap();
    let banner = document.body().unwrap().first_element_child().unwrap();
    assert_eq!(banner.id(), panic::BANNER_ID);
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    let shown = banner.text_content().unwrap();
    assert!(shown.contains("after tick 17 with seed 42") && shown.contains("boom"), "{shown}");
    assert!(!shown.contains("a second panic"));
    let link = banner.query_selector("a").unwrap().unwrap();
    assert_eq!(link.get_attribute("href").as_deref(), Some("?seed=42"));
    let body = document.body().unwrap();
    assert!(body.has_attribute("data-offsetlab-stopped"));
    banner.remove();
    body.remove_attribute("data-offsetlab-stopped").unwrap();
}
