//! Explanations in headless Chromium: an anomaly counter opens its explanation in the
//! simulation's explanation place; a step shows its tick and highlights its part; Back returns.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get, view};
use offsetlab_web::AppProps;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn tick() -> u64 {
    get(&view(), "tick").as_f64().expect("a tick") as u64
}

#[wasm_bindgen_test]
async fn a_counter_explains_its_records_and_a_step_shows_its_tick() {
    let page = Page::with_link("scenario=crash-commit-after").await;
    for _ in 0..80 {
        if page.counter("duplicates") > 0 {
            break;
        }
        page.step(1).await;
    }
    let duplicates = page.counter("duplicates");
    assert!(duplicates > 0, "crash-commit-after hands records over twice");
    let asked = tick();
    page.click("button.counter-why[data-explain-counter=duplicates]").await;
    assert_eq!(page.text("[data-field=explanation] h2"), format!("Why Duplicates is {duplicates}"));
    assert_eq!(page.text("[data-field=explanation-live]"), format!("Why Duplicates is {duplicates}"));
    let step = page.find("[data-field=explanation] button.explain-step");
    let step_tick: u64 = step.get_attribute("data-step-tick").unwrap().parse().unwrap();
    page.click("[data-field=explanation] button.explain-step").await;
    assert_eq!(tick(), step_tick, "the step shows its tick");
    assert!(page.root.query_selector(".explained").unwrap().is_some(), "its part is highlighted");
    if step_tick != asked {
        page.click("[data-action=back-from-step]").await;
        assert_eq!(tick(), asked, "back where the reader asked");
    }
    assert!(page.root.query_selector(".explained").unwrap().is_none() || step_tick == asked);
    page.click("[data-action=close-explanation]").await;
    assert!(page.root.query_selector("[data-field=explanation]").unwrap().is_none());
}

/// A crash replays a batch: its records' chains read the same but for their ticks, and the
/// counter's explanation says them as one entry, with which record's chain it shows.
#[wasm_bindgen_test]
async fn records_with_the_same_chain_are_one_entry() {
    let page = Page::with_link("scenario=crash-commit-after").await;
    for _ in 0..80 {
        if page.counter("duplicates") >= 2 {
            break;
        }
        page.step(1).await;
    }
    let duplicates = page.counter("duplicates");
    assert!(duplicates >= 2, "crash-commit-after hands a batch over twice");
    page.click("button.counter-why[data-explain-counter=duplicates]").await;
    let heads: Vec<String> = page
        .all("[data-field=explanation] .explain-records summary")
        .iter()
        .map(|s| s.text_content().unwrap_or_default())
        .collect();
    assert!(heads.len() < duplicates as usize, "records with the same chain are one entry: {heads:?}");
    assert!(heads[0].contains(" records) delivered twice"), "{heads:?}");
    let note = page.text("[data-field=explanation] .explain-run-note");
    assert!(note.contains("chains differ only in their ticks"), "{note}");
    assert!(!page.all("[data-field=explanation] button.explain-step").is_empty(), "the first record's steps");
}

/// A group beside the first has its own anomaly counters, and they explain that group's records:
/// two-groups with a second audit consumer, which crashes between handling and committing.
#[wasm_bindgen_test]
async fn another_groups_counter_explains_that_groups_records() {
    use offsetlab_engine::{ConsumerId, Input, Link, LinkScenario};
    let link = Link {
        scenario: LinkScenario::Builtin { name: "two-groups".into(), guided: false },
        seed: 5,
        tick: 41,
        inputs: vec![
            (0, Input::AddConsumer { group: Some("audit".into()) }),
            (41, Input::Crash { consumer: ConsumerId(4) }),
        ],
    };
    let page = Page::mount(Some(AppProps {
        link: Some(link.to_query().into()),
        detached: true,
        ..AppProps::default()
    }))
    .await;
    page.pause().await;
    let audit = ".group-column[data-group=audit]";
    let duplicates = || page.text(&format!("{audit} [data-field=duplicates]")).parse::<u64>().unwrap_or(0);
    for _ in 0..150 {
        if duplicates() > 0 {
            break;
        }
        page.step(1).await;
    }
    let counted = duplicates();
    assert!(counted > 0, "c3 takes over P2 from audit's last commit and handles again what c4 had");
    assert_eq!(page.counter("duplicates"), 0, "the first group, demo, lost no commit");
    page.click(&format!("{audit} button.counter-why[data-explain-counter=duplicates]")).await;
    assert_eq!(
        page.text("[data-field=explanation] h2"),
        format!("Why Duplicates in group audit is {counted}")
    );
    let steps = page.all("[data-field=explanation] button.explain-step");
    assert!(!steps.is_empty(), "the chain's steps");
    let parts: Vec<String> = steps.iter().filter_map(|s| s.get_attribute("data-part")).collect();
    assert!(parts.iter().any(|p| p == "consumer:c4"), "the chain names audit's c4, which crashed: {parts:?}");
}
