//! A chapter's heading and its text. Static: it renders once.

use super::CHAPTERS;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChapterTextProps {
    /// Index into [`CHAPTERS`].
    pub index: usize,
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
            { for chapter.paragraphs.iter().map(|p| html! { <p>{ *p }</p> }) }
        </>
    }
}
