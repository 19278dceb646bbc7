//! What the page shares with the browser outside Yew: the run being shown,
//! for the panic hook ([`crate::panic`]) and `window.offsetlab_view()`
//! ([`crate::js_api`]). The app publishes after every render.

use offsetlab_engine::View;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

thread_local! {
    /// `(seed, tick)` of the run on screen. A `Cell` of plain data, so the
    /// panic hook can read it whatever else is borrowed when a panic happens.
    static RUN: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
    static VIEW: RefCell<Option<Rc<View>>> = const { RefCell::new(None) };
}

/// Records the view on screen (its seed and tick included).
pub fn publish(view: Rc<View>) {
    RUN.with(|run| run.set(Some((view.seed, view.tick))));
    VIEW.with(|current| *current.borrow_mut() = Some(view));
}

/// `(seed, tick)` of the last published view.
#[must_use]
pub fn run() -> Option<(u64, u64)> {
    RUN.try_with(Cell::get).ok().flatten()
}

/// The last published view.
#[must_use]
pub fn view() -> Option<Rc<View>> {
    VIEW.with(|current| current.borrow().clone())
}
