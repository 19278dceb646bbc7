//! The page's own choices, apart from the run: what the reader picked, and
//! what the page measured. Compared field by field (a derived `PartialEq`):
//! each is small.

use super::{DEFAULT_SPEED, Panel, TAPE_SHOWN_DEFAULT};
use offsetlab_engine::DescribeView;
use std::rc::Rc;

/// What a new run keeps: the reader's answers, the speed, the open panel, the
/// index filter, the describe table's view and each tape box's width. Only
/// the tapes' scroll positions belong to the run they were scrolled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Ui {
    /// Ticks per second.
    pub speed: u32,
    /// The quiz's chosen answers.
    pub quiz: [Option<usize>; 2],
    /// The open panel under the simulation.
    pub panel: Option<Panel>,
    /// The experiment index's filter, as typed.
    pub index_filter: Rc<str>,
    /// Which `--describe` view the table shows, and `--verbose`.
    pub describe_view: (DescribeView, bool),
    /// Cells a tape's box shows ([`super::Action::TapeShown`]).
    pub tape_shown: u64,
    /// The fetch of the built-in scenarios the wasm does not carry has not
    /// ended (`crate::builtins`): the parts that list them wait for it
    /// ([`super::Action::BuiltinsArrived`]). Once it has, they show what reads.
    pub builtins_pending: bool,
    /// The renderers of the parts below the first screen, once their wasm has
    /// loaded (`crate::below`; [`super::Action::PartsArrived`]): until then
    /// their prerendered copies stand in.
    pub parts: Option<crate::below::Parts>,
    /// Why the parts below the first screen did not load, if they did not.
    pub parts_failed: Option<Rc<str>>,
}

impl Default for Ui {
    fn default() -> Ui {
        Ui {
            speed: DEFAULT_SPEED,
            quiz: [None, None],
            panel: None,
            index_filter: Rc::from(""),
            describe_view: (DescribeView::Offsets, false),
            tape_shown: TAPE_SHOWN_DEFAULT,
            builtins_pending: !offsetlab_engine::builtins_loaded(),
            parts: crate::below::at_start(),
            parts_failed: None,
        }
    }
}
