//! The server process: a restart kills every execution, breaks the
//! clients' connections (a client set to resubscribe calls SubscribeToTask
//! again) and keeps or loses the tasks with its store.

use super::state::{Call, Exec};
use super::Sim;
use crate::model::sim::scenario::{Client, Store};
use crate::model::trace::{Disposition, Entry, Source, StreamOutcome};

impl Sim<'_> {
    pub(super) fn restart(&mut self) {
        let assumed = !self.profile.restart_measured;
        self.record(
            Entry::action(Source::Server, "server restarts: the process is killed")
                .assumed(assumed),
        );
        for run in &mut self.executor.runs {
            run.state = Exec::Dead;
        }
        let broken = matches!(self.client.call, Call::Open | Call::Stranded);
        if broken {
            self.client.call = match self.sc.client {
                Client::Stream => Call::Closed,
                Client::Block => Call::Failed,
            };
            self.end_stream(self.client.stream, StreamOutcome::Broken);
            let label = match self.sc.client {
                Client::Stream => "stream broken by the restart",
                Client::Block => "SendMessage fails: connection reset by the restart",
            };
            self.record(Entry::action(Source::Client, label).assumed(assumed));
        }
        self.break_second();
        match self.sc.store {
            Store::Memory => {
                self.tasks.iter_mut().for_each(|t| t.stored = None);
                self.record(
                    Entry::action(
                        Source::Server,
                        "fresh server: the in-memory task store is empty, the task is lost",
                    )
                    .disposition(Disposition::Lost)
                    .assumed(assumed),
                );
            }
            Store::Database => {
                let state = self.task_state().map_or("?".into(), |s| s.label());
                let label = format!(
                    "fresh server: the database still holds the task {state}; nothing resumes it"
                );
                self.record(
                    Entry::action(Source::Server, label)
                        .disposition(Disposition::NotDelivered)
                        .assumed(assumed),
                );
            }
        }
        if broken {
            self.resubscribe_after_break();
        }
    }
}
