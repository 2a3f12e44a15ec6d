//! What the lab shows rather than tells: the state diagram ([`diagram`]),
//! the timeline ([`timeline`]), the outcome sentences and advice
//! ([`explain`]) and the list of examples ([`examples`]).

pub mod diagram;
pub mod examples;
pub mod explain;
pub mod metrics;
pub mod page;
pub mod shown;
pub mod timeline;
