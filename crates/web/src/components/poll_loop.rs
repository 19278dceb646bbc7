//! The poll loop in code, with the line each consumer is on.

use crate::components::SectionProps;
use crate::components::class_list;
use offsetlab_engine::{CheckpointWrites, CommitMode, ConsumerState, LoopStep, PositionModel};
use yew::prelude::*;

/// One line of the loop: its `data-line` (the step it stands for), code and comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLine {
    pub line: Option<&'static str>,
    pub code: &'static str,
    pub comment: Option<String>,
}

fn plain(code: &'static str) -> CodeLine {
    CodeLine { line: None, code, comment: None }
}

fn step(line: &'static str, code: &'static str, comment: Option<String>) -> CodeLine {
    CodeLine { line: Some(line), code, comment }
}

/// The loop as the commit mode writes it.
#[must_use]
pub fn code_lines(commit: CommitMode) -> Vec<CodeLine> {
    match commit {
        CommitMode::After => vec![
            plain("while (running) {"),
            step("poll", "  const batch = await consumer.poll();", None),
            plain("  for (const record of batch) {"),
            step("handle", "    await handle(record);", Some("// crash here… records come back".into())),
            plain("  }"),
            step("commit", "  await consumer.commit();", Some("// …and this never ran".into())),
            plain("}"),
        ],
        CommitMode::Before => vec![
            plain("while (running) {"),
            step("poll", "  const batch = await consumer.poll();", None),
            step("commit", "  await consumer.commit();", Some("// the number is written first".into())),
            plain("  for (const record of batch) {"),
            step(
                "handle",
                "    await handle(record);",
                Some("// crash here… records are never processed".into()),
            ),
            step("done", "  }", Some("// batch done: poll again".into())),
            plain("}"),
        ],
        CommitMode::EachRecord => vec![
            plain("while (running) {"),
            step("poll", "  const batch = await consumer.poll();", None),
            plain("  for (const record of batch) {"),
            step(
                "handle",
                "    await handle(record);",
                Some("// crash here… only this record comes back".into()),
            ),
            step(
                "commit",
                "    await consumer.commitSync(offsetAfter(record));",
                Some("// one request per record".into()),
            ),
            plain("  }"),
            plain("}"),
        ],
        CommitMode::Auto { interval_ticks } => vec![
            CodeLine {
                line: None,
                code: "// enable.auto.commit=true",
                comment: Some(format!(
                    "auto.commit.interval: {interval_ticks} tick{}",
                    plural(interval_ticks)
                )),
            },
            plain("while (running) {"),
            step(
                "poll",
                "  const batch = await consumer.poll();",
                Some(format!(
                    "// commits what earlier polls returned, every {interval_ticks} tick{}",
                    plural(interval_ticks)
                )),
            ),
            plain("  for (const record of batch) {"),
            step(
                "handle",
                "    await handle(record);",
                Some("// crash here… work since the last auto-commit comes back".into()),
            ),
            step("done", "  }", Some("// batch done: the next poll() may commit it".into())),
            plain("}"),
        ],
    }
}

/// booblik's loop: the position goes to the consumer's own file after the batch.
#[must_use]
pub fn checkpoint_lines(writes: CheckpointWrites) -> Vec<CodeLine> {
    let (code, comment) = match writes {
        CheckpointWrites::Atomic => (
            "  await store.checkpoint(position);",
            "// temp file, fsync, rename: a crash leaves the old or the new number",
        ),
        CheckpointWrites::InPlace => (
            "  await store.overwrite(position);",
            "// in place: a crash mid-write leaves half the digits (1234 → 12)",
        ),
    };
    vec![
        plain("while (running) {"),
        step("poll", "  const batch = await consumer.poll();", None),
        plain("  for (const record of batch) {"),
        step(
            "handle",
            "    await collector.handle(record);",
            Some("// crash here… the batch comes back".into()),
        ),
        plain("  }"),
        step("commit", code, Some(comment.into())),
        plain("}"),
    ]
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The line a loop step is drawn on. The engine reports `Commit` only while
/// the loop commits (or checkpoints) after a batch; a finished batch in the
/// other modes goes straight back to `Poll`.
#[must_use]
pub fn line_for(commit: CommitMode, step: LoopStep) -> Option<&'static str> {
    match (step, commit) {
        (LoopStep::Idle, _) => None,
        (LoopStep::Poll, _) => Some("poll"),
        (LoopStep::Handle, _) => Some("handle"),
        (LoopStep::Commit, CommitMode::After | CommitMode::EachRecord) => Some("commit"),
        (LoopStep::Commit, _) => Some("done"),
    }
}

/// One sentence: where the number gets written, and what a crash mid-batch means.
#[must_use]
pub fn explanation(commit: CommitMode) -> String {
    match commit {
        CommitMode::After => {
            "The commit line is where the number gets written. A crash between handle and commit \
            leaves the last commit where it was, so the successor handles those records again: \
            at-least-once, duplicates but nothing lost."
                .into()
        }
        CommitMode::Before => "The commit line, right after poll, is where the number gets written. A crash \
            between commit and the end of the batch leaves the group past records nobody handled: \
            at-most-once, no duplicates but records never processed."
            .into(),
        CommitMode::EachRecord => "The commit inside the loop writes the number after every record: a crash \
            replays at most the record in hand, at the price of one commit request per record."
            .into(),
        CommitMode::Auto { interval_ticks } => format!(
            "poll() is where the number gets written, at most every {interval_ticks} tick{}, with the \
             positions of batches already handled. A crash between handle and the next auto-commit \
             means everything since the last one comes back: at-least-once, with a window as wide as \
             the interval.",
            plural(interval_ticks)
        ),
    }
}

#[component]
pub fn PollLoop(props: &SectionProps) -> Html {
    let view = &props.state.view;
    // booblik's checkpoint-after loop draws like commit-after.
    let (commit, lines, mode_text, explain) = match view.settings.position {
        PositionModel::Group => {
            let commit = view.settings.commit;
            let mode = match commit {
                CommitMode::After => "Commit: after (at-least-once)",
                CommitMode::Before => "Commit: before (at-most-once)",
                CommitMode::Auto { .. } => "Commit: auto",
                CommitMode::EachRecord => "Commit: after each record",
            };
            (commit, code_lines(commit), mode, explanation(commit))
        }
        PositionModel::Consumer { writes, .. } => (
            CommitMode::After,
            checkpoint_lines(writes),
            match writes {
                CheckpointWrites::Atomic => "Own file: checkpoint after the batch, atomic",
                CheckpointWrites::InPlace => "Own file: checkpoint after the batch, in place",
            },
            "The checkpoint line is where the number gets written, into the consumer's own file. A crash \
             before it replays the batch from the last checkpoint (at-least-once); a crash during an \
             in-place write leaves a torn number, and the consumer silently resumes from wherever it points."
                .to_string(),
        ),
    };

    let render_line = |line: &CodeLine| {
        let here: Vec<&offsetlab_engine::ConsumerView> = match line.line {
            Some(name) => view
                .consumers
                .iter()
                .filter(|c| c.state != ConsumerState::Crashed && line_for(commit, c.step) == Some(name))
                .collect(),
            None => Vec::new(),
        };
        let crashed_here: Vec<&offsetlab_engine::ConsumerView> = match line.line {
            Some(name) => view
                .consumers
                .iter()
                .filter(|c| {
                    c.state == ConsumerState::Crashed
                        && c.crashed_during.and_then(|s| line_for(commit, s)) == Some(name)
                })
                .collect(),
            None => Vec::new(),
        };
        let class = class_list(&[
            Some("code-line"),
            (!here.is_empty()).then_some("has-consumers"),
            (!crashed_here.is_empty()).then_some("has-crash"),
        ]);
        html! {
            <span {class} data-line={line.line}>
                <span class="code-gutter">
                    { for here.iter().map(|c| html! {
                        <span class="loop-badge" data-consumer={c.id.to_string()}>
                            <span class="visually-hidden">{ "here: " }</span>{ c.id.to_string() }
                        </span>
                    }) }
                    { for crashed_here.iter().map(|c| html! {
                        <span class="loop-badge crashed" data-crashed={c.id.to_string()}>
                            { format!("✕ {} crashed here", c.id) }
                        </span>
                    }) }
                </span>
                <span class="code-text">
                    { line.code }
                    if let Some(comment) = &line.comment {
                        { "  " }<span class="code-comment">{ comment.clone() }</span>
                    }
                </span>
            </span>
        }
    };

    html! {
        <section class="poll_loop" aria-labelledby="poll-loop-heading" data-field="poll-loop">
            <h3 id="poll-loop-heading">{ "The consumer is a loop around poll()" }</h3>
            <p class="poll-loop-lead">
                { "Fetch a batch, process it, commit: each consumer's badge sits on the line it is on now." }
            </p>
            <p class="poll-loop-mode" data-field="poll-loop-mode">{ mode_text }</p>
            <pre class="terminal poll-loop-code" tabindex="0" aria-label="The poll loop">
                <code>{ for lines.iter().map(render_line) }</code></pre>
            <p class="poll-loop-explain" data-field="poll-loop-explain">{ explain }</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn every_step_has_a_line_in_every_mode() {
        for commit in [
            CommitMode::After,
            CommitMode::Before,
            CommitMode::EachRecord,
            CommitMode::Auto { interval_ticks: 5 },
        ] {
            let lines = code_lines(commit);
            for step in [LoopStep::Poll, LoopStep::Handle, LoopStep::Commit] {
                let name = line_for(commit, step).expect("a line");
                assert!(lines.iter().any(|l| l.line == Some(name)), "{commit:?} {step:?}");
            }
            assert_eq!(line_for(commit, LoopStep::Idle), None);
        }
        for writes in [CheckpointWrites::Atomic, CheckpointWrites::InPlace] {
            let lines = checkpoint_lines(writes);
            for step in [LoopStep::Poll, LoopStep::Handle, LoopStep::Commit] {
                let name = line_for(CommitMode::After, step).expect("a line");
                assert!(lines.iter().any(|l| l.line == Some(name)), "{writes:?} {step:?}");
            }
        }
    }
}
