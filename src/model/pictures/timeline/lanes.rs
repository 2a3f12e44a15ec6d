//! The timeline's lanes: one per source, the client's split into one per
//! client when a second client takes part (SPEC §9).

use super::{LANE_HEIGHT, TOP};
use crate::model::trace::{Row, Source};

/// One lane: the rows of one source, or of one client.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lane {
    /// The source.
    pub source: Source,
    /// The client whose lane this is, when the client's lane is split per
    /// client (`None` otherwise).
    pub client: Option<u8>,
    /// Top of the lane.
    pub top: f64,
    /// The lane's centre line, where its marks sit.
    pub y: f64,
}

impl Lane {
    /// The lane's label: its source, or `client 1` / `client 2`.
    pub fn label(&self) -> String {
        match self.client {
            Some(n) => format!("client {n}"),
            None => self.source.label().to_string(),
        }
    }

    /// Whether `row` is drawn in this lane: a second client's rows all go
    /// to its own lane, whatever their source.
    pub(super) fn holds(&self, row: &Row) -> bool {
        match self.client {
            Some(2) => row.client == 2,
            _ => row.client != 2 && row.source == self.source,
        }
    }
}

/// Every lane, in [`Source::ALL`] order; a lane is drawn even when its
/// source produced nothing, so lanes keep their place between scenarios.
pub fn lanes() -> Vec<Lane> {
    place_lanes(Source::ALL.iter().map(|s| (*s, None)).collect())
}

/// The lanes of a trace: [`lanes`], with the client's lane split into
/// `client 1` and `client 2` when a second client took part, and a lane for
/// the webhook, last, when the agent pushed to one.
pub fn lanes_for(rows: &[Row]) -> Vec<Lane> {
    let split = rows.iter().any(|r| r.client == 2);
    let mut kinds = Vec::new();
    for source in Source::ALL {
        if split && source == Source::Client {
            kinds.push((source, Some(1)));
            kinds.push((source, Some(2)));
        } else {
            kinds.push((source, None));
        }
    }
    if rows.iter().any(|r| r.source == Source::Webhook) {
        kinds.push((Source::Webhook, None));
    }
    place_lanes(kinds)
}

fn place_lanes(kinds: Vec<(Source, Option<u8>)>) -> Vec<Lane> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, (source, client))| {
            let top = TOP + LANE_HEIGHT * i as f64;
            Lane {
                source,
                client,
                top,
                y: top + LANE_HEIGHT / 2.0,
            }
        })
        .collect()
}

fn lane_index(source: Source) -> usize {
    Source::ALL
        .iter()
        .position(|s| *s == source)
        .unwrap_or_default()
}

/// The centre line of a source's lane (with one lane per source).
pub fn lane_y(source: Source) -> f64 {
    TOP + LANE_HEIGHT * (lane_index(source) as f64 + 0.5)
}
