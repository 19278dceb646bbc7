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
mod quiz;
mod rules;
mod scroll_window;
mod settings;
pub mod share;
mod sink;
mod status_line;
mod timeline;
mod topic;

pub use announcer::Announcer;
pub use app::{App, AppProps};
pub use booblik::Booblik;
pub use clock_bar::ClockBar;
pub use counters::{Counters, CountersProps};
pub use describe_table::{DescribeTable, DescribeTableProps};
pub use experiments::{Experiments, ExperimentsProps};
pub use fine_print::FinePrint;
pub use group::Group;
pub use guide::Guide;
pub use intro::Intro;
pub use operations::Operations;
pub use poll_loop::PollLoop;
pub use producer_card::ProducerCard;
pub use quiz::{Quiz, QuizProps};
pub use rules::{Rules, RulesProps};
pub use settings::Settings;
pub use share::Share;
pub use sink::Sink;
pub use status_line::{StatusLine, StatusLineProps};
pub use timeline::Timeline;
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

/// What every section gets: the state to draw and where to send actions.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SectionProps {
    pub state: AppState,
    pub on_action: Callback<Action>,
}
