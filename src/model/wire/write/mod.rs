//! What the lab writes on the A2A wire: the simulator's events.
//!
//! - [`v10`]: the 1.0 events, as a2a-sdk 1.3.0 writes them;
//! - [`v03`]: the same events as the SDKs' 0.3 compatibility modes write
//!   them;
//! - [`row`]: a row's event as the simulator keeps it, written as JSON only
//!   when something asks for it.

pub mod row;
pub mod v03;
pub mod v10;
