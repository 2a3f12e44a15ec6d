//! The probe's pump: it makes the calls the plan asks for over HTTP, hands
//! each answer back as it arrives, keeps each capture under `--out`, and
//! decides nothing. The order of the probes, when to act on a running
//! task and what every answer means are the model's plan's
//! ([`ProbePlan`]), which `cargo test` drives from recorded answers.

use std::path::Path;
use std::time::Duration;

use crate::model::evidence::probe::plan::{Ask, Call, ProbePlan, Steer};

use super::call::{Caller, Flow, Received};
use super::webhook::WebhookServer;

/// The webhook is done with the earlier tasks when nothing arrived for
/// this long.
const QUIET: Duration = Duration::from_millis(500);

/// Makes every call `plan` asks for, until it is done.
pub fn pump(
    client: &dyn Caller,
    plan: &mut ProbePlan,
    wait: Duration,
    out: Option<&Path>,
    webhook: Option<&WebhookServer>,
) -> Result<(), String> {
    loop {
        match plan.poll() {
            Ask::Done => return Ok(()),
            Ask::Calls(calls) if calls.len() > 1 => {
                // Several streams at once (`--tasks`), each read to its end.
                let received = std::thread::scope(|scope| {
                    let streams: Vec<_> = calls
                        .iter()
                        .map(|c| {
                            scope.spawn(move || {
                                client.call(&c.request, wait, &mut |_, _| Flow::Read)
                            })
                        })
                        .collect();
                    streams
                        .into_iter()
                        .map(|s| s.join().unwrap_or_else(|_| Err("a stream failed".into())))
                        .collect::<Result<Vec<_>, String>>()
                })?;
                for (c, r) in calls.iter().zip(received) {
                    end(plan, c, &r, out)?;
                }
            }
            Ask::Calls(calls) => {
                for c in &calls {
                    let r = steered(client, plan, c, wait, out)?;
                    end(plan, c, &r, out)?;
                }
            }
            Ask::Push { call: c, delay_ms } => {
                let Some(webhook) = webhook else {
                    return Err("the plan asked for a webhook the probe does not have".into());
                };
                webhook.wait_quiet(QUIET, wait);
                let delay = Duration::from_millis(delay_ms);
                webhook.answer_after(delay);
                // Long enough to see a stream held up by two slow answers.
                let r = client.call(&c.request, wait + delay * 2, &mut |_, _| Flow::Read)?;
                keep(&c, &r, out)?;
                plan.on_pushed(c.id, Some(r.record()), webhook.posts(), webhook.refused());
            }
        }
    }
}

/// One call, steered by the plan as each answer arrives: read on, drop
/// the stream, or make another call first (the cancel).
fn steered(
    client: &dyn Caller,
    plan: &mut ProbePlan,
    c: &Call,
    wait: Duration,
    out: Option<&Path>,
) -> Result<Received, String> {
    let mut failed = None;
    let received = client.call(&c.request, wait, &mut |_, answer| match answer
        .map(|a| plan.on_answer(a))
        .unwrap_or(Steer::Read)
    {
        Steer::Read => Flow::Read,
        Steer::Drop => Flow::Drop,
        Steer::Call(nested) => {
            let done = client
                .call(&nested.request, wait, &mut |_, _| Flow::Read)
                .and_then(|r| end(plan, &nested, &r, out));
            if let Err(e) = done {
                failed = Some(e);
            }
            Flow::Read
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(received),
    }
}

/// A call ended: its capture kept, its record to the plan.
fn end(plan: &mut ProbePlan, c: &Call, r: &Received, out: Option<&Path>) -> Result<(), String> {
    keep(c, r, out)?;
    plan.on_end(c.id, Some(r.record()));
    Ok(())
}

/// Keeps what a call received under `--out`, named by the plan.
fn keep(c: &Call, r: &Received, out: Option<&Path>) -> Result<(), String> {
    if let Some(dir) = out {
        let path = dir.join(c.file(&r.record()));
        std::fs::write(&path, &r.raw).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
