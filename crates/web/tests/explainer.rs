//! The intro, the sink, the announcer and the explainer sections, in headless Chromium.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_USE_BROWSER=1 cargo test -p offsetlab-web --target wasm32-unknown-unknown --test explainer`
#![cfg(target_arch = "wasm32")]

mod common;

use common::{Page, get, view};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const COUNTERS: [&str; 8] = [
    "delivered",
    "duplicates",
    "effects",
    "never-processed",
    "out-of-key-order",
    "total-lag",
    "active-consumers",
    "generation",
];

fn view_number(path: &[&str]) -> f64 {
    let value = path.iter().fold(view(), |object, key| get(&object, key));
    value.as_f64().unwrap_or_else(|| panic!("view.{} is not a number", path.join(".")))
}

fn partition_count() -> u32 {
    get(&view(), "partitions").dyn_into::<js_sys::Array>().unwrap().length()
}

/// Loading a scenario starts the clock; tests step it by hand.
async fn pause(page: &Page) {
    if page.text("[data-field=clock]") == "playing" {
        page.click("[data-action=play]").await;
    }
    assert_eq!(page.text("[data-field=clock]"), "paused");
}

/// Sets up a built-in experiment from its chapter and stops the clock.
async fn set_up(page: &Page, name: &str) {
    page.open_experiment(name).await;
    pause(page).await;
}

/// The name of the experiment marked "running now", if any.
fn running_experiment(page: &Page) -> Option<String> {
    let marked = page.all(".experiment .running-now");
    assert!(marked.len() <= 1, "{} experiments say they are running", marked.len());
    marked.first().map(|badge| {
        let card = badge.closest(".experiment").unwrap().unwrap();
        card.query_selector("[data-scenario]").unwrap().unwrap().get_attribute("data-scenario").unwrap()
    })
}

fn chips(page: &Page) -> Vec<web_sys::Element> {
    page.all("[data-field=sink-strip] [data-record-id]")
}

#[wasm_bindgen_test]
async fn every_counter_is_there_and_reads_as_a_number() {
    let page = Page::with_seed(1).await;
    for key in COUNTERS {
        let value = page.counter(key);
        let _ = value; // parsing is the check
    }
    // At tick 0 the two consumers are still joining; one tick later they share the three partitions.
    assert_eq!(page.counter("active-consumers"), view_number(&["metrics", "active_consumers"]) as u64);
    page.step(1).await;
    assert_eq!(page.counter("active-consumers"), 2);
    assert_eq!(page.counter("generation"), 1);
    assert_eq!(page.counter("delivered"), 0);
    assert!(chips(&page).is_empty());
}

#[wasm_bindgen_test]
async fn handled_records_appear_in_the_strip_in_order() {
    let page = Page::with_seed(1).await;
    page.click("[data-action=send-10]").await;
    page.step(8).await;
    let delivered = page.counter("delivered");
    assert!(delivered > 0, "nothing handled after 8 ticks");
    assert_eq!(page.counter("effects"), delivered);
    let chips = chips(&page);
    assert_eq!(chips.len() as u64, delivered.min(48));
    for chip in &chips {
        let id = chip.get_attribute("data-record-id").unwrap();
        assert!(id.parse::<u64>().is_ok(), "record id {id:?}");
        let label = chip.get_attribute("aria-label").unwrap();
        assert!(label.starts_with("user-") && label.contains(" offset "), "{label}");
        assert!(!chip.matches(".duplicate").unwrap());
    }
    // Newest first (the strip lays them right to left): the ticks they were handled at never go up.
    let ticks: Vec<u64> = chips
        .iter()
        .map(|chip| {
            let label = chip.get_attribute("aria-label").unwrap();
            let tail = label.rsplit("at tick ").next().unwrap();
            tail.split(',').next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(ticks.windows(2).all(|w| w[0] >= w[1]), "{ticks:?}");
    assert!(*ticks.first().unwrap() <= view_number(&["tick"]) as u64);
}

#[wasm_bindgen_test]
async fn crashing_after_handling_before_committing_repeats_records() {
    let page = Page::with_seed(1).await;
    set_up(&page, "crash-commit-after").await;
    assert_eq!(running_experiment(&page).as_deref(), Some("crash-commit-after"));
    assert_eq!(page.counter("duplicates"), 0);
    page.step(30).await;
    assert!(page.counter("duplicates") > 0, "no duplicates after the successor took over");
    assert_eq!(page.counter("never-processed"), 0);
    let duplicate = page.find("[data-field=sink-strip] .duplicate");
    assert!(duplicate.get_attribute("aria-label").unwrap().contains("dup"));
    assert_eq!(
        page.counter("delivered"),
        page.counter("effects"),
        "without an idempotent application every delivery has an effect"
    );
}

#[wasm_bindgen_test]
async fn committing_before_handling_skips_records() {
    let page = Page::with_seed(1).await;
    set_up(&page, "crash-commit-before").await;
    page.step(30).await;
    assert!(page.counter("never-processed") > 0);
    assert_eq!(page.counter("duplicates"), 0);
}

#[wasm_bindgen_test]
async fn an_idempotent_application_turns_duplicates_into_no_effect() {
    let page = Page::with_seed(1).await;
    set_up(&page, "idempotent-absorbs-duplicates").await;
    page.step(30).await;
    let duplicates = page.counter("duplicates");
    assert!(duplicates > 0);
    assert_eq!(page.counter("effects"), page.counter("delivered") - duplicates);
    let faded = page.find("[data-field=sink-strip] .no-effect");
    assert!(faded.get_attribute("aria-label").unwrap().contains("no effect"));
}

#[wasm_bindgen_test]
async fn the_announcer_reports_a_crash() {
    let page = Page::with_seed(1).await;
    page.step(2).await;
    let before = page.text("[data-field=announcer]");
    let region = page.find("[data-field=announcer]");
    assert_eq!(region.get_attribute("aria-live").as_deref(), Some("polite"));
    page.click("[data-consumer=c1] [data-action=crash]").await;
    let after = page.text("[data-field=announcer]");
    assert_ne!(after, before);
    assert!(after.starts_with("c1 crashed"), "{after}");
    // The feed shows it first, with its tick.
    let newest = page.text(".announcer-feed li");
    assert!(newest.starts_with("tick 2") && newest.contains("c1 crashed"), "{newest}");
}

#[wasm_bindgen_test]
async fn the_announcer_reports_a_scenarios_crash_and_the_rebalance() {
    let page = Page::with_seed(1).await;
    set_up(&page, "crash-commit-after").await;
    assert!(page.text("[data-field=announcer]").starts_with("Loaded crash-commit-after."));
    let mut heard = Vec::new();
    for _ in 0..30 {
        page.step(1).await;
        let text = page.text("[data-field=announcer]");
        if heard.last() != Some(&text) {
            heard.push(text);
        }
    }
    assert!(heard.iter().any(|t| t.starts_with("c1 crashed")), "{heard:?}");
    assert!(heard.iter().any(|t| t.starts_with("Generation ")), "{heard:?}");
    assert!(page.all(".announcer-feed li").len() <= 8);
}

#[wasm_bindgen_test]
async fn the_quiz_says_why_and_shows_it() {
    let page = Page::with_seed(1).await;
    let q0 = "[data-question=\"0\"]";
    assert!(page.find(q0).query_selector("[data-action=show-me]").unwrap().is_none());
    page.click(&format!("{q0} [data-choice=\"0\"]")).await;
    assert!(page.text(&format!("{q0} [data-field=feedback]")).starts_with("Not quite"));
    let pressed =
        |c: usize| page.find(&format!("{q0} [data-choice=\"{c}\"]")).get_attribute("aria-pressed").unwrap();
    assert_eq!(pressed(0), "true");
    page.click(&format!("{q0} [data-choice=\"1\"]")).await;
    assert!(page.text(&format!("{q0} [data-field=feedback]")).starts_with("Correct"));
    assert_eq!((pressed(0).as_str(), pressed(1).as_str()), ("false", "true"));
    page.click(&format!("{q0} [data-action=show-me]")).await;
    pause(&page).await;
    assert_eq!(partition_count(), 6);
    assert_eq!(running_experiment(&page).as_deref(), Some("spare-consumers"));
    // Answers survive loading a scenario.
    assert!(page.text(&format!("{q0} [data-field=feedback]")).starts_with("Correct"));

    let q1 = "[data-question=\"1\"]";
    page.click(&format!("{q1} [data-choice=\"0\"]")).await;
    assert!(page.text(&format!("{q1} [data-field=feedback]")).starts_with("Not quite"));
    page.click(&format!("{q1} [data-choice=\"2\"]")).await;
    let feedback = page.text(&format!("{q1} [data-field=feedback]"));
    assert!(feedback.starts_with("Correct") && feedback.contains("same key"), "{feedback}");
    page.click(&format!("{q1} [data-action=show-me]")).await;
    pause(&page).await;
    assert_eq!(running_experiment(&page).as_deref(), Some("no-keys-reorder"));
}

#[wasm_bindgen_test]
async fn each_rule_shows_its_scenario() {
    let page = Page::with_seed(99).await;
    let buttons = page.all("[data-action=rule-show-me]");
    assert_eq!(buttons.len(), 4);
    // (running experiment, the scenario's own seed)
    let expected = [
        (Some("two-groups"), 5.0),
        (Some("no-keys-reorder"), 7.0),
        (Some("spare-consumers"), 3.0),
        (Some("crash-commit-after"), 4.0),
    ];
    for (i, (name, seed)) in expected.into_iter().enumerate() {
        page.click(&format!(".rule[data-rule=\"{}\"] [data-action=rule-show-me]", i + 1)).await;
        pause(&page).await;
        assert_eq!(running_experiment(&page).as_deref(), name, "rule {}", i + 1);
        assert_eq!(view_number(&["seed"]), seed, "rule {}", i + 1);
    }
}

#[wasm_bindgen_test]
async fn chapters_tell_every_built_in_but_the_starting_point_once() {
    let page = Page::with_seed(1).await;
    // A card's set-up button for the featured ones, a link for the others.
    let mut names: Vec<String> = page
        .all(".chapters [data-scenario]")
        .iter()
        .map(|b| b.get_attribute("data-scenario").unwrap())
        .collect();
    names.extend(
        page.all(".chapters .more-links [data-jump]").iter().map(|a| a.get_attribute("data-jump").unwrap()),
    );
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "one set-up button or link per experiment: {names:?}");
    let mut expected: Vec<String> =
        offsetlab_engine::builtins().into_iter().map(|s| s.name).filter(|n| n != "default").collect();
    expected.sort();
    assert_eq!(sorted, expected);
    // Chapters in the story's order, each with an anchor of its own.
    let ids: Vec<String> = page.all(".chapter").iter().map(|c| c.id()).collect();
    assert_eq!(
        ids,
        [
            "log-and-keys",
            "groups",
            "delivery",
            "rebalances",
            "clocks",
            "offset-storage",
            "operations",
            "failures",
            "kafka4-groups",
            "written",
            "exactly-once"
        ]
    );
    for id in &ids {
        page.find(&format!(".chapter-nav a[href=\"#{id}\"]"));
    }
    assert_eq!(running_experiment(&page), None);
    let crash = page.find("#x-crash-commit-after");
    assert!(crash.closest("#delivery").unwrap().is_some(), "experiment 4 is told with the commits");
    assert!(crash.matches(".featured").unwrap());
    assert!(crash.text_content().unwrap().contains("Watch:"));
    set_up(&page, "spare-consumers").await;
    page.step(1).await;
    assert_eq!(partition_count(), 6);
    assert_eq!(page.counter("active-consumers"), 6);
    assert_eq!(running_experiment(&page).as_deref(), Some("spare-consumers"));
    // The running experiment's check is in one place, the guide beside the simulation; its
    // chapter block points there.
    assert_eq!(page.all("[data-field=outcome]").len(), 1, "one live check");
    assert_eq!(page.all("#x-spare-consumers a[href=\"#explanation\"]").len(), 1);
}

#[wasm_bindgen_test]
async fn the_index_lists_every_experiment_filters_and_loads() {
    let page = Page::with_seed(1).await;
    let lines = page.all("#experiments [data-jump]");
    assert_eq!(lines.len(), offsetlab_engine::builtins().len() - 1);
    assert_eq!(page.text("[data-field=index-count]"), format!("{} experiments", lines.len()));
    page.set_value("[data-field=index-filter]", "crash commit").await;
    let shown: Vec<String> =
        page.all("#experiments [data-jump]").iter().map(|a| a.get_attribute("data-jump").unwrap()).collect();
    assert!(shown.contains(&"crash-commit-after".to_string()), "{shown:?}");
    assert!(!shown.contains(&"keys-keep-order".to_string()), "{shown:?}");
    assert_eq!(
        page.text("[data-field=index-count]"),
        format!("{} of {} experiments", shown.len(), lines.len())
    );
    // A line points into its chapter and loads the experiment there.
    let line = page.find("#experiments [data-jump=crash-commit-before]");
    assert_eq!(line.get_attribute("href").as_deref(), Some("#x-crash-commit-before"));
    page.click("#experiments [data-jump=crash-commit-before]").await;
    pause(&page).await;
    assert_eq!(running_experiment(&page).as_deref(), Some("crash-commit-before"));
    page.set_value("[data-field=index-filter]", "no such thing").await;
    assert!(page.all("#experiments [data-jump]").is_empty());
    assert!(page.text(".index-empty").contains("no such thing"));
}

#[wasm_bindgen_test]
async fn panels_open_one_at_a_time_and_an_experiment_opens_its_own() {
    let page = Page::with_seed(1).await;
    assert!(page.root.query_selector("[data-open-panel]").unwrap().is_none(), "all closed at first");
    page.click("[data-panel=settings]").await;
    assert_eq!(page.find("[data-open-panel]").get_attribute("data-open-panel").as_deref(), Some("settings"));
    assert_eq!(page.find("[data-panel=settings]").get_attribute("aria-expanded").as_deref(), Some("true"));
    page.click("[data-panel=share]").await;
    assert_eq!(page.all("[data-open-panel]").len(), 1);
    assert!(page.root.query_selector(".share").unwrap().is_some());
    page.click("[data-panel=share]").await;
    assert!(page.root.query_selector("[data-open-panel]").unwrap().is_none(), "a second click closes");
    set_up(&page, "payout-ledger").await;
    assert_eq!(
        page.find("[data-open-panel]").get_attribute("data-open-panel").as_deref(),
        Some("operations")
    );
    set_up(&page, "torn-checkpoint").await;
    assert_eq!(
        page.find("[data-open-panel]").get_attribute("data-open-panel").as_deref(),
        Some("offset-storage")
    );
}

#[wasm_bindgen_test]
async fn the_intro_links_to_the_chapters_and_the_fine_print_names_the_kafka_version() {
    let page = Page::with_seed(1).await;
    assert_eq!(page.text(".intro h1"), "offsetlab");
    let link = page.find(".intro a[href=\"#experiments\"]");
    assert_eq!(link.text_content().unwrap(), "All experiments");
    page.find("#experiments");
    let fine_print = page.text("#fine-print");
    assert!(fine_print.contains("Apache Kafka 4.4.0"), "{fine_print}");
    assert!(fine_print.contains("consumer.pause()"));
    assert!(
        fine_print.contains("auto.offset.reset says; left out, earliest, where Kafka's default is latest"),
        "{fine_print}"
    );
    assert!(
        page.text("#simulation #describe").contains("CURRENT-OFFSET"),
        "the describe table sits with the simulation"
    );
    assert!(
        page.root.query_selector("#groups a[href=\"#describe\"]").unwrap().is_some(),
        "chapter 2 points to it"
    );
    assert!(page.root.query_selector("#delivery [data-field=poll-loop]").unwrap().is_some());
    assert!(page.root.query_selector("#groups [data-question=\"0\"]").unwrap().is_some());
    assert!(page.root.query_selector("#log-and-keys [data-question=\"1\"]").unwrap().is_some());
}

/// Rule 1 on the page: two groups on the same tapes, one committed marker
/// each (named), a column for the second group with its own counters.
#[wasm_bindgen_test]
async fn two_groups_read_the_same_tapes_each_with_its_own_marker() {
    let page = Page::with_seed(1).await;
    page.click(".rule[data-rule=\"1\"] [data-action=rule-show-me]").await;
    pause(&page).await;
    assert_eq!(running_experiment(&page).as_deref(), Some("two-groups"));
    page.step(40).await;
    let audit = page.find(".group-column[data-group=audit]");
    assert!(audit.text_content().unwrap().contains("Consumer group: audit"));
    assert_eq!(page.text(".group-head h2 code"), "demo");
    // audit's one consumer is c3; demo's cards are c1 and c2.
    assert_eq!(page.all(".group-column[data-group=audit] [data-consumer]").len(), 1);
    assert!(page.root.query_selector(".group-column [data-consumer=c3]").unwrap().is_some());
    // Each tape names both groups' committed offsets (when in its window).
    let markers: Vec<String> = page
        .all("[data-partition='1'] [data-marker=committed][data-group]")
        .iter()
        .filter_map(|m| m.get_attribute("data-group"))
        .collect();
    assert_eq!(markers, vec!["demo".to_string(), "audit".to_string()]);
    // audit lags behind demo: its own counters say so.
    let lag = |g: &str| -> u64 {
        page.text(&format!(".group-column[data-group={g}] [data-field=total_lag]")).parse().unwrap()
    };
    assert!(lag("audit") > 0, "audit is behind after 40 ticks");
    let demo_lag = view_number(&["metrics", "total_lag"]);
    assert!((lag("audit") as f64) > demo_lag, "audit {} vs demo {demo_lag}", lag("audit"));
}
