//! The timeline: one lane per source, one mark per row (sampled for long
//! traces), the first terminal state as a rule and the slider as a cursor.
//! Clicking a mark moves the slider to its row; hovering or focusing one
//! reads it out.

use std::fmt::Write;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::lab::Lab;
use crate::model::pictures::diagram::num;
use crate::model::pictures::timeline::{
    Glyph, Mark, Timeline as Geometry, AXIS_HEIGHT, MARK_RADIUS, MAX_MARKS, PLOT_LEFT, PLOT_RIGHT,
    TOP, WIDTH,
};
use crate::model::trace::{Disposition, Row};
use crate::model::xml::escape;

/// The row as one line: `#index t ms source event disposition`, with the
/// client when it is the second one.
pub fn describe(row: &Row) -> String {
    let client = if row.client == 1 {
        String::new()
    } else {
        format!(" (client {})", row.client)
    };
    format!(
        "#{} {} ms {}{client} {} {}",
        row.index,
        row.t_ms,
        row.source.label(),
        row.event,
        row.disposition.label()
    )
}

/// Everything drawn once per trace.
#[derive(Debug, PartialEq)]
struct Drawn {
    geometry: Geometry,
    /// The sampled marks, without regard to the current row.
    sampled: Vec<Mark>,
    /// Lanes, axis, terminal rule and marks.
    body: String,
    legend: String,
}

impl Drawn {
    fn new(rows: &[Row]) -> Drawn {
        let geometry = Geometry::new(rows);
        let sampled = geometry.marks(None, MAX_MARKS);
        let body = markup(&geometry, rows, &sampled);
        Drawn {
            geometry,
            sampled,
            body,
            legend: legend_markup(rows),
        }
    }

    /// The playback layer: the veil over rows not yet revealed, the current
    /// row's ring (and its mark, when sampling left it out), the cursor.
    /// Re-drawn each step; it is four elements.
    fn playback(&self, rows: &[Row], revealed: usize) -> String {
        let x = self.geometry.cursor_x(revealed);
        let veil = x + MARK_RADIUS;
        let mut out = format!(
            r#"<rect class="timeline__veil" x="{}" y="{}" width="{}" height="{}"/>"#,
            num(veil),
            num(TOP),
            num((PLOT_RIGHT + MARK_RADIUS + 2.0 - veil).max(0.0)),
            num(self.geometry.lanes_bottom() - TOP)
        );
        let current = revealed.checked_sub(1);
        if let Some(m) = current.and_then(|c| self.geometry.mark(c)) {
            let _ = write!(
                out,
                r#"<circle class="timeline__current" cx="{}" cy="{}" r="{}"/>"#,
                num(m.x),
                num(m.y),
                num(MARK_RADIUS + 3.0)
            );
            let drawn = self
                .sampled
                .binary_search_by_key(&m.index, |k| k.index)
                .is_ok();
            if !drawn {
                push_mark(&mut out, &m, &rows[m.index]);
            }
        }
        let _ = write!(
            out,
            r#"<line class="timeline__cursor" x1="{0}" x2="{0}" y1="{1}" y2="{2}"/>"#,
            num(x),
            num(TOP - 2.0),
            num(self.geometry.lanes_bottom() + 2.0)
        );
        out
    }
}

/// The timeline.
#[component]
pub fn Timeline() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // Drawn again for every new run, without comparing drawings.
    let drawn = Memo::new_with_compare(
        move |_| lab.run.with(|run| Arc::new(Drawn::new(&run.trace.rows))),
        |_, _| true,
    );
    let view_box =
        move || drawn.with(|d| format!("0 0 {} {}", num(WIDTH), num(d.geometry.height())));
    let inspected = RwSignal::new(None::<usize>);

    let playback = move || {
        let revealed = lab.revealed();
        lab.run
            .with(|run| drawn.with(|d| d.playback(&run.trace.rows, revealed)))
    };
    let readout = move || {
        let index = inspected.get().or_else(|| lab.revealed().checked_sub(1));
        lab.run
            .with(|run| match index.and_then(|i| run.trace.rows.get(i)) {
                Some(row) => describe(row),
                None => "Step 0: no row revealed yet.".to_string(),
            })
    };
    let note = move || {
        drawn.with(|d| {
            let (rows, marks) = (d.geometry.len(), d.sampled.len());
            (marks < rows).then(|| {
                format!(
                    "{rows} rows drawn as {marks} marks: a mark stands for the rows of its lane and disposition in its time span; rare dispositions keep a mark per row."
                )
                .into_any()
            })
        })
    };
    let select = move |e: &web_sys::Event| {
        if let Some(i) = mark_index(e) {
            lab.step.set(Some(i + 1));
            true
        } else {
            false
        }
    };

    view! {
        <figure class="timeline">
            <figcaption class="timeline__title">"Timeline: one lane per source, the client's one per client"</figcaption>
            <svg class="timeline__svg" viewBox=move || view_box() role="group"
                aria-label="Timeline of the trace, one lane per source (and per client); each mark is a row: press Enter on one to move the slider there"
                on:click=move |e| { select(&e); }
                on:keydown:capture=move |e: web_sys::KeyboardEvent| {
                    // Caught on the way down, so the page's playback
                    // shortcuts (a window listener) never see this Space.
                    if (e.key() == "Enter" || e.key() == " ") && select(&e) {
                        e.prevent_default();
                        e.stop_propagation();
                    }
                }
                on:mouseover=move |e| inspected.set(mark_index(&e))
                on:focusin=move |e| inspected.set(mark_index(&e))
                on:mouseout=move |_| inspected.set(None)
                on:focusout=move |_| inspected.set(None)>
                <g inner_html=move || drawn.with(|d| d.body.clone())></g>
                <g inner_html=move || playback()></g>
            </svg>
            <p class="timeline__readout" aria-live="polite">{move || readout()}</p>
            <ul class="timeline__legend" aria-label="Mark shapes by disposition"
                inner_html=move || drawn.with(|d| d.legend.clone())></ul>
            <p class="timeline__note">{move || note()}</p>
        </figure>
    }
}

/// The timeline's SVG content for a trace: lanes, time axis, the rule at
/// the first terminal state, and the sampled marks. One string per trace
/// costs the WebAssembly bundle far less than a typed view per element.
pub fn markup(g: &Geometry, rows: &[Row], marks: &[Mark]) -> String {
    let mut out = String::with_capacity(200 + marks.len() * 220);
    let lanes_bottom = g.lanes_bottom();
    out.push_str(r#"<g class="timeline__lanes">"#);
    for lane in g.lanes() {
        let client = lane
            .client
            .map_or(String::new(), |c| format!(r#" data-client="{c}""#));
        let _ = write!(
            out,
            r#"<g class="timeline__lane" data-source="{0}"{client}><line x1="{1}" x2="{2}" y1="{3}" y2="{3}"/><text x="{4}" y="{3}" text-anchor="end">{5}</text></g>"#,
            lane.source.label(),
            num(PLOT_LEFT),
            num(PLOT_RIGHT),
            num(lane.y),
            num(PLOT_LEFT - 6.0),
            lane.label()
        );
    }
    out.push_str(r#"</g><g class="timeline__axis">"#);
    for t in g.ticks() {
        let _ = write!(
            out,
            r#"<line class="timeline__tick" x1="{0}" x2="{0}" y1="{1}" y2="{2}"/><text class="timeline__tick-label" x="{0}" y="{3}" text-anchor="middle">{4}</text>"#,
            num(t.x),
            num(lanes_bottom),
            num(lanes_bottom + 4.0),
            num(lanes_bottom + AXIS_HEIGHT - 5.0),
            t.label
        );
    }
    out.push_str("</g>");
    if let Some(x) = g.terminal_x() {
        let anchor = if x > PLOT_RIGHT - 24.0 {
            "end"
        } else {
            "middle"
        };
        let _ = write!(
            out,
            r#"<g class="timeline__terminal"><line x1="{0}" x2="{0}" y1="{1}" y2="{2}"/><text x="{0}" y="{3}" text-anchor="{anchor}">terminal</text></g>"#,
            num(x),
            num(TOP - 2.0),
            num(lanes_bottom),
            num(TOP - 5.0)
        );
    }
    out.push_str(r#"<g class="timeline__marks">"#);
    for m in marks {
        push_mark(&mut out, m, &rows[m.index]);
    }
    out.push_str("</g>");
    out
}

/// One mark: its glyph, focusable, labelled with its row.
fn push_mark(out: &mut String, m: &Mark, row: &Row) {
    let glyph = Glyph::of(m.disposition);
    let mut label = escape(&describe(row));
    if m.count > 1 {
        let _ = write!(
            label,
            " (and {} more rows of this lane nearby)",
            m.count - 1
        );
    }
    let _ = write!(
        out,
        r#"<path class="timeline__mark timeline__glyph timeline__glyph--{}{}" data-index="{}" tabindex="0" role="button" aria-label="{label}" d="{}"><title>{label}</title></path>"#,
        m.disposition.label(),
        if glyph.is_open() {
            " timeline__glyph--open"
        } else {
            ""
        },
        m.index,
        glyph.d(m.x, m.y, MARK_RADIUS)
    );
}

/// The legend: the shape of every disposition the trace has.
fn legend_markup(rows: &[Row]) -> String {
    let mut out = String::new();
    for d in Disposition::ALL {
        if !rows.iter().any(|r| r.disposition == d) {
            continue;
        }
        let glyph = Glyph::of(d);
        let _ = write!(
            out,
            r#"<li><svg class="timeline__key" viewBox="-7 -7 14 14" aria-hidden="true"><path class="timeline__glyph timeline__glyph--{0}{1}" d="{2}"/></svg>{0}</li>"#,
            d.label(),
            if glyph.is_open() {
                " timeline__glyph--open"
            } else {
                ""
            },
            glyph.d(0.0, 0.0, MARK_RADIUS)
        );
    }
    out
}

/// The row of the mark an event happened on.
fn mark_index(e: &web_sys::Event) -> Option<usize> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    let mark = target.closest(".timeline__mark").ok()??;
    mark.get_attribute("data-index")?.parse().ok()
}
