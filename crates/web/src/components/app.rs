//! The page: the state, the clock, the URL, and the sections laid out.

use crate::components::chapters::ExperimentIndexProps;
use crate::components::class_list;
use crate::components::{
    Chapters, ClockBar, CounterSummary, DescribeTableProps, Group, Intro, Panels, PayoutsTopic, ProducerCard,
    Sink, StatusLine, Topic, share,
};
use crate::frames::FrameLoop;
use crate::prerender::Deferred;
use crate::published;
use crate::seed;
use crate::state::{ADVANCE_TICKS_MAX, Action, AppState};
use offsetlab_engine::GroupProtocol;
use std::rc::Rc;
use yew::prelude::*;

/// While playing, the URL follows the run every this many ticks, and at most about once a
/// second at higher speeds: a link that holds an imported scenario is kilobytes long, and
/// `replaceState` with it took 6 ms at 256 partitions, a dropped frame each time.
const URL_EVERY_TICKS: u64 = 30;

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
    /// The query of a shared link to open (`s=…&seed=…&in=…`); a bad one
    /// opens the default scenario with a message that says why.
    #[prop_or_default]
    pub link: Option<AttrValue>,
    /// Just the simulation, with minimal chrome, for an iframe in a docs site.
    #[prop_or_default]
    pub embed: bool,
    /// The cells a tape's box shows, when the page measured it before the app
    /// (the prerendered copy's tapes, `prerender::tape_cells_shown`): the first
    /// render draws the tapes at that width, as it will stay.
    #[prop_or_default]
    pub tape_shown: Option<u64>,
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = {
        let seed = props.seed;
        let notice = props.notice.clone();
        let link = props.link.clone();
        let tape_shown = props.tape_shown;
        use_reducer(move || {
            let notice: Option<Rc<str>> = notice.map(|n| Rc::from(n.as_str()));
            let fallback = |notice| AppState::new(seed.unwrap_or_else(seed::random), notice);
            let state = match link.as_deref().map(AppState::from_link) {
                Some(Ok(Some(state))) => state,
                Some(Err(e)) => fallback(Some(
                    format!("This link could not be opened: {e}. Showing the default scenario instead.")
                        .into(),
                )),
                _ => fallback(notice),
            };
            match tape_shown {
                Some(cells) => Rc::unwrap_or_clone(Rc::new(state).reduce(Action::TapeShown(cells))),
                None => state,
            }
        })
    };

    // The clock: animation frames turn into ticks at the chosen speed while
    // playing. The cleanup (when playing or speed changes, or on unmount)
    // drops the loop, which cancels its frame and frees its closure.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((state.playing, state.ui.speed), move |&(playing, speed)| {
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

    // The URL holds the run: a link to what is on screen. While playing it
    // follows in steps of URL_EVERY_TICKS, or of a second's ticks when faster
    // (browsers throttle replaceState, and a long link costs a frame).
    {
        let write = !props.detached && !props.embed;
        let every_ticks = URL_EVERY_TICKS.max(u64::from(state.ui.speed));
        let bucket = if state.playing { state.tick() / every_ticks } else { state.tick() };
        let key = (
            state.scenario.clone(),
            state.guided,
            state.seed,
            state.input_ticks.clone(),
            state.playing,
            bucket,
        );
        // The link is built when the effect runs, not on every render.
        let run = write.then(|| (*state).clone());
        use_effect_with(key, move |_| {
            if let Some(run) = run {
                if let Err(e) = seed::write_query(&run.link().to_query()) {
                    web_sys::console::error_2(&"offsetlab: cannot write the link into the URL:".into(), &e);
                }
            }
        });
    }

    // What the first screen does without: the built-ins the wasm does not carry
    // (all but the starting point), and, when the wasm is split, the parts below
    // the first screen. Fetched once the page is usable, after its first frame,
    // when the browser is idle, so that they take nothing from the first
    // screen's download.
    {
        let dispatcher = state.dispatcher();
        let (builtins_pending, parts_missing) = (state.ui.builtins_pending, state.ui.parts.is_none());
        use_effect_with((), move |()| {
            if builtins_pending || parts_missing {
                crate::prerender::after_next_frame(move || {
                    if builtins_pending {
                        let dispatcher = dispatcher.clone();
                        wasm_bindgen_futures::spawn_local(async move {
                            let arrived = crate::builtins::load().await.map_err(std::rc::Rc::from);
                            dispatcher.dispatch(Action::BuiltinsArrived(arrived));
                        });
                    }
                    if parts_missing {
                        wasm_bindgen_futures::spawn_local(async move {
                            dispatcher.dispatch(Action::PartsArrived(crate::below::load().await));
                        });
                    }
                });
            }
        });
    }

    // A deep link (`#rebalances`): the chapter exists only once the app has
    // rendered, so jump to it after the first render.
    use_effect_with((), |()| {
        let document = web_sys::window().and_then(|w| w.document());
        let hash =
            document.as_ref().and_then(|d| d.location()).and_then(|l| l.hash().ok()).unwrap_or_default();
        let target = hash.strip_prefix('#').filter(|id| !id.is_empty() && *id != "simulation");
        if let (Some(document), Some(id)) = (document, target) {
            if let Some(element) = document.get_element_by_id(id) {
                element.scroll_into_view();
            }
        }
    });

    // After every render: what is on screen, for the panic hook and window.offsetlab_view().
    {
        let view = state.view.clone();
        use_effect(move || published::publish(view));
    }

    // The callbacks live as long as the app: components whose props hold only
    // them (and a few plain values) skip re-rendering on every tick.
    let (on_action, on_dismiss) = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |()| {
            let on_action = Callback::from(move |action: Action| dispatcher.dispatch(action));
            let on_dismiss = on_action.reform(|()| Action::DismissMessage);
            (on_action, on_dismiss)
        }))
        .clone()
    };
    let state: AppState = (*state).clone();
    let message: Option<AttrValue> = state.message.clone().map(AttrValue::from);
    let embed = props.embed;
    // Embedded: just the simulation, and a way out to the whole page.
    let full = embed.then(|| share::page_url(&state.link().to_query()));
    // Sections that draw the whole state get it with the one callback; the
    // others get only what they draw, and render again only when that changes.
    let share = state.view.groups.first().is_some_and(|g| g.protocol == GroupProtocol::Share);
    let parts = state.ui.parts;
    html! {
        <>
            if !embed {
                <a class="skip-link" href="#simulation">{ "Skip to the simulation" }</a>
            }
            <main class={class_list(&[Some("page"), embed.then_some("embed")])} data-embed={embed.then_some("true")}>
                if !embed {
                    <Intro />
                }
                <div id="simulation" class={class_list(&[Some("simulation"), state.playing_fast().then_some("is-fast")])}
                    tabindex="-1" aria-label="The simulation">
                    <ClockBar state={state.clone()} on_action={on_action.clone()} />
                    <StatusLine {message} {on_dismiss} />
                    <div class="stage">
                        <ProducerCard state={state.clone()} on_action={on_action.clone()} />
                        <Topic state={state.clone()} on_action={on_action.clone()} />
                        <Group state={state.clone()} on_action={on_action.clone()} />
                    </div>
                    // On a narrow screen the counters are far below the tapes: their
                    // key figures stay in view at the bottom while the stage is.
                    <CounterSummary metrics={state.view.metrics.clone()} on_action={on_action.clone()} />
                    <Sink state={state.clone()} on_action={on_action.clone()} />
                    // The output topic's tapes beside the sink, before the words that use them.
                    if let Some(payouts) = &state.payouts {
                        <PayoutsTopic payouts={payouts.clone()} />
                    }
                    // The one place that explains the run, next to it: the running
                    // experiment's story and live check, and what happened, in words.
                    // Below the first screen (at 1440 × 900 it starts at the fold): each
                    // part goes live once the browser is idle after the first frame, its
                    // prerendered copy standing in meanwhile (see `Deferred`).
                    // Their renderers are in the wasm's second part (`crate::below`).
                    <Deferred copy="#explanation" ready={parts.is_some()}>
                        { parts.map(|p| (p.explanation)(&state, &on_action)).unwrap_or_default() }
                    </Deferred>
                    <Deferred copy="#describe" ready={parts.is_some()}>
                        { parts.map(|p| (p.describe)(DescribeTableProps {
                            run: state.run.clone(),
                            share,
                            view: state.ui.describe_view,
                            on_action: on_action.clone(),
                        })).unwrap_or_default() }
                    </Deferred>
                    <Deferred copy="#simulation > .timeline" ready={parts.is_some()}>
                        { parts.map(|p| (p.timeline)(&state, &on_action)).unwrap_or_default() }
                    </Deferred>
                    if let Some(full) = full {
                        <p class="embed-footer">
                            <a data-field="open-full" href={full} target="_blank" rel="noopener">
                                { "Open this run in offsetlab ↗" }
                            </a>
                        </p>
                    } else {
                        <Panels state={state.clone()} on_action={on_action.clone()} />
                    }
                </div>
                // Below the first screen: each chapter (see `Chapters`) and the index go
                // live on their own once the browser is idle, one per idle period.
                if !embed {
                    <div class="explainer">
                        <Chapters state={state.clone()} on_action={on_action.clone()} />
                        <Deferred copy="#experiments" ready={!state.ui.builtins_pending && parts.is_some()}>
                            { parts.map(|p| (p.index)(ExperimentIndexProps {
                                filter: AttrValue::from(state.ui.index_filter.clone()),
                                running: AttrValue::from(state.scenario.name.clone()),
                                on_action: on_action.clone(),
                            })).unwrap_or_default() }
                        </Deferred>
                        <Deferred copy="#fine-print" ready={parts.is_some()}>
                            { parts.map(|p| (p.fine_print)()).unwrap_or_default() }
                        </Deferred>
                    </div>
                }
            </main>
        </>
    }
}
