//! The server process: a restart kills every execution, breaks the
//! clients' connections (a client set to resubscribe calls SubscribeToTask
//! again) and keeps or loses the tasks with its store.

use super::effect::{Effect, View};
use super::inputs::{ClientIn, ExecutorIn, PushIn, QueueIn, SecondIn, ServerIn, StoreIn};
use super::state::CallState;
use crate::model::trace::{Entry, Source};

/// The server process. It holds nothing of its own: what a restart does
/// falls on the executor, the clients and the store.
#[derive(Debug, Default)]
pub(super) struct Server;

impl Server {
    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: ServerIn) -> Vec<Effect> {
        match input {
            ServerIn::Restart => self.restart(view),
        }
    }

    /// The process is killed and starts fresh: the executions die with
    /// it, the clients' open calls and streams break, the store keeps or
    /// loses the tasks.
    fn restart(&self, view: &View) -> Vec<Effect> {
        // No recording measured a restart in every SDK: rows say so.
        let assumed = !view.profile.restart_measured;
        let connected = matches!(view.client_call, CallState::Open | CallState::Stranded);
        let mut effects = vec![
            Effect::Row(
                Entry::action(Source::Server, "server restarts: the process is killed")
                    .assumed(assumed),
            ),
            Effect::to(ExecutorIn::Killed),
            Effect::to(PushIn::Killed),
            Effect::to(QueueIn::Killed),
        ];
        if connected || view.lingering.is_some() {
            effects.push(Effect::to(ClientIn::Broken { assumed }));
        }
        effects.push(Effect::to(SecondIn::Broken));
        effects.push(Effect::to(StoreIn::Restarted { assumed }));
        if connected {
            effects.push(Effect::to(ClientIn::ResubscribeAfterBreak));
        }
        effects
    }
}
