//! The clock bar, the consumer cards, the poll loop and the consumer settings
//! in headless Chromium: click, then read the DOM (and `window.offsetlab_view()`).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get, view};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

fn tick(page: &Page) -> u64 {
    let text = page.text(".clock_bar [data-field=tick]");
    text.strip_prefix("tick ").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("tick reads {text:?}"))
}

fn card(c: &str, selector: &str) -> String {
    format!("[data-consumer={c}] {selector}")
}

fn state_of(page: &Page, c: &str) -> String {
    page.text(&format!(".group {}", card(c, "[data-field=state]")))
}

/// The partitions a card shows, e.g. `["P0", "P1"]`.
fn partitions_of(page: &Page, c: &str) -> Vec<String> {
    page.all(&format!(".group {}", card(c, ".partition-chip")))
        .iter()
        .map(|e| e.text_content().unwrap_or_default().trim().to_string())
        .map(|t| t.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// The `data-action`s of the buttons on a card.
fn actions_of(page: &Page, c: &str) -> Vec<String> {
    page.all(&format!(".group {}", card(c, "button[data-action]")))
        .iter()
        .filter_map(|e| e.get_attribute("data-action"))
        .collect()
}

/// Steps until the group is Stable (at most `max` ticks); returns the ticks stepped.
async fn step_until_stable(page: &Page, max: u32) -> u32 {
    for n in 0..=max {
        if page.text(".clock_bar [data-field=group-state]") == "Stable" {
            return n;
        }
        page.step(1).await;
    }
    panic!("the group did not settle in {max} ticks: {}", page.text(".clock_bar [data-field=group-state]"));
}

fn metric(name: &str) -> u64 {
    get(&get(&view(), "metrics"), name).as_f64().unwrap() as u64
}

/// The Sink's counter if the page has it, else the view's metric.
fn duplicates(page: &Page) -> u64 {
    match page.root.query_selector("[data-counter=duplicates]").unwrap() {
        Some(_) => page.counter("duplicates"),
        None => metric("duplicates"),
    }
}

#[wasm_bindgen_test]
async fn the_clock_plays_pauses_steps_and_changes_speed() {
    let page = Page::with_seed(5).await;
    assert_eq!(page.text("[data-field=seed]"), "seed 5");
    assert_eq!(page.text("[data-action=play]").trim_start_matches(['▶', '❚']).trim(), "Play");
    let start = tick(&page);
    page.step(3).await;
    assert_eq!(tick(&page), start + 3);
    assert_eq!(page.text("[data-field=clock]"), "paused");

    page.click("[data-action=play]").await;
    assert_eq!(page.text("[data-field=clock]"), "playing");
    assert!(page.text("[data-action=play]").ends_with("Pause"));
    page.click("[data-action=play]").await;
    assert_eq!(page.text("[data-field=clock]"), "paused");
    let paused_at = tick(&page);
    yew::platform::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(tick(&page), paused_at, "a paused clock stays put");

    let options: Vec<(String, String)> = page
        .all("select[data-field=speed] option")
        .iter()
        .map(|o| (o.get_attribute("value").unwrap(), o.text_content().unwrap()))
        .collect();
    assert_eq!(options.len(), 7);
    assert_eq!(options[0], ("1".to_string(), "1 tick/s".to_string()));
    assert_eq!(options[6], ("60".to_string(), "60 ticks/s".to_string()));
    page.set_value("select[data-field=speed]", "60").await;
    let select: HtmlSelectElement = page.find("select[data-field=speed]").dyn_into().unwrap();
    assert_eq!(select.value(), "60");

    // At 60 ticks/s the clock visibly runs.
    page.click("[data-action=play]").await;
    yew::platform::time::sleep(std::time::Duration::from_millis(400)).await;
    page.click("[data-action=play]").await;
    assert!(tick(&page) >= paused_at + 5, "ran from {paused_at} to {}", tick(&page));

    page.click("[data-action=restart]").await;
    if page.text("[data-field=clock]") == "playing" {
        page.click("[data-action=play]").await;
    }
    assert!(tick(&page) <= 2, "started again: {}", tick(&page));
    assert_eq!(page.text("[data-field=seed]"), "seed 5");
    assert_eq!(page.text(".clock_bar [data-field=scenario]"), "default");
}

#[wasm_bindgen_test]
async fn a_crashed_consumer_holds_its_partitions_until_its_session_times_out() {
    let page = Page::with_seed(1).await;
    step_until_stable(&page, 5).await;
    page.step(1).await;
    assert_eq!(page.text(".group [data-field=generation]"), "1");
    assert_eq!(partitions_of(&page, "c1"), ["P0", "P1"]);
    assert_eq!(partitions_of(&page, "c2"), ["P2"]);
    assert_eq!(actions_of(&page, "c1"), ["pause", "crash", "stop"]);

    let crashed_at = tick(&page);
    page.click(&card("c1", "[data-action=crash]")).await;
    assert_eq!(state_of(&page, "c1"), "crashed");
    assert_eq!(actions_of(&page, "c1"), ["start", "remove"]);
    // The dead member still holds P0 and P1: nobody reads them until tick + 10.
    assert_eq!(partitions_of(&page, "c1"), ["P0", "P1"]);
    let expires = crashed_at + 10;
    let held = page.text(&card("c1", ".held-note"));
    assert!(held.starts_with("session: 10 of 10 ticks left (session.timeout)"), "{held}");
    assert!(held.contains(&format!("held until tick {expires}")), "{held}");
    assert!(
        page.text(&card("c1", "[data-field=crashed]")).starts_with(&format!("crashed at tick {crashed_at}"))
    );
    assert_eq!(partitions_of(&page, "c2"), ["P2"]);
    assert_eq!(page.text(".group [data-field=generation]"), "1");
    // The session runs down on the card, tick by tick.
    page.step(4).await;
    let held = page.text(&card("c1", "[data-field=session-timer]"));
    assert!(held.starts_with("session: 6 of 10 ticks left"), "{held}");

    page.step(8).await;
    assert_eq!(page.text(".group [data-field=generation]"), "2");
    assert_eq!(partitions_of(&page, "c2"), ["P0", "P1", "P2"]);
    assert!(partitions_of(&page, "c1").is_empty());
    let line = page.text("[data-field=last-rebalance]");
    assert!(line.contains("Generation 2") && line.contains("P0 moved c1 → c2"), "{line}");
    assert!(line.contains("P1 moved c1 → c2"), "{line}");
    // Recent: the arrivals are highlighted on c2, the loss noted on c1.
    assert_eq!(page.all(&card("c2", ".partition-chip.arrived")).len(), 2);
    assert_eq!(page.text(&card("c1", "[data-field=left]")), "left: P0 → c2, P1 → c2");
    page.step(6).await;
    assert!(page.all(".partition-chip.arrived").is_empty());
    assert!(page.root.query_selector(&card("c1", "[data-field=left]")).unwrap().is_none());

    // Start it again: a new member joins, a rebalance gives it partitions back.
    page.click(&card("c1", "[data-action=start]")).await;
    assert_eq!(state_of(&page, "c1"), "running");
    step_until_stable(&page, 10).await;
    assert_eq!(page.text(".group [data-field=generation]"), "3");
    assert_eq!(partitions_of(&page, "c1"), ["P0", "P1"]);
}

#[wasm_bindgen_test]
async fn the_rebalance_banner_names_the_session_timeout() {
    let page = Page::with_seed(1).await;
    step_until_stable(&page, 5).await;
    let at = tick(&page);
    page.click(&card("c1", "[data-action=crash]")).await;
    // A join while a crashed member holds partitions: the rebalance waits for it.
    page.click("[data-action=add-consumer]").await;
    assert_eq!(page.text(".clock_bar [data-field=group-state]"), "rebalancing");
    let banner = page.text("[data-field=rebalance-banner]");
    assert!(banner.starts_with("Rebalancing: members finish their batch and rejoin"), "{banner}");
    assert!(banner.contains(&format!("until its session times out at tick {}", at + 10)), "{banner}");
    step_until_stable(&page, 14).await;
    assert!(page.root.query_selector("[data-field=rebalance-banner]").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn pause_resume_and_stop_change_the_card() {
    let page = Page::with_seed(2).await;
    step_until_stable(&page, 5).await;
    page.click(&card("c1", "[data-action=pause]")).await;
    assert_eq!(state_of(&page, "c1"), "paused");
    assert_eq!(actions_of(&page, "c1"), ["resume", "crash", "stop"]);
    page.click(&card("c1", "[data-action=resume]")).await;
    assert_eq!(state_of(&page, "c1"), "running");

    page.click(&card("c2", "[data-action=stop]")).await;
    let state = state_of(&page, "c2");
    assert!(state == "stopping" || state == "stopped", "{state}");
    if state == "stopping" {
        assert_eq!(actions_of(&page, "c2"), ["crash"]);
    }
    page.step(3).await;
    assert_eq!(state_of(&page, "c2"), "stopped");
    assert_eq!(actions_of(&page, "c2"), ["start", "remove"]);
    step_until_stable(&page, 10).await;
    assert_eq!(partitions_of(&page, "c1"), ["P0", "P1", "P2"]);

    page.click(&card("c2", "[data-action=remove]")).await;
    page.step(1).await;
    assert!(page.root.query_selector("[data-consumer=c2]").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn added_consumers_share_the_partitions_then_sit_idle_as_spares() {
    let page = Page::with_seed(3).await;
    step_until_stable(&page, 5).await;
    page.click("[data-action=add-consumer]").await;
    assert!(page.root.query_selector(".group [data-consumer=c3]").unwrap().is_some());
    step_until_stable(&page, 10).await;
    for c in ["c1", "c2", "c3"] {
        assert_eq!(partitions_of(&page, c).len(), 1, "{c}");
        assert_eq!(state_of(&page, c), "running");
    }
    assert_eq!(page.text(".group [data-field=generation]"), "2");

    page.click("[data-action=add-consumer]").await;
    page.click("[data-action=add-consumer]").await;
    step_until_stable(&page, 10).await;
    let spares: Vec<String> = ["c1", "c2", "c3", "c4", "c5"]
        .into_iter()
        .filter(|c| state_of(&page, c) == "idle spare")
        .map(String::from)
        .collect();
    assert_eq!(spares.len(), 2, "{spares:?}");
    for c in &spares {
        assert!(partitions_of(&page, c).is_empty());
        assert!(page.text(&card(c, ".spare-note")).contains("idle spare: more consumers than partitions"));
    }
    assert_eq!(page.all(".group .consumer-card.is-spare").len(), 2);
}

#[wasm_bindgen_test]
async fn the_poll_loop_shows_where_each_consumer_is_and_follows_the_commit_mode() {
    let page = Page::with_seed(1).await;
    page.open_panel("settings").await;
    step_until_stable(&page, 5).await;
    page.step(1).await;
    // Every consumer not idle has one badge, on the line of its card's step.
    for c in ["c1", "c2"] {
        let step = page.text(&card(c, "[data-field=step]"));
        let badges = page.all(&format!("[data-field=poll-loop] .loop-badge[data-consumer={c}]"));
        if step == "idle" {
            assert!(badges.is_empty());
            continue;
        }
        assert_eq!(badges.len(), 1, "{c}");
        let line = badges[0].closest("[data-line]").unwrap().unwrap();
        assert_eq!(line.get_attribute("data-line").as_deref(), Some(step.as_str()), "{c}");
        assert!(line.get_attribute("class").unwrap_or_default().contains("has-consumers"));
    }
    let code = page.text("[data-field=poll-loop] pre code");
    assert!(code.contains("// crash here… records come back") && code.contains("// …and this never ran"));
    let order: Vec<String> = page
        .all("[data-field=poll-loop] [data-line]")
        .iter()
        .filter_map(|e| e.get_attribute("data-line"))
        .collect();
    assert_eq!(order, ["poll", "handle", "commit"]);

    page.click("input[name=commit][value=before]").await;
    let radio: HtmlInputElement = page.find("input[name=commit][value=before]").dyn_into().unwrap();
    assert!(radio.checked());
    assert_eq!(get(&get(&get(&view(), "settings"), "commit"), "mode").as_string().as_deref(), Some("before"));
    let order: Vec<String> = page
        .all("[data-field=poll-loop] [data-line]")
        .iter()
        .filter_map(|e| e.get_attribute("data-line"))
        .collect();
    assert_eq!(order, ["poll", "commit", "handle", "done"]);
    assert!(page.text("[data-field=poll-loop] pre").contains("crash here… records are never processed"));

    // Send a batch and crash c1 while it handles: the badge marks the line.
    page.click("input[name=commit][value=after]").await;
    for _ in 0..20 {
        if page.text(&card("c1", "[data-field=step]")) == "handle"
            || page.text(&card("c2", "[data-field=step]")) == "handle"
        {
            break;
        }
        page.step(1).await;
    }
    let victim = if page.text(&card("c1", "[data-field=step]")) == "handle" { "c1" } else { "c2" };
    assert_eq!(page.text(&card(victim, "[data-field=step]")), "handle");
    page.click(&card(victim, "[data-action=crash]")).await;
    let crashed = page.find(&format!("[data-field=poll-loop] [data-line=handle] [data-crashed={victim}]"));
    assert_eq!(crashed.text_content().unwrap(), format!("✕ {victim} crashed here"));
}

#[wasm_bindgen_test]
async fn settings_reflect_and_change_the_simulation() {
    let page = Page::with_seed(4).await;
    page.open_panel("settings").await;
    let settings = || get(&view(), "settings");

    let checkbox: HtmlInputElement =
        page.find("input[type=checkbox][data-field=idempotent]").dyn_into().unwrap();
    assert!(!checkbox.checked());
    page.click("input[data-field=idempotent]").await;
    assert_eq!(get(&settings(), "idempotent").as_bool(), Some(true));
    assert!(checkbox.checked());
    page.click("input[data-field=idempotent]").await;
    assert_eq!(get(&settings(), "idempotent").as_bool(), Some(false));

    page.set_value("[data-field=records-per-poll]", "7").await;
    assert_eq!(get(&settings(), "records_per_poll").as_f64(), Some(7.0));

    let interval: HtmlInputElement = page.find("input[data-field=auto-interval]").dyn_into().unwrap();
    assert!(interval.disabled());
    assert_eq!(interval.value(), "5");
    page.click("input[name=commit][value=auto]").await;
    assert!(!interval.disabled());
    let commit = get(&settings(), "commit");
    assert_eq!(get(&commit, "mode").as_string().as_deref(), Some("auto"));
    assert_eq!(get(&commit, "interval_ticks").as_f64(), Some(5.0));
    page.set_value("input[data-field=auto-interval]", "9").await;
    assert_eq!(get(&get(&settings(), "commit"), "interval_ticks").as_f64(), Some(9.0));
    assert!(page.text("[data-field=poll-loop] pre").contains("every 9 ticks"));
    page.set_value("input[data-field=auto-interval]", "99").await;
    assert_eq!(get(&get(&settings(), "commit"), "interval_ticks").as_f64(), Some(20.0));

    // Restart form: partition and offset only matter for --to-offset.
    let partition: HtmlSelectElement = page.find("select[data-field=restart-partition]").dyn_into().unwrap();
    assert!(partition.disabled());
    page.set_value("select[data-field=restart-mode]", "offset").await;
    assert!(!partition.disabled());
    assert_eq!(page.all("select[data-field=restart-partition] option").len(), 4);
}

#[wasm_bindgen_test]
async fn restarting_from_earliest_after_handling_brings_duplicates() {
    let page = Page::with_seed(1).await;
    page.open_panel("settings").await;
    page.step(15).await;
    assert!(metric("delivered") >= 6, "the six records were handled");
    assert_eq!(duplicates(&page), 0);

    assert_eq!(
        page.find("select[data-field=restart-mode]").dyn_into::<HtmlSelectElement>().unwrap().value(),
        "earliest"
    );
    page.click("[data-action=restart-from]").await;
    assert_eq!(get(&view(), "restart_pending").as_bool(), Some(true));
    let pending = page.text(".settings [data-field=restart-pending]");
    assert!(pending.starts_with("Restart in progress"), "{pending}");
    page.step(25).await;
    assert_eq!(get(&view(), "restart_pending").as_bool(), Some(false));
    assert!(duplicates(&page) > 0, "replayed from the log start");
    assert!(page.root.query_selector(".settings [data-field=restart-pending]").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn restarting_from_an_offset_on_one_partition() {
    let page = Page::with_seed(1).await;
    page.open_panel("settings").await;
    page.step(15).await;
    page.set_value("select[data-field=restart-mode]", "offset").await;
    // The partition with the most records, back to offset 0.
    let partitions: js_sys::Array = get(&view(), "partitions").dyn_into().unwrap();
    let busiest = (0..partitions.length())
        .max_by_key(|&i| get(&partitions.get(i), "log_end").as_f64().unwrap() as u64)
        .unwrap();
    page.set_value("select[data-field=restart-partition]", &busiest.to_string()).await;
    page.set_value("input[data-field=restart-offset]", "0").await;
    let before = metric("duplicates");
    page.click("[data-action=restart-from]").await;
    assert_eq!(get(&view(), "restart_pending").as_bool(), Some(true));
    page.step(25).await;
    assert!(metric("duplicates") > before);
}

#[wasm_bindgen_test]
async fn the_spare_consumers_experiment_shows_two_idle_spares() {
    let page = Page::with_seed(1).await;
    page.click("[data-scenario=spare-consumers]").await;
    if page.text("[data-field=clock]") == "playing" {
        page.click("[data-action=play]").await;
    }
    assert_eq!(page.text(".clock_bar [data-field=scenario]"), "spare-consumers");
    step_until_stable(&page, 10).await;
    let cards = page.all(".group [data-consumer]");
    assert_eq!(cards.len(), 8);
    let spares = page
        .all(".group [data-consumer] [data-field=state]")
        .iter()
        .filter(|e| e.text_content().as_deref() == Some("idle spare"))
        .count();
    assert_eq!(spares, 2);
    for c in ["c7", "c8"] {
        assert_eq!(state_of(&page, c), "idle spare");
        assert!(partitions_of(&page, c).is_empty());
    }
    // Once their empty poll() returns, the poll loop leaves idle spares off every line.
    page.step(1).await;
    assert_eq!(page.text(&card("c7", "[data-field=step]")), "idle");
    assert!(page.all("[data-field=poll-loop] .loop-badge[data-consumer=c7]").is_empty());
}
