//! The page: the state, the timer, and the parts laid out.

use crate::components::{Consumers, Controls, Counters, DescribeTable, RunInfo, StatusLine};
use crate::published;
use crate::seed;
use crate::state::{Action, AppState};
use crate::timer::{Interval, TICK_MS};
use offsetlab_engine::Input;
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

    // The timer: one tick every TICK_MS while playing. The cleanup (when
    // `playing` changes or the app unmounts) drops the Interval, which clears
    // it and then frees its closure.
    {
        let dispatcher = state.dispatcher();
        use_effect_with(state.playing, move |&playing| {
            let interval =
                playing.then(|| Interval::new(TICK_MS, move || dispatcher.dispatch(Action::Tick))).flatten();
            move || drop(interval)
        });
    }

    // After every render: what is on screen, for the panic hook and window.offsetlab_view().
    {
        let view = state.view.clone();
        use_effect(move || published::publish(view));
    }

    let on_input = {
        let dispatcher = state.dispatcher();
        Callback::from(move |input: Input| dispatcher.dispatch(Action::Apply(input)))
    };
    let on_step = {
        let dispatcher = state.dispatcher();
        Callback::from(move |()| dispatcher.dispatch(Action::Tick))
    };
    let on_toggle_play = {
        let dispatcher = state.dispatcher();
        Callback::from(move |()| dispatcher.dispatch(Action::TogglePlay))
    };

    let view = &state.view;
    let message: Option<AttrValue> = state.message.clone().map(AttrValue::from);
    html! {
        <main class="page">
            <header class="page-header">
                <h1>{ "offsetlab" }</h1>
                <p class="tagline">{ "A Kafka consumer group, simulated one tick at a time." }</p>
                <RunInfo
                    tick={view.tick}
                    seed={state.seed}
                    group_state={AttrValue::from(view.group_state.clone())}
                    playing={state.playing}
                />
            </header>
            <Controls
                playing={state.playing}
                keep_sending={view.producer.send_per_tick > 0}
                {on_input}
                {on_step}
                {on_toggle_play}
            />
            <StatusLine {message} />
            <Counters metrics={view.metrics.clone()} />
            <Consumers consumers={Rc::new(view.consumers.clone())} />
            <DescribeTable text={AttrValue::from(state.describe.clone())} />
        </main>
    }
}
