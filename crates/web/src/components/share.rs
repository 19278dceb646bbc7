//! Share the run: the link that reproduces what is on screen, and the run as
//! scenario JSON (the same format `offsetlab run --scenario FILE` reads), to
//! export or import.

use crate::components::{SectionProps, send};
use crate::state::Action;
use offsetlab_engine::Scenario;
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
