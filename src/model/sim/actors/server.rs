//! The server process: a restart kills every execution, breaks the
//! clients' connections (a client set to resubscribe calls SubscribeToTask
//! again) and keeps or loses the tasks with its store.

use super::effect::{Effect, View};
use crate::model::sim::scenario::Store;
use crate::model::trace::{Disposition, Entry, Source};

/// The server process. It holds nothing of its own: what a restart does
/// falls on the executor, the clients and the store.
#[derive(Debug, Default)]
pub(super) struct Server;

impl Server {
    /// The process is killed and starts fresh. `client_connected` says
    /// whether client 1 still had a call or stream open, which the restart
    /// breaks.
    pub(super) fn restart(&self, view: &View, client_connected: bool) -> Vec<Effect> {
        // No recording measured a restart in every SDK: rows say so.
        let assumed = !view.profile.restart_measured;
        let mut effects = vec![
            Effect::Row(
                Entry::action(Source::Server, "server restarts: the process is killed")
                    .assumed(assumed),
            ),
            Effect::KillExecutions,
        ];
        if client_connected {
            effects.push(Effect::BreakClient { assumed });
        }
        effects.push(Effect::BreakSecond);
        match view.sc.store {
            Store::Memory => {
                effects.push(Effect::LoseTasks);
                effects.push(Effect::Row(
                    Entry::action(
                        Source::Server,
                        "fresh server: the in-memory task store is empty, the task is lost",
                    )
                    .disposition(Disposition::Lost)
                    .assumed(assumed),
                ));
            }
            Store::Database => {
                let state = view.followed_state().map_or("?".into(), |s| s.label());
                let label = format!(
                    "fresh server: the database still holds the task {state}; nothing resumes it"
                );
                effects.push(Effect::Row(
                    Entry::action(Source::Server, label)
                        .disposition(Disposition::NotDelivered)
                        .assumed(assumed),
                ));
            }
        }
        if client_connected {
            effects.push(Effect::ResubscribeAfterBreak);
        }
        effects
    }
}
