//! The page's components, one per file. Sections take the whole
//! [`AppState`] and report what the user did as an [`Action`] (a domain value:
//! an engine input, a step, a scenario to load); none of them simulates.

use crate::state::{Action, AppState};
use yew::prelude::*;

mod announcer;
mod app;
mod booblik;
mod clock_bar;
mod counters;
mod describe_table;
mod experiments;
mod fine_print;
mod group;
mod guide;
mod intro;
mod operations;
mod poll_loop;
mod producer_card;
pub mod pure;
mod quiz;
mod rules;
mod settings;
pub mod share;
mod sink;
mod status_line;
mod timeline;
mod topic;

pub use announcer::announcer;
pub use app::{App, AppProps};
pub use booblik::booblik;
pub use clock_bar::clock_bar;
pub use counters::{CountersProps, counters_list};
pub use describe_table::{DescribeTable, DescribeTableProps};
pub use experiments::experiments;
pub use fine_print::fine_print;
pub use group::group;
pub use guide::guide;
pub use intro::intro;
pub use operations::operations;
pub use poll_loop::poll_loop;
pub use producer_card::ProducerCard;
pub use quiz::quiz;
pub use rules::rules;
pub use settings::Settings;
pub use sink::sink;
pub use status_line::{StatusLineProps, status_line};
pub use timeline::timeline;
pub use topic::Topic;

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

/// What the sections that do not change with the simulation get: only where
/// to send actions, so they render once instead of on every tick.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ActionProps {
    pub on_action: Callback<Action>,
}

/// The experiments list: which scenario is running.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ExperimentsProps {
    pub running: AttrValue,
    pub on_action: Callback<Action>,
}

/// The quiz: the answers chosen so far.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct QuizProps {
    pub answers: [Option<usize>; 2],
    pub on_action: Callback<Action>,
}

/// What every section gets: the state to draw and where to send actions.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SectionProps {
    pub state: AppState,
    pub on_action: Callback<Action>,
}
