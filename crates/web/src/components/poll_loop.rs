//! The poll loop in code, with the line each consumer is on.

use crate::components::SectionProps;
use offsetlab_engine::{CommitMode, ConsumerState, LoopStep};
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

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The line a loop step is drawn on. The engine reports `Commit` when a
/// batch is finished: in commit-after that is the commit call; in the other
/// modes the commit happened elsewhere, so it is the end of the batch.
#[must_use]
pub fn line_for(commit: CommitMode, step: LoopStep) -> Option<&'static str> {
    match (step, commit) {
        (LoopStep::Idle, _) => None,
        (LoopStep::Poll, _) => Some("poll"),
        (LoopStep::Handle, _) => Some("handle"),
        (LoopStep::Commit, CommitMode::After) => Some("commit"),
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
    let commit = view.settings.commit;
    let lines = code_lines(commit);
    let mode_text = match commit {
        CommitMode::After => "Commit: after (at-least-once)",
        CommitMode::Before => "Commit: before (at-most-once)",
        CommitMode::Auto { .. } => "Commit: auto",
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
        let class = classes!(
            "code-line",
            (!here.is_empty()).then_some("has-consumers"),
            (!crashed_here.is_empty()).then_some("has-crash"),
        );
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
            <h2 id="poll-loop-heading">{ "The consumer is a loop around poll()" }</h2>
            <p class="poll-loop-lead">
                { "Fetch a batch, process it, commit. The order of those last two steps is the choice \
                   between processing a record twice and possibly not at all. Each consumer's badge sits \
                   on the line it is on now." }
            </p>
            <p class="poll-loop-mode" data-field="poll-loop-mode">{ mode_text }</p>
            <pre class="poll-loop-code"><code>{ for lines.iter().map(render_line) }</code></pre>
            <p class="poll-loop-explain" data-field="poll-loop-explain">{ explanation(commit) }</p>
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
        for commit in [CommitMode::After, CommitMode::Before, CommitMode::Auto { interval_ticks: 5 }] {
            let lines = code_lines(commit);
            for step in [LoopStep::Poll, LoopStep::Handle, LoopStep::Commit] {
                let name = line_for(commit, step).expect("a line");
                assert!(lines.iter().any(|l| l.line == Some(name)), "{commit:?} {step:?}");
            }
            assert_eq!(line_for(commit, LoopStep::Idle), None);
        }
    }
}
