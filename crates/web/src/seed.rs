//! The run's seed and the page's URL: `?seed=N` reproduces a run.

use std::rc::Rc;
use wasm_bindgen::JsValue;

/// The query parameter that holds the seed.
pub const PARAM: &str = "seed";

/// The largest seed the page takes: JavaScript's `Number.MAX_SAFE_INTEGER`, so
/// that the seed reads back exactly from `window.offsetlab_view()`.
pub const SEED_MAX: u64 = (1 << 53) - 1;

/// The seed to run with, and a notice when the URL's could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedChoice {
    pub seed: u64,
    pub notice: Option<Rc<str>>,
}

/// Parses the `seed` parameter's value: `Ok(None)` when absent, `Err(notice)`
/// when unusable.
pub fn parse(value: Option<&str>) -> Result<Option<u64>, String> {
    let Some(value) = value else { return Ok(None) };
    match value.trim().parse::<u64>() {
        Ok(seed) if seed <= SEED_MAX => Ok(Some(seed)),
        _ => Err(format!(
            "The link's seed {} is not a whole number from 0 to {SEED_MAX}; this run uses a new one.",
            offsetlab_engine::codec::quoted(value)
        )),
    }
}

/// A fresh seed from the browser's entropy (`crypto.getRandomValues`), small
/// enough to read and share. Falls back to 1 if there is no entropy source.
#[must_use]
pub fn random() -> u64 {
    let mut bytes = [0u8; 4];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from(u32::from_le_bytes(bytes)),
        Err(_) => 1,
    }
}

/// The seed in the page's URL, or a random one.
#[must_use]
pub fn from_location_or_random() -> SeedChoice {
    let value = query_value().ok().flatten();
    match parse(value.as_deref()) {
        Ok(Some(seed)) => SeedChoice { seed, notice: None },
        Ok(None) => SeedChoice { seed: random(), notice: None },
        Err(notice) => SeedChoice { seed: random(), notice: Some(notice.into()) },
    }
}

fn query_value() -> Result<Option<String>, JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let search = window.location().search()?;
    Ok(web_sys::UrlSearchParams::new_with_str(&search)?.get(PARAM))
}

/// Writes `?seed=N` into the URL with `history.replaceState` (no reload, no
/// new history entry), keeping the other parameters and the fragment.
pub fn write_to_location(seed: u64) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let location = window.location();
    let params = web_sys::UrlSearchParams::new_with_str(&location.search()?)?;
    params.set(PARAM, &seed.to_string());
    let query: String = params.to_string().into();
    let url = format!("{}?{query}{}", location.pathname()?, location.hash()?);
    window.history()?.replace_state_with_url(&JsValue::NULL, "", Some(&url))
}

/// Replaces the URL's query with `query` (a run's link) with
/// `history.replaceState`, keeping the path and the fragment.
pub fn write_query(query: &str) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let location = window.location();
    let url = format!("{}?{query}{}", location.pathname()?, location.hash()?);
    window.history()?.replace_state_with_url(&JsValue::NULL, "", Some(&url))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn parses_whole_numbers_in_range() {
        assert_eq!(parse(None), Ok(None));
        assert_eq!(parse(Some("42")), Ok(Some(42)));
        assert_eq!(parse(Some(" 0 ")), Ok(Some(0)));
        assert_eq!(parse(Some(&SEED_MAX.to_string())), Ok(Some(SEED_MAX)));
        for bad in ["", "-1", "1.5", "abc", "9007199254740992", "99999999999999999999999"] {
            assert!(parse(Some(bad)).is_err(), "{bad:?}");
        }
    }
}
