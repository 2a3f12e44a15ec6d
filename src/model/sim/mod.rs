//! The executor simulation of seed 004 (SPEC §4, §7, §9): the scenario keys
//! ([`keys`]) and the scenario they make ([`scenario`], read from a URL
//! query by [`query`], the subscriber keys' limits in `subscriber_keys`, the push keys' in
//! `push_keys`), what each SDK does differently ([`profile`]), the actors
//! on one virtual clock (`actors`), and seed 000's worked ledgers played
//! as scripts ([`presets`]).

mod actors;
pub mod keys;
pub mod presets;
pub mod profile;
mod push_keys;
pub mod query;
pub mod scenario;
mod subscriber_keys;

pub use actors::{get_task, simulate, Simulation};
