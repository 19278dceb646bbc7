//! The built-in scenarios ([`BUILTINS`], the shipped JSON) read with the
//! format's reader: one by name, all of them, and the commit-cost
//! comparison three of them measure. A build without the `builtin-texts`
//! feature (the page) carries only the starting point's JSON and is given the
//! others at run time ([`provide_builtins`]).

use crate::limits::SCENARIO_BYTES_MAX;
use crate::scenario::{BUILTIN_NAMES, BUILTINS, Scenario, ScenarioError};
use std::cell::RefCell;
use std::rc::Rc;

fn builtin_from(text: &str) -> Scenario {
    Scenario::parse(text).expect("a built-in is valid (tested)")
}

/// Built-ins renamed after links to them were shared: `(old, new)`. An old
/// name still loads the scenario, under its new name.
const RENAMED: &[(&str, &str)] = &[("booblik-checkpoint", "consumer-checkpoint")];

thread_local! {
    /// The built-ins given at run time ([`provide_builtins`]): name and JSON,
    /// at most one per name in [`BUILTIN_NAMES`]. Data, not state of a run: a
    /// built-in reads the same whether carried or given.
    static PROVIDED: RefCell<Vec<(&'static str, Rc<str>)>> = const { RefCell::new(Vec::new()) };
}

/// A built-in scenario by name (or by a name it had before, see [`RENAMED`]).
///
/// # Errors
/// [`ScenarioError::UnknownBuiltin`] for a name no built-in has;
/// [`ScenarioError::BuiltinNotLoaded`] for one this build does not carry and
/// was not given yet; a given text's own reading error.
pub fn builtin(name: &str) -> Result<Scenario, ScenarioError> {
    let asked = name;
    let name = RENAMED.iter().find(|(old, _)| *old == asked).map_or(asked, |(_, new)| *new);
    if let Some((_, text)) = BUILTINS.iter().find(|(n, _)| *n == name) {
        return Ok(builtin_from(text));
    }
    if !BUILTIN_NAMES.contains(&name) {
        return Err(ScenarioError::UnknownBuiltin(asked.to_string()));
    }
    let given = PROVIDED.with(|p| p.borrow().iter().find(|(n, _)| *n == name).map(|(_, text)| text.clone()));
    let text = given.ok_or_else(|| ScenarioError::BuiltinNotLoaded(name.to_string()))?;
    // Given text is read like a file: a bad one is an error, not a panic.
    let scenario = Scenario::parse(&text)?;
    if scenario.name != name {
        return Err(ScenarioError::Invalid {
            field: "name".to_string(),
            message: format!("the built-in given as {name} is named {}", scenario.name),
        });
    }
    Ok(scenario)
}

/// Every built-in scenario this build carries or was given, in listing order.
#[must_use]
pub fn builtins() -> Vec<Scenario> {
    BUILTIN_NAMES.iter().filter_map(|name| builtin(name).ok()).collect()
}

/// Whether every built-in reads: carried by this build, or given.
#[must_use]
pub fn builtins_loaded() -> bool {
    let given = PROVIDED.with(|p| p.borrow().len());
    BUILTINS.len() + given >= BUILTIN_NAMES.len()
}

/// Gives the built-ins this build does not carry (the page's fetch of the
/// shipped JSON): `(name, JSON)` pairs, read when first asked for. A name
/// that is no built-in, one carried or given already, or a text over
/// [`SCENARIO_BYTES_MAX`] is refused, naming it, and nothing is kept.
///
/// # Errors
/// The first pair refused, and why.
pub fn provide_builtins(texts: Vec<(String, String)>) -> Result<usize, String> {
    let mut taken: Vec<(&'static str, Rc<str>)> = Vec::with_capacity(texts.len());
    for (name, text) in texts {
        let Some(known) = BUILTIN_NAMES.iter().copied().find(|n| *n == name) else {
            return Err(format!("{}: no built-in scenario has this name", crate::quote::quoted(&name)));
        };
        let held = BUILTINS.iter().any(|(n, _)| *n == known)
            || taken.iter().any(|(n, _)| *n == known)
            || PROVIDED.with(|p| p.borrow().iter().any(|(n, _)| *n == known));
        if held {
            return Err(format!("{known}: given twice, or carried by this build"));
        }
        if text.len() > SCENARIO_BYTES_MAX {
            return Err(format!("{known}: over {SCENARIO_BYTES_MAX} bytes"));
        }
        taken.push((known, text.into()));
    }
    let count = taken.len();
    PROVIDED.with(|p| p.borrow_mut().extend(taken));
    Ok(count)
}

/// One way of committing, measured: commit requests against what a crash replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CommitCost {
    pub scenario: &'static str,
    pub label: &'static str,
    pub commit_requests: u64,
    /// Records delivered again after the crash at tick 40.
    pub replayed: u64,
}

/// Committing every record, every batch, or on a timer, side by side: the
/// three built-in commit-cost scenarios (same traffic, same crash) run headless.
///
/// # Errors
/// One of the three does not read or run: in a build that does not carry
/// them, not given yet or given a text that is not theirs.
pub fn commit_cost_comparison() -> Result<Vec<CommitCost>, ScenarioError> {
    [
        ("commit-each-record", "every record"),
        ("commit-each-batch", "every batch"),
        ("commit-on-timer", "on a timer (10 ticks)"),
    ]
    .into_iter()
    .map(|(scenario, label)| {
        let m = builtin(scenario)?.run(None, None)?.metrics();
        Ok(CommitCost { scenario, label, commit_requests: m.commit_requests, replayed: m.duplicates })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn given(name: &str, text: &str) -> Vec<(String, String)> {
        vec![(name.to_string(), text.to_string())]
    }

    #[test]
    fn giving_refuses_unknown_carried_and_oversized_built_ins_whole() {
        let text = include_str!("../../scenarios/keys-keep-order.json");
        assert!(provide_builtins(given("no-such-scenario", text)).unwrap_err().contains("no-such-scenario"));
        // The starting point is carried by every build.
        assert!(provide_builtins(given("default", text)).unwrap_err().contains("default"));
        let big = "x".repeat(SCENARIO_BYTES_MAX + 1);
        let refused = provide_builtins(given("crash-commit-after", &big));
        if cfg!(feature = "builtin-texts") {
            assert!(refused.unwrap_err().contains("carried"));
        } else {
            assert!(refused.unwrap_err().contains("bytes"));
        }
        // A list with one bad pair keeps none of it.
        let mut pairs = given("keys-keep-order", text);
        pairs.extend(given("nope", text));
        assert!(provide_builtins(pairs).is_err());
        assert_eq!(builtins_loaded(), cfg!(feature = "builtin-texts"));
        assert_eq!(builtins().len(), if cfg!(feature = "builtin-texts") { BUILTIN_NAMES.len() } else { 1 });
    }

    /// Without the texts compiled in (the page): a built-in not given yet is
    /// not loaded, one given reads as the carried one does, a given text that
    /// is not its scenario is an error and not a panic.
    #[cfg(not(feature = "builtin-texts"))]
    #[test]
    fn a_build_without_the_texts_reads_what_it_is_given() {
        let text = include_str!("../../scenarios/keys-keep-order.json");
        assert!(matches!(builtin("keys-keep-order"), Err(ScenarioError::BuiltinNotLoaded(_))));
        assert!(matches!(builtin("no-such"), Err(ScenarioError::UnknownBuiltin(_))));
        assert_eq!(provide_builtins(given("keys-keep-order", text)), Ok(1));
        assert_eq!(builtin("keys-keep-order").unwrap(), Scenario::parse(text).unwrap());
        assert!(provide_builtins(given("keys-keep-order", text)).unwrap_err().contains("twice"));
        assert_eq!(provide_builtins(given("no-keys-reorder", text)), Ok(1));
        assert!(builtin("no-keys-reorder").unwrap_err().to_string().contains("named keys-keep-order"));
        assert_eq!(provide_builtins(given("spare-consumers", "{")), Ok(1));
        assert!(matches!(builtin("spare-consumers"), Err(ScenarioError::Json { .. })));
        assert!(!builtins_loaded());
        assert!(matches!(commit_cost_comparison(), Err(ScenarioError::BuiltinNotLoaded(_))));
    }
}
