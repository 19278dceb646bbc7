//! The page's components: `#[component]` functions, one per file. Sections
//! take the whole [`AppState`] ([`SectionProps`]); pieces below them, and the
//! sections that do not change with the simulation, take only what they draw,
//! so Yew skips them while their props are equal. All report what the user did
//! as an [`Action`] (a domain value: an engine input, a step, a scenario to
//! load); none of them simulates.

use crate::state::{Action, AppState};
use yew::prelude::*;

mod announcer;
mod app;
mod booblik;
#[cfg(feature = "cluster")]
mod brokers;
pub mod chapters;
mod clock_bar;
mod counter_summary;
mod counters;
mod describe_table;
mod explanation;
mod fine_print;
mod group;
mod guide;
mod intro;
mod operations;
mod panels;
mod payouts;
mod poll_loop;
mod producer_card;
mod scroll_window;
mod settings;
pub mod share;
mod shown;
mod sink;
mod status_line;
mod timeline;
mod topic;

pub use announcer::Announcer;
pub use app::{App, AppProps};
pub use booblik::Booblik;
#[cfg(feature = "cluster")]
pub use brokers::{Brokers, BrokersProps};
pub use chapters::{CHAPTERS, Chapters, ExperimentIndex, RULES, chapter_of};
pub use clock_bar::ClockBar;
pub use counter_summary::CounterSummary;
pub use counters::{Counters, CountersProps};
pub use describe_table::{DescribeTable, DescribeTableProps};
pub use explanation::{ExplanationPanel, ExplanationProps};
pub use fine_print::FinePrint;
pub use group::{Group, policy_text};
pub use guide::Guide;
pub use intro::Intro;
pub use operations::Operations;
pub use panels::Panels;
pub use payouts::{PayoutsProps, PayoutsTopic};
pub use poll_loop::PollLoop;
pub use producer_card::ProducerCard;
pub use settings::Settings;
pub use share::Share;
pub use sink::Sink;
pub use status_line::{StatusLine, StatusLineProps};
pub use timeline::Timeline;
pub use topic::{Topic, tape_cells_shown};

/// A callback that sends `action` on any event: one closure type for every
/// control whose action does not depend on the event (each distinct closure
/// type costs wasm).
pub fn send<E: 'static>(on_action: &Callback<Action>, action: Action) -> Callback<E> {
    let on_action = on_action.clone();
    Callback::from(move |_: E| on_action.emit(action.clone()))
}

/// A class attribute from its parts, the absent ones left out; none at all when
/// every part is absent. What `classes!` gives for distinct one-word parts, in
/// one function instead of a set built at every call site.
#[must_use]
#[inline(never)]
pub fn class_list(parts: &[Option<&str>]) -> Option<AttrValue> {
    let mut out = String::new();
    for part in parts.iter().flatten() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    (!out.is_empty()).then(|| AttrValue::from(out))
}

/// A built-in scenario by its name, parsed on its first use and then kept for
/// the page (components ask for them on every render of a chapter). One at a
/// time: a chapter that goes live reads only its own experiments, not all of them.
#[must_use]
pub fn builtin(name: &str) -> Option<std::rc::Rc<offsetlab_engine::Scenario>> {
    use std::cell::RefCell;
    use std::rc::Rc;
    thread_local! {
        static PARSED: RefCell<Vec<Rc<offsetlab_engine::Scenario>>> = const { RefCell::new(Vec::new()) };
    }
    PARSED.with(|parsed| {
        if let Some(found) = parsed.borrow().iter().find(|s| s.name == name) {
            return Some(found.clone());
        }
        // By its current name only (an old name reads the scenario under its new one).
        let scenario = Rc::new(offsetlab_engine::builtin(name).ok().filter(|s| s.name == name)?);
        parsed.borrow_mut().push(scenario.clone());
        Some(scenario)
    })
}

/// Bring the simulation into view and move the focus there, after a control
/// far below it started a run. A no-op outside a browser.
pub fn show_simulation() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    // The stage at the top, under the clock bar (its scroll-margin): the tapes, the
    // counters and the running experiment's check then share the first screen.
    if let Ok(Some(stage)) = document.query_selector("#simulation .stage") {
        stage.scroll_into_view();
    }
    if let Some(simulation) = document.get_element_by_id("simulation") {
        if let Ok(simulation) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(simulation) {
            // Focus without scrolling again: the keyboard goes on from the simulation.
            let options = web_sys::FocusOptions::new();
            options.set_prevent_scroll(true);
            let _ = simulation.focus_with_options(&options);
        }
    }
}

/// What every section gets: the state to draw and where to send actions.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SectionProps {
    pub state: AppState,
    pub on_action: Callback<Action>,
}
