//! The page's one piece of state: the engine's [`Sim`] running the default
//! scenario, plus what the page adds around it (seed, play/pause, the last
//! message). Components render [`AppState`]'s fields and dispatch [`Action`]s;
//! every change goes through [`AppState::reduce`].
//!
//! `reduce` only computes: the engine is deterministic and sans-IO, so feeding
//! it inputs and ticks is plain computation. Publishing the state to the
//! browser (panic hook, `window.offsetlab_view`) happens in an effect after
//! the render, never here.

use offsetlab_engine::{Input, Scenario, Sim, TimedInput, View, builtin, describe};
use std::rc::Rc;
use yew::Reducible;

/// The built-in scenario the page starts from.
pub const SCENARIO: &str = "default";

/// What the page can do to the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Advance the simulation by one tick (the timer, or "Step one tick").
    Tick,
    /// Feed one input to the simulation at the current tick.
    Apply(Input),
    /// Start or stop the timer.
    TogglePlay,
}

/// The simulation and everything the page shows about it.
#[derive(Debug, Clone)]
pub struct AppState {
    sim: Sim,
    /// The scenario's timeline; `next_timed` is the first input not yet applied.
    timeline: Rc<[TimedInput]>,
    next_timed: usize,
    /// The seed the run was created with (also `view.seed`).
    pub seed: u64,
    /// Whether the timer advances the simulation.
    pub playing: bool,
    /// The last message for the status line: a refused input, a notice.
    pub message: Option<Rc<str>>,
    /// The engine's plain-data view at the current tick.
    pub view: Rc<View>,
    /// `kafka-consumer-groups --describe --group demo` at the current tick.
    pub describe: Rc<str>,
}

impl AppState {
    /// The default scenario with `seed`, at tick 0 with the scenario's tick-0
    /// inputs applied, playing. `notice` starts the status line (e.g. why a
    /// seed from the URL was not used).
    #[must_use]
    pub fn new(seed: u64, notice: Option<Rc<str>>) -> AppState {
        let scenario = builtin(SCENARIO).expect("the default scenario is built in");
        AppState::from_scenario(&scenario, seed, notice)
    }

    /// `scenario` with `seed` (replacing the scenario's own), at tick 0.
    ///
    /// # Panics
    /// If the scenario's config is invalid (built-in ones are valid, tested in the engine).
    #[must_use]
    pub fn from_scenario(scenario: &Scenario, seed: u64, notice: Option<Rc<str>>) -> AppState {
        let mut config = scenario.config.clone();
        config.seed = seed;
        let sim = Sim::new(config).expect("the scenario's config is valid");
        let mut state = AppState {
            view: Rc::new(sim.view()),
            describe: describe(&sim).into(),
            sim,
            timeline: scenario.timeline.clone().into(),
            next_timed: 0,
            seed,
            playing: true,
            message: notice,
        };
        state.apply_timeline();
        state.refresh();
        state
    }

    /// The simulation's current tick.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.sim.now()
    }

    /// Applies the timeline's inputs for the current tick (before the step to the next).
    fn apply_timeline(&mut self) {
        let now = self.sim.now();
        while let Some(timed) = self.timeline.get(self.next_timed).filter(|t| t.tick <= now) {
            let input = timed.input.clone();
            let tick = timed.tick;
            self.next_timed += 1;
            if let Err(e) = self.sim.handle_input(input) {
                self.message = Some(format!("The scenario's input at tick {tick} was refused: {e}").into());
            }
            self.drain_events();
        }
    }

    fn step(&mut self) {
        let next = self.sim.now() + 1;
        self.sim.handle_tick(next);
        self.drain_events();
        self.apply_timeline();
    }

    fn apply(&mut self, input: Input) {
        let now = self.sim.now();
        match self.sim.handle_input(input) {
            Ok(()) => self.message = None,
            Err(e) => self.message = Some(format!("Refused at tick {now}: {e}").into()),
        }
        self.drain_events();
    }

    /// The page does not use events yet; draining keeps the engine's queue small.
    fn drain_events(&mut self) {
        while self.sim.poll_event().is_some() {}
    }

    /// Recomputes what the page shows from the simulation.
    fn refresh(&mut self) {
        self.view = Rc::new(self.sim.view());
        self.describe = describe(&self.sim).into();
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = Rc::unwrap_or_clone(self);
        match action {
            Action::Tick => {
                next.step();
                next.refresh();
            }
            Action::Apply(input) => {
                next.apply(input);
                next.refresh();
            }
            Action::TogglePlay => next.playing = !next.playing,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::ConsumerId;

    fn run(state: AppState, actions: impl IntoIterator<Item = Action>) -> Rc<AppState> {
        actions.into_iter().fold(Rc::new(state), Reducible::reduce)
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
    }

    #[test]
    fn ticks_advance_one_at_a_time_and_match_a_headless_run() {
        let state = run(AppState::new(7, None), std::iter::repeat_n(Action::Tick, 30));
        assert_eq!(state.tick(), 30);
        let scenario = builtin(SCENARIO).unwrap();
        let headless = scenario.run(Some(7), Some(30)).unwrap();
        assert_eq!(*state.view, headless.view());
        assert_eq!(&*state.describe, describe(&headless));
        assert!(state.describe.contains("CONSUMER-ID"));
    }

    #[test]
    fn inputs_apply_and_refusals_become_the_message() {
        let crash = Action::Apply(Input::Crash { consumer: ConsumerId(1) });
        let state = run(
            AppState::new(1, None),
            [Action::Tick, Action::Apply(Input::Send { count: 10 }), crash.clone()],
        );
        assert_eq!(state.view.metrics.produced, 16);
        assert_eq!(state.message, None);
        assert_eq!(state.view.consumers[0].state.label(), "crashed");
        let state = run(Rc::unwrap_or_clone(state), [crash]);
        let message = state.message.as_deref().unwrap();
        assert_eq!(message, "Refused at tick 1: c1 is crashed; this needs it running, paused or stopping");
        // The next accepted input clears it.
        let state = run(Rc::unwrap_or_clone(state), [Action::Apply(Input::KeepSending { per_tick: 1 })]);
        assert_eq!(state.message, None);
        assert_eq!(state.view.producer.send_per_tick, 1);
    }

    #[test]
    fn toggle_play_changes_only_the_flag() {
        let before = AppState::new(3, Some("hello".into()));
        let tick = before.tick();
        let state = run(before, [Action::TogglePlay]);
        assert!(!state.playing);
        assert_eq!(state.tick(), tick);
        assert_eq!(state.message.as_deref(), Some("hello"));
        assert!(run(Rc::unwrap_or_clone(state), [Action::TogglePlay]).playing);
    }
}
