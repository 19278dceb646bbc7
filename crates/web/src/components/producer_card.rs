//! The producer orders-api: send, keep sending, keys, key count, hot key,
//! and booblik's `partitionFor(null)` peek.

mod peek;

use crate::components::SectionProps;
use crate::state::Action;
use offsetlab_engine::Input;
use peek::Peek;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Rates "Keep sending" offers, in records per tick.
const RATES: std::ops::RangeInclusive<u32> = 1..=10;
/// "Keep sending"'s rate until the reader picks one, in records per tick. Two a
/// tick is more than c1, the owner of two of the default run's three
/// partitions, handles (one a tick): its partitions fall behind while c2's
/// keeps up, so with keys off a user's later record on c2's partition
/// overtakes an earlier one within about 20 ticks (seed 003's first
/// experiment, as its words say). At one a tick both keep up and nothing overtakes.
const DEFAULT_RATE: u32 = 2;
/// The key count input's range on the page (the engine takes more).
const KEYS_MIN: u32 = 1;
const KEYS_MAX: u32 = 24;
/// "Send failing": the attempts its handler fails before it succeeds.
const FAILING_ATTEMPTS: u32 = 2;
/// The hot key share's range on the page, in percent.
const HOT_MAX: u8 = 90;

#[component]
pub fn ProducerCard(props: &SectionProps) -> Html {
    let producer = &props.state.view.producer;
    let sending = producer.send_per_tick > 0;
    // The rate picked while the producer is idle; while sending, the
    // simulation's own rate is shown and changed.
    let idle_rate = use_state(|| DEFAULT_RATE);
    let rate = if sending { producer.send_per_tick } else { *idle_rate };

    let on_keep_sending = {
        let on_action = props.on_action.clone();
        let idle_rate = idle_rate.clone();
        Callback::from(move |_: MouseEvent| {
            // Turning it off keeps the rate for the next time.
            idle_rate.set(rate);
            let per_tick = if sending { 0 } else { rate };
            on_action.emit(Action::Apply(Input::KeepSending { per_tick }));
        })
    };
    let on_rate = {
        let on_action = props.on_action.clone();
        let idle_rate = idle_rate.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let Ok(per_tick) = select.value().parse::<u32>() else { return };
            idle_rate.set(per_tick);
            if sending {
                on_action.emit(Action::Apply(Input::KeepSending { per_tick }));
            }
        })
    };
    let send = |count: u32| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(Action::Apply(Input::Send { count })))
    };
    let on_use_keys = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            on_action.emit(Action::Apply(Input::UseKeys { on: input.checked() }));
        })
    };
    let keys_max = KEYS_MAX.max(producer.key_count);
    let on_key_count = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(keys) = input.value().trim().parse::<u32>() {
                if (KEYS_MIN..=keys_max).contains(&keys) {
                    on_action.emit(Action::Apply(Input::KeyCount { keys }));
                }
            }
        })
    };
    let hot_max = HOT_MAX.max(producer.hot_key_share_percent);
    let on_hot_key = {
        let on_action = props.on_action.clone();
        let current = producer.hot_key_share_percent;
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(share_percent) = input.value().parse::<u8>() {
                if share_percent <= hot_max && share_percent != current {
                    on_action.emit(Action::Apply(Input::HotKey { share_percent }));
                }
            }
        })
    };

    // A scenario may send faster than the list offers: show its rate too.
    let rate_options: Vec<u32> = RATES.chain((!RATES.contains(&rate)).then_some(rate)).collect();
    html! {
        <section class={crate::components::class_list(&[Some("producer_card panel"),
            (props.state.explaining.as_ref().and_then(|e| e.highlighted()) == Some(offsetlab_engine::Part::Producer)).then_some("explained")])}
            aria-labelledby="producer-title">
            <h2 id="producer-title">{ "Producer " }<span class="producer-name">{ "orders-api" }</span></h2>
            <div class="producer-row">
                <button type="button" data-action="keep-sending" aria-pressed={sending.to_string()}
                    onclick={on_keep_sending}>
                    { "Keep sending" }
                </button>
                <label class="producer-rate">
                    <span class="visually-hidden">{ "Records per tick while keeping sending" }</span>
                    <select data-field="send-rate" onchange={on_rate}>
                        { for rate_options.iter().map(|&r| html! {
                            <option value={r.to_string()} selected={r == rate}>{ format!("{r} / tick") }</option>
                        }) }
                    </select>
                </label>
            </div>
            <p class="producer-status" data-field="send-status">
                { if sending { format!("sending {rate} per tick") } else { "idle".to_owned() } }
            </p>
            <div class="producer-row">
                <button type="button" data-action="send-1" onclick={send(1)}>{ "Send 1" }</button>
                <button type="button" data-action="send-10" onclick={send(10)}>{ "Send 10" }</button>
                <button type="button" data-action="send-poison"
                    title="One record every handler fails on, at every delivery"
                    onclick={crate::components::send(&props.on_action, Action::Apply(Input::SendPoison {}))}>
                    { "Send poison" }
                </button>
            </div>
            <p class="producer-sent" data-field="produced">{ format!("sent {}", props.state.view.metrics.produced) }</p>
            <label class="producer-check">
                <input type="checkbox" data-field="use-keys" checked={producer.use_keys} onchange={on_use_keys} />
                { " Use keys" }
            </label>
            // Opens over the page, never pushing the tapes or the counters down.
            <details class="producer-more">
            <summary>{ "Keys and partitioner" }</summary>
            <div class="producer-more-body">
            <label class="producer-field">
                <span>{ "Keys (user-0 …)" }</span>
                <input type="number" data-field="key-count" inputmode="numeric"
                    min={KEYS_MIN.to_string()} max={keys_max.to_string()} step="1"
                    value={producer.key_count.to_string()} onchange={on_key_count} />
            </label>
            <label class="producer-field producer-hot">
                <span>{ "Hot key user-0 share" }</span>
                <span class="producer-range">
                    <input type="range" data-field="hot-key" min="0" max={hot_max.to_string()} step="1"
                        value={producer.hot_key_share_percent.to_string()}
                        aria-valuetext={format!("{}%", producer.hot_key_share_percent)}
                        oninput={on_hot_key} />
                    <output data-field="hot-key-value">{ format!("{}%", producer.hot_key_share_percent) }</output>
                </span>
            </label>
            <p class="producer-help">
                { "Keyed records stay in order: one key, one partition. Turn keys off to see records overtake each other." }
            </p>
            <div class="producer-row producer-failing">
                <button type="button" data-action="send-failing"
                    title="One record whose handler fails at its first two attempts, then succeeds (a downstream down for a while); each failed attempt had made its payout already"
                    onclick={crate::components::send(&props.on_action,
                        Action::Apply(Input::SendFailing { failures: FAILING_ATTEMPTS, after_effect: true }))}>
                    { "Send failing" }
                </button>
                <span class="producer-help">{ "fails twice, then succeeds; its payout was made before each failure" }</span>
            </div>
            <Peek producer={producer.clone()} on_action={props.on_action.clone()} />
            </div>
            </details>
        </section>
    }
}
