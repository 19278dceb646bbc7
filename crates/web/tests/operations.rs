//! The Operations section in headless Chromium: the payout ledger with and
//! without the double payout, topic growth, the assignor, rolling updates.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get, view};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Loads a built-in from its chapter and stops the clock it starts.
async fn load(name: &str) -> Page {
    let page = Page::with_seed(1).await;
    page.open_experiment(name).await;
    if page.text("[data-field=clock]") == "playing" {
        page.click("[data-action=play]").await;
    }
    assert_eq!(page.text("[data-field=clock]"), "paused");
    page.open_panel("operations").await;
    page
}

fn texts(page: &Page, selector: &str) -> Vec<String> {
    page.all(selector).iter().map(|e| e.text_content().unwrap_or_default()).collect()
}

fn partitions() -> u32 {
    js_sys::Array::from(&get(&view(), "partitions")).length()
}

fn assignor() -> String {
    let settings: JsValue = get(&view(), "settings");
    get(&settings, "assignor").as_string().unwrap()
}

#[wasm_bindgen_test]
async fn double_payout_shows_money_paid_twice() {
    let page = load("payout-double-payout").await;
    assert_eq!(page.text("[data-counter=double-paid]"), "$0.00");
    page.step(60).await;
    let paid = page.text("[data-counter=double-paid]");
    assert!(paid.starts_with('$') && paid != "$0.00", "double paid reads {paid:?}");
    page.show("[data-field=ledger]").await;
    let rows = texts(&page, "[data-field=ledger] li");
    assert!(rows.iter().any(|r| r.contains("paid twice ×")), "no paid-twice row in {rows:?}");
    assert!(rows.iter().all(|r| r.contains("account ") || r.contains("more accounts")), "{rows:?}");
}

#[wasm_bindgen_test]
async fn payout_ledger_pays_once() {
    let page = load("payout-ledger").await;
    page.step(60).await;
    assert_eq!(page.text("[data-counter=double-paid]"), "$0.00");
    page.show("[data-field=ledger]").await;
    let rows = texts(&page, "[data-field=ledger] li");
    assert!(rows.iter().any(|r| r.contains("balance $")), "no ledger rows in {rows:?}");
    assert!(rows.iter().all(|r| !r.contains("paid twice")), "{rows:?}");
}

#[wasm_bindgen_test]
async fn lag_chart_has_a_row_and_sparkline_per_partition() {
    let page = load("hot-account").await;
    page.step(40).await;
    page.show("[data-field=lag-chart]").await;
    let rows = texts(&page, "[data-field=lag-chart] li");
    assert_eq!(rows.len() as u32, partitions());
    assert!(rows[0].starts_with("P0 lag ") && rows[0].contains("oldest unprocessed"), "{rows:?}");
    // Two lines per partition: lag, and the age of the oldest unprocessed record.
    assert_eq!(page.all("[data-field=lag-chart] svg[aria-hidden=true] polyline.lag").len(), rows.len());
    assert_eq!(page.all("[data-field=lag-chart] svg[aria-hidden=true] polyline.age").len(), rows.len());
    assert_eq!(page.all("[data-field=lag-chart] li.hottest").len(), 1, "{rows:?}");
}

#[wasm_bindgen_test]
async fn adding_a_partition_adds_a_tape_and_lists_moved_keys() {
    let page = load("payout-ledger").await;
    page.step(10).await;
    let before = partitions();
    assert!(page.all("[data-field=expansion]").is_empty());
    page.click("[data-action=add-partition]").await;
    assert_eq!(partitions(), before + 1);
    let text = page.text("[data-field=expansion]");
    assert!(text.starts_with(&format!("grew from {before} to {} at tick ", before + 1)), "{text:?}");
    let moved = texts(&page, "[data-field=moved-keys] li");
    assert!(!moved.is_empty() && moved.len() <= 9, "{moved:?}");
    assert!(moved[0].starts_with("user-") && moved[0].contains(" → P"), "{moved:?}");
}

#[wasm_bindgen_test]
async fn the_assignor_select_sets_the_assignor() {
    let page = load("scale-out-eager").await;
    page.step(30).await;
    assert_eq!(page.text("[data-field=protocol]"), "eager: every member stops");
    page.set_value("[data-field=assignor]", "cooperative-sticky").await;
    assert_eq!(assignor(), "cooperative-sticky");
    assert_eq!(page.text("[data-field=protocol]"), "cooperative: only what moves stops");
    page.set_value("[data-field=assignor]", "roundrobin").await;
    assert_eq!(assignor(), "roundrobin");
}

#[wasm_bindgen_test]
async fn a_rolling_update_reports_its_progress_then_finishes() {
    let page = load("payout-ledger").await;
    page.step(20).await;
    assert_eq!(page.text("[data-field=rolling-status]"), "none");
    page.click("[data-action=rolling-update]").await;
    let status = page.text("[data-field=rolling-status]");
    assert!(status.starts_with("restarting c"), "{status:?}");
    let mut ticks = 0;
    while page.text("[data-field=rolling-status]") != "none" {
        assert!(ticks < 600, "the rolling update never finished");
        page.step(1).await;
        ticks += 1;
    }
    assert!(page.all("[data-action=rolling-update][disabled]").is_empty());
}

#[wasm_bindgen_test]
async fn kill_buttons_follow_the_running_consumers() {
    let page = load("payout-ledger").await;
    page.step(20).await;
    let buttons = page.all("[data-action=kill-before-commit]");
    assert!(!buttons.is_empty());
    let consumer = buttons[0].get_attribute("data-consumer").unwrap();
    assert_eq!(buttons[0].text_content().unwrap(), format!("Kill {consumer} after the ledger commit"));
    let selector = format!("[data-action=kill-before-commit][data-consumer={consumer}]");
    page.click(&selector).await;
    page.step(10).await;
    assert!(page.all(&selector).is_empty(), "{consumer} still offered after its kill");
}

#[wasm_bindgen_test]
async fn the_commit_cost_table_compares_three_ways_of_committing() {
    let page = Page::with_seed(1).await;
    page.open_panel("operations").await;
    let rows = page.all("[data-field=commit-cost] tbody tr");
    assert_eq!(rows.len(), 3);
    let numbers: Vec<(u64, u64)> = rows
        .iter()
        .map(|row| {
            let cells = row.query_selector_all("td").unwrap();
            let cell = |i| cells.item(i).unwrap().text_content().unwrap().parse::<u64>().unwrap();
            (cell(0), cell(1))
        })
        .collect();
    assert!(numbers[0].0 > numbers[1].0 && numbers[1].0 > numbers[2].0, "requests: {numbers:?}");
    assert!(numbers[0].1 <= numbers[1].1 && numbers[1].1 < numbers[2].1, "replays: {numbers:?}");
    page.click("[data-scenario-run=commit-on-timer]").await;
    assert!(page.text(".clock_bar").contains("commit-on-timer"));
}

#[wasm_bindgen_test]
async fn eager_and_cooperative_rebalances_stop_different_amounts() {
    let mut stopped = Vec::new();
    for name in ["scale-out-eager", "scale-out-cooperative"] {
        let page = load(name).await;
        page.step(60).await;
        assert!(page.text("[data-field=protocol]").contains(if name.ends_with("eager") {
            "every member stops"
        } else {
            "only what moves stops"
        }));
        stopped.push(page.counter("partition-ticks-stopped"));
    }
    assert!(stopped[1] < stopped[0], "cooperative {} vs eager {}", stopped[1], stopped[0]);
}
