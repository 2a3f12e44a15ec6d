//! What the lab hands out and takes in as evidence (SPEC §5, §8, §10): what
//! a check can find ([`finding`], a leaf), the export ([`export`]), an
//! export checked ([`check`]), what a file is and the page's files read a
//! slice at a time ([`import`]), the reader of real traffic ([`capture`]),
//! the probe as a plan with its judge, contract checks, push judgement
//! and report ([`probe`]), two
//! runs side by side ([`compare`]), and the seed's own ledger form for
//! `reduce` ([`seed_form`], [`json_array`]).

pub mod capture;
pub mod check;
pub mod ci_report;
pub mod compare;
pub mod export;
pub mod finding;
pub mod import;
pub mod json_array;
pub mod live;
pub mod probe;
pub mod push_log;
pub mod quote;
pub mod scenario_of;
pub mod seed_form;
