//! The executor simulation of seed 004 (SPEC §4, §7): the scenario keys
//! ([`keys`]) and the scenario they make ([`scenario`], read from a URL
//! query by [`query`]), what each SDK does differently ([`profile`]), the actors
//! on one virtual clock (`actors`), and seed 000's worked ledgers played
//! as scripts ([`presets`]).

mod actors;
pub mod keys;
pub mod presets;
pub mod profile;
pub mod query;
pub mod scenario;

pub use actors::simulate;
