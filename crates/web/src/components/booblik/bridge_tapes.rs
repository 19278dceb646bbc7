//! The bridge target topic (booblik, in seed 000): the same partitions, no keys.

use crate::state::BridgeTape;
use offsetlab_engine::{BridgePartitionView, BridgeRecordView};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct BridgeTapesProps {
    pub tapes: Rc<Vec<BridgeTape>>,
    pub partitions: Vec<BridgePartitionView>,
    /// Records the bridge wrote in all.
    pub bridged: u64,
}

/// A cell's key as the booblik record carries it.
fn key_text(r: &BridgeRecordView) -> String {
    match r.key {
        Some(k) => format!("user-{k}"),
        None => "no key".to_string(),
    }
}

#[component]
pub fn BridgeTapes(props: &BridgeTapesProps) -> Html {
    html! {
        <div class="booblik-box far-side" data-field="far">
            <h3>{ "The small log system's topic " }<code>{ "orders" }</code>{ " (mirror)" }</h3>
            <p class="booblik-help">
                { "The application is a bridge: every record it handles is written to the small log system's \
                   topic on the partition its key picks, then the key is dropped. Each cell: its offset there, \
                   its key, and the Kafka record it came from." }
            </p>
            <div class="far-tapes">
                { for props.tapes.iter().map(|tape| {
                    let end = props.partitions.iter().find(|p| p.partition == tape.partition).map(|p| p.log_end);
                    html! {
                        <div key={tape.partition} class="far-tape" data-far-partition={tape.partition.to_string()}>
                            <span class="far-label">
                                { format!("P{}", tape.partition) }
                                if let Some(end) = end {
                                    <small>{ format!("end {end}") }</small>
                                }
                            </span>
                            <ol class="far-cells" aria-label={format!("Mirror P{}, newest {} records", tape.partition, tape.records.len())}>
                                if tape.hidden_before > 0 {
                                    <li class="far-more">{ format!("… {} older", tape.hidden_before) }</li>
                                }
                                { for tape.records.iter().map(|r| html! {
                                    <li key={r.offset} class="far-cell" data-far-offset={r.offset.to_string()}
                                        title={format!("Mirror offset {}, from Kafka record {}: its key did not cross", r.offset, r.source_record_id)}>
                                        <span class="far-offset">{ r.offset }</span>
                                        { key_text(r) }
                                        <span class="far-source">{ format!("#{}", r.source_record_id) }</span>
                                    </li>
                                }) }
                                if tape.records.is_empty() {
                                    <li class="far-more">{ "empty" }</li>
                                }
                            </ol>
                        </div>
                    }
                }) }
            </div>
            <p class="far-verdict" data-field="keys-recovered">
                { format!("Keys recovered: 0 of {} — the small log system's wire format has no key field, so a downstream job \
                           cannot re-key these records by user.", props.bridged) }
            </p>
        </div>
    }
}
