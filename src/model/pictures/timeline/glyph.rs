//! The marks' shapes: one per disposition, so that the timeline reads
//! without colour, drawn as SVG paths from tables of corners.

use crate::model::pictures::diagram::num;
use crate::model::trace::Disposition;

/// A five-pointed star's corners (outer radius 1.25, inner 0.55), from the
/// top clockwise; a table rather than trigonometry keeps `sin` and `cos`
/// out of the bundle.
const STAR: [(f64, f64); 10] = [
    (0.0, -1.25),
    (0.323, -0.445),
    (1.189, -0.386),
    (0.523, 0.17),
    (0.735, 1.011),
    (0.0, 0.55),
    (-0.735, 1.011),
    (-0.523, 0.17),
    (-1.189, -0.386),
    (-0.323, -0.445),
];

/// A mark's shape: each disposition has its own, so the timeline reads
/// without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Glyph {
    /// A filled circle.
    Dot,
    /// An open circle.
    Ring,
    /// A filled square.
    Square,
    /// A filled diamond.
    Diamond,
    /// A triangle pointing up.
    TriangleUp,
    /// A triangle pointing down.
    TriangleDown,
    /// A diagonal cross.
    Cross,
    /// A plus sign.
    Plus,
    /// A star.
    Star,
}

impl Glyph {
    /// The glyph of a disposition.
    pub fn of(disposition: Disposition) -> Glyph {
        match disposition {
            Disposition::Delivered => Glyph::Dot,
            Disposition::NotDelivered => Glyph::Ring,
            Disposition::AfterTerminal => Glyph::TriangleUp,
            Disposition::Orphaned => Glyph::TriangleDown,
            Disposition::DroppedByGuard => Glyph::Square,
            Disposition::Duplicate => Glyph::Plus,
            Disposition::Rejected => Glyph::Cross,
            Disposition::Lost => Glyph::Diamond,
            Disposition::Incident => Glyph::Star,
        }
    }

    /// Drawn with a stroke only (the rest are filled).
    pub fn is_open(self) -> bool {
        matches!(self, Glyph::Ring | Glyph::Cross | Glyph::Plus)
    }

    /// SVG path data for the glyph centred on (x, y) with radius r.
    pub fn d(self, x: f64, y: f64, r: f64) -> String {
        if matches!(self, Glyph::Dot | Glyph::Ring) {
            return format!(
                "M{} {}a{2} {2} 0 1 0 {3} 0a{2} {2} 0 1 0 -{3} 0Z",
                num(x - r),
                num(y),
                num(r),
                num(2.0 * r)
            );
        }
        let (points, closed): (&[(f64, f64)], bool) = match self {
            Glyph::Square => (&SQUARE, true),
            Glyph::Diamond => (&DIAMOND, true),
            Glyph::TriangleUp => (&TRIANGLE, true),
            Glyph::TriangleDown => (&TRIANGLE_DOWN, true),
            Glyph::Cross => (&CROSS, false),
            Glyph::Plus => (&PLUS, false),
            _ => (&STAR, true),
        };
        let mut d = String::new();
        for (i, (dx, dy)) in points.iter().enumerate() {
            // Open glyphs are pairs of strokes: every other point starts one.
            let cmd = if i == 0 || (!closed && i % 2 == 0) {
                'M'
            } else {
                'L'
            };
            d.push(cmd);
            d.push_str(&num(x + dx * r));
            d.push(' ');
            d.push_str(&num(y + dy * r));
        }
        if closed {
            d.push('Z');
        }
        d
    }
}

/// The glyphs' corners for radius 1, as tables: a loop over a table is
/// smaller in the bundle than a format per shape.
const SQUARE: [(f64, f64); 4] = [(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)];
const DIAMOND: [(f64, f64); 4] = [(0.0, -1.15), (1.15, 0.0), (0.0, 1.15), (-1.15, 0.0)];
const TRIANGLE: [(f64, f64); 3] = [(0.0, -1.15), (1.1, 0.85), (-1.1, 0.85)];
const TRIANGLE_DOWN: [(f64, f64); 3] = [(0.0, 1.15), (1.1, -0.85), (-1.1, -0.85)];
const CROSS: [(f64, f64); 4] = [(-0.85, -0.85), (0.85, 0.85), (0.85, -0.85), (-0.85, 0.85)];
const PLUS: [(f64, f64); 4] = [(-1.1, 0.0), (1.1, 0.0), (0.0, -1.1), (0.0, 1.1)];
