//! A browser interval that lives exactly as long as its value.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// How often the timer advances the simulation by one tick.
pub const TICK_MS: i32 = 250;

/// `window.setInterval(callback, period_ms)`, cleared when dropped. The
/// closure is owned here and dropped after the interval is cleared, so the
/// browser never calls a freed closure and nothing is leaked. After a panic
/// ([`crate::panic`]) the callback is no longer called: the app behind it is dead.
#[derive(Debug)]
pub struct Interval {
    id: i32,
    _closure: Closure<dyn FnMut()>,
}

impl Interval {
    /// Starts calling `callback` every `period_ms`; `None` without a window.
    pub fn new(period_ms: i32, mut callback: impl FnMut() + 'static) -> Option<Interval> {
        let window = web_sys::window()?;
        let closure = Closure::<dyn FnMut()>::new(move || {
            if !crate::panic::has_panicked() {
                callback();
            }
        });
        let id = window
            .set_interval_with_callback_and_timeout_and_arguments_0(
                closure.as_ref().unchecked_ref(),
                period_ms,
            )
            .ok()?;
        Some(Interval { id, _closure: closure })
    }
}

impl Drop for Interval {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            window.clear_interval_with_handle(self.id);
        }
    }
}
