//! Live (`a2a-lab serve --agent`): the pure half of a session with a real
//! agent. The page asks ([`ask`]); the relay, which alone talks to the
//! agent, answers each ask as [`frame`]s: the request it sent, each answer
//! as it came, how the call ended. The [`session`] keeps those frames as a
//! capture that `check` reads, requests included, and judges it with the
//! capture reader as it grows. Before any call, the relay's [`doctor`]
//! says, step by step, whether the agent can be talked to and how to fix
//! what stops it. Nothing here does IO: the relay's is `crate::probe::live`
//! and `crate::serve::relay`, the page's `crate::ui`.

pub mod ask;
pub mod doctor;
pub mod frame;
pub mod session;
