//! The state diagram's geometry and the path a task took through it.
//!
//! The picture is generated from [`TaskState::allowlist_edges`], so it can
//! never disagree with the ledger: nodes sit at fixed places (submitted on
//! the left, working in the middle with the two interruptions above and
//! below it, the four terminal states in a column on the right) and every
//! edge is routed as a quadratic Bézier curve that bends just enough to miss
//! the other nodes. Everything here is plain numbers so it can be tested
//! without a browser.
//!
//! ```
//! use a2a_lab::model::pictures::diagram::{edges, nodes, path_taken};
//! use a2a_lab::model::sim::scenario::Scenario;
//! use a2a_lab::model::sim::simulate;
//!
//! assert_eq!((nodes().len(), edges().len()), (8, 25));
//! let run = simulate(&Scenario::default());
//! let path = path_taken(&run.trace.rows);
//! assert_eq!(path.states.len(), 3); // submitted → working → completed
//! ```

use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Row};

/// Width of the diagram's coordinate space (the SVG `viewBox`).
pub const WIDTH: f64 = 360.0;
/// Height of the diagram's coordinate space.
pub const HEIGHT: f64 = 248.0;
/// Height of every node box.
pub const NODE_HEIGHT: f64 = 24.0;
/// Font size of node labels, in viewBox units; node widths are estimated
/// from it because SVG cannot size a box to its text.
pub const FONT_SIZE: f64 = 10.0;

/// Average advance of an upper-case letter at [`FONT_SIZE`], generous so a
/// label never overflows its box in the usual system fonts.
const CHAR_WIDTH: f64 = 7.2;
/// Clearance an edge keeps from nodes it does not touch.
const CLEARANCE: f64 = 4.0;
/// Gap between an arrow's tip and its target box.
const TIP_GAP: f64 = 2.0;
/// Length and half-width of the arrowhead chevron.
const ARROW: (f64, f64) = (6.5, 3.5);
/// Samples per curve when testing for collisions and clipping.
const SAMPLES: usize = 96;

/// A point in diagram coordinates.
pub type Point = (f64, f64);

/// A state's box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// The state drawn.
    pub state: TaskState,
    /// Centre, x.
    pub x: f64,
    /// Centre, y.
    pub y: f64,
    /// Box width.
    pub w: f64,
    /// Box height.
    pub h: f64,
}

impl Node {
    /// The label shown in the box (`INPUT-REQUIRED`).
    pub fn label(&self) -> String {
        self.state.label()
    }

    /// The class modifiers for the state's kind: terminal states get a double
    /// border and interruptions a dashed one, so the kind reads without colour.
    pub fn kind(&self) -> &'static str {
        if self.state.is_terminal() {
            "terminal"
        } else if self.state.is_interrupted() {
            "interrupted"
        } else {
            "active"
        }
    }

    /// Left edge.
    pub fn left(&self) -> f64 {
        self.x - self.w / 2.0
    }

    /// Top edge.
    pub fn top(&self) -> f64 {
        self.y - self.h / 2.0
    }

    fn contains(&self, (px, py): Point, margin: f64) -> bool {
        (px - self.x).abs() <= self.w / 2.0 + margin && (py - self.y).abs() <= self.h / 2.0 + margin
    }
}

/// Where each state sits: the left-to-right reading order of a task's life.
fn place(state: TaskState) -> Point {
    match state {
        TaskState::Submitted => (46.0, 131.0),
        TaskState::Working => (160.0, 131.0),
        TaskState::InputRequired => (150.0, 36.0),
        TaskState::AuthRequired => (150.0, 226.0),
        TaskState::Completed => (310.0, 36.0),
        TaskState::Failed => (310.0, 99.0),
        TaskState::Canceled => (310.0, 163.0),
        TaskState::Rejected => (310.0, 226.0),
    }
}

/// The eight state boxes, in [`TaskState::ALL`] order.
pub fn nodes() -> Vec<Node> {
    TaskState::ALL.into_iter().map(node).collect()
}

/// The box of one state.
pub fn node(state: TaskState) -> Node {
    let (x, y) = place(state);
    Node {
        state,
        x,
        y,
        w: 16.0 + CHAR_WIDTH * state.kebab().len() as f64,
        h: NODE_HEIGHT,
    }
}

/// A quadratic Bézier curve from `start` to `end`, plus the arrowhead at
/// `end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curve {
    /// Where the line leaves the source box.
    pub start: Point,
    /// The control point.
    pub control: Point,
    /// The arrow's tip, just outside the target box.
    pub end: Point,
}

impl Curve {
    /// The point at parameter `t` in 0..=1.
    pub fn at(&self, t: f64) -> Point {
        let u = 1.0 - t;
        (
            u * u * self.start.0 + 2.0 * u * t * self.control.0 + t * t * self.end.0,
            u * u * self.start.1 + 2.0 * u * t * self.control.1 + t * t * self.end.1,
        )
    }

    /// The part of the curve between parameters `t0` and `t1`: for a
    /// quadratic the new control point is the blossom at (t0, t1).
    fn between(&self, t0: f64, t1: f64) -> Curve {
        let blossom = |a: f64, b: f64| -> Point {
            let (p0, p1, p2) = (self.start, self.control, self.end);
            let w0 = (1.0 - a) * (1.0 - b);
            let w1 = (1.0 - a) * b + a * (1.0 - b);
            let w2 = a * b;
            (
                w0 * p0.0 + w1 * p1.0 + w2 * p2.0,
                w0 * p0.1 + w1 * p1.1 + w2 * p2.1,
            )
        };
        Curve {
            start: blossom(t0, t0),
            control: blossom(t0, t1),
            end: blossom(t1, t1),
        }
    }

    /// The SVG path data: the curve, then an open chevron at its end so one
    /// stroked element carries both and a single class colours them.
    pub fn d(&self) -> String {
        let (ex, ey) = self.end;
        let (mut dx, mut dy) = (ex - self.control.0, ey - self.control.1);
        let len = (dx * dx + dy * dy).sqrt();
        if len < 1e-9 {
            dx = ex - self.start.0;
            dy = ey - self.start.1;
        }
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        let (ux, uy) = (dx / len, dy / len);
        let (back, half) = ARROW;
        let (bx, by) = (ex - ux * back, ey - uy * back);
        format!(
            "M{} {}Q{} {} {} {}M{} {}L{} {}L{} {}",
            num(self.start.0),
            num(self.start.1),
            num(self.control.0),
            num(self.control.1),
            num(ex),
            num(ey),
            num(bx - uy * half),
            num(by + ux * half),
            num(ex),
            num(ey),
            num(bx + uy * half),
            num(by - ux * half),
        )
    }
}

/// A coordinate as SVG text, to one decimal place (finer than a pixel at
/// any size the page uses). Built from integers on purpose: formatting an
/// `f64` would pull Rust's float printing into the WebAssembly bundle.
pub fn num(v: f64) -> String {
    let tenths = (v * 10.0).round() as i64;
    let sign = if tenths < 0 { "-" } else { "" };
    let (whole, frac) = (tenths.abs() / 10, tenths.abs() % 10);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac}")
    }
}

/// An allowlist edge and its route.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Source state.
    pub from: TaskState,
    /// Target state.
    pub to: TaskState,
    /// The route, clipped to the two boxes.
    pub curve: Curve,
    /// How far the control point was pushed sideways (0 = straight).
    pub bend: f64,
}

/// Every edge of [`TaskState::allowlist_edges`], routed.
pub fn edges() -> Vec<Edge> {
    TaskState::allowlist_edges()
        .into_iter()
        .map(|(from, to)| {
            let (curve, bend) = route(from, to, None);
            Edge {
                from,
                to,
                curve,
                bend,
            }
        })
        .collect()
}

/// The route of an attempted transition: drawn beside the allowlist edge
/// when there is one, so the refused attempt does not hide the edge.
pub fn attempt_curve(from: TaskState, to: TaskState) -> Curve {
    let existing = from
        .allows(to)
        .then(|| route(from, to, None).1)
        .filter(|_| from != to);
    route(from, to, existing).0
}

/// Routes `from → to`: straight if that clears every other node, else the
/// smallest sideways bend that does. A pair allowed both ways bends to the
/// right of travel from the start so the two directions never coincide.
/// `avoid` is a bend already taken by another line between the same states.
fn route(from: TaskState, to: TaskState, avoid: Option<f64>) -> (Curve, f64) {
    let (a, b) = (node(from), node(to));
    let p0 = (a.x, a.y);
    let p2 = (b.x, b.y);
    let (dx, dy) = (p2.0 - p0.0, p2.1 - p0.1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    // The right-hand normal in screen coordinates (y grows downwards).
    let normal = (-dy / len, dx / len);
    let mid = ((p0.0 + p2.0) / 2.0, (p0.1 + p2.1) / 2.0);
    let both_ways = to.allows(from);
    let others: Vec<Node> = nodes()
        .into_iter()
        .filter(|n| n.state != from && n.state != to)
        .collect();

    let mut candidates = Vec::new();
    for step in 0..=16 {
        let k = 14.0 * f64::from(step);
        if both_ways || avoid.is_some() {
            if step > 0 {
                candidates.push(k);
            }
        } else {
            candidates.push(k);
            if step > 0 {
                candidates.push(-k);
            }
        }
    }
    let candidates = candidates
        .into_iter()
        .filter(|k| avoid.is_none_or(|taken| (k - taken).abs() > 1e-9));

    let mut fallback = None;
    for bend in candidates {
        let full = Curve {
            start: p0,
            control: (mid.0 + normal.0 * bend, mid.1 + normal.1 * bend),
            end: p2,
        };
        let curve = clip(&full, &a, &b);
        let clear = (0..=SAMPLES).all(|i| {
            let p = curve.at(i as f64 / SAMPLES as f64);
            inside_canvas(p) && others.iter().all(|n| !n.contains(p, CLEARANCE))
        });
        if clear {
            return (curve, bend);
        }
        fallback.get_or_insert((curve, bend));
    }
    fallback.unwrap_or((
        Curve {
            start: p0,
            control: mid,
            end: p2,
        },
        0.0,
    ))
}

fn inside_canvas((x, y): Point) -> bool {
    (1.0..=WIDTH - 1.0).contains(&x) && (1.0..=HEIGHT - 1.0).contains(&y)
}

/// Trims a centre-to-centre curve to where it leaves the source box and
/// (with a small gap for the arrow tip) reaches the target box.
fn clip(full: &Curve, a: &Node, b: &Node) -> Curve {
    let steps = SAMPLES * 4;
    let t0 = (0..=steps)
        .map(|i| i as f64 / steps as f64)
        .find(|t| !a.contains(full.at(*t), 0.0))
        .unwrap_or(0.0);
    let t1 = (0..=steps)
        .rev()
        .map(|i| i as f64 / steps as f64)
        .find(|t| !b.contains(full.at(*t), TIP_GAP))
        .unwrap_or(1.0);
    if t1 <= t0 {
        return *full;
    }
    full.between(t0, t1)
}

/// A status event that tried to move the task and did not get through the
/// way it meant to: rejected, dropped by the guard, or delivered after the
/// task was already terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The trace row.
    pub index: usize,
    /// The state at that moment (before the row), `None` for a first row or
    /// a lost task.
    pub from: Option<TaskState>,
    /// The state it tried to move to.
    pub to: TaskState,
    /// What happened to it.
    pub disposition: Disposition,
}

/// The path a task took through the diagram, for a prefix of the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathTaken {
    /// The distinct consecutive stored states (`state_after`), in order.
    pub states: Vec<TaskState>,
    /// Consecutive pairs of `states` that are allowlist edges. A pair that
    /// is not (the client starting to follow a retried task, or a state
    /// stored after the task was terminal) is left out: it is no edge of the
    /// diagram, and an after-terminal move shows up in `attempts` instead.
    pub edges: Vec<(TaskState, TaskState)>,
    /// The stored state after the last row; `None` before the first row or
    /// once the task is lost.
    pub current: Option<TaskState>,
    /// The last row left the task lost.
    pub lost: bool,
    /// Status events that tried to go somewhere and were refused or came
    /// too late.
    pub attempts: Vec<Attempt>,
}

impl PathTaken {
    /// Whether `state` was on the path.
    pub fn visited(&self, state: TaskState) -> bool {
        self.states.contains(&state)
    }

    /// Whether the edge `from → to` was taken.
    pub fn took(&self, from: TaskState, to: TaskState) -> bool {
        self.edges.contains(&(from, to))
    }

    /// Whether some refused or late status event targeted `state`.
    pub fn attempted(&self, state: TaskState) -> bool {
        self.attempts.iter().any(|a| a.to == state)
    }

    /// The path in words, for people who cannot see the picture.
    pub fn describe(&self) -> String {
        if self.states.is_empty() {
            return "No state yet.".to_string();
        }
        let mut text = self
            .states
            .iter()
            .map(|s| s.label())
            .collect::<Vec<_>>()
            .join(" → ");
        if self.lost {
            text.push_str(" → lost");
        }
        text.push('.');
        for a in &self.attempts {
            let from = a.from.map_or("—".to_string(), TaskState::label);
            text.push_str(&format!(
                " Row #{} tried {from} → {} ({}).",
                a.index,
                a.to.label(),
                a.disposition.label()
            ));
        }
        text
    }
}

/// Dispositions whose status event did not move the task the way it meant to.
fn is_attempt(d: Disposition) -> bool {
    matches!(
        d,
        Disposition::Rejected | Disposition::DroppedByGuard | Disposition::AfterTerminal
    )
}

/// The path taken by the client's task over `rows` (a revealed prefix of a
/// trace): `state_after` already follows the task the client follows.
pub fn path_taken(rows: &[Row]) -> PathTaken {
    let mut path = PathTaken::default();
    let mut before: Option<TaskState> = None;
    for row in rows {
        if is_attempt(row.disposition) {
            if let Some(to) = row.target {
                path.attempts.push(Attempt {
                    index: row.index,
                    from: before,
                    to,
                    disposition: row.disposition,
                });
            }
        }
        let state = row.state_after;
        if state != before {
            if let Some(s) = state {
                if let Some(&prev) = path.states.last() {
                    if prev != s && prev.allows(s) && before.is_some() {
                        path.edges.push((prev, s));
                    }
                }
                if path.states.last() != Some(&s) {
                    path.states.push(s);
                }
            }
            before = state;
        }
    }
    path.current = before;
    path.lost = !rows.is_empty() && before.is_none();
    path
}
