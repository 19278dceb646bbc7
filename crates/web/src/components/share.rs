//! Share the run: the link that reproduces what is on screen, and the run as
//! scenario JSON (the same format `offsetlab run --scenario FILE` reads), to
//! export or import.

use crate::components::{SectionProps, send};
use crate::state::{Action, AppState, SHRINK_RUNS_PAGE, on_screen, shrink_run};
use offsetlab_engine::{Anomaly, Metric, Metrics, Scenario, ShrinkLimit};
use std::rc::Rc;
use wasm_bindgen::JsCast as _;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The page's address with `query`: what the URL bar holds and what Copy copies.
#[must_use]
pub fn page_url(query: &str) -> String {
    // Natively (the build-time prerender) there is no window: the link stays
    // relative, which the browser resolves against the page's own address.
    let location = cfg!(target_arch = "wasm32").then(web_sys::window).flatten().map(|w| w.location());
    let base = location
        .and_then(|l| Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?)))
        .unwrap_or_default();
    format!("{base}?{query}")
}

/// Reads scenario JSON the user gave; the error names the place.
fn import(text: &str, on_action: &Callback<Action>) {
    match Scenario::parse(text) {
        Ok(scenario) => on_action.emit(Action::Import(Rc::new(scenario))),
        Err(e) => on_action.emit(Action::Notice(format!("Import refused: {e}").into())),
    }
}

/// Copies `text`; the status line says whether it worked.
fn copy(text: String, on_action: Callback<Action>) {
    let Some(clipboard) = web_sys::window().map(|w| w.navigator().clipboard()) else { return };
    let promise = clipboard.write_text(&text);
    wasm_bindgen_futures::spawn_local(async move {
        let done = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        on_action.emit(Action::Notice(
            if done {
                "Copied the link to this moment."
            } else {
                "Copy failed: select the link and copy it."
            }
            .into(),
        ));
    });
}

/// How long one shrink may take in the page, in seconds (it runs on the page's thread). Whole
/// seconds: the page formats no floating-point number (its formatting code weighs kilobytes).
const SHRINK_SECONDS: u32 = 4;

/// The anomaly counters above 0, as the shrinker names them.
fn shown_anomalies(m: &Metrics) -> Vec<(Metric, u64)> {
    Anomaly::ALL
        .into_iter()
        .filter_map(|a| {
            let value = match a {
                Anomaly::Duplicates => m.duplicates,
                Anomaly::NeverProcessed => m.never_processed,
                Anomaly::OutOfKeyOrder => m.out_of_key_order,
                Anomaly::AckedLost => m.acked_lost,
                Anomaly::ProducerDuplicates => m.producer_duplicates,
                Anomaly::ProducerReordered => m.producer_reordered,
                Anomaly::AbortedRead => m.aborted_seen,
                Anomaly::DoubleAppliedOnReplay => m.double_applied_on_replay,
            };
            Some((Metric::named(a.counter())?, value)).filter(|(_, v)| *v > 0)
        })
        .collect()
}

/// Shrinks the run on screen while `counter` stays above 0, bounded in runs and time.
fn shrink_on_click(run: &AppState, counter: Metric, on_action: &Callback<Action>) -> Callback<MouseEvent> {
    let run = run.clone();
    let on_action = on_action.clone();
    Callback::from(move |_: MouseEvent| {
        let scenario = on_screen(run.export(), run.tick());
        let deadline = js_sys::Date::now() + f64::from(SHRINK_SECONDS) * 1000.0;
        let shrunk = shrink_run(&scenario, counter, || js_sys::Date::now() < deadline);
        on_action.emit(Action::Shrunk(Rc::new(shrunk)));
    })
}

/// "The smallest run that still shows this": the shrinker's buttons and what it found.
fn shrink_section(state: &AppState, on_action: &Callback<Action>) -> Html {
    let anomalies = shown_anomalies(&state.view.metrics);
    let found = state.shrunk.as_ref().map(|shrunk| match &shrunk.outcome {
        Ok(r) => {
            let stopped = match r.stopped {
                Some(ShrinkLimit::Runs) => format!(", then stopped at its budget of {SHRINK_RUNS_PAGE} runs"),
                Some(ShrinkLimit::Caller) => format!(", then stopped at its {SHRINK_SECONDS} seconds"),
                None => String::new(),
            };
            html! {
                <div class="shrunk" data-field="shrunk">
                    <p>
                        { format!("Shrunk to {} of {} inputs and {} of {} ticks, with {} still {}. It tried {} runs{stopped}.",
                            r.inputs_after, r.inputs_before, r.ticks_after, r.ticks_before,
                            shrunk.counter.label(), r.value_after, r.runs_tried) }
                    </p>
                    if let Some(query) = &r.query {
                        <a class="shrunk-link" data-field="shrunk-link" href={page_url(query)}
                            target="_blank" rel="noopener">
                            { "Open the shrunk run ↗" }
                        </a>
                        { " · " }
                    } else {
                        <p>{ "The shrunk run does not fit in a link (a link holds at most 64 KiB):                               download its scenario file and import it here, or run it with offsetlab." }</p>
                    }
                    <a class="download" download={format!("{}.json", r.name)}
                        href={format!("data:application/json;charset=utf-8,{}", js_sys::encode_uri_component(&r.json))}>
                        { format!("Download {}.json", r.name) }
                    </a>
                </div>
            }
        }
        Err(why) => html! {
            <p class="shrunk" data-field="shrunk">{ format!("Could not shrink it: {why}.") }</p>
        },
    });
    html! {
        <div class="share-shrink">
            <h3>{ "The smallest run that still shows this" }</h3>
            <p>{ format!("Shrinks the run on screen (its scenario and your inputs, up to tick {}) while a counter \
                stays above 0: inputs removed, numbers lowered, the run cut short. At most {SHRINK_RUNS_PAGE} runs \
                and {SHRINK_SECONDS} seconds; the page waits meanwhile.", state.tick()) }</p>
            if anomalies.is_empty() {
                <p class="shrink-none">{ "No anomaly counter is above 0 at this tick yet." }</p>
            } else {
                <div class="shrink-buttons">
                    { for anomalies.into_iter().map(|(metric, value)| html! {
                        <button type="button" data-action="shrink" data-counter={metric.name()}
                            onclick={shrink_on_click(state, metric, on_action)}>
                            { format!("Shrink: {} ({value})", metric.label()) }
                        </button>
                    }) }
                </div>
            }
            { for found }
        </div>
    }
}

/// The panel. Hookless: the exported JSON lives in the state, and Import reads
/// the text area next to its button.
#[component]
pub fn Share(props: &SectionProps) -> Html {
    let state = &props.state;
    // While playing, the link is built only when copied: not on every tick's render.
    let url = (!state.playing).then(|| page_url(&state.link().to_query()));
    let on_copy = {
        let run = state.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| copy(page_url(&run.link().to_query()), on_action.clone()))
    };
    let on_import = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: MouseEvent| {
            // The text area is in the label just before the button.
            let area = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|button| button.previous_element_sibling())
                .and_then(|label| label.query_selector("textarea").ok().flatten())
                .and_then(|area| area.dyn_into::<HtmlTextAreaElement>().ok());
            if let Some(area) = area {
                import(&area.value(), &on_action);
            }
        })
    };
    let on_file = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
            let on_action = on_action.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                    Ok(text) => import(&text.as_string().unwrap_or_default(), &on_action),
                    Err(_) => {
                        on_action.emit(Action::Notice("Import refused: the file could not be read".into()))
                    }
                }
            });
        })
    };
    html! {
        <section class="share panel" aria-labelledby="share-heading">
            <h2 id="share-heading">{ "Share this run" }</h2>
            <label class="share-link">
                <span>{ "Link to this moment (scenario, seed, your inputs, tick " }{ state.tick() }{ ")" }</span>
                <input type="text" readonly=true data-field="share-link" value={url.unwrap_or_default()}
                    placeholder="Pause to see the link to this moment; Copy link works while playing"
                    onfocus={Callback::from(|e: FocusEvent| {
                        if let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) {
                            input.select();
                        }
                    })} />
            </label>
            <button type="button" data-action="copy-link" onclick={on_copy}>{ "Copy link" }</button>
            { shrink_section(state, &props.on_action) }
            <details class="share-json">
                <summary>{ "Export or import scenario JSON" }</summary>
                <p>{ "The run so far as a scenario: its config, its timeline with your inputs merged in, \
                      and the seed. " }<code>{ "offsetlab run --scenario FILE.json" }</code>{ " replays it." }</p>
                <button type="button" data-action="export" onclick={send(&props.on_action, Action::Export)}>
                    { "Export the run as JSON" }
                </button>
                if let Some((tick, json)) = state.exported.as_ref() {
                    <a class="download" download={format!("{}.json", state.scenario.name)}
                        href={format!("data:application/json;charset=utf-8,{}", js_sys::encode_uri_component(json))}>
                        { "Download " }{ &state.scenario.name }{ ".json (as of tick " }{ *tick }{ ")" }
                    </a>
                    <textarea readonly=true data-field="export-json" rows="8" aria-label="The exported scenario JSON"
                        value={json.to_string()} />
                }
                <label class="share-import">
                    <span>{ "Import: paste scenario JSON" }</span>
                    <textarea data-field="import-json" rows="6" spellcheck="false" />
                </label>
                <button type="button" data-action="import" onclick={on_import}>{ "Import and run" }</button>
                <label class="share-file">
                    <span>{ "or open a file " }</span>
                    <input type="file" accept=".json,application/json" data-field="import-file" onchange={on_file} />
                </label>
            </details>
        </section>
    }
}

/// A build of the page without its `cluster` feature (the one that weighs what the cluster
/// costs) refuses a scenario with brokers or a producer delivery path on import, naming the
/// section and the command that runs it. `cargo xtask test` runs these tests in that build
/// (`--no-default-features`); a native workspace run turns the feature on, hence wasm only.
#[cfg(all(test, target_arch = "wasm32", not(feature = "cluster")))]
mod tests {
    use offsetlab_engine::{Config, Scenario, Sim};
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_page_refuses_a_cluster_and_names_the_command_that_runs_it() {
        for (section, json) in [
            ("config.cluster", r#"{"name": "x", "config": {"cluster": {"brokers": 3}}, "ticks": 10}"#),
            (
                "config.producer.delivery",
                r#"{"name": "x", "config": {"producer": {"delivery": {"acks": "1"}}}, "ticks": 10}"#,
            ),
        ] {
            let error = Scenario::parse(json).expect_err("the page has no cluster").to_string();
            assert!(error.starts_with(&format!("{section}: this build has no ")), "{error}");
            assert!(error.contains("offsetlab run"), "{error}");
        }
        // Built in code rather than read: the Sim refuses it.
        let mut config = Config::default();
        config.producer.delivery = Some(Default::default());
        let error = Sim::new(config).expect_err("the page has no delivery path").to_string();
        assert!(error.contains("producer.delivery") && error.contains("offsetlab run"), "{error}");
    }
}
