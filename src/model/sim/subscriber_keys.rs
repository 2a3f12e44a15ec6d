//! The limits of SPEC §9's subscriber keys (`resubscribe`, `second_client`)
//! against the rest of the scenario: which scenarios they apply to, and how
//! many events client 1's stream can carry for `k` to name one.

use super::keys::{err, Key, ScenarioError};
use super::profile::Profile;
use super::scenario::{Client, Ending, Interrupt, ResultShape, Scenario};
use crate::model::trace::StreamRole;

impl Scenario {
    /// The most events client 1's first stream can carry here: the Task,
    /// WORKING, the progress updates, one per chunk (or the one result),
    /// the ending's status (if it writes one), a late artifact, the event
    /// `dup` resends, and per interruption its status and the resumed
    /// turn's WORKING (and the task the SDK publishes again, where it
    /// does). A stream may end earlier (a cancel, a restart, an
    /// SDK that drops what comes after the terminal status); then the
    /// trace says that event k never came.
    pub fn stream_events_at_most(&self) -> u32 {
        let ending = match self.ending {
            Ending::Return | Ending::Never => 0,
            _ => 1,
        };
        let artifacts = match self.result {
            ResultShape::Chunks => self.chunks,
            ResultShape::Last => u32::from(self.chunks > 0),
        };
        let progress = self.chunks * self.progress;
        let turns = match self.interrupt {
            Interrupt::None => 0,
            Interrupt::Auth | Interrupt::Input => 1,
            Interrupt::Both => 2,
        };
        let per_turn = 2 + u32::from(Profile::of(self.sdk).resume_publishes_task);
        2 + progress
            + artifacts
            + ending
            + u32::from(self.late.is_some())
            + u32::from(self.dup.is_some())
            + turns * per_turn
    }

    /// The stream whose events `resubscribe=k` counts: client 1's
    /// message stream, or with `retry=on` its retried one (measured: the
    /// recorders' client drops the retried stream at its event k).
    pub fn dropped_stream(&self) -> StreamRole {
        if self.retry {
            StreamRole::Retry
        } else {
            StreamRole::Send
        }
    }

    /// Why the subscriber keys do not apply to this scenario, if they do
    /// not: only where they cannot (every other combination was measured
    /// or, for the lab's own faults, given a meaning; SPEC §14).
    pub(super) fn subscribers_apply(&self) -> Result<(), &'static str> {
        if self.client == Client::Block {
            return Err("counts the events of client 1's stream; a blocking call has none");
        }
        Ok(())
    }

    /// Checks `resubscribe` and `second_client` against the other keys and
    /// against the events client 1's stream can carry.
    pub(super) fn validate_subscribers(&self) -> Result<(), ScenarioError> {
        for (key, value) in [
            (Key::Resubscribe, self.resubscribe),
            (Key::SecondClient, self.second_client),
        ] {
            let Some(k) = value else { continue };
            if let Err(why) = self.subscribers_apply() {
                let needs = match self.client {
                    Client::Block => "needs client=stream: it ".to_string(),
                    Client::Stream => String::new(),
                };
                return Err(err(key.name(), format!("{needs}{why}")));
            }
            let most = self.stream_events_at_most();
            if k > most {
                return Err(err(
                    key.name(),
                    format!("{k} is out of range (1 – {most}): with these keys client 1's stream carries at most {most} events (the Task, WORKING, a chunk each, the ending's status, a late artifact)"),
                ));
            }
        }
        Ok(())
    }
}
