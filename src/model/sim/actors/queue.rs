//! The SDK's event queue and the consumer that reads it: what the
//! executor enqueues and what closes the queue reach their actors in
//! order. Where the profile says the consumer awaits each POST's answer
//! (SPEC §12), what reaches it meanwhile waits, in order, and a return of
//! `execute()` closes the queue only once the consumer has caught up.

use std::collections::VecDeque;

use super::effect::{Effect, View};
use super::inputs::{ExecutorIn, QueueIn, To};

/// What waits for the consumer.
#[derive(Debug)]
enum Waiting {
    /// A message for another actor, handled when the consumer gets to it.
    Message(Box<To>),
    /// `execute()` of this execution returned meanwhile: due again when
    /// the consumer gets to it.
    Return(usize),
}

/// The queue's consumer: whether it awaits a POST's answer, and what
/// reached it meanwhile.
#[derive(Debug, Default)]
pub(super) struct Queue {
    held: bool,
    waiting: VecDeque<Waiting>,
}

impl Queue {
    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: QueueIn) -> Vec<Effect> {
        match input {
            QueueIn::Consume(to) if self.held => self.wait(Waiting::Message(to)),
            QueueIn::Consume(to) => vec![Effect::Send(*to)],
            QueueIn::Return { exec } if self.held => self.wait(Waiting::Return(exec)),
            QueueIn::Return { exec } => vec![Effect::to(ExecutorIn::Returns(exec))],
            QueueIn::Hold(first) => {
                self.held = true;
                self.waiting.push_front(Waiting::Message(first));
                vec![]
            }
            QueueIn::Release => {
                self.held = false;
                self.next(view)
            }
            QueueIn::Next => self.next(view),
            QueueIn::Killed => {
                self.held = false;
                self.waiting.clear();
                vec![]
            }
        }
    }

    fn wait(&mut self, waiting: Waiting) -> Vec<Effect> {
        self.waiting.push_back(waiting);
        vec![]
    }

    /// The consumer takes the next thing that waits, with all it leads
    /// to, then comes back for more unless that held it again.
    fn next(&mut self, view: &View) -> Vec<Effect> {
        if self.held {
            return vec![];
        }
        let Some(waiting) = self.waiting.pop_front() else {
            return vec![];
        };
        let effect = match waiting {
            Waiting::Message(to) => Effect::Send(*to),
            // A return that came while the consumer waited is due now.
            Waiting::Return(exec) => Effect::at(view.now, QueueIn::Return { exec }),
        };
        vec![effect, Effect::to(QueueIn::Next)]
    }
}
