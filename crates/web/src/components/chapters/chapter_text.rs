//! A chapter's heading and its text. Static: it renders once.
//!
//! The texts carry a little markup, so that each term is defined where it is
//! first used: `{term}` is a `<dfn>` (the sentence around it defines it),
//! `{ABBR|expansion}` an `<abbr>` with its expansion as title, and `` `x` ``
//! code.

use super::CHAPTERS;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChapterTextProps {
    /// Index into [`CHAPTERS`].
    pub index: usize,
}

/// One piece of a marked-up text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Term(&'a str),
    Abbr(&'a str, &'a str),
    Code(&'a str),
}

/// Splits `text` into its pieces; `None` if a `{` or a backquote is left open.
fn pieces(text: &str) -> Option<Vec<Piece<'_>>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(['{', '`']) {
        if at > 0 {
            out.push(Piece::Text(&rest[..at]));
        }
        let open = &rest[at..at + 1];
        let close = if open == "{" { '}' } else { '`' };
        let body_start = at + 1;
        let end = body_start + rest[body_start..].find(close)?;
        let body = &rest[body_start..end];
        out.push(match (open, body.split_once('|')) {
            ("`", _) => Piece::Code(body),
            (_, Some((abbr, title))) => Piece::Abbr(abbr, title),
            (_, None) => Piece::Term(body),
        });
        rest = &rest[end + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Some(out)
}

/// A marked-up text (see the module's doc) as inline HTML.
fn marked(text: &'static str) -> Html {
    let Some(pieces) = pieces(text) else { return html! { { text } } };
    html! {
        <>
            { for pieces.into_iter().map(|piece| match piece {
                Piece::Text(t) => html! { { t } },
                Piece::Term(t) => html! { <dfn>{ t }</dfn> },
                Piece::Abbr(a, title) => html! { <abbr {title}>{ a }</abbr> },
                Piece::Code(c) => html! { <code>{ c }</code> },
            }) }
        </>
    }
}

#[component]
pub fn ChapterText(props: &ChapterTextProps) -> Html {
    let Some(chapter) = CHAPTERS.get(props.index) else { return html! {} };
    html! {
        <>
            <h2 id={format!("{}-heading", chapter.id)}>
                <span class="chapter-number">{ format!("{} ", props.index + 1) }</span>
                { chapter.title }
                <a class="chapter-anchor" href={format!("#{}", chapter.id)}>
                    <span aria-hidden="true">{ "#" }</span>
                    <span class="visually-hidden">{ "Link to this chapter" }</span>
                </a>
            </h2>
            { for chapter.paragraphs.iter().map(|p| html! { <p>{ marked(p) }</p> }) }
        </>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_markup_splits_into_terms_abbreviations_and_code() {
        assert_eq!(
            pieces("the {in-sync replicas} ({ISR|in-sync replicas}) and `acks=all`."),
            Some(vec![
                Piece::Text("the "),
                Piece::Term("in-sync replicas"),
                Piece::Text(" ("),
                Piece::Abbr("ISR", "in-sync replicas"),
                Piece::Text(") and "),
                Piece::Code("acks=all"),
                Piece::Text("."),
            ])
        );
        assert_eq!(pieces("plain"), Some(vec![Piece::Text("plain")]));
        assert_eq!(pieces("an {open term"), None);
        assert_eq!(pieces("a stray } brace"), None);
        assert_eq!(pieces("`open code"), None);
    }

    #[test]
    fn every_chapter_text_is_well_formed() {
        for chapter in CHAPTERS {
            for p in chapter.paragraphs {
                assert!(pieces(p).is_some(), "{}: {p}", chapter.id);
            }
        }
    }
}
