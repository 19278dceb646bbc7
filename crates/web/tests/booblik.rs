//! booblik's mechanisms on the page, in headless Chromium: the split check,
//! `/stats`, the consumer cards' resumedFrom and stored, the mirror topic with
//! its erased keys, `partitionFor(null)`, and where the position lives.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get, view};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

fn number(value: &JsValue) -> u64 {
    value.as_f64().unwrap_or_else(|| panic!("{value:?} is not a number")) as u64
}

fn string(value: &JsValue) -> String {
    value.as_string().unwrap_or_else(|| panic!("{value:?} is not a string"))
}

/// Loads a built-in from its chapter and stops the clock it starts.
async fn load(name: &str) -> Page {
    let page = Page::with_seed(1).await;
    page.open_experiment(name).await;
    if page.text("[data-field=clock]") == "playing" {
        page.click("[data-action=play]").await;
    }
    assert_eq!(page.text("[data-field=clock]"), "paused");
    assert_eq!(page.text(".clock_bar [data-field=scenario]"), name);
    page
}

fn tick(page: &Page) -> u64 {
    let text = page.text(".clock_bar [data-field=tick]");
    text.strip_prefix("tick ").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("tick reads {text:?}"))
}

/// Steps until the clock reads `until`.
async fn step_to(page: &Page, until: u64) {
    while tick(page) < until {
        page.step(1).await;
    }
}

fn texts(page: &Page, selector: &str) -> Vec<String> {
    page.all(selector).iter().map(|e| e.text_content().unwrap_or_default()).collect()
}

fn checked(page: &Page, selector: &str) -> bool {
    page.find(selector).dyn_into::<HtmlInputElement>().unwrap().checked()
}

fn disabled(page: &Page, selector: &str) -> bool {
    page.find(selector).dyn_into::<HtmlInputElement>().unwrap().disabled()
}

/// `/stats` as the page shows it, parsed as JSON.
fn stats(page: &Page) -> Vec<JsValue> {
    let text = page.text(".booblik [data-field=stats]");
    let parsed = js_sys::JSON::parse(&text).unwrap_or_else(|e| panic!("/stats is not JSON ({e:?}): {text}"));
    js_sys::Array::from(&parsed).iter().collect()
}

#[wasm_bindgen_test]
async fn a_torn_checkpoint_is_a_violation_with_the_replayed_record_ids() {
    let page = load("torn-checkpoint").await;
    assert_eq!(page.counter("torn-checkpoints"), 0);
    // While c1 writes its checkpoint in place, its card warns; the loop step reads "checkpoint".
    let mut saw_tear_warning = false;
    let mut saw_checkpoint_step = false;
    while tick(&page) < 45 {
        page.step(1).await;
        saw_tear_warning |= page
            .all(".group [data-field=writing-checkpoint]")
            .iter()
            .any(|e| e.text_content().unwrap_or_default() == "writing checkpoint… a crash now tears it");
        saw_checkpoint_step |= texts(&page, ".group [data-field=step]").iter().any(|s| s == "checkpoint");
    }
    assert!(saw_tear_warning, "a card said its in-place write could tear");
    assert!(saw_checkpoint_step, "a card's loop read checkpoint");

    assert_eq!(page.counter("torn-checkpoints"), 1);
    let verdict = page.find(".booblik [data-field=split-verdict]");
    let verdict_text = verdict.text_content().unwrap();
    assert!(verdict_text.contains("fails: 1 violation"), "{verdict_text}");
    assert!(verdict.class_name().split_whitespace().any(|c| c == "is-fail"));

    let violations = texts(&page, ".booblik .finding.is-violation");
    assert_eq!(violations.len(), 1, "{violations:?}");
    let finding = &violations[0];
    assert!(finding.starts_with("VIOLATION"), "{finding}");
    assert!(finding.contains("c1 resumed P0 from "), "{finding}");
    assert!(finding.contains("behind the last known position 600"), "{finding}");
    let ids = page.text(".booblik .finding.is-violation [data-field=finding-ids]");
    let listed: Vec<u64> = ids
        .strip_prefix("record ids ")
        .and_then(|rest| rest.split(" +").next())
        .unwrap_or_else(|| panic!("{ids}"))
        .split(", ")
        .map(|id| id.parse().unwrap_or_else(|_| panic!("{ids}")))
        .collect();
    assert_eq!(listed.len(), 8, "{ids}");
    assert!(ids.ends_with(" more"), "hundreds of records replay: {ids}");

    // The card shows where c1 resumed; the torn number is far below the 600 it meant to write.
    let resumed = page.text(".group [data-consumer=c1] [data-field=resumed-from]");
    let from: u64 = resumed
        .strip_prefix("resumedFrom P0 ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("c1's card reads {resumed:?}"));
    assert!(from < 500, "resumed from {from}");
    assert!(finding.contains(&format!("resumed P0 from {from},")), "{finding}");
    let stored = page.text(".group [data-consumer=c1] [data-field=stored]");
    assert!(stored.starts_with("stored P0 "), "{stored}");

    // /stats says the same, in booblik's camelCase.
    page.show(".booblik [data-field=stats]").await;
    let c1 = stats(&page)
        .into_iter()
        .find(|s| string(&get(s, "consumer")) == "c1" && number(&get(s, "partition")) == 0)
        .expect("c1's entry for P0");
    assert_eq!(number(&get(&c1, "resumedFrom")), from);
    assert!(number(&get(&c1, "handled")) > 0);
    assert!(!get(&c1, "lastCheckpointTick").is_undefined());
}

#[wasm_bindgen_test]
async fn an_atomic_checkpoint_leaves_one_legal_replay() {
    let page = load("atomic-checkpoint").await;
    step_to(&page, 45).await;
    let verdict = page.find(".booblik [data-field=split-verdict]");
    assert_eq!(verdict.text_content().unwrap().trim_start_matches(['✓', ' ']), "passes: 1 legal replay");
    assert!(verdict.class_name().split_whitespace().any(|c| c == "is-pass"));
    assert_eq!(page.counter("torn-checkpoints"), 0);
    assert!(page.all(".booblik .finding.is-violation").is_empty());
    let legal = texts(&page, ".booblik .finding.is-legal");
    assert_eq!(legal.len(), 1);
    assert!(legal[0].contains("c1 resumed P0 from 500, 100 behind"), "{}", legal[0]);
    assert_eq!(page.text(".group [data-consumer=c1] [data-field=resumed-from]"), "resumedFrom P0 500");
}

#[wasm_bindgen_test]
async fn the_bridge_writes_every_record_without_its_key() {
    let page = load("key-erasure-bridge").await;
    step_to(&page, 40).await;
    page.show(".booblik .far-tapes, .booblik [data-far-partition]").await;
    let tapes = page.all(".booblik [data-far-partition]");
    assert_eq!(tapes.len(), 3);
    let cells = texts(&page, ".booblik .far-cell");
    let bridged = page.counter("bridged");
    assert!(bridged > 0 && !cells.is_empty());
    assert!(cells.iter().all(|c| c.contains("no key")), "{cells:?}");
    for tape in &tapes {
        assert!(tape.query_selector_all(".far-cell").unwrap().length() <= 40);
    }
    let line = page.text(".booblik [data-field=keys-recovered]");
    assert!(line.starts_with(&format!("Keys recovered: 0 of {bridged} ")), "{line}");
    // The far side does not pose as the topic's tapes.
    assert!(page.all(".booblik [data-partition], .booblik [data-offset]").is_empty());
    let elements = page.root.get_elements_by_tag_name("*").length();
    assert!(elements < 3_000, "{elements} elements");

    // Without a bridge, no mirror.
    page.click("[data-scenario=atomic-checkpoint]").await;
    assert!(page.root.query_selector(".booblik [data-field=far]").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn partition_for_null_moves_the_counter_and_a_fixed_peek_does_not() {
    let page = load("partition-for-null").await;
    page.open_panel("offset-storage").await;
    assert_eq!(page.counter("advancing-peeks"), 6);
    let ends: Vec<u64> = js_sys::Array::from(&get(&view(), "partitions"))
        .iter()
        .map(|p| number(&get(&p, "log_end")))
        .collect();
    assert_eq!(ends, [2, 2, 2], "six sends, each after a peek that skipped a partition");

    let next = page.text(".producer_card [data-field=next-keyless]");
    assert!(["P0", "P1", "P2"].contains(&next.as_str()), "{next}");
    page.click("[data-action=peek-fixed]").await;
    assert_eq!(page.text(".producer_card [data-field=next-keyless]"), next, "a fixed peek only looks");
    assert!(page.text("[data-field=last-peek]").starts_with(&format!("fixed peek said {next}")));
    assert_eq!(page.counter("advancing-peeks"), 6);

    page.click("[data-action=peek-advancing]").await;
    assert!(
        page.text("[data-field=last-peek]")
            .starts_with(&format!("partitionFor(null) said {next} and moved the counter")),
        "{}",
        page.text("[data-field=last-peek]")
    );
    assert_ne!(page.text(".producer_card [data-field=next-keyless]"), next, "the answer was used up");
    assert_eq!(page.counter("advancing-peeks"), 7);
}

#[wasm_bindgen_test]
async fn the_position_radios_choose_where_positions_live() {
    let page = Page::with_seed(1).await;
    page.open_panel("settings").await;
    let position = || get(&get(&view(), "settings"), "position");
    assert_eq!(string(&get(&position(), "store")), "group");
    assert!(checked(&page, "input[name=position][value=group]"));
    assert!(!disabled(&page, "input[name=commit][value=after]"));
    assert!(page.root.query_selector("[data-field=commit-note]").unwrap().is_none());
    assert!(page.all(".group [data-field=stored]").is_empty(), "the group keeps the positions");

    page.click("input[name=position][value=in-place]").await;
    let p = position();
    assert_eq!(string(&get(&p, "store")), "consumer");
    assert_eq!(string(&get(&p, "writes")), "in-place");
    assert_eq!(number(&get(&p, "write_ticks")), 1);
    assert!(disabled(&page, "input[name=commit][value=after]"));
    assert!(page.text("[data-field=commit-note]").starts_with("Each consumer checkpoints after its batch"));
    assert!(!page.all(".group [data-field=stored]").is_empty());

    page.set_value("select[data-field=write-ticks]", "3").await;
    assert_eq!(number(&get(&position(), "write_ticks")), 3);
    page.click("input[name=position][value=atomic]").await;
    let p = position();
    assert_eq!(string(&get(&p, "writes")), "atomic");
    assert_eq!(number(&get(&p, "write_ticks")), 3, "the write time carries over");
    let select: HtmlSelectElement = page.find("select[data-field=write-ticks]").dyn_into().unwrap();
    assert_eq!(select.value(), "3");

    page.click("input[name=position][value=group]").await;
    assert_eq!(string(&get(&position(), "store")), "group");
    assert!(!disabled(&page, "input[name=commit][value=after]"));
    assert!(select.disabled());
}

#[wasm_bindgen_test]
async fn with_a_store_the_dashed_line_is_the_owners_checkpoint() {
    let page = Page::with_seed(1).await;
    page.open_panel("settings").await;
    page.click("input[name=position][value=atomic]").await;
    step_to(&page, 15).await;
    assert!(page.all(".topic [data-marker=committed]").is_empty(), "nothing commits to the group");
    let stored = page.all(".topic [data-marker=stored]");
    assert!(!stored.is_empty(), "the owners' checkpoints are drawn");
    // Each drawn checkpoint is one a card shows as stored.
    let cards = texts(&page, ".group [data-field=stored]").join(", ");
    for marker in &stored {
        let tape = marker.closest("[data-partition]").unwrap().unwrap();
        let p = tape.get_attribute("data-partition").unwrap();
        let text = marker.text_content().unwrap();
        let offset = text.rsplit(' ').next().unwrap();
        assert!(text.contains("'s stored checkpoint "), "{text}");
        assert!(cards.contains(&format!("P{p} {offset}")), "P{p} at {offset} not in {cards}");
    }
    assert!(page.text(".topic .tape-legend").contains("dashed: the owner's stored checkpoint"));
}
