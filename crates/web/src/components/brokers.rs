//! The cluster above the tapes: a strip of brokers (up or down, the
//! partitions each leads, crash and restart), and the producer's delivery
//! settings that decide what "written" means.

use crate::components::{class_list, send};
use crate::state::Action;
use offsetlab_engine::{Acks, ClusterView, Input};
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct BrokersProps {
    pub cluster: Rc<ClusterView>,
    /// `enable.idempotence` as the scenario sets it (`None`: Kafka's default).
    pub idempotence_setting: Option<bool>,
    /// Named by the explanation's step shown (an election, a crash).
    #[prop_or_default]
    pub explained: bool,
    /// Acknowledged records an election cut off the log: the strip's mark explains them.
    #[prop_or_default]
    pub acked_lost: u64,
    pub on_action: Callback<Action>,
}

/// `enable.idempotence` as the select's option value: `""` for Kafka's default.
fn idempotence_value(setting: Option<bool>) -> &'static str {
    match setting {
        None => "",
        Some(true) => "true",
        Some(false) => "false",
    }
}

/// "P0, P2", or "nothing".
fn partition_list(partitions: &[u32]) -> String {
    if partitions.is_empty() {
        return "nothing".to_owned();
    }
    partitions.iter().map(|p| format!("P{p}")).collect::<Vec<_>>().join(", ")
}

#[component]
pub fn Brokers(props: &BrokersProps) -> Html {
    let cluster = &props.cluster;
    let brokers = cluster.brokers.iter().map(|b| {
        let state = match (b.alive, b.fenced) {
            (true, _) => "up",
            (false, true) => "down, fenced",
            (false, false) => "down",
        };
        let (action, label, input) = if b.alive {
            ("crash-broker", "Crash", Input::CrashBroker { broker: b.id })
        } else {
            ("restart-broker", "Restart", Input::RestartBroker { broker: b.id })
        };
        html! {
            <li key={b.id} class={class_list(&[Some("broker"), (!b.alive).then_some("down")])}
                data-broker={b.id.to_string()}>
                <span class="broker-name">{ format!("broker {}", b.id) }</span>{ " " }
                <span class="broker-state" data-field="broker-state">{ state }</span>{ " " }
                <span class="broker-leads" data-field="broker-leads">
                    { format!("leads {}", partition_list(&b.leader_of)) }
                </span>{ " " }
                <button type="button" data-action={action}
                    aria-label={format!("{label} broker {}", b.id)}
                    onclick={send(&props.on_action, Action::Apply(input))}>
                    { label }
                </button>
            </li>
        }
    });

    // The produce faults, on the partition chosen here (P0 at first).
    let fault_partition = use_state(|| 0_u32);
    let partitions = cluster.partitions.len() as u32;
    let p = (*fault_partition).min(partitions.saturating_sub(1));
    let on_partition = {
        let fault_partition = fault_partition.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(p) = select.value().parse::<u32>() {
                fault_partition.set(p);
            }
        })
    };
    let faults = html! {
        <div class="faults" role="group" aria-label="Produce faults">
            if partitions > 1 {
                <label class="setting-inline">
                    <span>{ "partition" }</span>
                    <select data-field="fault-partition" onchange={on_partition}>
                        { for (0..partitions).map(|q| html! {
                            <option value={q.to_string()} selected={q == p}>{ format!("P{q}") }</option>
                        }) }
                    </select>
                </label>
            }
            <button type="button" data-action="lose-next-ack"
                onclick={send(&props.on_action, Action::Apply(Input::LoseNextAck { partition: p }))}>
                { format!("Lose the next ack from P{p}'s leader") }
            </button>
            <button type="button" data-action="lose-next-request"
                onclick={send(&props.on_action, Action::Apply(Input::LoseNextRequest { partition: p }))}>
                { format!("Lose the next request to P{p}") }
            </button>
        </div>
    };

    let idempotence = props.idempotence_setting;
    let on_acks = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(acks) = Acks::ALL.into_iter().find(|a| a.name() == select.value()) {
                on_action.emit(Action::Delivery { acks, idempotence });
            }
        })
    };
    let acks = cluster.acks;
    let on_idempotence = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let value = select.value();
            let idempotence =
                [Some(true), Some(false)].into_iter().find(|&s| idempotence_value(s) == value).flatten();
            on_action.emit(Action::Delivery { acks, idempotence });
        })
    };
    // A select the user changed keeps showing the choice, whatever the
    // options' `selected` say: after a refused change, or once the run
    // restarted, put it back to the run's own setting.
    let acks_ref = use_node_ref();
    let idempotence_ref = use_node_ref();
    {
        let (acks_ref, idempotence_ref) = (acks_ref.clone(), idempotence_ref.clone());
        use_effect(move || {
            for (node, value) in
                [(&acks_ref, acks.name()), (&idempotence_ref, idempotence_value(idempotence))]
            {
                if let Some(select) = node.cast::<HtmlSelectElement>() {
                    if select.value() != value {
                        select.set_value(value);
                    }
                }
            }
        });
    }
    html! {
        <div class="cluster" data-field="cluster">
            <ul class={class_list(&[Some("broker-strip"), props.explained.then_some("explained")])} aria-label="Brokers">{ for brokers }</ul>
            if props.acked_lost > 0 {
                <button type="button" class="election-why" data-explain-election="acked-lost"
                    onclick={send(&props.on_action, Action::Explain(Some(crate::state::Asked::Counter {
                        group: 0, anomaly: offsetlab_engine::Anomaly::AckedLost })))}>
                    { format!("An election cut {} acknowledged record{}: why?", props.acked_lost,
                        if props.acked_lost == 1 { "" } else { "s" }) }
                </button>
            }
            <div class="delivery-settings">
                <label class="setting-inline">
                    <span>{ "acks" }</span>
                    <select data-field="acks" ref={acks_ref} onchange={on_acks}
                        title="acks: when the leader answers the producer: 0 without waiting, 1 once it has the batch, all once every in-sync replica has it">
                        { for Acks::ALL.into_iter().map(|a| html! {
                            <option value={a.name()} selected={a == acks}>{ a.name() }</option>
                        }) }
                    </select>
                </label>
                <label class="setting-inline">
                    <span>{ "enable.idempotence" }</span>
                    <select data-field="idempotence" ref={idempotence_ref} onchange={on_idempotence}
                        title="enable.idempotence: the producer numbers its batches, so the leader drops a retried copy and keeps their order">
                        { for [None, Some(true), Some(false)].into_iter().map(|setting| {
                            // What the default gives is known for the run's own settings only.
                            let label = match (setting, idempotence) {
                                (Some(on), _) => on.to_string(),
                                (None, None) => format!("default ({})", cluster.idempotence),
                                (None, Some(_)) => "default".to_owned(),
                            };
                            html! {
                                <option value={idempotence_value(setting)} selected={setting == idempotence}>{ label }</option>
                            }
                        }) }
                    </select>
                </label>
                <span class="delivery-facts" data-field="delivery-facts" tabindex="0"
                    title="Replication factor: how many brokers hold each partition. min.insync.replicas: with acks=all, the fewest in-sync replicas a write needs. In flight: requests sent and not yet answered. An unclean election may make a replica out of sync the leader.">
                    { format!(
                        "replication factor {} · min.insync.replicas {} · {} in flight · unclean election {} · {} records not yet acknowledged",
                        cluster.replication_factor,
                        cluster.min_insync_replicas,
                        cluster.max_in_flight,
                        if cluster.unclean_leader_election { "on" } else { "off" },
                        cluster.buffered_records,
                    ) }
                </span>
            </div>
            { faults }
            <p class="setting-help">
                { "Changing acks or idempotence starts the run again from tick 0 with them. A lost \
                   ack: the leader wrote the batch, but the producer never hears so, times the \
                   request out and sends the batch again. A lost request: the batch never reaches \
                   the leader; the producer times it out and sends it again." }
            </p>
        </div>
    }
}
