//! Issue 40 on the page, in headless Chromium: orders.DLT's tape appears with
//! its letters linked to their source records, a stuck partition is marked
//! on its tape, the failure counters show once they count, the fix and the
//! replay are buttons that apply only when they can, and a run that never
//! fails a record shows none of it.
#![cfg(target_arch = "wasm32")]

mod common;

use common::Page;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The built-in `name`, paused at tick 0.
async fn open(name: &str) -> Page {
    Page::with_link(&format!("scenario={name}")).await
}

fn has(page: &Page, selector: &str) -> bool {
    page.root.query_selector(selector).unwrap().is_some()
}

/// Steps until `selector` is in the page, at most `ticks` ticks.
async fn step_until(page: &Page, selector: &str, ticks: u32) {
    for _ in 0..ticks {
        if has(page, selector) {
            return;
        }
        page.step(1).await;
    }
    assert!(has(page, selector), "{selector} within {ticks} ticks");
}

#[wasm_bindgen_test]
async fn the_default_run_shows_nothing_of_failures() {
    let page = Page::with_seed(7).await;
    page.click("[data-action=send-10]").await;
    page.step(12).await;
    for absent in [
        "[data-field=letter-topics]",
        "[data-field=stuck]",
        "[data-field=handler-failures]",
        ".failure-counters",
        ".cell.failing",
    ] {
        assert!(!has(&page, absent), "{absent} in a run that never fails a record");
    }
    assert_eq!(page.text("[data-field=stuck-announce]"), "");
}

#[wasm_bindgen_test]
async fn a_dead_letter_is_linked_to_its_source_record() {
    let page = open("poison-dead-lettered").await;
    assert!(!has(&page, "[data-field=letter-topics]"), "orders.DLT is collapsed until written to");
    step_until(&page, ".letter-topic[data-letter-topic=\"orders.DLT\"] .letter-cell", 60).await;
    assert_eq!(page.counter("dead-lettered"), 1);
    let letters = page.all(".letter-topic[data-letter-topic=\"orders.DLT\"] .letter-cell");
    assert_eq!(letters.len(), 1, "one letter");
    let source = letters[0].get_attribute("data-source").unwrap();
    let (p, o) = source.trim_start_matches('P').split_once('@').unwrap();
    let label = letters[0].get_attribute("aria-label").unwrap();
    assert!(label.contains(&format!("from orders P{p} offset {o}")), "{label}");
    assert!(label.contains("3 attempts"), "two retries after the first attempt: {label}");
    assert!(label.contains("cause: "), "{label}");
    // The headers, readable as a table.
    assert_eq!(page.text("[data-field=letter-headers] [data-field=letter-attempts]"), "3");
    assert!(page.text("[data-field=letter-headers]").contains(&format!("orders P{p}@{o}")));
    assert!(!has(&page, ".letter-topic[data-letter-topic=\"orders-retry-1\"]"), "no retry topic used");
    // Its source: selected on the orders tape, its cell the poison record.
    page.click(".letter-topic[data-letter-topic=\"orders.DLT\"] .letter-cell").await;
    let cell = page.find(&format!(".tape[data-partition=\"{p}\"] .cell[data-offset=\"{o}\"]"));
    assert_eq!(cell.get_attribute("aria-current").as_deref(), Some("true"), "the source is selected");
    assert!(cell.class_list().contains("poison"));
    assert!(!has(&page, ".cell.failing"), "the partition flowed on");
}

#[wasm_bindgen_test]
async fn a_share_groups_dead_letter_is_a_tape_linked_to_its_source_record() {
    let page = open("share-dlq").await;
    let letter = ".letter-topic[data-letter-topic=\"dlq.orders\"] .letter-cell";
    assert!(!has(&page, "[data-field=share-letter-topics]"), "dlq.orders is collapsed until written to");
    step_until(&page, letter, 60).await;
    assert_eq!(page.counter("dead-lettered"), 1);
    assert!(!has(&page, "[data-field=letter-topics]"), "no orders.DLT for a share group");
    let letters = page.all(letter);
    assert_eq!(letters.len(), 1, "one letter");
    let source = letters[0].get_attribute("data-source").unwrap();
    let (p, o) = source.trim_start_matches('P').split_once('@').unwrap();
    let label = letters[0].get_attribute("aria-label").unwrap();
    for words in [
        format!("from orders P{p} offset {o} (__dlq.errors.partition {p}, __dlq.errors.offset {o})"),
        "share group demo archived after 5 deliveries (__dlq.errors.delivery.count 5)".to_string(),
        "__dlq.errors.message \"Offset delivery count exceeded the threshold.\"; key user-".to_string(),
        "and value #".to_string(),
        " copied; written by the broker at tick ".to_string(),
    ] {
        assert!(label.contains(&words), "{words:?} in {label}");
    }
    // The headers, readable as a table.
    let headers = "[data-field=share-letter-topics] [data-field=letter-headers]";
    assert_eq!(page.text(&format!("{headers} [data-field=letter-delivery-count]")), "5");
    assert!(page.text(headers).contains(&format!("orders P{p}@{o}")));
    assert!(page.text(&format!("{headers} [data-field=letter-copied]")).ends_with("copied"));
    // Its source: selected on the orders tape, its cell the poison record.
    page.click(letter).await;
    let cell = page.find(&format!(".tape[data-partition=\"{p}\"] .cell[data-offset=\"{o}\"]"));
    assert_eq!(cell.get_attribute("aria-current").as_deref(), Some("true"), "the source is selected");
    assert!(cell.class_list().contains("poison"));
}

#[wasm_bindgen_test]
async fn a_stuck_partition_is_marked_with_its_record_and_attempts() {
    let page = open("poison-blocks-partition").await;
    step_until(&page, "[data-field=stuck]", 40).await;
    page.step(3).await;
    let mark = page.find("[data-field=stuck]");
    let offset = mark.get_attribute("data-stuck-offset").unwrap();
    let text = mark.text_content().unwrap();
    assert!(text.starts_with(&format!("stuck at {offset} · attempt ")), "{text}");
    assert!(text.ends_with("ticks"), "{text}");
    let tape = mark.closest(".tape").unwrap().unwrap();
    assert!(tape.class_list().contains("is-stuck"));
    let failing = tape.query_selector(".cell.failing").unwrap().expect("the failing cell is drawn");
    assert_eq!(failing.get_attribute("data-offset").unwrap(), offset);
    let announced = page.text("[data-field=stuck-announce]");
    assert!(announced.contains(&format!("is stuck on offset {offset}")), "{announced}");
    assert!(page.counter("stuck-partition-ticks") > 0);
    // The group's policy in words; the fix applies, the replay does not (nothing dead-lettered).
    assert!(page.text("[data-field=error-policy]").starts_with("retry forever"));
    let fix = page.find("[data-action=fix-handler]");
    assert!(!fix.has_attribute("disabled"), "the handler failed: the fix applies");
    assert!(page.find("[data-action=replay-dead-letters]").has_attribute("disabled"));
    page.click("[data-action=fix-handler]").await;
    page.step(3).await;
    assert!(!has(&page, "[data-field=stuck]"), "fixed, the partition moves on");
    assert_eq!(page.text("[data-field=stuck-announce]"), "");
    assert!(page.find("[data-action=fix-handler]").has_attribute("disabled"));
}

#[wasm_bindgen_test]
async fn the_replay_applies_only_after_the_fix_and_pays_twice_without_the_ledger() {
    let page = open("dead-letter-replay-not-idempotent").await;
    step_until(&page, "[data-counter=dead-lettered]", 20).await;
    page.step(2).await;
    assert!(page.find("[data-action=replay-dead-letters]").has_attribute("disabled"), "not fixed yet");
    step_until(&page, "[data-counter=double-applied-on-replay]", 60).await;
    assert!(page.counter("double-applied-on-replay") >= 1);
    for _ in 0..20 {
        if page.counter("replayed") >= 2 {
            break;
        }
        page.step(1).await;
    }
    assert!(page.counter("replayed") >= 2);
    assert!(page.counter("partial-effects") >= 1);
    assert_eq!(page.text("[data-field=handler-fixed]"), " · handler fixed");
    assert!(page.find("[data-action=replay-dead-letters]").has_attribute("disabled"), "replayed already");
}

#[wasm_bindgen_test]
async fn the_fix_and_the_replay_by_hand() {
    let page = open("poison-dead-lettered").await;
    step_until(&page, "[data-counter=dead-lettered]", 60).await;
    assert!(page.find("[data-action=replay-dead-letters]").has_attribute("disabled"));
    page.click("[data-action=fix-handler]").await;
    assert!(!page.find("[data-action=replay-dead-letters]").has_attribute("disabled"));
    page.click("[data-action=replay-dead-letters]").await;
    step_until(&page, "[data-counter=replayed]", 10).await;
    assert_eq!(page.counter("replayed"), 1);
    assert!(!has(&page, "[data-counter=double-applied-on-replay]"), "a poison record made no payout");
}

#[wasm_bindgen_test]
async fn a_retry_topic_has_its_own_tape() {
    let page = open("retry-topic-reorders").await;
    step_until(&page, ".letter-topic[data-letter-topic=\"orders-retry-1\"] .letter-cell", 60).await;
    assert!(page.counter("sent-to-retry") >= 1);
    assert!(
        page.text(".letter-topic[data-letter-topic=\"orders-retry-1\"] [data-field=letter-headers]")
            .contains("tick ")
    );
}

#[wasm_bindgen_test]
async fn the_chapter_tells_failures_with_its_seven_experiments() {
    let page = Page::with_seed(7).await;
    let chapter = page.find("#failures");
    assert!(page.text("#failures-heading").contains("When a record cannot be processed"));
    for name in [
        "poison-blocks-partition",
        "poison-skipped",
        "poison-dead-lettered",
        "retry-topic-reorders",
        "dead-letter-replay-idempotent",
        "dead-letter-replay-not-idempotent",
        "share-dlq",
    ] {
        assert!(
            chapter.query_selector(&format!("[data-scenario={name}], [data-jump={name}]")).unwrap().is_some(),
            "{name} in the chapter"
        );
    }
    page.open_experiment("poison-dead-lettered").await;
    assert_eq!(page.text("[data-field=error-policy]"), "retry 2 times (2 ticks apart), then orders.DLT");
}
