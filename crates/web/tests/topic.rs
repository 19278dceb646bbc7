//! The producer card and the topic's tapes in headless Chromium.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_USE_BROWSER=1 cargo test -p offsetlab-web --target wasm32-unknown-unknown --test topic`
#![cfg(target_arch = "wasm32")]

mod common;

use common::Page;
use offsetlab_engine::builtin;
use offsetlab_web::state::TAPE_CELLS;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

const PARTITIONS: u32 = 3;

/// The record cells of one tape.
fn cells(page: &Page, partition: u32) -> Vec<Element> {
    page.all(&format!("[data-partition=\"{partition}\"] button[data-offset]"))
}

fn all_cells(page: &Page) -> Vec<Element> {
    page.all(".topic button[data-offset]")
}

fn offset(cell: &Element) -> u64 {
    cell.get_attribute("data-offset").unwrap().parse().unwrap()
}

fn label(cell: &Element) -> String {
    cell.get_attribute("aria-label").unwrap_or_default()
}

fn disabled(page: &Page, selector: &str) -> bool {
    page.find(selector).has_attribute("disabled")
}

fn has_class(element: &Element, class: &str) -> bool {
    element.get_attribute("class").unwrap_or_default().split_whitespace().any(|c| c == class)
}

fn produced(page: &Page) -> u64 {
    let text = page.text("[data-field=produced]");
    text.strip_prefix("sent ").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{text:?}"))
}

fn tick(page: &Page) -> u64 {
    let text = page.text("[data-field=tick]");
    text.strip_prefix("tick ").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{text:?}"))
}

/// The (partition, offset) of every cell on screen.
fn on_screen(page: &Page) -> Vec<(u32, u64)> {
    (0..PARTITIONS).flat_map(|p| cells(page, p).iter().map(|c| (p, offset(c))).collect::<Vec<_>>()).collect()
}

/// Cells not in `old`.
fn new_cells(page: &Page, old: &[(u32, u64)]) -> Vec<Element> {
    (0..PARTITIONS)
        .flat_map(|p| cells(page, p).into_iter().filter(move |c| !old.contains(&(p, offset(c)))))
        .collect()
}

/// The short key label drawn in a cell ("u3", "·u3").
fn key_label(cell: &Element) -> String {
    cell.query_selector(".cell-key").unwrap().unwrap().text_content().unwrap()
}

/// Clicks a cell (in its tape) by partition and offset.
async fn click_cell(page: &Page, partition: u32, offset: u64) {
    page.click(&format!("[data-partition=\"{partition}\"] button[data-offset=\"{offset}\"]")).await;
}

/// The tape with the most records (on screen, then hidden after the window), and its cells.
fn fullest_tape(page: &Page) -> (u32, Vec<Element>) {
    (0..PARTITIONS)
        .map(|p| (p, cells(page, p)))
        .max_by_key(|(p, c)| (c.len(), hidden_after(page, *p)))
        .unwrap()
}

/// The "+N newer" count of a tape (0 when absent).
fn hidden_after(page: &Page, partition: u32) -> u64 {
    page.all(&format!("[data-partition=\"{partition}\"] [data-field=newer-count]")).first().map_or(0, |e| {
        e.text_content().unwrap().trim_start_matches('+').trim_end_matches(" newer").parse().unwrap()
    })
}

#[wasm_bindgen_test]
async fn one_tape_per_partition_with_offset_cells_owner_lag_and_log_end() {
    let page = Page::with_seed(1).await;
    assert_eq!(page.all("[data-partition]").len(), PARTITIONS as usize);
    // The default scenario sends 6 records at tick 0.
    assert_eq!(all_cells(&page).len(), 6);
    assert_eq!(produced(&page), 6);
    for p in 0..PARTITIONS {
        let tape = format!("[data-partition=\"{p}\"]");
        let offsets: Vec<u64> = cells(&page, p).iter().map(offset).collect();
        assert_eq!(offsets, (0..offsets.len() as u64).collect::<Vec<_>>(), "P{p}");
        for cell in cells(&page, p) {
            assert!(has_class(&cell, "cell"));
            let key = key_label(&cell);
            assert!(key.starts_with('u'), "{key}");
            assert!(label(&cell).contains(&format!("key user-{}", &key[1..])), "{}", label(&cell));
        }
        assert_eq!(page.all(&format!("{tape} [data-marker=log-end]")).len(), 1);
        assert_eq!(page.text(&format!("{tape} [data-marker=log-end]")), format!("end {}", offsets.len()));
        // Nothing committed yet: the CLI's "-".
        assert_eq!(page.text(&format!("{tape} [data-field=lag]")), "lag –");
        assert!(page.all(&format!("{tape} [data-marker=committed]")).is_empty());
    }
    // After a few ticks the group is stable: every partition has a live owner,
    // and once a batch is committed lag is a number and the dashed line shows.
    page.step(12).await;
    for p in 0..PARTITIONS {
        let tape = format!("[data-partition=\"{p}\"]");
        let owner = page.text(&format!("{tape} [data-field=owner]"));
        assert!(owner == "c1" || owner == "c2", "P{p} owner {owner:?}");
        if !cells(&page, p).is_empty() {
            let lag = page.text(&format!("{tape} [data-field=lag]"));
            assert!(lag.strip_prefix("lag ").unwrap().parse::<u64>().is_ok(), "{lag}");
            let committed = page.text(&format!("{tape} [data-marker=committed]"));
            assert!(committed.starts_with("committed "), "{committed}");
        }
    }
    assert!(!page.all("[data-marker=position]").is_empty());
    assert!(!page.all(".topic button.handled").is_empty());
}

#[wasm_bindgen_test]
async fn a_crashed_owner_is_named_as_crashed_until_its_partitions_move() {
    let page = Page::with_seed(13).await;
    page.step(4).await;
    let owners = |page: &Page| -> Vec<String> {
        (0..PARTITIONS).map(|p| page.text(&format!("[data-partition=\"{p}\"] [data-field=owner]"))).collect()
    };
    assert!(owners(&page).contains(&"c1".to_owned()), "{:?}", owners(&page));
    page.click("[data-consumer=c1] [data-action=crash]").await;
    let crashed = owners(&page);
    assert!(crashed.contains(&"c1 (crashed)".to_owned()), "{crashed:?}");
    assert!(!crashed.contains(&"c1".to_owned()), "{crashed:?}");
    // The session times out, the group rebalances: c2 takes everything.
    for _ in 0..40 {
        page.step(1).await;
        if owners(&page).iter().all(|o| o == "c2") {
            return;
        }
    }
    panic!("the partitions never moved to c2: {:?}", owners(&page));
}

#[wasm_bindgen_test]
async fn send_1_and_send_10_add_cells() {
    let page = Page::with_seed(2).await;
    let before = all_cells(&page).len();
    page.click("[data-action=send-10]").await;
    assert_eq!(all_cells(&page).len(), before + 10);
    page.click("[data-action=send-1]").await;
    assert_eq!(all_cells(&page).len(), before + 11);
    assert_eq!(produced(&page), 17);
}

#[wasm_bindgen_test]
async fn keep_sending_toggles_and_sends_at_the_chosen_rate() {
    let page = Page::with_seed(3).await;
    let button = "[data-action=keep-sending]";
    assert_eq!(page.find(button).get_attribute("aria-pressed").as_deref(), Some("false"));
    page.set_value("[data-field=send-rate]", "3").await;
    page.click(button).await;
    assert_eq!(page.find(button).get_attribute("aria-pressed").as_deref(), Some("true"));
    assert!(page.text("[data-field=send-status]").contains("3 per tick"));
    page.step(4).await;
    assert_eq!(produced(&page), 6 + 4 * 3);
    // Changing the rate while sending changes what is sent.
    page.set_value("[data-field=send-rate]", "5").await;
    page.step(2).await;
    assert_eq!(produced(&page), 6 + 4 * 3 + 2 * 5);
    page.click(button).await;
    assert_eq!(page.find(button).get_attribute("aria-pressed").as_deref(), Some("false"));
    page.step(3).await;
    assert_eq!(produced(&page), 6 + 4 * 3 + 2 * 5);
}

#[wasm_bindgen_test]
async fn use_keys_off_makes_new_records_keyless() {
    let page = Page::with_seed(4).await;
    let old = on_screen(&page);
    assert!(all_cells(&page).iter().all(|c| !label(c).contains("no key") && !has_class(c, "keyless")));
    let checkbox = "input[type=checkbox][data-field=use-keys]";
    assert!(page.find(checkbox).dyn_ref::<web_sys::HtmlInputElement>().unwrap().checked());
    page.click(checkbox).await;
    assert!(!page.find(checkbox).dyn_ref::<web_sys::HtmlInputElement>().unwrap().checked());
    page.click("[data-action=send-10]").await;
    let fresh = new_cells(&page, &old);
    assert_eq!(fresh.len(), 10);
    for cell in &fresh {
        assert!(label(cell).contains("no key"), "{}", label(cell));
        assert!(has_class(cell, "keyless"));
        assert!(key_label(cell).starts_with("·u"), "{}", key_label(cell));
    }
    for cell in all_cells(&page).iter().filter(|c| !fresh.iter().any(|f| f.is_same_node(Some(c)))) {
        assert!(!label(cell).contains("no key"), "{}", label(cell));
    }
}

#[wasm_bindgen_test]
async fn key_count_and_hot_key_shape_the_keys() {
    let page = Page::with_seed(5).await;
    page.set_value("[data-field=key-count]", "1").await;
    let old = on_screen(&page);
    page.click("[data-action=send-10]").await;
    let fresh = new_cells(&page, &old);
    assert_eq!(fresh.len(), 10);
    // With one key, all ten new records are user-0's.
    assert!(
        fresh.iter().all(|c| key_label(c) == "u0"),
        "{:?}",
        fresh.iter().map(key_label).collect::<Vec<_>>()
    );

    page.set_value("[data-field=key-count]", "6").await;
    page.set_value("[data-field=hot-key]", "90").await;
    assert_eq!(page.text("[data-field=hot-key-value]"), "90%");
    let before = all_cells(&page).iter().filter(|c| label(c).contains("user-0")).count();
    page.click("[data-action=send-10]").await;
    page.click("[data-action=send-10]").await;
    let after = all_cells(&page).iter().filter(|c| label(c).contains("user-0")).count();
    assert!(after - before >= 12, "{} of 20 went to user-0 at a 90% hot key", after - before);
}

#[wasm_bindgen_test]
async fn clicking_a_cell_previews_the_engines_restart_and_escape_closes_it() {
    let page = Page::with_seed(6).await;
    page.step(20).await;
    let now = tick(&page);
    let (partition, tape) = fullest_tape(&page);
    let first = offset(&tape[0]);
    assert!(has_class(&tape[0], "handled"), "records should be handled by tick {now}");
    assert!(page.all("[data-field=restart-preview]").is_empty());

    click_cell(&page, partition, first).await;
    let panel = page.text("[data-field=restart-preview]");
    let headless = builtin("default").unwrap().run(Some(6), Some(now)).unwrap();
    let preview = headless.restart_preview(partition, first).unwrap();
    let record = headless.records(partition, first, 1)[0];
    assert!(preview.replay > 0);
    assert!(panel.contains(&format!("P{partition} offset {first} · user-{}", record.subject)), "{panel}");
    assert!(panel.contains(&format!("produced at tick {}", record.produced_tick)), "{panel}");
    assert!(panel.contains("handled 1 time"), "{panel}");
    let replays = if preview.replay == 1 {
        "1 record will be delivered again".to_owned()
    } else {
        format!("{} records will be delivered again", preview.replay)
    };
    assert!(panel.contains(&replays), "{panel} / {preview:?}");
    assert!(panel.contains("Kafka refuses a reset while members are active"));
    let selected = page.find(&format!("[data-partition=\"{partition}\"] button[data-offset=\"{first}\"]"));
    assert!(has_class(&selected, "selected"));

    page.key("[data-action=restart-here]", "Escape").await;
    assert!(page.all("[data-field=restart-preview]").is_empty());
    assert!(page.all(".cell.selected").is_empty());

    // The close button does the same.
    click_cell(&page, partition, first).await;
    assert_eq!(page.all("[data-field=restart-preview]").len(), 1);
    page.click("[data-action=close-preview]").await;
    assert!(page.all("[data-field=restart-preview]").is_empty());

    // The log end: nothing to skip or replay past what is committed is spelled out.
    let last = offset(tape.last().unwrap());
    click_cell(&page, partition, last).await;
    let panel = page.text("[data-field=restart-preview]");
    let preview = headless.restart_preview(partition, last).unwrap();
    if preview.replay == 0 && preview.skip == 0 {
        assert!(panel.contains("nothing replays"), "{panel}");
    } else {
        assert!(panel.contains("will be"), "{panel}");
    }
}

#[wasm_bindgen_test]
async fn restart_here_waits_for_the_group_then_the_consumers_replay() {
    let page = Page::with_seed(7).await;
    page.step(20).await;
    let (partition, tape) = fullest_tape(&page);
    let first = offset(&tape[0]);
    assert!(has_class(&tape[0], "handled"));
    click_cell(&page, partition, first).await;
    page.click("[data-action=restart-here]").await;
    assert_eq!(
        page.text("[data-field=restart-pending]"),
        "restart in progress: waiting for the group to empty"
    );
    assert_eq!(
        page.find("[data-action=restart-here]").get_attribute("aria-disabled").as_deref(),
        Some("true")
    );
    // A second click while pending does nothing (no refusal in the status line).
    page.click("[data-action=restart-here]").await;
    assert!(!page.text("[role=status]").contains("already in progress"));

    let mut waited = 0;
    while !page.all("[data-field=restart-pending]").is_empty() {
        assert!(waited < 60, "the restart never finished");
        page.step(1).await;
        waited += 1;
    }
    // The consumers run again from the reset offset: the first record comes back.
    for _ in 0..30 {
        let cell = page.find(&format!("[data-partition=\"{partition}\"] button[data-offset=\"{first}\"]"));
        if has_class(&cell, "again") {
            assert_eq!(cell.query_selector(".cell-times").unwrap().unwrap().text_content().unwrap(), "×2");
            assert!(label(&cell).contains("handled 2 times"));
            assert!(page.text("[data-field=restart-preview]").contains("handled 2 times"));
            return;
        }
        page.step(1).await;
    }
    panic!("P{partition} offset {first} was not delivered again after the restart");
}

#[wasm_bindgen_test]
async fn older_newer_and_follow_move_the_window() {
    let page = Page::with_seed(8).await;
    // 306 records in 3 partitions: the fullest holds more than two windows.
    for _ in 0..30 {
        page.click("[data-action=send-10]").await;
    }
    let (partition, tape) = fullest_tape(&page);
    let tape_sel = format!("[data-partition=\"{partition}\"]");
    let first = |page: &Page| offset(&cells(page, partition)[0]);
    assert_eq!(tape.len() as u64, TAPE_CELLS);
    assert_eq!(first(&page), 0);
    let newer_count = page.text(&format!("{tape_sel} [data-field=newer-count]"));
    assert!(newer_count.starts_with('+') && newer_count.ends_with(" newer"), "{newer_count}");
    assert!(disabled(&page, &format!("{tape_sel} [data-action=older]")));
    assert!(page.all(&format!("{tape_sel} [data-action=follow]")).is_empty());

    page.click(&format!("{tape_sel} [data-action=newer]")).await;
    assert_eq!(first(&page), TAPE_CELLS / 2);
    assert_eq!(
        page.text(&format!("{tape_sel} [data-field=older-count]")),
        format!("+{} older", TAPE_CELLS / 2)
    );
    assert_eq!(page.all(&format!("{tape_sel} [data-action=follow]")).len(), 1);

    page.click(&format!("{tape_sel} [data-action=older]")).await;
    assert_eq!(first(&page), 0);
    assert_eq!(page.text(&format!("{tape_sel} [data-field=older-count]")), "");

    page.click(&format!("{tape_sel} [data-action=newer]")).await;
    page.click(&format!("{tape_sel} [data-action=newer]")).await;
    assert_eq!(first(&page), TAPE_CELLS, "tick {}, {}", tick(&page), page.text(&tape_sel));
    page.click(&format!("{tape_sel} [data-action=follow]")).await;
    assert!(page.all(&format!("{tape_sel} [data-action=follow]")).is_empty());
    assert_eq!(first(&page), 0, "following shows the committed offset (none yet: the log start)");
}

#[wasm_bindgen_test]
async fn cells_keep_their_elements_when_the_window_slides() {
    let page = Page::with_seed(12).await;
    for _ in 0..30 {
        page.click("[data-action=send-10]").await;
    }
    // Owners and positions: the markers sit beside the cells.
    page.step(8).await;
    let (partition, tape) = fullest_tape(&page);
    let tape_sel = format!("[data-partition=\"{partition}\"]");
    assert_eq!(page.all(&format!("{tape_sel} [data-marker=position]")).len(), 1);
    let from = offset(&tape[0]);
    let kept = tape[(TAPE_CELLS / 2) as usize].clone();
    let text = kept.text_content().unwrap();
    page.click(&format!("{tape_sel} [data-action=newer]")).await;
    let now = cells(&page, partition);
    assert_eq!(offset(&now[0]), from + TAPE_CELLS / 2);
    // Keyed by offset: a record still in the window keeps its element (and its text).
    assert!(now[0].is_same_node(Some(&kept)), "the window's cells were rebuilt or reordered");
    assert_eq!(now[0].text_content().unwrap(), text);
}

#[wasm_bindgen_test]
async fn tapes_hold_at_most_tape_cells_however_long_the_log() {
    let page = Page::with_seed(9).await;
    page.set_value("[data-field=send-rate]", "10").await;
    page.click("[data-action=keep-sending]").await;
    for round in 0..20 {
        for _ in 0..10 {
            page.click("[data-action=send-10]").await;
        }
        page.step(1).await;
        for p in 0..PARTITIONS {
            let n = cells(&page, p).len() as u64;
            assert!(n <= TAPE_CELLS, "round {round}: P{p} has {n} cells");
        }
    }
    assert!(produced(&page) >= 2_000);
    let total: usize = (0..PARTITIONS).map(|p| cells(&page, p).len()).sum();
    assert!(total as u64 <= TAPE_CELLS * u64::from(PARTITIONS));
    // The rest is counted, not drawn.
    let hidden: u64 = page
        .all("[data-field=newer-count]")
        .iter()
        .map(|e| {
            e.text_content()
                .unwrap()
                .trim_start_matches('+')
                .trim_end_matches(" newer")
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert!(hidden + total as u64 >= 1_900, "{hidden} hidden + {total} shown");
    // A small DOM: the whole topic section stays within a few elements per cell.
    let elements = page.all(".topic *").len() as u64;
    assert!(elements <= 3 * TAPE_CELLS * u64::from(PARTITIONS) + 120, "{elements} elements in the topic");
}

#[wasm_bindgen_test]
async fn arrow_keys_move_between_cells_and_one_cell_per_tape_is_tabbable() {
    let page = Page::with_seed(10).await;
    page.click("[data-action=send-10]").await;
    let (partition, tape) = fullest_tape(&page);
    assert!(tape.len() >= 3);
    let tabbable: Vec<&Element> =
        tape.iter().filter(|c| c.get_attribute("tabindex").as_deref() == Some("0")).collect();
    assert_eq!(tabbable.len(), 1);
    let first = offset(&tape[0]);
    let sel = format!("[data-partition=\"{partition}\"] button[data-offset=\"{first}\"]");
    page.find(&sel).dyn_into::<web_sys::HtmlElement>().unwrap().focus().unwrap();
    page.key(&sel, "ArrowRight").await;
    let active = web_sys::window().unwrap().document().unwrap().active_element().unwrap();
    assert_eq!(offset(&active), offset(&tape[1]));
    page.key(
        &format!("[data-partition=\"{partition}\"] button[data-offset=\"{}\"]", offset(&tape[1])),
        "End",
    )
    .await;
    let active = web_sys::window().unwrap().document().unwrap().active_element().unwrap();
    assert_eq!(offset(&active), offset(tape.last().unwrap()));
}
