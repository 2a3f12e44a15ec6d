//! The probe of a live agent (SPEC §10–§13), sans IO: the plan says what
//! to send next and how to steer by each answer, the judge says what the
//! answers mean, and the native pump (`crate::probe`) only carries bytes.
//! The live run and `cargo test` (which replays recorded answers of real
//! agents) drive the same plan, so every rule is proved with no socket.
//!
//! - [`plan`]: the order of the probes and their calls, steered by the
//!   answers (act once the task runs); a recorded run replayed.
//! - [`request`]: each call as its wire and binding spell it.
//! - [`read`]: what a probe reads of its answers (which task, whether it
//!   runs, its last state, the artifacts a client holds, a refusal).
//! - [`judge`]: each probe's calls as records in, a judgement out;
//!   [`running`], the probes that act on a running task (`cancel`,
//!   `resubscribe`).
//! - [`contract`]: the checks beside the lifecycle (card, envelopes,
//!   foreign tasks, contexts).
//! - [`push`]: the push probe's judgement.
//! - [`records`]: what a run received, as `records.json` keeps it.
//! - [`report`]: what `probe` found; `probe.json`.
//! - [`gate`]: the probe as a CI gate (JUnit, SARIF, baseline).
//! - [`bindings`]: `--binding all`, where one agent's bindings disagree.
//! - [`unreadable`]: why what a probe received cannot be judged.

// The page reads a compared report; only the native probe compares.
#[cfg(not(target_arch = "wasm32"))]
pub mod bindings;
pub mod contract;
pub mod gate;
pub mod judge;
pub mod plan;
pub mod push;
pub mod read;
pub mod records;
pub mod report;
pub mod request;
pub mod running;
pub mod unreadable;
