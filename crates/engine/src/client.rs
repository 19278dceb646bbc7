//! The client side: the producer, and each consumer's poll loop. Clients
//! hold their own state (positions, batches, a consumer-side offset store)
//! and talk to the broker only through the plain values the `Sim` routes.

pub(crate) mod accumulator;
pub(crate) mod consumer;
pub(crate) mod producer;
pub(crate) mod transactional;

pub(crate) use consumer::{Consumer, FetchStep, Fetched, OutOfGroup};
pub(crate) use producer::Producer;
