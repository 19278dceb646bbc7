//! booblik's split check, live: each partition's written records against the
//! position its holder keeps, the verdict, and what the check found.

use crate::components::class_list;
use offsetlab_engine::{Finding, FindingKind, PartitionSplit, SplitCheck, SplitStatus};
use std::rc::Rc;
use yew::prelude::*;

/// Findings drawn (the newest); the rest are counted.
pub const FINDINGS_SHOWN: usize = 6;
/// Record ids drawn per finding; the rest are counted.
pub const IDS_SHOWN: usize = 8;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SplitCheckProps {
    pub split: Rc<SplitCheck>,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "P0 written 120 · held 120 by c1 · equal".
#[must_use]
pub fn partition_line(p: &PartitionSplit) -> String {
    let head = format!("P{} written {}", p.partition, p.written);
    let Some(holder) = p.holder else { return format!("{head} · no holder") };
    let held = match p.position {
        Some(position) => format!("held {position} by {holder}"),
        None => format!("nothing held by {holder}"),
    };
    let status = match p.status {
        SplitStatus::Equal => "equal".to_string(),
        SplitStatus::WithinOneBatch { behind } => format!("{behind} behind, within one batch"),
        SplitStatus::Behind { behind } => format!("{behind} behind"),
        SplitStatus::NoHolder => "no holder".to_string(),
    };
    format!("{head} · {held} · {status}")
}

fn status_class(status: SplitStatus) -> &'static str {
    match status {
        SplitStatus::Equal => "is-equal",
        SplitStatus::WithinOneBatch { .. } => "is-within",
        SplitStatus::Behind { .. } => "is-behind",
        SplitStatus::NoHolder => "is-unheld",
    }
}

/// "passes: 1 legal replay" or "fails: 2 violations · 1 legal replay".
#[must_use]
pub fn verdict(split: &SplitCheck) -> String {
    let replays = plural(split.legal_replays, "legal replay", "legal replays");
    let violations = plural(split.violations, "violation", "violations");
    if split.passed() {
        format!("passes: {replays}")
    } else if split.legal_replays > 0 {
        format!("fails: {violations} · {replays}")
    } else {
        format!("fails: {violations}")
    }
}

/// "record ids 131, 133, … +532 more": the first ids, then how many more.
#[must_use]
pub fn ids_text(finding: &Finding) -> String {
    let shown = finding.record_ids.len().min(IDS_SHOWN);
    let ids: Vec<String> = finding.record_ids[..shown].iter().map(u64::to_string).collect();
    let more = (finding.record_ids.len() - shown) as u64 + finding.more;
    let mut text = format!("record ids {}", ids.join(", "));
    if more > 0 {
        text.push_str(&format!(" +{more} more"));
    }
    text
}

fn kind_label(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::LegalReplay => "legal replay",
        FindingKind::ResumedTooFarBack => "VIOLATION",
        FindingKind::NeverProcessed => "VIOLATION: never processed",
    }
}

fn finding_item(finding: &Finding) -> Html {
    let legal = finding.kind == FindingKind::LegalReplay;
    let records = finding.record_ids.len() as u64 + finding.more;
    let count = if finding.kind == FindingKind::NeverProcessed {
        plural(records, "record never processed", "records never processed")
    } else {
        plural(records, "record replays", "records replay")
    };
    let class = class_list(&[Some("finding"), Some(if legal { "is-legal" } else { "is-violation" })]);
    html! {
        <li {class}>
            <strong class="finding-kind">{ kind_label(finding.kind) }</strong>
            { format!(" tick {} · {}. ", finding.tick, finding.message) }
            <span class="finding-count">{ count }</span>
            if !finding.record_ids.is_empty() {
                <span class="finding-ids" data-field="finding-ids">{ ids_text(finding) }</span>
            }
        </li>
    }
}

#[component]
pub fn SplitCheckPanel(props: &SplitCheckProps) -> Html {
    let split = &props.split;
    let findings = &split.findings;
    let shown = &findings[findings.len().saturating_sub(FINDINGS_SHOWN)..];
    let hidden = (findings.len() - shown.len()) as u64 + split.findings_dropped;
    let passed = split.passed();
    html! {
        <div class="booblik-box split-check" data-field="split-check">
            <h3>{ "Split check" }</h3>
            <p class="booblik-help">
                { "Every record reaches a consumer, and each partition's written records equal the position \
                   its holder keeps. Resuming up to one batch behind is legal under at-least-once." }
            </p>
            <ul class="split-lines">
                { for split.partitions.iter().map(|p| html! {
                    <li key={p.partition} class={class_list(&[Some("split-line"), Some(status_class(p.status))])}
                        data-split-partition={p.partition.to_string()}>
                        { partition_line(p) }
                    </li>
                }) }
            </ul>
            <p class={class_list(&[Some("split-verdict"), Some(if passed { "is-pass" } else { "is-fail" })])}
                data-field="split-verdict">
                <span aria-hidden="true">{ if passed { "✓ " } else { "✕ " } }</span>
                { verdict(split) }
            </p>
            if findings.is_empty() {
                <p class="booblik-help">
                    { "No findings: nobody resumed behind what was handled, and nothing was skipped." }
                </p>
            } else {
                <ol class="findings" data-field="findings" aria-label="What the check found, oldest first">
                    if hidden > 0 {
                        <li class="finding-hidden">{ format!("{} not shown", plural(hidden, "earlier finding", "earlier findings")) }</li>
                    }
                    { for shown.iter().map(finding_item) }
                </ol>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::ConsumerId;

    fn line(holder: Option<u32>, position: Option<u64>, status: SplitStatus) -> String {
        partition_line(&PartitionSplit {
            partition: 0,
            written: 120,
            holder: holder.map(ConsumerId),
            position,
            status,
        })
    }

    #[test]
    fn partition_lines_say_who_holds_what() {
        assert_eq!(line(Some(1), Some(120), SplitStatus::Equal), "P0 written 120 · held 120 by c1 · equal");
        assert_eq!(
            line(Some(1), Some(117), SplitStatus::WithinOneBatch { behind: 3 }),
            "P0 written 120 · held 117 by c1 · 3 behind, within one batch"
        );
        assert_eq!(
            line(Some(2), None, SplitStatus::Behind { behind: 120 }),
            "P0 written 120 · nothing held by c2 · 120 behind"
        );
        assert_eq!(line(None, None, SplitStatus::NoHolder), "P0 written 120 · no holder");
    }

    #[test]
    fn ids_are_cut_with_a_count_of_the_rest() {
        let finding = Finding {
            tick: 40,
            kind: FindingKind::ResumedTooFarBack,
            partition: 0,
            consumer: Some(ConsumerId(1)),
            message: String::new(),
            record_ids: (1..=20).collect(),
            more: 520,
        };
        assert_eq!(ids_text(&finding), "record ids 1, 2, 3, 4, 5, 6, 7, 8 +532 more");
        let few = Finding { record_ids: vec![4, 9], more: 0, ..finding };
        assert_eq!(ids_text(&few), "record ids 4, 9");
    }

    #[test]
    fn the_verdict_counts_violations_and_legal_replays() {
        let split = |violations, legal_replays| SplitCheck {
            partitions: vec![],
            findings: vec![],
            violations,
            legal_replays,
            findings_dropped: 0,
        };
        assert_eq!(verdict(&split(0, 1)), "passes: 1 legal replay");
        assert_eq!(verdict(&split(0, 0)), "passes: 0 legal replays");
        assert_eq!(verdict(&split(2, 0)), "fails: 2 violations");
        assert_eq!(verdict(&split(1, 3)), "fails: 1 violation · 3 legal replays");
    }
}
