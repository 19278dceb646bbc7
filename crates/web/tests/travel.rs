//! The timeline, the guide's outcome check, scenario import, shared links and the embed, in
//! headless Chromium: click, then read the DOM (and `window.offsetlab_view()`).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get, view};
use offsetlab_engine::builtin;
use offsetlab_web::AppProps;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlInputElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

const COUNTERS: [&str; 8] = [
    "delivered",
    "duplicates",
    "never-processed",
    "out-of-key-order",
    "total-lag",
    "active-consumers",
    "generation",
    "effects",
];

fn tick(page: &Page) -> u64 {
    let text = page.text(".clock_bar [data-field=tick]");
    text.strip_prefix("tick ").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("tick reads {text:?}"))
}

/// What the sink shows, and the describe output.
fn counters(page: &Page) -> (Vec<u64>, String) {
    (COUNTERS.iter().map(|c| page.counter(c)).collect(), page.text("pre.terminal"))
}

fn range(page: &Page) -> HtmlInputElement {
    page.find("input[type=range][data-field=timeline]").dyn_into().unwrap()
}

/// The range's value and max, checked against the position text.
fn timeline(page: &Page) -> (u64, u64) {
    let range = range(page);
    let (value, max) = (range.value().parse().unwrap(), range.max().parse().unwrap());
    assert_eq!(page.text("[data-field=timeline-position]"), format!("tick {value} of {max}"));
    assert_eq!(value, tick(page), "the range shows the tick on screen");
    (value, max)
}

fn has(page: &Page, selector: &str) -> bool {
    page.root.query_selector(selector).unwrap().is_some()
}

/// The status line's message ("" without one).
fn status(page: &Page) -> String {
    page.root
        .query_selector(".status[role=status] p")
        .unwrap()
        .map(|p| p.text_content().unwrap_or_default())
        .unwrap_or_default()
}

fn outcome(page: &Page) -> (String, String) {
    let element = page.find("[data-field=guide] [data-field=outcome]");
    (element.get_attribute("data-reproduced").unwrap_or_default(), element.text_content().unwrap_or_default())
}

async fn pause(page: &Page) {
    if page.text("[data-field=clock]") == "playing" {
        page.click("[data-action=play]").await;
    }
    assert_eq!(page.text("[data-field=clock]"), "paused");
}

async fn paste(page: &Page, json: &str) {
    page.open_panel("share").await;
    let area: HtmlTextAreaElement = page.find("textarea[data-field=import-json]").dyn_into().unwrap();
    area.set_value(json);
    page.click("button[data-action=import]").await;
}

fn consumer(index: u32) -> wasm_bindgen::JsValue {
    let consumers: js_sys::Array = get(&view(), "consumers").dyn_into().unwrap();
    consumers.get(index)
}

#[wasm_bindgen_test]
async fn the_timeline_seeks_steps_back_and_forks() {
    let page = Page::with_seed(7).await;
    // The describe table in view, where it follows the run: its text is part of each tick's picture.
    page.show("pre.terminal").await;
    page.click("[data-action=send-10]").await;
    let start = tick(&page);
    let mut at = Vec::new();
    for _ in 0..30 {
        page.step(1).await;
        at.push((tick(&page), counters(&page)));
    }
    let head = start + 30;
    assert_eq!(timeline(&page), (head, head));
    assert!(!has(&page, "[data-field=timeline-note]"), "no note at the present");

    let back = start + 10;
    let seen = |t: u64| at.iter().find(|(tick, _)| *tick == t).map(|(_, c)| c.clone()).unwrap();
    page.set_value("input[type=range][data-field=timeline]", &back.to_string()).await;
    assert_eq!(timeline(&page), (back, head));
    assert!(has(&page, "[data-field=timeline-note]"), "the note says this is the past");
    assert_eq!(counters(&page), seen(back), "tick {back} as it was");
    assert_eq!(page.text("[data-field=clock]"), "paused");

    page.click("[data-action=step-back]").await;
    assert_eq!(timeline(&page), (back - 1, head));
    assert_eq!(counters(&page), seen(back - 1));
    page.click("[data-action=step-forward]").await;
    assert_eq!(timeline(&page), (back, head));
    page.click("[data-action=to-now]").await;
    assert_eq!(timeline(&page), (head, head));
    assert_eq!(counters(&page), seen(head));

    page.set_value("input[type=range][data-field=timeline]", &back.to_string()).await;
    page.click("[data-consumer=c1] [data-action=crash]").await;
    assert_eq!(timeline(&page), (back, back), "the input forked: the future is gone");
    assert!(!has(&page, "[data-field=timeline-note]"));
    let announced = page.text("[data-field=announcer]");
    assert!(announced.starts_with(&format!("Changed the past at tick {back}")), "{announced}");
    page.step(20).await;
    assert_eq!(timeline(&page), (back + 20, back + 20));
    assert_ne!(counters(&page), seen(back + 20), "a crashed c1 changed what happened");
}

#[wasm_bindgen_test]
async fn the_guide_turns_reproduced_when_the_learner_crashes_c1_mid_batch() {
    let page = Page::with_seed(1).await;
    page.click("button[data-try=crash-commit-after]").await;
    pause(&page).await;
    assert_eq!(page.text("[data-field=guide] h2 code"), "crash-commit-after");
    assert!(has(&page, "[data-field=guide] ol[data-field=guide-steps] li"), "the learner's steps");
    assert!(has(&page, "[data-field=guide] [data-action=show-me-run]"));
    let (reproduced, text) = outcome(&page);
    assert_eq!(reproduced, "false");
    assert!(text.starts_with("Not yet. Duplicates: "), "{text}");

    // Mid-batch: c1 has records in flight and has handled some of them.
    let mut mid_batch = false;
    for _ in 0..12 {
        let c1 = consumer(0);
        let in_flight: js_sys::Array = get(&c1, "in_flight").dyn_into().unwrap();
        if in_flight.length() > 0 && get(&c1, "handled").as_f64().unwrap() > 0.0 {
            mid_batch = true;
            break;
        }
        page.step(1).await;
    }
    assert!(mid_batch, "c1 mid-batch by tick {}", tick(&page));
    page.click("[data-consumer=c1] [data-action=crash]").await;
    assert_eq!(outcome(&page).0, "false", "not reproduced the moment c1 crashes");
    for _ in 0..40 {
        if outcome(&page).0 == "true" {
            break;
        }
        page.step(1).await;
    }
    let (reproduced, text) = outcome(&page);
    assert_eq!(reproduced, "true", "{text}");
    let duplicates = page.counter("duplicates");
    let said = if duplicates == 1 {
        "1 duplicate: c1 handled that record"
    } else {
        " duplicates: c1 handled those records"
    };
    assert!(text.starts_with("✓ Reproduced. ") && text.contains(said), "{text}");
    assert!(page.counter("duplicates") > 0);
    assert_eq!(page.counter("never-processed"), 0);
}

#[wasm_bindgen_test]
async fn pasted_json_imports_and_bad_json_is_refused_with_its_place() {
    let page = Page::with_seed(2).await;
    let json = builtin("keys-keep-order").unwrap().to_json();
    paste(&page, &json).await;
    assert_eq!(status(&page), "Imported keys-keep-order.");
    assert_eq!(page.text("[data-field=guide] h2 code"), "keys-keep-order");
    assert_eq!(get(&view(), "seed").as_f64(), Some(7.0), "the scenario's own seed");
    pause(&page).await;

    let bad = json.replace("\"partitions\": 3", "\"partitions\": \"three\"");
    assert_ne!(bad, json);
    paste(&page, &bad).await;
    let refused = status(&page);
    assert!(refused.starts_with("Import refused: config.partitions: "), "{refused}");
    assert!(refused.ends_with(')') && refused.contains("(line "), "{refused}");
    paste(&page, "{\n  \"name\": \"x\",\n  \"config\": ?\n}").await;
    let refused = status(&page);
    assert!(refused.starts_with("Import refused: "), "{refused}");
    assert!(refused.contains("(line 3, column 13)"), "{refused}");
    assert_eq!(page.text("[data-field=guide] h2 code"), "keys-keep-order", "nothing else changed");
}

#[wasm_bindgen_test]
async fn a_link_opens_its_run_and_a_changed_one_says_why() {
    let page = Page::with_seed(5).await;
    page.click("[data-action=send-10]").await;
    page.step(6).await;
    page.click("[data-consumer=c1] [data-action=crash]").await;
    page.step(14).await;
    page.open_panel("share").await;
    let url = page.find("input[data-field=share-link]").dyn_into::<HtmlInputElement>().unwrap().value();
    let query = url.split_once('?').map(|(_, q)| q.to_string()).unwrap_or_else(|| panic!("{url}"));
    assert!(query.contains("seed=5") && query.contains("crash.c1"), "{query}");
    // The describe table, as a reader reads it: scrolled to (it follows the run while on screen).
    page.show("pre.terminal").await;
    let shown = (tick(&page), counters(&page));
    drop(page);

    let props =
        |link: &str| AppProps { link: Some(link.to_string().into()), detached: true, ..AppProps::default() };
    let opened = Page::mount(Some(props(&query))).await;
    assert_eq!(opened.text("[data-field=clock]"), "paused", "a shared run opens paused");
    opened.show("pre.terminal").await;
    assert_eq!((tick(&opened), counters(&opened)), shown);
    assert_eq!(status(&opened), "");
    drop(opened);

    let changed = query.replace("seed=5", "seed=6");
    assert_ne!(changed, query);
    let refused = Page::mount(Some(props(&changed))).await;
    let message = status(&refused);
    assert!(
        message.starts_with("This link could not be opened: the link was changed or cut short"),
        "{message}"
    );
    assert_eq!(refused.text("[data-field=guide] h2 code"), "default");
    pause(&refused).await;
    let before = tick(&refused);
    refused.step(1).await;
    assert_eq!(tick(&refused), before + 1, "the page still works");
}

#[wasm_bindgen_test]
async fn an_embed_has_a_way_out_and_no_share_panel() {
    let props = AppProps {
        link: Some("?embed=1&scenario=keys-keep-order".into()),
        embed: true,
        detached: true,
        ..AppProps::default()
    };
    let page = Page::mount(Some(props)).await;
    assert!(has(&page, "main.page.embed[data-embed=true]"));
    assert_eq!(page.text("[data-field=guide] h2 code"), "keys-keep-order");
    for present in [
        "[data-field=clock]",
        "[data-field=timeline]",
        ".tape",
        "[data-consumer=c1]",
        "[data-counter=delivered]",
    ] {
        assert!(has(&page, present), "the embed has {present}");
    }
    for absent in ["[data-field=share-link]", ".share", ".explainer", ".skip-link", "input[name=commit]"] {
        assert!(!has(&page, absent), "the embed has no {absent}");
    }
    let full = page.find("a[data-field=open-full]").get_attribute("href").unwrap();
    assert!(full.contains("?h=") && full.contains("s=keys-keep-order"), "{full}");
    assert!(!full.contains("embed=1"), "the way out opens the whole page: {full}");
}
