//! The page's pace for a long search (explaining a task by a scenario):
//! the search pauses after a few milliseconds of work, lets the browser
//! handle input and paint, and goes on unless the user stopped it. The
//! model reads no clock; the page lends it this one.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use std::cell::Cell;

use crate::model::evidence::scenario_of::Pacer;

use super::browser::{next_task, now_ms};

/// Milliseconds of search between two pauses: well inside one frame at
/// 60 Hz, so input and paint wait at most about this long (and one
/// simulation, which is never cut).
pub const SLICE_MS: f64 = 8.0;

/// Pauses a search every [`SLICE_MS`]; `stopped` says whether the user
/// asked it to stop.
pub struct FramePacer {
    since: Rc<Cell<f64>>,
    stopped: Rc<dyn Fn() -> bool>,
}

impl FramePacer {
    /// A pacer whose first slice starts now.
    pub fn new(stopped: impl Fn() -> bool + 'static) -> FramePacer {
        FramePacer {
            since: Rc::new(Cell::new(now_ms())),
            stopped: Rc::new(stopped),
        }
    }
}

impl Pacer for FramePacer {
    fn pause(&mut self) -> Option<Pin<Box<dyn Future<Output = bool>>>> {
        if now_ms() - self.since.get() < SLICE_MS && !(self.stopped)() {
            return None;
        }
        let (since, stopped) = (Rc::clone(&self.since), Rc::clone(&self.stopped));
        Some(Box::pin(async move {
            next_task().await;
            since.set(now_ms());
            !stopped()
        }))
    }
}
