//! What the reader asked to have explained: a record or a counter, the tick
//! it was asked at, the engine's explanations as of that tick, and the step
//! shown now (its tick is on screen, its part highlighted). Computed once,
//! when asked: a step moves the run to its tick, and the explanation stays
//! the one the reader asked for.

use offsetlab_engine::{Anomaly, Explanation, Part, Report, Sim, explain_record, report};

/// What was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// One record: why group `group` (`None`: the topic's writes) counts it.
    Record { group: Option<u32>, partition: u32, offset: u64 },
    /// A counter of group `group` (the topic's counters are the same in every group).
    Counter { group: u32, anomaly: Anomaly },
}

/// The explanation on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explaining {
    pub asked: Asked,
    /// The tick it was asked at: where "Back" returns to.
    pub tick: u64,
    /// A record's explanations (one per time it was counted), or a counter's first ones.
    pub explanations: Vec<Explanation>,
    /// A counter's report: what it counts, by cause.
    pub report: Option<Report>,
    /// The step shown: its tick and the part it names.
    pub step: Option<(u64, Part)>,
    /// Asked by the reader (the focus moves to it), not opened by the run's end.
    pub by_reader: bool,
    /// A counter of a group other than the first: its name, which the heading says.
    pub other_group: Option<String>,
}

impl Explaining {
    /// The engine's explanations of `asked` in `sim` now. A record a group
    /// counts may also be the topic's (a producer's duplicate read twice):
    /// both are given.
    #[must_use]
    pub fn ask(sim: &Sim, asked: Asked, by_reader: bool) -> Explaining {
        let tick = sim.now();
        let mut other_group = None;
        let (explanations, report) = match asked {
            Asked::Record { group, partition, offset } => {
                let mut all = Vec::new();
                if let Some(g) = group.filter(|g| (*g as usize) < sim.group_count()) {
                    all.extend(explain_record(sim, Some(g as usize), partition, offset));
                }
                all.extend(explain_record(sim, None, partition, offset));
                (all, None)
            }
            Asked::Counter { group, anomaly } => {
                let g = (group as usize).min(sim.group_count().saturating_sub(1));
                other_group = (g > 0).then(|| sim.group_name(g).to_owned());
                let report = report(sim, g, anomaly);
                (report.explanations.clone(), Some(report))
            }
        };
        Explaining { asked, tick, explanations, report, step: None, by_reader, other_group }
    }

    /// The highlighted part, if a step is shown.
    #[must_use]
    pub fn highlighted(&self) -> Option<Part> {
        self.step.map(|(_, part)| part)
    }
}
