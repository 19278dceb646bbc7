//! booblik's view of the same run: its split check, its `/stats` endpoint,
//! the booblik topic a bridge writes (keys erased), and its counters.

mod bridge_tapes;
mod split_check;
mod stats;

use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::shown::use_shown;
use bridge_tapes::BridgeTapes;
use offsetlab_engine::{CheckpointWrites, Metrics, PositionModel};
use split_check::SplitCheckPanel;
use stats::StatsPanel;
use yew::prelude::*;

/// Where the positions live, as the section's lead says it.
#[must_use]
pub fn position_text(position: PositionModel) -> String {
    match position {
        PositionModel::Group => {
            "Positions live in the group's committed offsets (Kafka): the consumers' own \
            stores stay empty, and the check reads the committed offsets."
                .into()
        }
        PositionModel::Consumer { writes, write_ticks } => format!(
            "Positions live in each consumer's own file, checkpointed after every batch {}, a write \
             taking {write_ticks} tick{}.",
            match writes {
                CheckpointWrites::Atomic => "atomically (temp file, fsync, rename)",
                CheckpointWrites::InPlace => "in place (a crash mid-write tears the number)",
            },
            if write_ticks == 1 { "" } else { "s" }
        ),
    }
}

/// One of the small log system's counters as drawn.
struct Counter {
    key: &'static str,
    label: &'static str,
    value: u64,
    /// A rise is a sign of trouble.
    alarm: bool,
    help: &'static str,
}

fn counters(m: &Metrics) -> [Counter; 3] {
    [
        Counter {
            key: "torn-checkpoints",
            label: "Torn checkpoints",
            value: m.torn_checkpoints,
            alarm: true,
            help: "in-place writes a crash cut short",
        },
        Counter {
            key: "bridged",
            label: "Bridged",
            value: m.bridged,
            alarm: false,
            help: "records the bridge copied to the small log system, none with its key",
        },
        Counter {
            key: "advancing-peeks",
            label: "Advancing peeks",
            value: m.advancing_peeks,
            alarm: true,
            help: "partitionFor(null) calls that moved the counter",
        },
    ]
}

#[component]
pub fn Booblik(props: &SectionProps) -> Html {
    let state = &props.state;
    let view = &state.view;
    let node = use_node_ref();
    let stats = use_shown(node.clone(), &state.run, (), |run| run.stats());
    let bridge_tapes = use_shown(node.clone(), &state.run, (), |run| run.bridge_tapes(view));
    html! {
        <section class="booblik panel" aria-labelledby="offset-storage-heading" ref={node}>
            <h2 id="offset-storage-heading">{ "A small log system's view" }</h2>
            <p class="booblik-lead" data-field="position-lead">
                { "Not every log keeps positions for its readers: in this small log system each consumer \
                   keeps its own. Its checks, run on this simulation. " }
                { position_text(view.settings.position) }
            </p>
            <dl class="booblik-counters">
                { for counters(&view.metrics).into_iter().map(|c| {
                    let raised = c.alarm && c.value > 0;
                    html! {
                        <div key={c.key} class={class_list(&[Some("booblik-counter"), raised.then_some("raised")])}>
                            <dt>{ c.label }<small>{ c.help }</small></dt>
                            <dd data-counter={c.key}>{ c.value }</dd>
                        </div>
                    }
                }) }
            </dl>
            <div class="booblik-grid">
                <SplitCheckPanel split={state.split.clone()} />
                <StatsPanel {stats}
                    store={matches!(view.settings.position, PositionModel::Consumer { .. })} />
            </div>
            if let Some(bridge) = view.bridge.as_ref() {
                <BridgeTapes tapes={bridge_tapes} partitions={bridge.clone()}
                    bridged={view.metrics.bridged} />
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_lead_names_where_positions_live() {
        assert!(position_text(PositionModel::Group).contains("committed offsets"));
        let torn = PositionModel::Consumer { writes: CheckpointWrites::InPlace, write_ticks: 2 };
        assert!(position_text(torn).contains("in place"), "{}", position_text(torn));
        assert!(position_text(torn).ends_with("2 ticks."));
    }
}
