//! The limits of SPEC §12's push keys against the rest of the scenario:
//! what `push=after:k` may name. Push combines with every other key (SPEC
//! §14, measured).

use super::keys::{err, ScenarioError};
use super::scenario::{Client, Push, Scenario};

impl Scenario {
    /// Checks `push` and its keys against the other keys.
    pub(super) fn validate_push(&self) -> Result<(), ScenarioError> {
        if self.push == Push::Off {
            return Ok(());
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
