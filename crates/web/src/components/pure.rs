//! One component type for every presentational piece: [`pure`] renders a plain
//! `fn(&P) -> Html` as a component that re-renders only when its props change.
//!
//! Yew monomorphizes a component's whole lifecycle per component type (about
//! 400 bytes gzip of wasm each). Behind `Pure`, a piece costs its props' `==`
//! and a vtable instead, and keeps its re-render boundary. Pieces with hooks
//! stay `#[component]`s.

use std::any::Any;
use std::rc::Rc;
use yew::prelude::*;
use yew::virtual_dom::Key;

/// A piece's props with its view function, type-erased.
trait Piece {
    fn view(&self) -> Html;
    fn as_any(&self) -> &dyn Any;
    /// Same view function and equal props.
    fn same(&self, other: &dyn Any) -> bool;
}

struct Node<P> {
    props: P,
    view: fn(&P) -> Html,
}

impl<P: PartialEq + 'static> Piece for Node<P> {
    fn view(&self) -> Html {
        (self.view)(&self.props)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn Any) -> bool {
        other
            .downcast_ref::<Node<P>>()
            .is_some_and(|o| std::ptr::fn_addr_eq(o.view, self.view) && o.props == self.props)
    }
}

#[derive(Clone, Properties)]
struct PureProps {
    node: Rc<dyn Piece>,
}

impl PartialEq for PureProps {
    fn eq(&self, other: &Self) -> bool {
        self.node.same(other.node.as_any())
    }
}

#[component]
fn Pure(props: &PureProps) -> Html {
    props.node.view()
}

/// `view(&props)` as a component: rendered again only when `props` change.
pub fn pure<P: PartialEq + 'static>(view: fn(&P) -> Html, props: P) -> Html {
    let node: Rc<dyn Piece> = Rc::new(Node { props, view });
    html! { <Pure {node} /> }
}

/// [`pure`] with a key, for lists.
pub fn pure_keyed<P: PartialEq + 'static>(key: impl Into<Key>, view: fn(&P) -> Html, props: P) -> Html {
    let node: Rc<dyn Piece> = Rc::new(Node { props, view });
    html! { <Pure key={key.into()} {node} /> }
}
