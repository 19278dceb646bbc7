//! What the page can do to the state ([`Action`]), and the page's own choices it names:
//! where a tape is scrolled, which panel is open.

use super::explaining::Asked;
use super::shrunk::Shrunk;
use offsetlab_engine::{DescribeView, GroupProtocol, Input, Part, Scenario};
use std::rc::Rc;

/// Where a tape's window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapeScroll {
    /// Follow the committed offset and the log end.
    Follow,
    /// Half a window towards older records.
    Older,
    /// Half a window towards newer records (back to following at the end).
    Newer,
}

/// What the page can do to the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The clock: advance by this many ticks (1 ..= [`ADVANCE_TICKS_MAX`]).
    Advance(u32),
    /// One tick forward (pauses the clock): along the recorded future when in the past.
    Step,
    /// One tick back (pauses the clock).
    StepBack,
    /// Show this past tick (pauses the clock); clamped to the furthest tick reached.
    Seek(u64),
    /// Feed one input to the simulation at the current tick.
    Apply(Input),
    SetPlaying(bool),
    /// Ticks per second; one of [`SPEEDS`].
    SetSpeed(u32),
    /// Start a scenario from tick 0 with its own seed: the whole scripted run.
    Load(Rc<Scenario>),
    /// Start a built-in as a guided experiment: without the steps the learner does by hand.
    Guide(Rc<Scenario>),
    /// Start the current scenario again from tick 0 with the same seed.
    Restart,
    /// The fetch of the built-ins the wasm does not carry ended: how many it
    /// gave, or why it failed (`crate::builtins::load`).
    BuiltinsArrived(Result<usize, Rc<str>>),
    /// The fetch of the parts below the first screen ended: them, or why
    /// they did not load (`crate::below::load`).
    PartsArrived(Result<crate::below::Parts, Rc<str>>),
    /// Start the current scenario again from tick 0 with another seed.
    Reseed(u64),
    ScrollTape {
        partition: u32,
        scroll: TapeScroll,
    },
    /// How many cells a tape's box shows (measured when it changes size): a
    /// following tape starts its window so that they hold its cursor, its
    /// committed offset and, when they fit, its log end.
    TapeShown(u64),
    /// Explain a record or a counter as of now (or close the explanation).
    Explain(Option<Asked>),
    /// Explain the running experiment's outcome: the counter its guide checks.
    ExplainOutcome,
    /// Show one step of the explanation: the run at its tick, its part highlighted.
    ShowStep {
        tick: u64,
        part: Part,
    },
    /// Back to the tick the explanation was asked at, nothing highlighted.
    BackFromStep,
    /// What shrinking the run on screen found (run by the share panel, bounded).
    Shrunk(Rc<Shrunk>),
    /// Select a record on a tape (or clear the selection).
    Select(Option<(u32, u64)>),
    /// A dead letter's source record (its `kafka_dlt-original-partition` and
    /// `-offset` headers): selected, and its tape's window moved to it.
    ShowSource {
        partition: u32,
        offset: u64,
    },
    /// A quiz answer: question index, choice index.
    Answer {
        question: usize,
        choice: usize,
    },
    /// Start a scenario the user imported (already validated).
    Import(Rc<Scenario>),
    /// Write the run so far as scenario JSON, for the share panel to show.
    Export,
    /// A notice for the status line (e.g. why an import was refused).
    Notice(Rc<str>),
    DismissMessage,
    /// Open one of the panels under the simulation, or close them all.
    ShowPanel(Option<Panel>),
    /// What the experiment index is filtered by.
    FilterIndex(Rc<str>),
    /// The describe table's view and `--verbose`.
    Describe(DescribeView, bool),
    /// Start the current scenario again with the first group on this
    /// `group.protocol` (refused, with the engine's reason, if its settings
    /// do not fit: a share group has no static members).
    Protocol(GroupProtocol),
    /// Start the current scenario again with the producer's `acks` and
    /// `enable.idempotence` (`None`: Kafka's default for the acks), refused
    /// with the engine's reason if they do not fit.
    #[cfg(feature = "cluster")]
    Delivery {
        acks: offsetlab_engine::Acks,
        idempotence: Option<bool>,
    },
}

/// The panels under the simulation that a first visit does not need: one at
/// most is open (none at first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Settings,
    OffsetStorage,
    Operations,
    Share,
}

impl Panel {
    pub const ALL: [Panel; 4] = [Panel::Settings, Panel::OffsetStorage, Panel::Operations, Panel::Share];

    /// `data-panel` and the element ids.
    #[must_use]
    pub fn slug(self) -> &'static str {
        match self {
            Panel::Settings => "settings",
            Panel::OffsetStorage => "offset-storage",
            Panel::Operations => "operations",
            Panel::Share => "share",
        }
    }

    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Panel::Settings => "Consumer settings",
            Panel::OffsetStorage => "Offset storage",
            Panel::Operations => "Operations",
            Panel::Share => "Share this run",
        }
    }

    /// The panel a scenario is read in, if any: loading it opens that panel.
    /// A bridge's mirror tapes are in the offset-storage panel whatever its topic.
    #[must_use]
    pub fn for_scenario(scenario: &Scenario) -> Option<Panel> {
        if scenario.config.groups.iter().any(|g| g.bridge) {
            return Some(Panel::OffsetStorage);
        }
        // A guide step whose control lives in the operations panel opens it,
        // whatever the chapter: the reader is told to press it.
        let needs_operations = scenario.timeline.iter().any(|t| {
            t.learner
                && matches!(
                    t.input,
                    Input::AddPartitions { .. }
                        | Input::RollingUpdate { .. }
                        | Input::KillBeforeCommit { .. }
                )
        });
        if needs_operations {
            return Some(Panel::Operations);
        }
        match scenario.guide.as_ref()?.topic {
            offsetlab_engine::Topic::OffsetStorage => Some(Panel::OffsetStorage),
            offsetlab_engine::Topic::Operations => Some(Panel::Operations),
            _ => None,
        }
    }
}
