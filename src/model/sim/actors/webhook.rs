//! The client's webhook (SPEC §12): a receiver that answers each POST as
//! the scenario says (200, 500, or no one listening), after its delay.

use super::effect::View;
use crate::model::sim::scenario::Webhook as Answers;

/// How the webhook met one POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    /// It answered with this HTTP status at this virtual time.
    Status(u16, u64),
    /// Nothing listens: the connection was refused at once.
    Refused,
}

/// The webhook: how many POSTs reached it.
#[derive(Debug, Default)]
pub(super) struct Webhook {
    received: u32,
}

impl Webhook {
    /// A POST arrives now.
    pub(super) fn receive(&mut self, view: &View) -> Answer {
        let code = match view.sc.webhook {
            Answers::Down => return Answer::Refused,
            Answers::Ok => 200,
            Answers::Error => 500,
        };
        self.received += 1;
        let delay = view.sc.webhook_delay_ms.map_or(0, u64::from);
        Answer::Status(code, view.now + delay)
    }
}
