//! The page's components, one per file. They render [`crate::state::AppState`]'s
//! data and report what the user did as domain values (an engine
//! [`offsetlab_engine::Input`], a step, play/pause); none of them simulates.

mod app;
mod consumers;
mod controls;
mod counters;
mod describe_table;
mod run_info;
mod status_line;

pub use app::{App, AppProps};
pub use consumers::{Consumers, ConsumersProps};
pub use controls::{Controls, ControlsProps};
pub use counters::{Counters, CountersProps};
pub use describe_table::{DescribeTable, DescribeTableProps};
pub use run_info::{RunInfo, RunInfoProps};
pub use status_line::{StatusLine, StatusLineProps};
