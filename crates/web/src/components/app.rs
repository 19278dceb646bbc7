//! The page: the state, the clock, the URL, and the sections laid out.

use crate::components::pure::pure;
use crate::components::{
    ActionProps, DescribeTable, Experiments, ProducerCard, QuizProps, SectionProps, Settings,
    StatusLineProps, Topic, announcer, booblik, clock_bar, fine_print, group, intro, operations, poll_loop,
    quiz, rules, sink, status_line,
};
use crate::frames::FrameLoop;
use crate::published;
use crate::seed;
use crate::state::{ADVANCE_TICKS_MAX, Action, AppState};
use std::rc::Rc;
use yew::prelude::*;

/// Both optional: `yew::Renderer::<App>::with_root(root)` runs a random seed.
#[derive(Debug, Clone, Default, PartialEq, Properties)]
pub struct AppProps {
    /// The run's seed; a random one when absent. Read once, at mount.
    #[prop_or_default]
    pub seed: Option<u64>,
    /// A first message for the status line (e.g. why the URL's seed was not used).
    #[prop_or_default]
    pub notice: Option<AttrValue>,
    /// Keep the URL as it is (component tests mount several apps).
    #[prop_or_default]
    pub detached: bool,
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = {
        let seed = props.seed;
        let notice = props.notice.clone();
        use_reducer(move || {
            let notice: Option<Rc<str>> = notice.map(|n| Rc::from(n.as_str()));
            AppState::new(seed.unwrap_or_else(seed::random), notice)
        })
    };

    // The clock: animation frames turn into ticks at the chosen speed while
    // playing. The cleanup (when playing or speed changes, or on unmount)
    // drops the loop, which cancels its frame and frees its closure.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((state.playing, state.speed), move |&(playing, speed)| {
            let frames = playing
                .then(|| {
                    FrameLoop::start(speed, ADVANCE_TICKS_MAX, move |ticks| {
                        dispatcher.dispatch(Action::Advance(ticks));
                    })
                })
                .flatten();
            move || drop(frames)
        });
    }

    // The seed in the URL follows the run (a loaded experiment has its own).
    {
        let detached = props.detached;
        use_effect_with(state.seed, move |&seed| {
            if !detached {
                if let Err(e) = seed::write_to_location(seed) {
                    web_sys::console::error_2(&"offsetlab: cannot write the seed into the URL:".into(), &e);
                }
            }
        });
    }

    // After every render: what is on screen, for the panic hook and window.offsetlab_view().
    {
        let view = state.view.clone();
        use_effect(move || published::publish(view));
    }

    // One callback for the app's lifetime: sections whose props hold only it
    // (and a few plain values) skip re-rendering on every tick.
    let on_action = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |()| Callback::from(move |action: Action| dispatcher.dispatch(action)))).clone()
    };
    let on_dismiss = on_action.reform(|()| Action::DismissMessage);
    let state: AppState = (*state).clone();
    let message: Option<AttrValue> = state.message.clone().map(AttrValue::from);
    // Sections without hooks are plain functions of these (see ARCHITECTURE.md).
    let section = SectionProps { state: state.clone(), on_action: on_action.clone() };
    html! {
        <>
            <a class="skip-link" href="#simulation">{ "Skip to the simulation" }</a>
            <main class="page">
                { pure(intro, ActionProps { on_action: on_action.clone() }) }
                <div id="simulation" class="simulation" tabindex="-1">
                    { clock_bar(&section) }
                    { pure(status_line, StatusLineProps { message, on_dismiss }) }
                    { announcer(&section) }
                    <div class="stage">
                        <ProducerCard state={state.clone()} on_action={on_action.clone()} />
                        <Topic state={state.clone()} on_action={on_action.clone()} />
                        { group(&section) }
                        { sink(&section) }
                        <Settings state={state.clone()} on_action={on_action.clone()} />
                        { booblik(&section) }
                        { operations(&section) }
                    </div>
                </div>
                <div class="explainer">
                    { pure(rules, ActionProps { on_action: on_action.clone() }) }
                    <DescribeTable text={AttrValue::from(state.describe.clone())} />
                    { poll_loop(&section) }
                    <Experiments running={AttrValue::from(state.scenario.name.clone())} on_action={on_action.clone()} />
                    { pure(quiz, QuizProps { answers: state.quiz, on_action: on_action.clone() }) }
                    { pure(fine_print, ActionProps { on_action: on_action.clone() }) }
                </div>
            </main>
        </>
    }
}
