//! The executor simulation of seed 004 (SPEC §4, §7): the scenario keys
//! ([`scenario`]), what each SDK does differently ([`profile`]), the actors
//! on one virtual clock (`simulate`), and seed 000's worked ledgers played
//! as scripts ([`presets`]).

pub mod presets;
pub mod profile;
pub mod scenario;
mod simulate;

pub use simulate::simulate;
