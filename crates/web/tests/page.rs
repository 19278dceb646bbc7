//! App-level behaviour in headless Chromium: the seed, the JS hook, the panic banner.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p offsetlab-web --target wasm32-unknown-unknown`
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get};
use offsetlab_web::{AppProps, js_api, panic};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn default_props_pick_a_seed_and_a_notice_shows_in_the_status() {
    let page = Page::mount(None).await;
    let seed = page.text("[data-field=seed]");
    assert!(seed.strip_prefix("seed ").is_some_and(|n| n.parse::<u64>().is_ok()), "{seed}");
    drop(page);

    let notice = "The link's seed was not usable.";
    let page = Page::mount(Some(AppProps {
        seed: Some(4),
        notice: Some(notice.into()),
        detached: true,
        ..AppProps::default()
    }))
    .await;
    assert!(page.text("[role=status]").contains(notice));
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

#[wasm_bindgen_test]
async fn the_describe_table_has_a_copy_button_that_answers() {
    let page = Page::with_seed(3).await;
    let button = "[data-action=copy-describe]";
    assert_eq!(page.text(button), "Copy");
    page.click(button).await;
    // The clipboard answers asynchronously; headless Chromium may refuse it.
    for _ in 0..50 {
        if page.text(button) != "Copy" {
            break;
        }
        common::settle().await;
    }
    let label = page.text(button);
    assert!(label == "Copied" || label.starts_with("Copy failed"), "{label}");
}

#[wasm_bindgen_test]
async fn the_describe_table_shows_the_members_and_state_views_with_verbose() {
    let page = Page::with_seed(3).await;
    let terminal = ".describe .terminal";
    // At tick 0 the group is still forming: the offsets view prints only Kafka's warning.
    assert!(page.text(terminal).ends_with("is rebalancing.\n\n"), "{}", page.text(terminal));
    assert_eq!(page.find("[data-view=offsets]").get_attribute("aria-pressed").as_deref(), Some("true"));
    page.click("[data-view=members]").await;
    let members = page.text(terminal);
    assert!(members.contains("--describe --group demo --members\n"), "{members}");
    assert!(members.contains("#PARTITIONS") && !members.contains("CURRENT-EPOCH"), "{members}");
    page.click(".describe-views input[type=checkbox]").await;
    let verbose = page.text(terminal);
    assert!(verbose.contains("--members --verbose"), "{verbose}");
    assert!(verbose.contains("CURRENT-ASSIGNMENT") && verbose.contains("TARGET-ASSIGNMENT"), "{verbose}");
    page.click("[data-view=state]").await;
    let state = page.text(terminal);
    assert!(state.contains("--state --verbose"), "{state}");
    assert!(state.contains("ASSIGNMENT-STRATEGY") && state.contains("GROUP-EPOCH"), "{state}");
    assert_eq!(page.find("[data-view=state]").get_attribute("aria-pressed").as_deref(), Some("true"));
    assert_eq!(page.find("[data-view=members]").get_attribute("aria-pressed").as_deref(), Some("false"));
}
