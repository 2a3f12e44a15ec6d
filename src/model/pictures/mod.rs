//! What the lab shows rather than tells: the state diagram ([`diagram`]),
//! the timeline ([`timeline`]), the outcome sentences and advice
//! ([`explain`]), the list of examples ([`examples`]) and a captured task
//! beside the scenario that explains it ([`beside`]).

pub mod beside;
pub mod diagram;
pub mod examples;
pub mod explain;
pub mod metrics;
pub mod page;
pub mod sdk_difference;
pub mod shown;
pub mod timeline;
