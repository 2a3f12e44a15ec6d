//! The client's webhook (SPEC §12): a receiver that answers each POST as
//! the scenario says (200, 500, or no one listening), after its delay.

use super::post::Reply;
use crate::model::sim::actors::effect::{Effect, View};
use crate::model::sim::actors::inputs::{PushIn, WebhookIn};
use crate::model::sim::scenario::Webhook as Replies;

/// The webhook: how many POSTs reached it.
#[derive(Debug, Default)]
pub(in crate::model::sim::actors) struct ClientWebhook {
    received: u32,
}

impl ClientWebhook {
    /// Handles one input: a POST is answered, and the sender learns how.
    pub(in crate::model::sim::actors) fn handle(
        &mut self,
        view: &View,
        input: WebhookIn,
    ) -> Vec<Effect> {
        match input {
            WebhookIn::Receive(post) => {
                let answer = self.receive(view);
                vec![Effect::to(PushIn::Answered(post, answer))]
            }
        }
    }

    /// A POST arrives now.
    fn receive(&mut self, view: &View) -> Reply {
        let code = match view.sc.webhook {
            Replies::Down => return Reply::Refused,
            Replies::Ok => 200,
            Replies::Error => 500,
        };
        self.received += 1;
        let delay = view.sc.webhook_delay_ms.map_or(0, u64::from);
        Reply::Status(code, view.now + delay)
    }
}
