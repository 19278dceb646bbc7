//! The clock: a `requestAnimationFrame` loop that turns elapsed time into
//! ticks at the chosen speed. It lives exactly as long as its value.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// Calls `on_ticks(n)` from animation frames whenever `n ≥ 1` ticks are due at
/// `ticks_per_second`; stops (cancels the pending frame and frees its
/// closure) when dropped. After a panic ([`crate::panic`]) it calls nothing.
#[derive(Debug)]
pub struct FrameLoop {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    handle: Option<i32>,
    closure: Option<Closure<dyn FnMut(f64)>>,
    last_ms: Option<f64>,
    carry_ms: f64,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner").field("handle", &self.handle).finish_non_exhaustive()
    }
}

/// Ticks due after `elapsed_ms` at `ticks_per_second`, with the remainder
/// carried to the next frame; a long gap (a background tab) is not caught up.
#[must_use]
pub fn ticks_due(carry_ms: f64, elapsed_ms: f64, ticks_per_second: u32, max_ticks: u32) -> (u32, f64) {
    let period_ms = 1000.0 / f64::from(ticks_per_second.max(1));
    let total = carry_ms + elapsed_ms.clamp(0.0, 250.0);
    let due = (total / period_ms).floor();
    if due >= f64::from(max_ticks) {
        return (max_ticks, 0.0);
    }
    (due as u32, total - due * period_ms)
}

impl FrameLoop {
    /// Starts the loop; `None` without a window.
    pub fn start(
        ticks_per_second: u32,
        max_ticks: u32,
        on_ticks: impl Fn(u32) + 'static,
    ) -> Option<FrameLoop> {
        let window = web_sys::window()?;
        let inner =
            Rc::new(RefCell::new(Inner { handle: None, closure: None, last_ms: None, carry_ms: 0.0 }));
        let weak = Rc::downgrade(&inner);
        let closure = Closure::<dyn FnMut(f64)>::new(move |now_ms: f64| {
            let Some(inner) = weak.upgrade() else { return };
            if crate::panic::has_panicked() {
                return;
            }
            let due = {
                let mut state = inner.borrow_mut();
                let elapsed = state.last_ms.map_or(0.0, |last| now_ms - last);
                state.last_ms = Some(now_ms);
                let (due, carry) = ticks_due(state.carry_ms, elapsed, ticks_per_second, max_ticks);
                state.carry_ms = carry;
                due
            };
            if due > 0 {
                on_ticks(due);
            }
            // Ask for the next frame with the same closure (still owned by `inner`).
            let state = &mut *inner.borrow_mut();
            if let (Some(window), Some(closure)) = (web_sys::window(), state.closure.as_ref()) {
                state.handle = window.request_animation_frame(closure.as_ref().unchecked_ref()).ok();
            }
        });
        let handle = window.request_animation_frame(closure.as_ref().unchecked_ref()).ok()?;
        {
            let mut state = inner.borrow_mut();
            state.handle = Some(handle);
            state.closure = Some(closure);
        }
        Some(FrameLoop { inner })
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        let Ok(mut state) = self.inner.try_borrow_mut() else { return };
        if let (Some(window), Some(handle)) = (web_sys::window(), state.handle.take()) {
            let _ = window.cancel_animation_frame(handle);
        }
        // Breaks the cycle: the closure is freed with the loop.
        state.closure = None;
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::ticks_due;

    #[test]
    fn frames_turn_into_ticks_at_the_speed() {
        assert_eq!(ticks_due(0.0, 16.0, 60, 16).0, 0);
        let (due, carry) = ticks_due(10.0, 16.7, 60, 16);
        assert_eq!(due, 1);
        assert!(carry < 16.7);
        assert_eq!(ticks_due(0.0, 250.0, 4, 16).0, 1);
        // A long gap counts as a quarter second at most.
        let (due, _) = ticks_due(0.0, 10_000.0, 60, 16);
        assert!((14..=15).contains(&due), "{due}");
        assert_eq!(ticks_due(0.0, 250.0, 1000, 8), (8, 0.0));
    }
}
