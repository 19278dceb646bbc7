//! The page's one piece of state: the engine's [`Sim`] running a scenario,
//! plus what the page adds around it (seed, clock, speed, tape scrolling, the
//! selected record, announcements, quiz answers). Components render
//! [`AppState`]'s fields and dispatch [`Action`]s; every change goes through
//! [`AppState::reduce`].
//!
//! `reduce` only computes: the engine is deterministic and sans-IO, so feeding
//! it inputs and ticks is plain computation. Time comes in as
//! [`Action::Advance`] from the frame-loop effect; the URL and the panic
//! banner are written in effects, never here.
//!
//! The simulation lives in an engine [`History`], which also keeps the inputs
//! applied so far and periodic snapshots: the timeline can show any past tick
//! ([`Action::Seek`]), and an input there forks it.
//!
//! The `History` sits behind `Rc<RefCell<…>>`: it holds up to millions of records,
//! so copying it on every tick (as a plain `Reducible` would) costs megabytes
//! per frame. A new `AppState` is still built for every change, with fresh
//! `Rc`s for everything derived, so equality by pointer tells Yew what changed.

mod action;
mod explaining;
mod run;
mod shrunk;
mod tapes;
mod ui;

use offsetlab_engine::{
    ClusterView, CommitCost, GroupProtocol, History, Input, JournalEntry, Link, LinkScenario, RecordView,
    ReplayError, RestartPreview, Scenario, SplitCheck, View, builtin,
};

pub use action::{Action, Panel, TapeScroll};
pub use explaining::{Asked, Explaining};
pub use run::Run;
pub use shrunk::{SHRINK_RUNS_PAGE, Shrunk, ShrunkRun, on_screen, shrink_run};
pub use tapes::{BridgeTape, LetterTape, PayoutTape, Payouts, ShareLetterTape, Tape, tape_window_start};
use tapes::{last_shown_start, last_window_start, lowest_committed};
pub use ui::Ui;

use std::collections::VecDeque;
use std::rc::Rc;
use yew::Reducible;

thread_local! {
    /// The commit-cost comparison runs three scenarios headless: once per page,
    /// when the table first renders with the built-ins loaded (not in the page's
    /// first render: see `prerender::Deferred`).
    static COMMIT_COST: std::cell::OnceCell<Result<Rc<Vec<CommitCost>>, Rc<str>>> = const { std::cell::OnceCell::new() };
}

/// The built-in scenario the page starts from.
pub const SCENARIO: &str = "default";
/// Speeds the clock offers, in ticks per second; the last is the highest.
pub const SPEEDS: [u32; 7] = [1, 2, 4, 8, 15, 30, 60];
pub const DEFAULT_SPEED: u32 = 4;
/// The highest speed, in ticks per second, at which the page plays its arrival
/// animations (a sink chip's 260 ms, a cell's 160 ms fill). Faster, the next
/// record arrives before they end: each would restart every frame, a new
/// animated layer at every tick, so the page skips them.
pub const ANIMATIONS_SPEED_MAX: u32 = 8;
/// Record cells drawn per tape: the tapes are virtualised, so the page holds
/// only these however long the logs grow.
pub const TAPE_CELLS: u64 = 40;
/// Cells a tape keeps in view before its committed offset when following.
pub const TAPE_LEAD_CELLS: u64 = 4;
/// Cells a tape's box shows until the page measures it (a prerendered page,
/// a test page without styles): about a 1440 px screen's.
pub const TAPE_SHOWN_DEFAULT: u64 = 16;
/// Announcements kept for the live region and the event feed.
pub const ANNOUNCEMENTS_KEPT: usize = 8;
/// Ticks one `Advance` may run (a slow frame does not snowball).
pub const ADVANCE_TICKS_MAX: u32 = 16;

/// The record the user clicked, and what restarting from it would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub partition: u32,
    pub offset: u64,
    pub record: RecordView,
    pub preview: RestartPreview,
}

/// A sentence for the live region and the feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// Increases by one per announcement.
    pub id: u64,
    pub tick: u64,
    pub text: Rc<str>,
}

/// The simulation and everything the page shows about it. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The simulation, and its generation.
    pub run: Run,
    /// The reader's choices and the page's measurements, which a new run keeps.
    pub ui: Ui,
    /// The scenario running (a guided run leaves out its `learner` inputs).
    pub scenario: Rc<Scenario>,
    /// Running as a guided experiment.
    pub guided: bool,
    /// The scenario is an unchanged built-in (a link can name it).
    pub builtin: bool,
    pub seed: u64,
    /// The furthest tick reached; the tick shown is `view.tick`.
    pub head: u64,
    /// Ticks of the inputs applied by hand (the timeline's marks).
    pub input_ticks: Rc<Vec<u64>>,
    /// The guide's outcome message, once the run reproduced it.
    pub outcome: Option<Rc<str>>,
    /// Until then, the first condition still missing ("Duplicates: 0, needs at least 1").
    pub outcome_pending: Option<Rc<str>>,
    pub playing: bool,
    pub view: Rc<View>,
    pub tapes: Rc<Vec<Tape>>,
    /// The payouts topic and its readers, when the run has transactions.
    pub payouts: Option<Rc<Payouts>>,
    /// The brokers and each partition's replicas, when the run has a
    /// cluster or a producer delivery path (the page's `cluster` feature).
    pub cluster: Option<Rc<ClusterView>>,
    /// booblik's split check, now (while the offset-storage panel is open, or
    /// the consumers keep their own positions: the tapes mark their checkpoints).
    pub split: Rc<SplitCheck>,
    /// Where each tape is scrolled (`None`: following); of this run only.
    scroll: Rc<Vec<Option<u64>>>,
    pub selected: Option<Rc<Selection>>,
    /// Newest last.
    pub announcements: Rc<VecDeque<Announcement>>,
    next_announcement: u64,
    /// A refused input or a notice, for the status line.
    pub message: Option<Rc<str>>,
    /// The run as scenario JSON, as of the last export, and its tick.
    pub exported: Option<(u64, Rc<str>)>,
    /// The explanation open in the simulation's explanation place.
    pub explaining: Option<Rc<Explaining>>,
    /// The run's outcome has been explained once (a watched run opens it at its end).
    outcome_explained: bool,
    /// What shrinking this run found, for the share panel.
    pub shrunk: Option<Rc<Shrunk>>,
}

impl PartialEq for AppState {
    /// By the run's generation, the page's choices field by field, and the
    /// identity of what was derived: every change builds new `Rc`s.
    fn eq(&self, other: &Self) -> bool {
        self.run == other.run
            && self.ui == other.ui
            && Rc::ptr_eq(&self.view, &other.view)
            && Rc::ptr_eq(&self.tapes, &other.tapes)
            && Rc::ptr_eq(&self.split, &other.split)
            && Rc::ptr_eq(&self.scroll, &other.scroll)
            && self.payouts.as_ref().map(Rc::as_ptr) == other.payouts.as_ref().map(Rc::as_ptr)
            && self.cluster.as_ref().map(Rc::as_ptr) == other.cluster.as_ref().map(Rc::as_ptr)
            && Rc::ptr_eq(&self.announcements, &other.announcements)
            && Rc::ptr_eq(&self.scenario, &other.scenario)
            && self.selected.as_ref().map(Rc::as_ptr) == other.selected.as_ref().map(Rc::as_ptr)
            && self.playing == other.playing
            && self.message == other.message
            && self.head == other.head
            && self.guided == other.guided
            && Rc::ptr_eq(&self.input_ticks, &other.input_ticks)
            && self.outcome == other.outcome
            && self.outcome_pending == other.outcome_pending
            && self.exported == other.exported
            && self.explaining.as_ref().map(Rc::as_ptr) == other.explaining.as_ref().map(Rc::as_ptr)
            && self.shrunk.as_ref().map(Rc::as_ptr) == other.shrunk.as_ref().map(Rc::as_ptr)
    }
}

impl AppState {
    /// The default scenario with `seed`, at tick 0, playing. `notice` starts
    /// the status line (e.g. why a seed from the URL was not used).
    #[must_use]
    pub fn new(seed: u64, notice: Option<Rc<str>>) -> AppState {
        let scenario = Rc::new(builtin(SCENARIO).expect("the default scenario is built in"));
        // Just read: an unchanged built-in, without reading it again to compare.
        let mut state = AppState::start(scenario, seed, false, Some(true));
        state.message = notice;
        state
    }

    /// `scenario` with `seed` (replacing the scenario's own), at tick 0, with
    /// the timeline's tick-0 inputs applied; `guided` leaves out the learner's.
    /// `builtin`: whether the scenario is an unchanged built-in, when the
    /// caller knows (otherwise it is compared with the built-in of its name).
    ///
    /// # Panics
    /// If the scenario is invalid (built-in ones are tested valid; imported
    /// ones are validated before they get here).
    fn start(scenario: Rc<Scenario>, seed: u64, guided: bool, builtin: Option<bool>) -> AppState {
        let running = if guided { scenario.guided() } else { (*scenario).clone() };
        let history = History::new(running, seed).expect("the scenario is valid");
        AppState::around(scenario, guided, history, builtin)
    }

    /// A recorded run (from a link): the scenario with `seed`, the inputs by
    /// hand at their ticks, shown at `tick`.
    pub fn replay(
        scenario: Rc<Scenario>,
        guided: bool,
        seed: u64,
        inputs: Vec<JournalEntry>,
        tick: u64,
    ) -> Result<AppState, ReplayError> {
        let running = if guided { scenario.guided() } else { (*scenario).clone() };
        let history = History::replay(running, seed, inputs, tick)?;
        let mut state = AppState::around(scenario, guided, history, None);
        state.playing = false;
        state.announce(format!("Opened a shared run at tick {tick}. Press Play to go on from here."));
        Ok(state)
    }

    /// Commit every record, every batch or on a timer, measured side by side
    /// (computed on the first call, then shared); until the built-ins it runs
    /// have loaded, why not.
    ///
    /// # Errors
    /// The built-ins are loading or did not load, or the three runs do not read.
    pub fn commit_cost(&self) -> Result<Rc<Vec<CommitCost>>, Rc<str>> {
        if !offsetlab_engine::builtins_loaded() {
            return Err(Rc::from(if self.ui.builtins_pending {
                "Loading the three runs…"
            } else {
                "The built-in scenarios it runs did not load."
            }));
        }
        COMMIT_COST.with(|cost| {
            cost.get_or_init(|| {
                offsetlab_engine::commit_cost_comparison()
                    .map(Rc::new)
                    .map_err(|e| Rc::from(format!("The three runs did not read: {e}")))
            })
            .clone()
        })
    }

    fn around(scenario: Rc<Scenario>, guided: bool, history: History, builtin: Option<bool>) -> AppState {
        let sim = history.sim();
        let partitions = sim.config().partitions as usize;
        let builtin = builtin
            .unwrap_or_else(|| offsetlab_engine::builtin(&scenario.name).is_ok_and(|b| b == *scenario));
        let mut state = AppState {
            view: Rc::new(sim.view()),
            payouts: None,
            cluster: None,
            split: Rc::new(sim.split_check()),
            seed: history.seed(),
            head: history.head(),
            run: Run::new(history),
            ui: Ui::default(),
            scenario,
            guided,
            builtin,
            input_ticks: Rc::new(Vec::new()),
            outcome: None,
            outcome_pending: None,
            playing: true,
            tapes: Rc::new(Vec::new()),
            scroll: Rc::new(vec![None; partitions]),
            selected: None,
            announcements: Rc::new(VecDeque::new()),
            next_announcement: 0,
            message: None,
            exported: None,
            explaining: None,
            outcome_explained: false,
            shrunk: None,
        };
        state.drain_events();
        state.refresh();
        state
    }

    /// What a shared link holds: `Ok(None)` when the query names no run (a
    /// plain `?seed=N` or nothing), otherwise the run it reproduces or why it cannot.
    pub fn from_link(query: &str) -> Result<Option<AppState>, String> {
        let has_run = query
            .trim_start_matches('?')
            .split('&')
            .filter_map(|pair| pair.split('=').next())
            .any(|key| ["s", "scenario", "j", "in", "h", "t", "g"].contains(&key));
        if !has_run {
            return Ok(None);
        }
        let link = Link::parse_query(query).map_err(|e| e.to_string())?;
        let (scenario, guided) = link.scenario.resolve().map_err(|e| e.to_string())?;
        if link.tick == 0 && link.inputs.is_empty() {
            // A scenario by name (a docs page's embed): it starts, as a loaded experiment does.
            return Ok(Some(AppState::start(Rc::new(scenario), link.seed, guided, None)));
        }
        let inputs = link.inputs.into_iter().map(JournalEntry::from).collect();
        AppState::replay(Rc::new(scenario), guided, link.seed, inputs, link.tick)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// The link that reproduces what is on screen: scenario, seed, the inputs
    /// by hand up to the tick shown (later ones belong to a future the link
    /// does not show), and that tick.
    #[must_use]
    pub fn link(&self) -> Link {
        let scenario = if self.builtin {
            LinkScenario::Builtin { name: self.scenario.name.clone(), guided: self.guided }
        } else {
            let running = if self.guided { self.scenario.guided() } else { (*self.scenario).clone() };
            LinkScenario::Inline(Box::new(running))
        };
        let tick = self.tick();
        let inputs = self
            .run
            .history()
            .journal()
            .iter()
            .take_while(|e| e.tick <= tick)
            .map(|e| (e.tick, e.input.clone()))
            .collect();
        Link { scenario, seed: self.seed, tick, inputs }
    }

    /// The run as the engine records it: the inputs by hand, in order.
    #[must_use]
    pub fn journal(&self) -> Vec<JournalEntry> {
        self.run.history().journal().to_vec()
    }

    /// The run so far as scenario JSON the `offsetlab` command reads.
    #[must_use]
    pub fn export(&self) -> Scenario {
        self.run.history().to_scenario()
    }

    /// The run is an experiment the reader chose (from a chapter or the index,
    /// an import, a link that names one), not the page's default run: only a
    /// chosen experiment's outcome is checked on screen, since the default
    /// run's check would judge free play.
    #[must_use]
    pub fn chosen(&self) -> bool {
        !(self.builtin && self.scenario.name == SCENARIO)
    }

    /// The simulation's current tick.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.view.tick
    }

    /// Playing faster than the arrival animations can show ([`ANIMATIONS_SPEED_MAX`]).
    #[must_use]
    pub fn playing_fast(&self) -> bool {
        self.playing && self.ui.speed > ANIMATIONS_SPEED_MAX
    }

    /// The highest speed the clock offers.
    #[must_use]
    pub fn max_speed() -> u32 {
        SPEEDS[SPEEDS.len() - 1]
    }

    fn advance(&mut self, ticks: u32) {
        for _ in 0..ticks.min(ADVANCE_TICKS_MAX) {
            if !self.run.history_mut().step() {
                // A run is bounded (SCENARIO_TICKS_MAX): the clock stops there.
                self.playing = false;
                self.message = Some(
                    format!(
                        "The run reached its last tick, {}: start again to go on.",
                        offsetlab_engine::SCENARIO_TICKS_MAX
                    )
                    .into(),
                );
                self.drain_events();
                return;
            }
            self.drain_events();
        }
        if let Some(refusal) = self.run.history().refusal() {
            self.message = Some(format!("The scenario's own input was refused: {refusal}").into());
        }
    }

    fn apply(&mut self, input: Input) {
        let forked = self.view.tick < self.head;
        let result = self.run.history_mut().handle_input(input);
        // The input's own events first: the fork is the newest announcement, the one the live region reads.
        self.drain_events();
        match result {
            Ok(()) => {
                self.message = None;
                if forked {
                    // Its steps were in the future just discarded.
                    self.explaining = None;
                    self.announce(format!(
                        "Changed the past at tick {}: the recorded future after it is discarded.",
                        self.view.tick
                    ));
                }
            }
            Err(e) => self.message = Some(format!("Refused at tick {}: {e}", self.view.tick).into()),
        }
    }

    fn load(&self, scenario: Rc<Scenario>, guided: bool) -> AppState {
        let seed = scenario.config.seed;
        let announcement = match &scenario.guide {
            Some(guide) if guided && !guide.steps.is_empty() => {
                format!("Loaded {} as an experiment. Your turn: {}", scenario.name, guide.steps.join(" "))
            }
            _ => format!("Loaded {}. {}", scenario.name, scenario.watch),
        };
        let panel = Panel::for_scenario(&scenario);
        let mut next = AppState::start(scenario, seed, guided, None);
        self.carry_ui(&mut next);
        next.ui.panel = panel.or(self.ui.panel);
        next.announce(announcement);
        next
    }

    /// The current scenario with one setting changed, started again from
    /// tick 0 with the same seed; or, when the engine refuses it, `next` as it
    /// was with the reason (`refused: reason`) in the status line.
    fn start_changed(
        &self,
        mut next: AppState,
        scenario: Scenario,
        refused: &str,
        setting: &str,
    ) -> Rc<AppState> {
        if let Err(e) = scenario.validate() {
            next.message = Some(format!("{refused}: {e}").into());
            return Rc::new(next);
        }
        let mut next = AppState::start(Rc::new(scenario), self.seed, self.guided, None);
        self.carry_ui(&mut next);
        next.playing = self.playing;
        next.announce(format!("Started {} again with {setting} (seed {}).", self.scenario.name, self.seed));
        next.refresh();
        Rc::new(next)
    }

    /// What a new run keeps of the page around it ([`Ui`]).
    fn carry_ui(&self, next: &mut AppState) {
        next.ui = self.ui.clone();
    }

    fn seek(&mut self, tick: u64) {
        self.playing = false;
        self.run.history_mut().seek(tick);
    }

    /// Turns notable events into announcements; the rest only animate what
    /// the view already shows.
    fn drain_events(&mut self) {
        let mut fresh = Vec::new();
        {
            let mut history = self.run.history_mut();
            while let Some(event) = history.poll_event() {
                if let Some(text) = event.announcement() {
                    fresh.push((event.tick(), text));
                }
            }
        }
        if fresh.is_empty() {
            return;
        }
        let mut announcements = (*self.announcements).clone();
        for (tick, text) in fresh {
            announcements.push_back(Announcement { id: self.next_announcement, tick, text: text.into() });
            self.next_announcement += 1;
            if announcements.len() > ANNOUNCEMENTS_KEPT {
                announcements.pop_front();
            }
        }
        self.announcements = Rc::new(announcements);
    }

    fn announce(&mut self, text: String) {
        let mut announcements = (*self.announcements).clone();
        announcements.push_back(Announcement {
            id: self.next_announcement,
            tick: self.tick(),
            text: text.into(),
        });
        self.next_announcement += 1;
        if announcements.len() > ANNOUNCEMENTS_KEPT {
            announcements.pop_front();
        }
        self.announcements = Rc::new(announcements);
    }

    /// Recomputes what the page shows from the simulation.
    fn refresh(&mut self) {
        let history = self.run.history();
        let sim = history.sim();
        let view = sim.view();
        self.head = history.head();
        if self.input_ticks.len() != history.journal().len()
            || self.input_ticks.last() != history.journal().last().map(|e| &e.tick)
        {
            self.input_ticks = Rc::new(history.journal().iter().map(|e| e.tick).collect());
        }
        if self.scroll.len() < view.partitions.len() {
            // The topic grew: new tapes start following.
            let mut scroll = (*self.scroll).clone();
            scroll.resize(view.partitions.len(), None);
            self.scroll = Rc::new(scroll);
        }
        let share = view.groups.first().is_some_and(|g| g.protocol == GroupProtocol::Share);
        let tapes = view
            .partitions
            .iter()
            .map(|p| {
                let scroll = self.scroll.get(p.partition as usize).copied().flatten();
                // With several groups, following keeps the furthest behind in the box too.
                let behind = view
                    .groups
                    .iter()
                    .filter_map(|g| g.committed.get(p.partition as usize).copied().flatten())
                    .min();
                let from = tape_window_start(p, scroll, share, self.ui.tape_shown, behind);
                let records = sim.records(p.partition, from, TAPE_CELLS as u32);
                let shown = records.len() as u64;
                Tape {
                    partition: p.partition,
                    from,
                    records,
                    following: scroll.is_none(),
                    hidden_before: from - p.log_start,
                    hidden_after: p.log_end - (from + shown),
                    newer_than_shown: p.log_end.saturating_sub(from + self.ui.tape_shown),
                }
            })
            .collect();
        self.selected = self.selected.as_ref().and_then(|s| {
            let record = sim.records(s.partition, s.offset, 1).into_iter().next()?;
            let preview = sim.restart_preview(s.partition, s.offset)?;
            Some(Rc::new(Selection { partition: s.partition, offset: s.offset, record, preview }))
        });
        self.payouts = sim.transactions_view().map(|view| {
            let tapes = view
                .payouts
                .iter()
                .map(|p| {
                    let from = last_window_start(p.log_start, p.log_end);
                    PayoutTape {
                        partition: p.partition,
                        records: sim.payout_records(p.partition, from, TAPE_CELLS as u32),
                        hidden_before: from - p.log_start,
                        last_stable_offset: p.last_stable_offset,
                        log_end: p.log_end,
                    }
                })
                .collect();
            Rc::new(Payouts { tapes, view })
        });
        #[cfg(feature = "cluster")]
        {
            self.cluster = sim.cluster_view().map(Rc::new);
        }
        // What only one section draws (a panel's charts, the describe tables) that
        // section computes from the run while it is open and on screen
        // (`components::shown`). The split check stays here: the tapes mark each
        // stored checkpoint with it when consumers keep their own.
        if self.ui.panel == Some(Panel::OffsetStorage)
            || matches!(view.settings.position, offsetlab_engine::PositionModel::Consumer { .. })
        {
            self.split = Rc::new(sim.split_check());
        }
        let evaluated = self.scenario.guide.as_ref().map(|g| g.outcome.evaluate(sim));
        if evaluated.as_ref().and_then(|r| r.as_ref().ok()).map(String::as_str) != self.outcome.as_deref() {
            self.outcome = evaluated.as_ref().and_then(|r| r.as_ref().ok()).map(|m| Rc::from(m.as_str()));
        }
        self.outcome_pending = evaluated.and_then(Result::err).map(Rc::from);
        self.tapes = Rc::new(tapes);
        self.view = Rc::new(view);
    }

    /// The anomaly the running experiment's outcome is about: its first
    /// condition's counter, in its group, when that counter is an anomaly.
    #[must_use]
    pub fn outcome_anomaly(&self) -> Option<Asked> {
        let condition = self.scenario.guide.as_ref()?.outcome.when.first()?;
        let anomaly = offsetlab_engine::Anomaly::from_counter(condition.metric.name())?;
        let group = match &condition.group {
            Some(name) => self.scenario.config.groups.iter().position(|g| &g.name == name)?,
            None => 0,
        };
        Some(Asked::Counter { group: u32::try_from(group).ok()?, anomaly })
    }

    fn explain(&mut self, asked: Option<Asked>, by_reader: bool) {
        self.explaining = asked.map(|asked| {
            let history = self.run.history();
            Rc::new(Explaining::ask(history.sim(), asked, by_reader))
        });
    }

    /// A step shown: the run at its tick, and the record or commit it names in its tape's window.
    fn show_step(&mut self, tick: u64, part: offsetlab_engine::Part) {
        let Some(explaining) = self.explaining.as_ref() else { return };
        let mut shown = (**explaining).clone();
        shown.step = Some((tick, part));
        self.explaining = Some(Rc::new(shown));
        self.seek(tick);
        if let offsetlab_engine::Part::Record { partition, offset }
        | offsetlab_engine::Part::Commit { partition, offset } = part
        {
            let lead = TAPE_LEAD_CELLS.min(self.ui.tape_shown / 4);
            let mut all = (*self.scroll).clone();
            if let Some(slot) = all.get_mut(partition as usize) {
                *slot = Some(offset.saturating_sub(lead));
            }
            self.scroll = Rc::new(all);
        }
    }

    /// Back where the reader asked: that tick, the tapes following, nothing highlighted.
    fn back_from_step(&mut self) {
        let Some(explaining) = self.explaining.as_ref() else { return };
        let tick = explaining.tick;
        let mut shown = (**explaining).clone();
        shown.step = None;
        self.explaining = Some(Rc::new(shown));
        self.seek(tick);
        self.scroll = Rc::new(vec![None; self.scroll.len()]);
    }

    fn select(&mut self, target: Option<(u32, u64)>) {
        self.selected = target.and_then(|(partition, offset)| {
            let history = self.run.history();
            let sim = history.sim();
            let record = sim.records(partition, offset, 1).into_iter().next()?;
            let preview = sim.restart_preview(partition, offset)?;
            Some(Rc::new(Selection { partition, offset, record, preview }))
        });
    }

    /// A letter's source record: selected, and its tape's window moved to it.
    fn show_source(&mut self, partition: u32, offset: u64) {
        self.select(Some((partition, offset)));
        if self.selected.is_none() {
            return;
        }
        let lead = TAPE_LEAD_CELLS.min(self.ui.tape_shown / 4);
        let mut all = (*self.scroll).clone();
        if let Some(slot) = all.get_mut(partition as usize) {
            *slot = Some(offset.saturating_sub(lead));
        }
        self.scroll = Rc::new(all);
    }

    fn scroll_tape(&mut self, partition: u32, scroll: TapeScroll) {
        let Some(p) = self.view.partitions.get(partition as usize) else { return };
        let share = self.view.groups.first().is_some_and(|g| g.protocol == GroupProtocol::Share);
        let shown = self.ui.tape_shown;
        let behind = lowest_committed(&self.view, partition);
        let current = tape_window_start(
            p,
            self.scroll.get(partition as usize).copied().flatten(),
            share,
            shown,
            behind,
        );
        let half = TAPE_CELLS / 2;
        let next = match scroll {
            TapeScroll::Follow => None,
            TapeScroll::Older => Some(current.saturating_sub(half).max(p.log_start)),
            TapeScroll::Newer => {
                // Towards the log end; once the window is where following puts it, follow.
                let to = (current + half).min(last_shown_start(p.log_start, p.log_end, shown));
                (to != tape_window_start(p, None, share, shown, behind)).then_some(to)
            }
        };
        let mut all = (*self.scroll).clone();
        if let Some(slot) = all.get_mut(partition as usize) {
            *slot = next;
        }
        self.scroll = Rc::new(all);
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Advance(ticks) => {
                if !self.playing || ticks == 0 {
                    return self;
                }
                next.advance(ticks);
            }
            Action::Step => {
                next.playing = false;
                next.advance(1);
            }
            Action::StepBack => next.seek(self.tick().saturating_sub(1)),
            Action::Seek(tick) => next.seek(tick),
            Action::Apply(input) => next.apply(input),
            Action::SetPlaying(playing) => {
                if playing == self.playing {
                    return self;
                }
                next.playing = playing;
                return Rc::new(next);
            }
            Action::SetSpeed(speed) => {
                next.ui.speed = if SPEEDS.contains(&speed) { speed } else { DEFAULT_SPEED };
                return Rc::new(next);
            }
            Action::Load(scenario) => next = self.load(scenario, false),
            Action::Protocol(protocol) => {
                let mut scenario = (*self.scenario).clone();
                scenario.config.groups[0].protocol = protocol;
                let setting = format!("group.protocol={}", protocol.name());
                return self.start_changed(next, scenario, protocol.name(), &setting);
            }
            #[cfg(feature = "cluster")]
            Action::Delivery { acks, idempotence } => {
                let mut scenario = (*self.scenario).clone();
                let mut delivery = scenario.config.producer.delivery.unwrap_or_default();
                delivery.acks = acks;
                delivery.enable_idempotence = idempotence;
                scenario.config.producer.delivery = Some(delivery);
                let setting = format!(
                    "acks={}, enable.idempotence={}",
                    acks.name(),
                    idempotence.map_or("default", |on| if on { "true" } else { "false" })
                );
                return self.start_changed(next, scenario, &setting, &setting);
            }
            Action::Guide(scenario) => next = self.load(scenario, true),
            Action::BuiltinsArrived(arrived) => {
                next.ui.builtins_pending = false;
                if let Err(why) = arrived {
                    next.message = Some(format!("The built-in experiments could not load: {why}").into());
                }
                return Rc::new(next);
            }
            Action::PartsArrived(arrived) => {
                match arrived {
                    Ok(parts) => next.ui.parts = Some(parts),
                    Err(why) => {
                        next.message = Some(
                            format!(
                                "The rest of the page (the chapters, the explanation, the timeline and the \
                                 panels) could not load: {why}. The simulation still runs; reload the page to \
                                 try again."
                            )
                            .into(),
                        );
                        next.ui.parts_failed = Some(why);
                    }
                }
                return Rc::new(next);
            }
            Action::Restart => {
                next = AppState::start(self.scenario.clone(), self.seed, self.guided, Some(self.builtin));
                self.carry_ui(&mut next);
                next.playing = self.playing;
                next.announce(format!(
                    "Started {} again from tick 0 (seed {}).",
                    self.scenario.name, self.seed
                ));
            }
            Action::Reseed(seed) => {
                next = AppState::start(self.scenario.clone(), seed, self.guided, Some(self.builtin));
                self.carry_ui(&mut next);
                next.playing = self.playing;
                next.announce(format!("Started {} with seed {seed}.", self.scenario.name));
            }
            Action::ScrollTape { partition, scroll } => next.scroll_tape(partition, scroll),
            Action::TapeShown(cells) => {
                let cells = cells.clamp(1, TAPE_CELLS);
                if cells == self.ui.tape_shown {
                    return self;
                }
                next.ui.tape_shown = cells;
            }
            Action::Select(target) => next.select(target),
            Action::ShowSource { partition, offset } => next.show_source(partition, offset),
            Action::Explain(asked) => {
                next.explain(asked, true);
                return Rc::new(next);
            }
            Action::ExplainOutcome => {
                let asked = self.outcome_anomaly();
                if asked.is_none() {
                    return self;
                }
                next.outcome_explained = true;
                next.explain(asked, true);
                return Rc::new(next);
            }
            Action::ShowStep { tick, part } => next.show_step(tick, part),
            Action::BackFromStep => next.back_from_step(),
            Action::Shrunk(shrunk) => {
                next.shrunk = Some(shrunk);
                return Rc::new(next);
            }
            Action::Answer { question, choice } => {
                if let Some(slot) = next.ui.quiz.get_mut(question) {
                    *slot = Some(choice);
                }
                return Rc::new(next);
            }
            Action::Import(scenario) => {
                let name = scenario.name.clone();
                next = self.load(scenario, false);
                next.message = Some(format!("Imported {name}.").into());
            }
            Action::Export => {
                next.exported = Some((self.tick(), self.export().to_json().into()));
                return Rc::new(next);
            }
            Action::Notice(text) => {
                next.message = Some(text);
                return Rc::new(next);
            }
            Action::DismissMessage => {
                next.message = None;
                return Rc::new(next);
            }
            // Opening the offset-storage panel computes the split check (see `refresh`).
            Action::ShowPanel(panel) => next.ui.panel = panel,
            Action::FilterIndex(filter) => {
                next.ui.index_filter = filter;
                return Rc::new(next);
            }
            Action::Describe(view, verbose) => {
                next.ui.describe_view = (view, verbose);
                return Rc::new(next);
            }
        }
        next.refresh();
        // A watched experiment ends by explaining its outcome: the story, then its evidence.
        if next.outcome.is_some() && !next.outcome_explained && !next.guided && next.chosen() {
            next.outcome_explained = true;
            if next.explaining.is_none() {
                let asked = next.outcome_anomaly();
                next.explain(asked, false);
            }
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::{ConsumerId, DescribeView, ResetSpec, describe, describe_members, describe_state};

    fn run(state: AppState, actions: impl IntoIterator<Item = Action>) -> Rc<AppState> {
        actions.into_iter().fold(Rc::new(state), Reducible::reduce)
    }

    /// Starting an experiment opens the panel that holds the control its
    /// guide tells the reader to press, whatever chapter it belongs to.
    #[test]
    fn an_experiment_opens_the_panel_its_steps_need() {
        let panel = |name: &str| Panel::for_scenario(&offsetlab_engine::builtin(name).expect("built-in"));
        assert_eq!(panel("partitions-added-latest-skips"), Some(Panel::Operations), "Add a partition");
        assert_eq!(panel("rolling-update"), Some(Panel::Operations), "Rolling update");
        assert_eq!(panel("partition-growth"), Some(Panel::Operations));
        assert_eq!(panel("slow-handler-poll-timeout"), None, "its step is in the settings it names");
        assert_eq!(panel("consumer-checkpoint"), Some(Panel::OffsetStorage));
    }

    /// The run's generation moves with the run and only with it: a section that
    /// takes the run (a describe table, a panel's chart) computes again after a
    /// tick or an input, not after the reader's choices around it.
    #[test]
    fn the_runs_generation_moves_with_the_run_only() {
        let state = run(AppState::new(1, None), [Action::Apply(Input::Send { count: 20 }), Action::Step]);
        let chosen = run(
            Rc::unwrap_or_clone(state.clone()),
            [
                Action::SetSpeed(60),
                Action::Answer { question: 0, choice: 1 },
                Action::FilterIndex(Rc::from("lag")),
                Action::TapeShown(9),
                Action::Describe(DescribeView::Members, true),
                Action::ShowPanel(Some(Panel::Operations)),
            ],
        );
        assert_eq!(chosen.run, state.run, "the reader's choices leave the run's generation alone");
        assert_ne!(*chosen, *state, "but the page sees them");
        assert_eq!(chosen.ui.speed, 60);
        assert_eq!(chosen.ui.tape_shown, 9);
        let ticked = run(Rc::unwrap_or_clone(chosen.clone()), [Action::Step]);
        assert_ne!(ticked.run, chosen.run, "a tick is a new generation");
        let applied = run(Rc::unwrap_or_clone(ticked.clone()), [Action::Apply(Input::Send { count: 1 })]);
        assert_ne!(applied.run, ticked.run, "so is an input");
        let restarted = run(Rc::unwrap_or_clone(applied.clone()), [Action::Restart]);
        assert_ne!(restarted.run, applied.run);
        assert_eq!(restarted.ui, applied.ui, "a new run keeps the reader's choices");
        // What a panel draws comes from the run it is given.
        assert_eq!(ticked.run.lag_history().len(), 3, "one history per partition");
        assert!(!ticked.run.lag_history()[0].is_empty());
    }

    #[test]
    fn starts_at_tick_zero_with_the_scenarios_first_inputs() {
        let state = AppState::new(42, None);
        assert_eq!(state.tick(), 0);
        assert_eq!(state.seed, 42);
        assert_eq!(state.view.seed, 42);
        assert!(state.playing);
        // default.json sends 6 records at tick 0.
        assert_eq!(state.view.metrics.produced, 6);
        assert_eq!(state.message, None);
        assert_eq!(state.tapes.len(), 3);
    }

    #[test]
    fn the_describe_view_follows_the_run_and_outlives_a_restart() {
        let consumer = builtin("consumer-protocol-scale-out").unwrap();
        let state = run(
            AppState::new(7, None),
            [
                Action::Load(Rc::new(consumer.clone())),
                Action::Describe(DescribeView::Members, true),
                Action::Advance(16),
            ],
        );
        let headless = consumer.run(None, Some(16)).unwrap();
        let describe = |state: &AppState| {
            let (view, verbose) = state.ui.describe_view;
            state.run.describe(view, verbose)
        };
        assert_eq!(&*describe(&state), describe_members(&headless, 0, true));
        assert!(describe(&state).contains("TARGET-ASSIGNMENT"), "{}", describe(&state));
        let restarted = run((*state).clone(), [Action::Restart, Action::Describe(DescribeView::State, true)]);
        assert_eq!(restarted.ui.describe_view, (DescribeView::State, true));
        assert_eq!(&*describe(&restarted), describe_state(&consumer.run(None, Some(0)).unwrap(), 0, true));
        let back = run((*restarted).clone(), [Action::Restart]);
        assert!(describe(&back).contains("GROUP-EPOCH"), "a restart keeps the view: {}", describe(&back));
    }

    #[test]
    fn advancing_matches_a_headless_run() {
        let state = run(AppState::new(7, None), std::iter::repeat_n(Action::Advance(3), 10));
        assert_eq!(state.tick(), 30);
        let scenario = builtin(SCENARIO).unwrap();
        let headless = scenario.run(Some(7), Some(30)).unwrap();
        assert_eq!(*state.view, headless.view());
        assert_eq!(&*state.run.describe(DescribeView::Offsets, false), describe(&headless));
    }

    #[test]
    fn advance_does_nothing_while_paused_and_step_pauses() {
        let state = run(AppState::new(7, None), [Action::SetPlaying(false), Action::Advance(5)]);
        assert_eq!(state.tick(), 0);
        let state = run(AppState::new(7, None), [Action::Step, Action::Step]);
        assert_eq!(state.tick(), 2);
        assert!(!state.playing);
    }

    #[test]
    fn refusals_become_the_message_and_crashes_are_announced() {
        let crash = Action::Apply(Input::Crash { consumer: ConsumerId(1) });
        let state = run(AppState::new(1, None), [Action::Step, crash.clone(), crash]);
        assert_eq!(
            state.message.as_deref(),
            Some("Refused at tick 1: c1 is crashed; this needs it running, paused or stopping")
        );
        let last = state.announcements.back().expect("announced");
        assert!(last.text.starts_with("c1 crashed"), "{last:?}");
    }

    #[test]
    fn tapes_stay_bounded_and_follow_the_log() {
        let state =
            run(AppState::new(1, None), [Action::Apply(Input::Send { count: 500 }), Action::Advance(2)]);
        for tape in state.tapes.iter() {
            assert!(tape.records.len() as u64 <= TAPE_CELLS);
            let p = &state.view.partitions[tape.partition as usize];
            assert_eq!(
                tape.hidden_before + tape.records.len() as u64 + tape.hidden_after,
                p.log_end - p.log_start
            );
            assert!(tape.following);
        }
        let state =
            run(Rc::unwrap_or_clone(state), [Action::ScrollTape { partition: 0, scroll: TapeScroll::Older }]);
        assert!(!state.tapes[0].following || state.tapes[0].hidden_before == 0);
    }

    #[test]
    fn selecting_a_record_previews_a_restart() {
        let state = run(AppState::new(1, None), std::iter::repeat_n(Action::Advance(10), 4));
        let tape = state.tapes.iter().find(|t| !t.records.is_empty()).expect("a tape with records").clone();
        let offset = tape.records[0].offset;
        let state = run(Rc::unwrap_or_clone(state), [Action::Select(Some((tape.partition, offset)))]);
        let selected = state.selected.as_ref().expect("selected");
        assert_eq!(selected.offset, offset);
        assert!(selected.preview.replay > 0, "{selected:?}");
        let state = run(
            Rc::unwrap_or_clone(state),
            [Action::Apply(Input::RestartFrom {
                group: None,
                reset: ResetSpec::Offset { partition: Some(tape.partition), offset },
            })],
        );
        assert!(state.view.restart_pending);
    }

    #[test]
    fn load_starts_a_scenario_with_its_seed() {
        let scenario = Rc::new(builtin("crash-commit-after").unwrap());
        let seed = scenario.config.seed;
        let state =
            run(AppState::new(99, None), [Action::Load(scenario), Action::Advance(16), Action::Advance(16)]);
        assert_eq!(state.seed, seed);
        assert_eq!(state.scenario.name, "crash-commit-after");
        let headless = builtin("crash-commit-after").unwrap().run(None, Some(32)).unwrap();
        assert_eq!(state.view.metrics, headless.metrics());
        assert!(state.view.metrics.duplicates > 0);
    }

    #[test]
    fn a_transactional_run_brings_the_payouts_tapes_and_the_zombie_fenced_on_its_card() {
        let zombie = Rc::new(builtin("eos-zombie-fenced").unwrap());
        let state = run(AppState::new(1, None), [Action::Load(zombie)]);
        assert!(state.payouts.is_some(), "a run with transactions shows payouts");
        let state = run(Rc::unwrap_or_clone(state), std::iter::repeat_n(Action::Advance(10), 5));
        let payouts = state.payouts.as_ref().expect("payouts");
        assert_eq!(payouts.tapes.len(), 2);
        let cells: Vec<_> = payouts.tapes.iter().flat_map(|t| &t.records).collect();
        assert!(
            cells
                .iter()
                .any(|r| matches!(r, offsetlab_engine::PayoutRecordView::Marker { commit: false, .. }))
        );
        assert!(cells.iter().any(|r| {
            matches!(
                r,
                offsetlab_engine::PayoutRecordView::Result { fate: offsetlab_engine::Fate::Aborted, .. }
            )
        }));
        assert_eq!((payouts.view.downstream_duplicates, payouts.view.fenced_writes), (0, 1));
        let c1 = state.view.consumers.iter().find(|c| c.id.0 == 1).expect("c1");
        let t = c1.transaction.as_ref().expect("c1's producer");
        assert!(t.fenced && t.transactional_id == "demo-inst-1", "{t:?}");
        // A run without transactions has none.
        let plain = run(AppState::new(1, None), [Action::Load(Rc::new(builtin("default").unwrap()))]);
        assert!(plain.payouts.is_none());
    }

    #[cfg(feature = "cluster")]
    #[test]
    fn a_cluster_run_brings_the_brokers_the_replicas_and_the_topic_describe() {
        use offsetlab_engine::Acks;
        let crash = Rc::new(builtin("acks1-leader-crash").unwrap());
        let state = run(AppState::new(1, None), [Action::Load(crash)]);
        let cluster = state.cluster.clone().expect("a run with a cluster shows it");
        assert_eq!(cluster.brokers.len(), 3);
        assert_eq!(cluster.partitions[0].leader, Some(1));
        assert!(state.run.topic_describe().as_deref().is_some_and(|t| t.contains("Leader: 1")));
        let state = run(Rc::unwrap_or_clone(state), std::iter::repeat_n(Action::Advance(10), 8));
        let cluster = state.cluster.clone().unwrap();
        assert!(!cluster.brokers[0].alive, "the timeline crashed broker 1");
        assert_eq!(cluster.partitions[0].leader, Some(2));
        assert!(
            state.run.topic_describe().as_deref().is_some_and(|t| t.contains("Leader: 2")),
            "{:?}",
            state.run.topic_describe()
        );
        assert!(state.view.metrics.acked_lost >= 1);
        // The tape ends at the high watermark.
        assert_eq!(state.view.partitions[0].log_end, cluster.partitions[0].high_watermark);

        // A broker input from the strip.
        let state = run(Rc::unwrap_or_clone(state), [Action::Apply(Input::RestartBroker { broker: 1 })]);
        assert!(state.cluster.as_ref().unwrap().brokers[0].alive, "{:?}", state.message);
        let refused = run(Rc::unwrap_or_clone(state), [Action::Apply(Input::RestartBroker { broker: 1 })]);
        assert!(refused.message.is_some(), "restarting a running broker is refused with a reason");

        // The delivery settings start the run again; a combination Kafka refuses is refused, with its reason.
        let bad = run(
            Rc::unwrap_or_clone(refused),
            [Action::Delivery { acks: Acks::One, idempotence: Some(true) }],
        );
        let message = bad.message.as_deref().expect("refused");
        assert!(message.starts_with("acks=1, enable.idempotence=true: "), "{message}");
        assert_eq!(bad.cluster.as_ref().unwrap().acks, Acks::One, "the run is unchanged");
        let all = run(Rc::unwrap_or_clone(bad), [Action::Delivery { acks: Acks::All, idempotence: None }]);
        let cluster = all.cluster.as_ref().unwrap();
        assert_eq!((cluster.acks, cluster.idempotence), (Acks::All, true));
        assert_eq!(all.view.tick, 0, "from tick 0");
        assert_eq!(all.scenario.name, "acks1-leader-crash");

        // A run without a cluster has none.
        let plain = run(AppState::new(1, None), [Action::Load(Rc::new(builtin("default").unwrap()))]);
        assert!(plain.cluster.is_none() && plain.run.topic_describe().is_none());
    }

    #[test]
    fn booblik_scenarios_bring_stats_the_split_check_and_the_far_side() {
        let bridge = Rc::new(builtin("key-erasure-bridge").unwrap());
        let state = run(AppState::new(1, None), [Action::Load(bridge)]);
        let state = run(Rc::unwrap_or_clone(state), std::iter::repeat_n(Action::Advance(10), 4));
        assert_eq!(state.run.bridge_tapes(&state.view).len(), 3);
        assert!(state.run.bridge_tapes(&state.view).iter().any(|t| !t.records.is_empty()));
        assert!(state.run.bridge_tapes(&state.view).iter().flat_map(|t| &t.records).all(|r| r.key.is_none()));
        let torn = Rc::new(builtin("torn-checkpoint").unwrap());
        let state = run(AppState::new(1, None), [Action::Load(torn)]);
        let state = run(Rc::unwrap_or_clone(state), std::iter::repeat_n(Action::Advance(16), 5));
        assert!(!state.split.passed(), "{:?}", state.split);
        assert!(state.run.stats().iter().any(|s| s.resumed_from.is_some_and(|r| r > 0)));
        // The tapes follow the stored checkpoint, as they follow the committed offset.
        for (p, tape) in state.view.partitions.iter().zip(state.tapes.iter()) {
            let held = p.held.expect("each owner has checkpointed");
            assert!(tape.from <= held && held <= tape.from + TAPE_CELLS, "{p:?} {:?}", tape.from);
        }
    }

    /// An explanation is computed when asked, as of that tick; a step shows its tick with its
    /// part highlighted, Back returns, and a fork of the past closes it. A watched experiment
    /// opens its outcome's explanation once it is reproduced.
    #[test]
    fn explanations_are_asked_at_a_tick_and_their_steps_travel() {
        let scenario = Rc::new(builtin("crash-commit-after").unwrap());
        let mut state = run(AppState::new(1, None), [Action::Load(scenario), Action::SetPlaying(false)]);
        while state.outcome.is_none() && state.tick() < 200 {
            state = run(Rc::unwrap_or_clone(state), [Action::Step]);
        }
        let opened = state.explaining.clone().expect("a watched run explains its outcome");
        assert_eq!(opened.asked, Asked::Counter { group: 0, anomaly: offsetlab_engine::Anomaly::Duplicates });
        assert!(!opened.by_reader);
        let report = opened.report.as_ref().expect("a counter's report");
        assert_eq!(report.counted, state.view.metrics.duplicates);
        assert_eq!(report.causes.iter().map(|(_, n)| n).sum::<u64>() + report.unexplained, report.counted);

        let dup = *state.view.recent.iter().find(|r| r.duplicate).expect("a duplicate chip");
        let asked = Asked::Record { group: Some(0), partition: dup.partition, offset: dup.offset };
        let state = run(Rc::unwrap_or_clone(state), [Action::Explain(Some(asked))]);
        let at = state.tick();
        let explaining = state.explaining.clone().expect("open");
        assert_eq!((explaining.asked, explaining.tick, explaining.by_reader), (asked, at, true));
        let first = explaining.explanations.first().expect("explained");
        assert_eq!(first.anomaly, offsetlab_engine::Anomaly::Duplicates);
        let step = first.steps.first().expect("a chain").clone();
        let state = run(Rc::unwrap_or_clone(state), [Action::ShowStep { tick: step.tick, part: step.part }]);
        assert_eq!(state.tick(), step.tick);
        assert_eq!(state.explaining.as_ref().unwrap().highlighted(), Some(step.part));
        assert_eq!(state.explaining.as_ref().unwrap().explanations, explaining.explanations, "kept as asked");
        let state = run(Rc::unwrap_or_clone(state), [Action::BackFromStep]);
        assert_eq!(state.tick(), at);
        assert_eq!(state.explaining.as_ref().unwrap().highlighted(), None);
        // An input in the past forks the run: the chain's future is gone, so is the explanation.
        let state = run(Rc::unwrap_or_clone(state), [Action::ShowStep { tick: step.tick, part: step.part }]);
        let state = run(Rc::unwrap_or_clone(state), [Action::Apply(Input::Send { count: 1 })]);
        assert!(state.explaining.is_none());
        let state = run(Rc::unwrap_or_clone(state), [Action::ExplainOutcome, Action::Explain(None)]);
        assert!(state.explaining.is_none());
    }

    /// Shrinking the run on screen gives a smaller run, as a link the page opens, that still shows it.
    #[test]
    fn the_run_on_screen_shrinks_to_a_link_that_still_shows_it() {
        let scenario = Rc::new(builtin("crash-commit-after").unwrap());
        let mut state = run(AppState::new(1, None), [Action::Load(scenario), Action::SetPlaying(false)]);
        while state.view.metrics.duplicates == 0 && state.tick() < 200 {
            state = run(Rc::unwrap_or_clone(state), [Action::Step]);
        }
        let metric = offsetlab_engine::Metric::Duplicates;
        let shrunk = shrink_run(&on_screen(state.export(), state.tick()), metric, || true);
        let found = shrunk.outcome.expect("shrunk");
        assert!(found.runs_tried <= SHRINK_RUNS_PAGE);
        assert!(found.ticks_after <= state.tick() && found.value_after > 0, "{found:?}");
        let opened = AppState::from_link(found.query.as_deref().expect("fits a link")).unwrap().unwrap();
        assert!(opened.view.metrics.duplicates > 0);
        assert_eq!(opened.tick(), found.ticks_after);
    }

    #[test]
    fn quiz_answers_are_kept() {
        let state = run(AppState::new(1, None), [Action::Answer { question: 1, choice: 2 }]);
        assert_eq!(state.ui.quiz, [None, Some(2)]);
    }

    #[test]
    fn the_timeline_goes_back_exactly_and_an_input_there_forks() {
        let state = run(AppState::new(7, None), std::iter::repeat_n(Action::Advance(10), 12));
        assert_eq!((state.tick(), state.head), (120, 120));
        let at_head = state.view.clone();
        let crash = Action::Apply(Input::Crash { consumer: ConsumerId(2) });
        let state = run(Rc::unwrap_or_clone(state), [Action::Seek(40)]);
        assert_eq!((state.tick(), state.head), (40, 120));
        assert!(!state.playing, "seeking pauses");
        let headless = builtin(SCENARIO).unwrap().run(Some(7), Some(40)).unwrap();
        assert_eq!(*state.view, headless.view());
        let state = run(Rc::unwrap_or_clone(state), [Action::StepBack, Action::Step, Action::Step]);
        assert_eq!((state.tick(), state.head), (41, 120));
        let state = run(Rc::unwrap_or_clone(state), [Action::Seek(500)]);
        assert_eq!(*state.view, *at_head, "the recorded future is shown again");
        let state = run(Rc::unwrap_or_clone(state), [Action::Seek(40), crash]);
        assert_eq!((state.tick(), state.head), (40, 40), "the input forked the timeline");
        assert_eq!(*state.input_ticks, [40]);
        let newest = &state.announcements.back().expect("announced").text;
        assert!(newest.starts_with("Changed the past at tick 40"), "{newest}");
    }

    #[test]
    fn a_guided_experiment_leaves_the_step_to_the_learner_and_checks_the_outcome() {
        let scenario = Rc::new(builtin("crash-commit-after").unwrap());
        let state = run(AppState::new(1, None), [Action::Guide(scenario.clone())]);
        assert!(state.guided);
        let state = run(Rc::unwrap_or_clone(state), std::iter::repeat_n(Action::Advance(16), 4));
        assert_eq!(state.outcome, None, "nothing crashed by itself");
        let state =
            run(AppState::new(1, None), [Action::Guide(scenario.clone()), Action::Step, Action::Step]);
        let state = run(
            Rc::unwrap_or_clone(state),
            [Action::Step, Action::Apply(Input::Crash { consumer: ConsumerId(1) })],
        );
        let state = run(Rc::unwrap_or_clone(state), std::iter::repeat_n(Action::Step, 40));
        let outcome = state.outcome.as_deref().expect("reproduced by hand");
        assert!(outcome.starts_with(&format!("{} duplicates: ", state.view.metrics.duplicates)), "{outcome}");
        let full = run(AppState::new(1, None), [Action::Load(scenario)]);
        assert!(!full.guided);
    }

    #[test]
    fn a_recorded_run_replays_to_the_same_state() {
        let state = run(
            AppState::new(3, None),
            [
                Action::Advance(5),
                Action::Apply(Input::Send { count: 4 }),
                Action::Advance(9),
                Action::Apply(Input::Stop { consumer: ConsumerId(1) }),
                Action::Advance(16),
            ],
        );
        let again =
            AppState::replay(state.scenario.clone(), false, 3, state.journal(), state.tick()).unwrap();
        assert_eq!(*again.view, *state.view);
        assert_eq!(
            again.run.describe(DescribeView::Offsets, false),
            state.run.describe(DescribeView::Offsets, false)
        );
        let exported = state.export();
        assert_eq!(exported.timeline.len(), state.scenario.timeline.len() + 2);
    }

    #[test]
    fn a_link_reproduces_the_run_and_a_bad_one_says_why() {
        let state = run(
            AppState::new(11, None),
            [
                Action::Advance(7),
                Action::Apply(Input::Send { count: 3 }),
                Action::Advance(12),
                Action::Apply(Input::Crash { consumer: ConsumerId(2) }),
                Action::Advance(16),
                Action::Seek(30),
            ],
        );
        let query = state.link().to_query();
        let opened = AppState::from_link(&query).unwrap().expect("a run");
        assert_eq!(*opened.view, *state.view);
        assert_eq!(opened.tick(), 30);
        assert_eq!(opened.seed, 11);
        assert!(!opened.playing);
        let tampered = query.replace("seed=11", "seed=12");
        let error = AppState::from_link(&tampered).expect_err("refused");
        assert!(error.contains("changed or cut short"), "{error}");
        assert_eq!(AppState::from_link("seed=5").unwrap(), None, "a plain seed is not a run");
        let error = AppState::from_link("scenario=nope").unwrap_err();
        assert!(error.contains("nope"), "{error}");
        let embed = AppState::from_link("?embed=1&scenario=keys-keep-order").unwrap().unwrap();
        assert_eq!(embed.scenario.name, "keys-keep-order");
    }

    #[test]
    fn an_imported_scenario_travels_inline_in_the_link() {
        let mut scenario = builtin("default").unwrap();
        scenario.name = "my-own".into();
        scenario.config.partitions = 5;
        let state = run(AppState::new(1, None), [Action::Import(Rc::new(scenario)), Action::Advance(9)]);
        assert!(!state.builtin);
        let opened = AppState::from_link(&state.link().to_query()).unwrap().unwrap();
        assert_eq!(opened.scenario.name, "my-own");
        assert_eq!(*opened.view, *state.view);
    }
}
