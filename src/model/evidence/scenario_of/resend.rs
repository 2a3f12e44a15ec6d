//! Where an event of a stream may have come again after a reconnect, as
//! the readings a search tries after the first.

use crate::model::trace::StreamEnd;
use crate::model::wire::answer::{EventKind, OwnedEvent};

use super::setting::{Reading, Setting};
use super::shape::EventShape;

use super::keys::keys_of_refs;

/// Where an event of a stream may have come again after a reconnect
/// (`dup`): the event before it again, or a part sent again right after
/// it was sent; or, its bytes changed (`conflict`), an artifact update at
/// the coordinate of the one before. Found in one pass; read only when
/// tried ([`Resend::keys`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Resend {
    /// The repeat's index: the events delivered before it.
    at: usize,
    /// Whether its bytes changed.
    conflict: bool,
}

impl Resend {
    /// Every place a resend may have fallen, each repeat before each
    /// changed one.
    pub(super) fn places(events: &[OwnedEvent], shapes: &[EventShape]) -> Vec<Resend> {
        fn chunk(e: &OwnedEvent) -> Option<(&str, bool, bool)> {
            let a = e.artifacts.first()?;
            Some((a.artifact_id.as_str(), a.append, a.last))
        }
        let mut places = Vec::new();
        for conflict in [false, true] {
            for at in 1..events.len() {
                let (before, now) = (&events[at - 1], &events[at]);
                let again = shapes[at].again || now == before;
                let same_place = now.kind == EventKind::Artifact
                    && before.kind == EventKind::Artifact
                    && chunk(before) == chunk(now);
                if (conflict && same_place && !again) || (!conflict && again) {
                    places.push(Resend { at, conflict });
                }
            }
        }
        places
    }

    /// The places, each repeat before each changed one, and within each
    /// the nearest to event `agree` first (the earlier of two as near):
    /// a merge outward from it, as the places are in order already (the
    /// page's bundle carries no sort for it).
    pub(super) fn nearest_first(
        places: &[Resend],
        agree: usize,
    ) -> impl Iterator<Item = Resend> + '_ {
        let (repeats, changed) = places.split_at(places.partition_point(|r| !r.conflict));
        [repeats, changed].into_iter().flat_map(move |group| {
            let split = group.partition_point(|r| r.at < agree);
            let (mut left, mut right) = (group[..split].iter().rev(), group[split..].iter());
            let (mut l, mut r) = (left.next(), right.next());
            std::iter::from_fn(move || {
                let take_left = match (l, r) {
                    (Some(a), Some(b)) => agree - a.at <= b.at - agree,
                    (a, _) => a.is_some(),
                };
                let taken = if take_left { l } else { r };
                if take_left {
                    l = left.next();
                } else {
                    r = right.next();
                }
                taken.copied()
            })
        })
    }

    /// The keys of the events read without the repeat, and the resend.
    pub(super) fn keys(self, events: &[OwnedEvent], end: Option<StreamEnd>) -> Reading {
        let once: Vec<&OwnedEvent> = events
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.at)
            .map(|(_, e)| e)
            .collect();
        let mut keys = keys_of_refs(&once, end);
        keys.push(Setting::Dup(self.at));
        if self.conflict {
            keys.push(Setting::Conflict);
        }
        keys
    }
}
