//! Data a section computes from the run, only while the section is on screen.
//!
//! A section that is the only one to draw something (a panel's chart, a
//! describe table) computes it here instead of in the state's refresh: while
//! it is rendered (a closed panel is not) and on screen (an
//! `IntersectionObserver`, with a margin so it is ready before it scrolls in),
//! again when the run's generation or the section's own key changes; off
//! screen it keeps what it last drew.

use crate::state::Run;
use std::rc::Rc;
use yew::prelude::*;

/// How far outside the viewport a section still counts as on screen: it is
/// up to date before the reader scrolls it in.
const ON_SCREEN_MARGIN: &str = "50% 0px";

/// The last value a section computed, and the run's generation and the
/// section's own key it was computed for.
#[derive(Debug)]
pub struct Shown<K, T> {
    computed: Option<(u64, K, Rc<T>)>,
}

impl<K: PartialEq, T> Default for Shown<K, T> {
    fn default() -> Self {
        Shown { computed: None }
    }
}

impl<K: PartialEq, T> Shown<K, T> {
    /// The value for the run at `generation` and the section's `key`:
    /// computed when there is none yet (a section draws something in its
    /// first render, on screen or not), when the key changed (the reader
    /// chose another view: drawn at once, wherever it is), or when the run
    /// moved on while `on_screen`; otherwise the last one, however old.
    pub fn get(&mut self, generation: u64, key: K, on_screen: bool, compute: impl FnOnce() -> T) -> Rc<T> {
        match &self.computed {
            Some((last, last_key, value)) if *last_key == key && (*last == generation || !on_screen) => {
                value.clone()
            }
            _ => {
                let value = Rc::new(compute());
                self.computed = Some((generation, key, value.clone()));
                value
            }
        }
    }
}

/// What `compute` makes of the run, kept up to date while the element in
/// `node` is on screen: see the module's comment. `key` is what else the
/// value depends on (a view the reader chose).
#[hook]
pub fn use_shown<K, T>(node: NodeRef, run: &Run, key: K, compute: impl FnOnce(&Run) -> T) -> Rc<T>
where
    K: PartialEq + 'static,
    T: 'static,
{
    let on_screen = use_on_screen(node);
    let cache = use_mut_ref(Shown::<K, T>::default);
    let mut cache = cache.borrow_mut();
    cache.get(run.generation(), key, on_screen, || compute(run))
}

/// Whether the element in `node` is on screen (within [`ON_SCREEN_MARGIN`]).
/// True until the observer first reports, and always where there is none
/// (natively, in the prerender).
#[hook]
pub fn use_on_screen(node: NodeRef) -> bool {
    let on_screen = use_state_eq(|| true);
    {
        let on_screen = on_screen.clone();
        use_effect_with(node, move |node| {
            let observer = observe(node, move |seen| on_screen.set(seen));
            move || drop(observer)
        });
    }
    *on_screen
}

/// An observer of `node` and the closure it calls; disconnects when dropped.
struct Observer {
    observer: web_sys::IntersectionObserver,
    _closure: wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for Observer {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

fn observe(node: &NodeRef, on_change: impl Fn(bool) + 'static) -> Option<Observer> {
    use wasm_bindgen::JsCast;
    if !cfg!(target_arch = "wasm32") {
        return None;
    }
    let element = node.cast::<web_sys::Element>()?;
    let closure =
        wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // The newest entry says where the element is now.
            if let Some(entry) =
                entries.iter().last().and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
            {
                on_change(entry.is_intersecting());
            }
        });
    let init = web_sys::IntersectionObserverInit::new();
    init.set_root_margin(ON_SCREEN_MARGIN);
    let observer =
        web_sys::IntersectionObserver::new_with_options(closure.as_ref().unchecked_ref(), &init).ok()?;
    observer.observe(&element);
    Some(Observer { observer, _closure: closure })
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::Shown;
    use std::cell::Cell;

    #[test]
    fn computed_first_then_only_on_screen_when_the_run_moves_and_at_once_when_the_key_changes() {
        let computed = Cell::new(0);
        let mut shown = Shown::default();
        let mut get = |generation: u64, key: &'static str, on_screen: bool| {
            *shown.get(generation, key, on_screen, || {
                computed.set(computed.get() + 1);
                generation * 10 + u64::from(key == "members")
            })
        };
        assert_eq!(get(1, "offsets", false), 10, "the first render draws something, on screen or not");
        assert_eq!(get(2, "offsets", false), 10, "off screen, a new generation is not computed");
        assert_eq!(get(3, "offsets", false), 10);
        assert_eq!(computed.get(), 1);
        assert_eq!(get(3, "offsets", true), 30, "back on screen, it catches up");
        assert_eq!(get(3, "offsets", true), 30, "the same generation and key are not computed again");
        assert_eq!(computed.get(), 2);
        assert_eq!(get(4, "offsets", true), 40);
        assert_eq!(get(5, "members", false), 51, "the reader's choice is drawn at once, even off screen");
        assert_eq!(get(6, "members", false), 51);
        assert_eq!(computed.get(), 4);
    }
}
