//! The SDK's push sender (SPEC §12): for each event the handler processes
//! on the followed task, once the client's config exists, a POST to the
//! webhook with the body and headers the profile says; one POST at a time
//! per task, each after the previous one's answer (or its timeout), never
//! retried. Where the profile says so, the task's consumer waits for the
//! answer before the stream gets the event. Every task a message with the
//! inline config made is pushed (a retry's second task too, SPEC §14).
//! The POST it sends is in `post`, the client's webhook that answers it in
//! `webhook`.

pub(super) mod post;
pub(super) mod webhook;

use std::collections::VecDeque;

use super::effect::{Effect, View};
use super::inputs::{HandlerIn, PushIn, QueueIn, WebhookIn};
use super::state::{Event, Payload};
use crate::model::sim::keys::{Push, PushAuth, Wire};
use crate::model::sim::profile::PushBody03;
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, PushMetrics, PushRecord, Source, PUSH_RACED};
use crate::model::wire::{RowWire, SimEvent};
use post::{Post, Reply};

/// One task's POSTs: those waiting their turn, and what it was told.
#[derive(Debug, Default)]
struct PostQueue {
    queue: VecDeque<Post>,
    /// A POST is out and not yet answered.
    busy: bool,
    last_state: Option<TaskState>,
    terminal_sent: bool,
}

/// The push sender: each task's POSTs and what was sent.
#[derive(Debug, Default)]
pub(super) struct PushSender {
    /// Events processed on the followed task (`push=after:k` counts them).
    seen: u32,
    /// One per task, by its index.
    lanes: Vec<PostQueue>,
    /// Every body sent, as what it is made of, for duplicates.
    bodies: Vec<(SimEvent, Wire)>,
    pushes: u32,
    answered: u32,
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
            PushIn::Send { task } => self.send(task),
            PushIn::Answered(post, answer) => self.answered(view, *post, answer),
            PushIn::Done { task } => {
                self.lane(task).busy = false;
                self.send(task)
            }
            PushIn::ConfigRepeated => {
                self.more_configs += u32::from(view.profile.push.repeated_config_adds);
                vec![]
            }
            PushIn::CallLoopLeft => {
                self.loops_left += u32::from(view.profile.push.auth_call_loop_pushes);
                vec![]
            }
            PushIn::Killed => {
                for lane in &mut self.lanes {
                    lane.queue.clear();
                }
                vec![]
            }
        }
    }

    /// The lane of `task`, made on first use.
    fn lane(&mut self, task: usize) -> &mut PostQueue {
        if self.lanes.len() <= task {
            self.lanes.resize_with(task + 1, PostQueue::default);
        }
        &mut self.lanes[task]
    }

    /// The handler processed `event`: POSTs for it join its task's queue.
    /// Returns the effects and whether the consumer now waits for their
    /// answer. A config set after event k (`push=after:k`) is the followed
    /// task's alone.
    fn event(&mut self, view: &View, event: &Event) -> (Vec<Effect>, bool) {
        let configured = match view.sc.push {
            Push::Off => false,
            Push::Inline => true,
            Push::After(_) => event.task == view.followed,
        };
        if !configured {
            return (vec![], false);
        }
        self.seen += 1;
        if matches!(view.sc.push, Push::After(k) if self.seen <= k) {
            return (vec![], false);
        }
        let push = &view.profile.push;
        let stored = view.tasks[event.task].stored();
        // A push body is as the SDK sends it: on the 0.3 wire, a task
        // snapshot written on that wire, or else the 1.0 event.
        let (body, on, state) = match (view.sc.wire, push.body_03, stored) {
            (Wire::V0_3, PushBody03::TaskSnapshot03, Some(t)) => {
                (t.snapshot(event.task, view.now), Wire::V0_3, Some(t.state))
            }
            _ => (event.wire.clone(), Wire::V1_0, event.target),
        };
        let shown = body.kind(on);
        let content_type = push.content_type[usize::from(view.sc.wire == Wire::V0_3)];
        let what = match state {
            Some(s) => format!("{shown} {} ({content_type})", s.label()),
            None => format!("{shown} ({content_type})"),
        };
        // Where a retry made a second task, each POST says whose it is.
        let what = match event.task {
            0 => what,
            n => format!("{what} of task {}", n + 1),
        };
        // CancelTask's own event loop sees the CANCELED too, where it pushes.
        let again = push.cancel_call_pushes_again
            && event.source == Source::Cancel
            && matches!(event.payload, Payload::Status { .. });
        let post = Post {
            task: event.task,
            body,
            on,
            state,
            what,
            holds: push.holds_stream,
        };
        // Each config gets the event from each loop that pushes it.
        let copies = (1 + self.more_configs) * (1 + self.loops_left);
        if state.is_some_and(|s| s.is_terminal() || s == TaskState::InputRequired) {
            self.loops_left = 0;
        }
        let task = event.task;
        let lane = self.lane(task);
        for _ in 0..copies * (1 + u32::from(again)) {
            lane.queue.push_back(post.clone());
        }
        let send = (!lane.busy).then_some(Effect::at(view.now, PushIn::Send { task }));
        (send.into_iter().collect(), push.holds_stream)
    }

    /// The next POST about `task` leaves for the webhook.
    fn send(&mut self, task: usize) -> Vec<Effect> {
        let lane = self.lane(task);
        if lane.busy {
            return vec![];
        }
        match lane.queue.pop_front() {
            Some(post) => {
                lane.busy = true;
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
        let races_from = deadline.saturating_sub(push.timeout_race_ms);
        let (said, answered_ms, done) = match answer {
            Reply::Refused => ("refused".to_string(), None, view.now),
            Reply::Status(_, at) if at > deadline => ("timeout".to_string(), None, deadline),
            // Neither answered nor timed out for sure: not counted either
            // way (the outcome says so).
            Reply::Status(_, at) if at > races_from => (PUSH_RACED.to_string(), None, at),
            Reply::Status(code, at) => (code.to_string(), Some(at), at),
        };
        self.pushes += 1;
        if matches!(answer, Reply::Status(200..=299, at) if at <= races_from) {
            self.answered += 1;
        }
        // The same fields write the same bytes.
        let sent = (post.body, post.on);
        if self.bodies.contains(&sent) {
            self.duplicates += 1;
        }
        self.bodies.push(sent.clone());
        let task = post.task;
        let lane = self.lane(task);
        let disposition = if lane.terminal_sent {
            Disposition::AfterTerminal
        } else if answer == Reply::Refused {
            Disposition::NotDelivered
        } else {
            Disposition::Delivered
        };
        if answer != Reply::Refused {
            if let Some(state) = post.state {
                lane.last_state = Some(state);
                lane.terminal_sent |= state.is_terminal();
            }
        }
        self.after_terminal += u32::from(disposition == Disposition::AfterTerminal);
        let entry = Entry::push_event(
            format!("POST {} to the webhook → {said}", post.what),
            disposition,
        )
        .wire(Some(RowWire::Sim {
            event: sent.0,
            on: sent.1,
        }))
        .target(post.state)
        .push(PushRecord {
            headers: headers(view),
            answer: said,
            answered_ms,
        });
        let mut effects = vec![Effect::Row(entry), Effect::at(done, PushIn::Done { task })];
        if post.holds {
            effects.push(Effect::at(done, QueueIn::Release));
        }
        effects
    }

    /// The push metrics (`None` with push off): the POSTs of every task,
    /// the last state told of the task client 1 follows.
    pub(super) fn metrics(&self, view: &View, client_done_ms: Option<u64>) -> Option<PushMetrics> {
        (view.sc.push != Push::Off).then_some(PushMetrics {
            pushes: self.pushes,
            pushes_answered: self.answered,
            push_last_state: self.lanes.get(view.followed).and_then(|l| l.last_state),
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
        token.then_some(push.auth_headers[0]),
        credentials.then_some(push.auth_headers[1]),
    ];
    push.headers_before
        .iter()
        .copied()
        .chain(auth.into_iter().flatten())
        .chain(push.headers_after.iter().copied())
        .map(String::from)
        .collect()
}
