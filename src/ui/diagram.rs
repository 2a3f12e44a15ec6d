//! The state diagram: the eight states and the allowlist's edges, drawn
//! from [`crate::model::pictures::diagram`], with the path the task has taken up to
//! the slider lit and refused or late status events shown where they tried
//! to go.
//!
//! The drawing is one SVG string per path (see [`markup`]) rather than a
//! view per element: the path changes a few times per trace, and a string
//! costs the WebAssembly bundle far less than 33 typed views.

use std::fmt::Write;

use leptos::prelude::*;

use super::lab::Lab;
use crate::model::pictures::diagram::{
    attempt_curve, edges, nodes, num, path_taken, Edge, Node, PathTaken, FONT_SIZE, HEIGHT, WIDTH,
};

/// The state diagram.
#[component]
pub fn StateDiagram() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // Routing is done once; only the path changes with the slider, and the
    // memo re-draws only when it does.
    let shape = StoredValue::new((nodes(), edges()));
    let drawn = Memo::new(move |_| {
        let n = lab.revealed();
        let path = lab.run.with(|run| path_taken(&run.trace.rows[..n]));
        let body = shape.with_value(|(nodes, edges)| markup(nodes, edges, &path));
        (body, path.describe())
    });

    view! {
        <figure class="diagram">
            <figcaption class="diagram__title">"States and allowed transitions"</figcaption>
            <svg class="diagram__svg" viewBox=format!("0 0 {} {}", num(WIDTH), num(HEIGHT)) role="img"
                aria-label=move || drawn.with(|d| format!("State diagram. Path so far: {}", d.1))>
                <g inner_html=move || drawn.with(|d| d.0.clone())></g>
            </svg>
            <p class="diagram__summary">{move || drawn.with(|d| d.1.clone())}</p>
        </figure>
    }
}

/// The diagram's SVG content for a path: the allowlist edges (the taken
/// ones last, so they are drawn on top), the attempted edges, the states.
pub fn markup(nodes: &[Node], edges: &[Edge], path: &PathTaken) -> String {
    let mut out = String::with_capacity(9000);
    out.push_str(r#"<g class="diagram__edges">"#);
    for taken in [false, true] {
        for e in edges.iter().filter(|e| path.took(e.from, e.to) == taken) {
            let _ = write!(
                out,
                r#"<path class="diagram__edge{}" data-from="{}" data-to="{}" d="{}"/>"#,
                if taken { " diagram__edge--taken" } else { "" },
                e.from.kebab(),
                e.to.kebab(),
                e.curve.d()
            );
        }
    }
    out.push_str(r#"</g><g class="diagram__attempts">"#);
    for a in &path.attempts {
        // An attempt from nowhere or to where the task already is has no
        // edge to draw; its target box is marked instead.
        let Some(from) = a.from.filter(|f| *f != a.to) else {
            continue;
        };
        let _ = write!(
            out,
            r#"<path class="diagram__attempt" data-from="{}" data-to="{}" data-index="{}" d="{}"><title>#{} tried {} → {} ({})</title></path>"#,
            from.kebab(),
            a.to.kebab(),
            a.index,
            attempt_curve(from, a.to).d(),
            a.index,
            from.label(),
            a.to.label(),
            a.disposition.label()
        );
    }
    out.push_str(r#"</g><g class="diagram__nodes">"#);
    for n in nodes {
        let s = n.state;
        let mut class = format!("diagram__node diagram__node--{}", n.kind());
        for (on, modifier) in [
            (path.visited(s), "visited"),
            (path.current == Some(s), "current"),
            (path.attempted(s), "attempted"),
        ] {
            if on {
                let _ = write!(class, " diagram__node--{modifier}");
            }
        }
        let _ = write!(
            out,
            r#"<g class="{class}" data-state="{}"><rect class="diagram__box" x="{}" y="{}" width="{}" height="{}" rx="6"/>"#,
            s.kebab(),
            num(n.left()),
            num(n.top()),
            num(n.w),
            num(n.h)
        );
        if s.is_terminal() {
            // The double border of a state that never reopens.
            let _ = write!(
                out,
                r#"<rect class="diagram__inner" x="{}" y="{}" width="{}" height="{}" rx="4"/>"#,
                num(n.left() + 3.0),
                num(n.top() + 3.0),
                num(n.w - 6.0),
                num(n.h - 6.0)
            );
        }
        let _ = write!(
            out,
            r#"<text class="diagram__label" x="{}" y="{}" font-size="{}">{}</text></g>"#,
            num(n.x),
            num(n.y + 0.5),
            num(FONT_SIZE),
            n.label()
        );
    }
    out.push_str("</g>");
    if path.lost {
        out.push_str(r#"<text class="diagram__lost" x="4" y="14">task lost</text>"#);
    }
    out
}
