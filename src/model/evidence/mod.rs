//! What the lab hands out and takes in as evidence (SPEC §5, §8): the export
//! ([`export`]), `check` and Import ([`check`], and [`import`] for the
//! page's files read a slice at a time), the reader of real traffic
//! ([`capture`]), two runs side by side ([`compare`]), and the seed's own
//! ledger form for `reduce` ([`seed_form`], [`json_array`]).

pub mod capture;
mod capture_judge;
mod capture_report;
pub mod capture_run;
pub mod check;
pub mod compare;
pub mod export;
pub mod finding;
pub mod import;
pub mod json_array;
pub mod probe_judge;
pub mod probe_report;
pub mod seed_form;
