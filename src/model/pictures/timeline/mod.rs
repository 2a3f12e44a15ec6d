//! The timeline's geometry: one lane per [`Source`] (the client's split into
//! one lane per client when a second client takes part, SPEC §9), one mark
//! per row at its virtual time, the moment the task first became terminal,
//! the playback cursor, and the sampling that keeps a 10,000-row trace to a
//! few hundred marks.
//!
//! Rows that share a virtual time are spread a little around that time, in
//! trace order, so that every row has its own x and the cursor moves on every
//! step. Positions grow with the row index, which is what lets the page veil
//! the unrevealed part of the trace with a single rectangle.
//!
//! ```
//! use a2a_lab::model::sim::scenario::Scenario;
//! use a2a_lab::model::sim::simulate;
//! use a2a_lab::model::pictures::timeline::{Timeline, MAX_MARKS};
//!
//! let run = simulate(&Scenario::from_query("chunks=10000").unwrap());
//! let timeline = Timeline::new(&run.trace.rows);
//! assert!(timeline.marks(Some(5000), MAX_MARKS).len() <= MAX_MARKS);
//! ```

mod glyph;
mod lanes;

pub use glyph::Glyph;
pub use lanes::{lane_y, lanes, lanes_for, Lane};

use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Row, Source};

/// Width of the timeline's coordinate space (the SVG `viewBox`).
pub const WIDTH: f64 = 360.0;
/// Where the plot starts: lane labels sit to the left of it.
pub const PLOT_LEFT: f64 = 64.0;
/// Where the plot ends.
pub const PLOT_RIGHT: f64 = WIDTH - 6.0;
/// Room above the lanes for the terminal rule's label.
pub const TOP: f64 = 16.0;
/// Height of one lane.
pub const LANE_HEIGHT: f64 = 26.0;
/// Room below the lanes for the time axis.
pub const AXIS_HEIGHT: f64 = 20.0;
/// Height of the coordinate space with one lane per source (a second
/// client's lane adds [`LANE_HEIGHT`]: see [`Timeline::height`]).
pub const HEIGHT: f64 = TOP + LANE_HEIGHT * Source::ALL.len() as f64 + AXIS_HEIGHT;
/// The most marks drawn at once, so the DOM stays bounded however long the
/// trace is.
pub const MAX_MARKS: usize = 400;
/// Radius of a mark's glyph.
pub const MARK_RADIUS: f64 = 4.5;

/// The most time spans a long trace is binned into: about one per mark
/// radius of plot, beyond which marks only hide each other.
const MAX_BINS: usize = ((PLOT_RIGHT - PLOT_LEFT) / MARK_RADIUS) as usize;
/// Inset of the first and last instants from the plot's edges, so that the
/// marks spread around them stay inside the plot.
const PAD: f64 = 10.0;
/// The widest spread between two rows at the same virtual time: a mark's
/// width, so neighbours in one lane touch rather than hide each other.
const OFFSET: f64 = 2.0 * MARK_RADIUS;

/// A mark to draw: one row, or the first of several rows of the same lane
/// and disposition in one time bin of a long trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// The row drawn (and selected by clicking).
    pub index: usize,
    /// Position, x.
    pub x: f64,
    /// Position, y: the lane's centre line.
    pub y: f64,
    /// The row's source.
    pub source: Source,
    /// The row's disposition.
    pub disposition: Disposition,
    /// How many rows the mark stands for (1 unless sampled).
    pub count: usize,
}

/// A labelled tick on the time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// Position, x.
    pub x: f64,
    /// The time, for people (`400 ms`, `12 s`).
    pub label: String,
}

/// What the timeline needs of one row.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Placed {
    x: f64,
    source: Source,
    /// Its lane, an index into [`Timeline::lanes`].
    lane: usize,
    disposition: Disposition,
}

/// The geometry of one trace's timeline, computed once per trace; the
/// cursor and the sampling are cheap queries on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    placed: Vec<Placed>,
    lanes: Vec<Lane>,
    t_max: u64,
    terminal: Option<usize>,
}

impl Timeline {
    /// Places every row of a trace.
    pub fn new(rows: &[Row]) -> Timeline {
        let t_max = rows.iter().map(|r| r.t_ms).max().unwrap_or(0);
        let lanes = lanes_for(rows);
        let mut placed: Vec<Placed> = rows
            .iter()
            .map(|r| Placed {
                x: x_of_time(r.t_ms, t_max),
                source: r.source,
                lane: lanes.iter().position(|l| l.holds(r)).unwrap_or_default(),
                disposition: r.disposition,
            })
            .collect();
        spread_ties(rows, t_max, &mut placed);
        let terminal = rows
            .iter()
            .position(|r| r.state_after.is_some_and(TaskState::is_terminal));
        Timeline {
            placed,
            lanes,
            t_max,
            terminal,
        }
    }

    /// The lanes, top to bottom.
    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// Where the lanes end and the time axis begins.
    pub fn lanes_bottom(&self) -> f64 {
        TOP + LANE_HEIGHT * self.lanes.len() as f64
    }

    /// Height of the coordinate space.
    pub fn height(&self) -> f64 {
        self.lanes_bottom() + AXIS_HEIGHT
    }

    fn y(&self, p: &Placed) -> f64 {
        self.lanes.get(p.lane).map_or(TOP, |l| l.y)
    }

    /// Rows placed.
    pub fn len(&self) -> usize {
        self.placed.len()
    }

    /// Whether the trace was empty.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// The trace's last virtual time.
    pub fn t_max(&self) -> u64 {
        self.t_max
    }

    /// Where row `index` is drawn, x.
    pub fn x(&self, index: usize) -> Option<f64> {
        self.placed.get(index).map(|p| p.x)
    }

    /// The mark of one row, unsampled.
    pub fn mark(&self, index: usize) -> Option<Mark> {
        self.placed.get(index).map(|p| Mark {
            index,
            x: p.x,
            y: self.y(p),
            source: p.source,
            disposition: p.disposition,
            count: 1,
        })
    }

    /// Where the rule for the first terminal state is drawn.
    pub fn terminal_x(&self) -> Option<f64> {
        self.terminal.and_then(|i| self.x(i))
    }

    /// The cursor for `revealed` rows: on the current (last revealed) row,
    /// or at the plot's left edge before the first.
    pub fn cursor_x(&self, revealed: usize) -> f64 {
        revealed
            .checked_sub(1)
            .and_then(|i| self.x(i.min(self.len().saturating_sub(1))))
            .unwrap_or(PLOT_LEFT)
    }

    /// Labelled ticks at round times across the trace's span.
    pub fn ticks(&self) -> Vec<Tick> {
        if self.t_max == 0 {
            return vec![Tick {
                x: x_of_time(0, 0),
                label: "0 ms".into(),
            }];
        }
        let step = nice_step(self.t_max / 4);
        let seconds = self.t_max >= 10_000;
        (0..)
            .map(|i| i * step)
            .take_while(|t| *t <= self.t_max)
            .map(|t| Tick {
                x: x_of_time(t, self.t_max),
                label: if seconds {
                    seconds_label(t)
                } else {
                    format!("{t} ms")
                },
            })
            .collect()
    }

    /// The marks to draw, at most `budget`: every row while the trace fits;
    /// beyond that every row whose disposition is not `delivered` (as long
    /// as they take at most half the budget), the rest binned by time per
    /// lane and disposition (the first row of a bin stands for it), and
    /// always the row `current`. Sorted by row index.
    pub fn marks(&self, current: Option<usize>, budget: usize) -> Vec<Mark> {
        let budget = budget.max(1);
        if self.len() <= budget {
            return (0..self.len()).filter_map(|i| self.mark(i)).collect();
        }
        let unusual = self
            .placed
            .iter()
            .filter(|p| p.disposition != Disposition::Delivered)
            .count();
        let keep_unusual = unusual <= budget / 2;
        let kept = if keep_unusual { unusual } else { 0 };
        // One slot stays free for the current row. Lanes differ wildly in
        // how many rows they hold, so the bin count is searched for: the
        // most bins whose marks still fit, and never so many that a lane's
        // marks pile on top of each other.
        let room = budget.saturating_sub(kept + 1);
        let (mut lo, mut hi) = (1, room.clamp(1, MAX_BINS));
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.sample(keep_unusual, mid).len() < budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let mut marks = self.sample(keep_unusual, lo);
        if let Some(m) = current.and_then(|c| self.mark(c)) {
            if let Err(at) = marks.binary_search_by_key(&m.index, |k| k.index) {
                marks.insert(at, m);
            }
        }
        marks
    }

    /// One pass over the rows in order: a row not delivered gets its own
    /// mark when `keep_unusual`; every other row joins the group of its
    /// lane, disposition and one of `bins` equal spans of the plot, whose
    /// first row stands for it. The result is sorted by row index.
    fn sample(&self, keep_unusual: bool, bins: usize) -> Vec<Mark> {
        let width = PLOT_RIGHT - PLOT_LEFT;
        let kinds = Disposition::ALL.len();
        // Where each group's mark is in `marks`, by lane, disposition, bin.
        let mut slot: Vec<Option<usize>> = vec![None; self.lanes.len() * kinds * bins];
        let mut marks: Vec<Mark> = Vec::new();
        for (i, p) in self.placed.iter().enumerate() {
            let mark = Mark {
                index: i,
                x: p.x,
                y: self.y(p),
                source: p.source,
                disposition: p.disposition,
                count: 1,
            };
            if keep_unusual && p.disposition != Disposition::Delivered {
                marks.push(mark);
                continue;
            }
            let kind = Disposition::ALL
                .iter()
                .position(|d| *d == p.disposition)
                .unwrap_or_default();
            let bin = (((p.x - PLOT_LEFT) / width * bins as f64) as usize).min(bins - 1);
            let key = (p.lane * kinds + kind) * bins + bin;
            match slot[key] {
                Some(at) => marks[at].count += 1,
                None => {
                    slot[key] = Some(marks.len());
                    marks.push(mark);
                }
            }
        }
        marks
    }
}

/// Where a virtual time lies on the plot, before ties are spread.
pub fn x_of_time(t_ms: u64, t_max: u64) -> f64 {
    if t_max == 0 {
        return (PLOT_LEFT + PLOT_RIGHT) / 2.0;
    }
    let inner = PLOT_RIGHT - PLOT_LEFT - 2.0 * PAD;
    PLOT_LEFT + PAD + inner * (t_ms as f64 / t_max as f64)
}

/// Spreads each run of rows at the same time around that time, in trace
/// order, never so far that it reaches the neighbouring instants' spread or
/// leaves the plot.
fn spread_ties(rows: &[Row], t_max: u64, placed: &mut [Placed]) {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=rows.len() {
        if i == rows.len() || rows[i].t_ms != rows[start].t_ms {
            groups.push((start, i));
            start = i;
        }
    }
    for (g, &(from, to)) in groups.iter().enumerate() {
        let n = to - from;
        if n < 2 {
            continue;
        }
        let base = |row: usize| x_of_time(rows[row].t_ms, t_max);
        let here = base(from);
        let gap_before = g
            .checked_sub(1)
            .map_or(PAD / 0.45, |p| (here - base(groups[p].0)).abs());
        let gap_after = groups
            .get(g + 1)
            .map_or(PAD / 0.45, |next| (base(next.0) - here).abs());
        let half = 0.45 * gap_before.min(gap_after);
        let step = OFFSET.min(2.0 * half / (n - 1) as f64);
        for (k, p) in placed[from..to].iter_mut().enumerate() {
            p.x = here + (k as f64 - (n - 1) as f64 / 2.0) * step;
        }
    }
}

/// Whole seconds, or tenths when the step needs them (`2.5 s`).
fn seconds_label(t_ms: u64) -> String {
    let tenths = t_ms / 100;
    if tenths % 10 == 0 {
        format!("{} s", tenths / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

/// 1, 2 or 5 times a power of ten, at least `rough` (and at least 1).
fn nice_step(rough: u64) -> u64 {
    let mut base = 1;
    loop {
        for m in [1, 2, 5] {
            if base * m >= rough.max(1) {
                return base * m;
            }
        }
        base *= 10;
    }
}
