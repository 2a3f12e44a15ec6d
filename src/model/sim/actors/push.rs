//! The SDK's push sender (SPEC §12): for each event the handler processes
//! on the followed task, once the client's config exists, a POST to the
//! webhook with the body and headers the profile says; one POST at a time
//! per task, each after the previous one's answer (or its timeout), never
//! retried. Where the profile says so, the task's consumer waits for the
//! answer before the stream gets the event.

use std::collections::VecDeque;

use super::effect::{Effect, View};
use super::inputs::{HandlerIn, PushIn, QueueIn, WebhookIn};
use super::post::{Post, Reply};
use super::state::{Event, Payload};
use crate::model::sim::keys::{Push, PushAuth, Wire};
use crate::model::sim::profile::PushBody03;
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, PushMetrics, PushRecord, Source};
use crate::model::wire::{self, write_v03::to_v03};

/// The push sender: the POSTs waiting their turn and what was sent.
#[derive(Debug, Default)]
pub(super) struct PushSender {
    /// Events processed on the followed task (`push=after:k` counts them).
    seen: u32,
    queue: VecDeque<Post>,
    /// A POST is out and not yet answered.
    busy: bool,
    /// Every body sent, as bytes, for duplicates.
    bodies: Vec<String>,
    pushes: u32,
    answered: u32,
    last_state: Option<TaskState>,
    terminal_sent: bool,
    /// Configs beyond the first that each get every event (SPEC §14).
    more_configs: u32,
    /// Event loops of returned calls that push every event too, until a
    /// terminal or input-required status.
    loops_left: u32,
    after_terminal: u32,
    duplicates: u32,
}

impl PushSender {
    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: PushIn) -> Vec<Effect> {
        match input {
            // The server published a resent event once already: only the
            // client's reconnected stream gets it again.
            PushIn::Event(delivery) if delivery.resend => {
                vec![Effect::to(HandlerIn::Deliver(delivery))]
            }
            PushIn::Event(delivery) => {
                let (effects, holds) = self.event(view, &delivery.event);
                let deliver = HandlerIn::Deliver(delivery);
                if holds {
                    // The consumer awaits the POST's answer first.
                    let hold = QueueIn::Hold(Box::new(deliver.into()));
                    std::iter::once(Effect::to(hold)).chain(effects).collect()
                } else {
                    effects.into_iter().chain([Effect::to(deliver)]).collect()
                }
            }
            PushIn::Send => self.send(),
            PushIn::Answered(post, answer) => self.answered(view, *post, answer),
            PushIn::Done => {
                self.busy = false;
                self.send()
            }
            PushIn::ConfigRepeated => {
                self.more_configs += u32::from(view.profile.push.repeated_config_adds);
                vec![]
            }
            PushIn::CallLoopLeft => {
                self.loops_left += u32::from(view.profile.push.auth_call_loop_pushes);
                vec![]
            }
        }
    }

    /// The handler processed `event`: POSTs for it join the queue. Returns
    /// the effects and whether the consumer now waits for their answer.
    fn event(&mut self, view: &View, event: &Event) -> (Vec<Effect>, bool) {
        if view.sc.push == Push::Off || event.task != view.followed {
            return (vec![], false);
        }
        self.seen += 1;
        if matches!(view.sc.push, Push::After(k) if self.seen <= k) {
            return (vec![], false);
        }
        let push = &view.profile.push;
        let stored = view.tasks[event.task].stored();
        let (body, state) = match (view.sc.wire, push.body_03, stored) {
            (Wire::V0_3, PushBody03::TaskSnapshot03, Some(t)) => (
                to_v03(&wire::task_snapshot(
                    event.task,
                    t.state,
                    view.now,
                    &t.artifacts,
                )),
                Some(t.state),
            ),
            _ => (event.wire.clone(), event.target),
        };
        let kind = body
            .as_object()
            .and_then(|m| m.keys().next().cloned())
            .unwrap_or_default();
        let shown = match body.get("kind").and_then(|k| k.as_str()) {
            Some(k) => k.to_string(),
            None => kind,
        };
        let content_type = push.content_type[usize::from(view.sc.wire == Wire::V0_3)];
        let what = match state {
            Some(s) => format!("{shown} {} ({content_type})", s.label()),
            None => format!("{shown} ({content_type})"),
        };
        // CancelTask's own event loop sees the CANCELED too, where it pushes.
        let again = push.cancel_call_pushes_again
            && event.source == Source::Cancel
            && matches!(event.payload, Payload::Status { .. });
        let post = Post {
            body,
            state,
            what,
            holds: push.holds_stream,
        };
        // Each config gets the event from each loop that pushes it.
        let copies = (1 + self.more_configs) * (1 + self.loops_left);
        for _ in 0..copies * (1 + u32::from(again)) {
            self.queue.push_back(post.clone());
        }
        if state.is_some_and(|s| s.is_terminal() || s == TaskState::InputRequired) {
            self.loops_left = 0;
        }
        let send = (!self.busy).then_some(Effect::at(view.now, PushIn::Send));
        (send.into_iter().collect(), push.holds_stream)
    }

    /// The next POST leaves for the webhook.
    fn send(&mut self) -> Vec<Effect> {
        if self.busy {
            return vec![];
        }
        match self.queue.pop_front() {
            Some(post) => {
                self.busy = true;
                vec![Effect::to(WebhookIn::Receive(Box::new(post)))]
            }
            None => vec![],
        }
    }

    /// The webhook met `post` with `answer`: the POST's row (at the time it
    /// was sent), then the next POST once this one is done; a held consumer
    /// goes on then too.
    fn answered(&mut self, view: &View, post: Post, answer: Reply) -> Vec<Effect> {
        let push = &view.profile.push;
        let deadline = view.now + push.timeout_ms;
        let (said, answered_ms, done) = match answer {
            Reply::Refused => ("refused".to_string(), None, view.now),
            Reply::Status(_, at) if at > deadline => ("timeout".to_string(), None, deadline),
            Reply::Status(code, at) => (code.to_string(), Some(at), at),
        };
        self.pushes += 1;
        if matches!(answer, Reply::Status(200..=299, at) if at <= deadline) {
            self.answered += 1;
        }
        let text = post.body.to_string();
        if self.bodies.contains(&text) {
            self.duplicates += 1;
        }
        self.bodies.push(text);
        let disposition = if self.terminal_sent {
            self.after_terminal += 1;
            Disposition::AfterTerminal
        } else if answer == Reply::Refused {
            Disposition::NotDelivered
        } else {
            Disposition::Delivered
        };
        if answer != Reply::Refused {
            if let Some(state) = post.state {
                self.last_state = Some(state);
                self.terminal_sent |= state.is_terminal();
            }
        }
        let entry = Entry::push_event(
            format!("POST {} to the webhook → {said}", post.what),
            disposition,
        )
        .wire(Some(post.body))
        .target(post.state)
        .push(PushRecord {
            headers: headers(view),
            answer: said,
            answered_ms,
        });
        let mut effects = vec![Effect::Row(entry), Effect::at(done, PushIn::Done)];
        if post.holds {
            effects.push(Effect::at(done, QueueIn::Release));
        }
        effects
    }

    /// The push metrics (`None` with push off).
    pub(super) fn metrics(&self, view: &View, client_done_ms: Option<u64>) -> Option<PushMetrics> {
        (view.sc.push != Push::Off).then_some(PushMetrics {
            pushes: self.pushes,
            pushes_answered: self.answered,
            push_last_state: self.last_state,
            push_after_terminal: self.after_terminal,
            push_duplicates: self.duplicates,
            client_done_ms,
        })
    }
}

/// The header names the SDK sends with a POST, in order.
fn headers(view: &View) -> Vec<String> {
    let push = &view.profile.push;
    let token = match view.sc.push_auth {
        PushAuth::Token => true,
        PushAuth::Bearer => false,
        PushAuth::Both => push.token_beside_credentials,
    };
    let credentials = view.sc.push_auth != PushAuth::Token;
    let auth = [
        token.then_some("X-A2A-Notification-Token"),
        credentials.then_some("Authorization"),
    ];
    push.headers_before
        .iter()
        .copied()
        .chain(auth.into_iter().flatten())
        .chain(push.headers_after.iter().copied())
        .map(String::from)
        .collect()
}
