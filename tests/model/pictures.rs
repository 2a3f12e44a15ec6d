//! The pictures' geometry (SPEC §6): the state diagram generated from the
//! allowlist with the path a task took, and the timeline's lanes, cursor and
//! sampling — all computed by the model, so they are tested here natively.

use crate::model_support;

use std::collections::HashSet;

use a2a_lab::model::pictures::diagram::{self, attempt_curve, edges, nodes, path_taken, Attempt};
use a2a_lab::model::pictures::timeline::{
    lane_y, lanes, x_of_time, Glyph, Timeline, MAX_MARKS, PLOT_LEFT, PLOT_RIGHT,
};
use a2a_lab::model::state::TaskState::{self, *};
use a2a_lab::model::trace::{Disposition, Source};
use model_support::run;

#[test]
fn the_diagram_has_the_eight_states_and_the_25_allowlist_edges() {
    let states: Vec<TaskState> = nodes().iter().map(|n| n.state).collect();
    assert_eq!(states, TaskState::ALL);
    let drawn: Vec<(TaskState, TaskState)> = edges().iter().map(|e| (e.from, e.to)).collect();
    assert_eq!(drawn.len(), 25);
    assert_eq!(drawn, TaskState::allowlist_edges());
}

#[test]
fn terminal_states_are_drawn_terminal_and_interruptions_interrupted() {
    for n in nodes() {
        let expected = match n.state {
            Completed | Failed | Canceled | Rejected => "terminal",
            InputRequired | AuthRequired => "interrupted",
            Submitted | Working => "active",
        };
        assert_eq!(n.kind(), expected, "{:?}", n.state);
    }
}

#[test]
fn state_boxes_fit_the_picture_and_do_not_overlap() {
    let all = nodes();
    for n in &all {
        assert!(
            n.left() >= 0.0 && n.left() + n.w <= diagram::WIDTH,
            "{:?}",
            n.state
        );
        assert!(
            n.top() >= 0.0 && n.top() + n.h <= diagram::HEIGHT,
            "{:?}",
            n.state
        );
        for m in &all {
            if m.state != n.state {
                let apart =
                    (n.x - m.x).abs() > (n.w + m.w) / 2.0 || (n.y - m.y).abs() > (n.h + m.h) / 2.0;
                assert!(apart, "{:?} overlaps {:?}", n.state, m.state);
            }
        }
    }
}

#[test]
fn no_edge_crosses_a_state_it_does_not_connect() {
    let all = nodes();
    for e in edges() {
        for i in 0..=200 {
            let (x, y) = e.curve.at(f64::from(i) / 200.0);
            for n in all.iter().filter(|n| n.state != e.from && n.state != e.to) {
                let inside = (x - n.x).abs() < n.w / 2.0 && (y - n.y).abs() < n.h / 2.0;
                assert!(!inside, "{:?}→{:?} crosses {:?}", e.from, e.to, n.state);
            }
        }
    }
}

#[test]
fn a_pair_allowed_both_ways_is_two_separate_curves() {
    let all = edges();
    let curve = |from, to| {
        all.iter()
            .find(|e| (e.from, e.to) == (from, to))
            .unwrap()
            .curve
    };
    for (a, b) in [
        (Working, InputRequired),
        (Working, AuthRequired),
        (InputRequired, AuthRequired),
    ] {
        let (there, back) = (curve(a, b), curve(b, a));
        let (p, q) = (there.at(0.5), back.at(0.5));
        let apart = ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt();
        assert!(apart > 8.0, "{a:?}⇄{b:?} midpoints only {apart} apart");
    }
}

#[test]
fn the_defaults_path_is_submitted_working_completed() {
    let r = run("");
    let path = path_taken(&r.trace.rows);
    assert_eq!(path.states, [Submitted, Working, Completed]);
    assert_eq!(path.edges, [(Submitted, Working), (Working, Completed)]);
    assert_eq!(path.current, Some(Completed));
    assert!(path.attempts.is_empty() && !path.lost);
}

#[test]
fn at_step_2_the_path_has_reached_working() {
    let r = run("");
    let path = path_taken(&r.trace.rows[..2]);
    assert_eq!(path.states, [Submitted, Working]);
    assert_eq!(path.edges, [(Submitted, Working)]);
    assert_eq!(path.current, Some(Working));
    assert!(!path.took(Working, Completed));
    assert_eq!(path_taken(&[]).current, None);
}

#[test]
fn a_cancel_after_chunk_3_of_a_hung_executor_goes_working_to_canceled() {
    let r = run("ending=never&cancel=3&cancel_impl=write");
    let path = path_taken(&r.trace.rows);
    assert_eq!(path.states, [Submitted, Working, Canceled]);
    assert!(path.took(Working, Canceled));
    assert_eq!(path.current, Some(Canceled));
    assert!(path.attempts.is_empty());
}

#[test]
fn t42_late_failed_after_completed_is_an_attempted_edge_completed_to_failed() {
    let r = run("preset=t42");
    let path = path_taken(&r.trace.rows);
    let e7 = r
        .trace
        .rows
        .iter()
        .find(|row| row.event.starts_with("E7"))
        .expect("T-42 has E7");
    assert_eq!(
        path.attempts,
        [Attempt {
            index: e7.index,
            from: Some(Completed),
            to: Failed,
            disposition: Disposition::Rejected,
        }]
    );
    assert!(!Completed.allows(Failed));
    assert_eq!(path.current, Some(Completed));
    assert!(path.attempted(Failed) && !path.visited(Failed));
    // Its picture starts at the completed box and ends at the failed one.
    let curve = attempt_curve(Completed, Failed);
    let (c, f) = (diagram::node(Completed), diagram::node(Failed));
    assert!((curve.start.1 - c.y).abs() <= c.h / 2.0 + 1.0);
    assert!((curve.end.1 - f.y).abs() <= f.h / 2.0 + 3.0);
}

#[test]
fn a_late_artifact_dropped_by_the_guard_is_no_attempted_transition() {
    let r = run("late=0&guard=on");
    assert!(r
        .trace
        .rows
        .iter()
        .any(|row| row.disposition == Disposition::DroppedByGuard));
    assert!(path_taken(&r.trace.rows).attempts.is_empty());
}

#[test]
fn a_restart_without_a_database_leaves_the_path_lost() {
    let path = path_taken(&run("restart=2&store=memory").trace.rows);
    assert!(path.lost);
    assert_eq!(path.current, None);
    assert!(path.describe().ends_with("→ lost."));
}

#[test]
fn every_source_has_a_lane_in_order() {
    let all = lanes();
    let sources: Vec<Source> = all.iter().map(|l| l.source).collect();
    assert_eq!(sources, Source::ALL);
    assert!(all.windows(2).all(|w| w[0].y < w[1].y));
    let r = run("ending=never&cancel=3&cancel_impl=write");
    let timeline = Timeline::new(&r.trace.rows);
    for row in &r.trace.rows {
        let mark = timeline.mark(row.index).unwrap();
        assert_eq!(mark.y, lane_y(row.source));
    }
}

#[test]
fn the_cursor_sits_on_the_current_rows_time_and_moves_every_step() {
    let r = run("");
    let timeline = Timeline::new(&r.trace.rows);
    // Step 3: the current row is #2, alone at 200 ms of 600.
    assert_eq!(r.trace.rows[2].t_ms, 200);
    assert_eq!(timeline.cursor_x(3), x_of_time(200, 600));
    assert_eq!(timeline.cursor_x(0), PLOT_LEFT);
    // Rows #4–#6 share 600 ms: spread, in order, around it.
    let xs: Vec<f64> = (0..=r.trace.rows.len())
        .map(|s| timeline.cursor_x(s))
        .collect();
    assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
    assert!((timeline.x(5).unwrap() - x_of_time(600, 600)).abs() < 1e-9);
    assert!(xs.iter().all(|x| (PLOT_LEFT..=PLOT_RIGHT).contains(x)));
}

#[test]
fn the_terminal_rule_marks_the_first_terminal_row() {
    let r = run("");
    let timeline = Timeline::new(&r.trace.rows);
    assert_eq!(timeline.terminal_x(), timeline.x(5));
    assert_eq!(timeline.terminal_x(), timeline.x(5));
    let hung = run("ending=never");
    assert_eq!(Timeline::new(&hung.trace.rows).terminal_x(), None);
}

#[test]
fn a_short_trace_draws_every_row() {
    let r = run("preset=drill");
    let marks = Timeline::new(&r.trace.rows).marks(None, MAX_MARKS);
    let indices: Vec<usize> = marks.iter().map(|m| m.index).collect();
    assert_eq!(indices, (0..r.trace.rows.len()).collect::<Vec<_>>());
    assert!(marks.iter().all(|m| m.count == 1));
}

#[test]
fn a_10000_chunk_trace_keeps_at_most_400_marks_with_the_current_row_and_the_unusual_ones() {
    let r = run("chunks=10000&late=0");
    let rows = &r.trace.rows;
    assert!(rows.len() > 10_000);
    let timeline = Timeline::new(rows);
    for current in [0, 1234, 5003, rows.len() - 1] {
        let marks = timeline.marks(Some(current), MAX_MARKS);
        assert!(marks.len() <= MAX_MARKS, "{} marks", marks.len());
        assert!(marks.len() >= 50, "only {} marks", marks.len());
        assert!(marks.iter().any(|m| m.index == current), "lost #{current}");
        assert!(marks.windows(2).all(|w| w[0].index < w[1].index));
    }
    let marks = timeline.marks(None, MAX_MARKS);
    // Every row is stood for by exactly one mark.
    assert_eq!(marks.iter().map(|m| m.count).sum::<usize>(), rows.len());
    for row in rows
        .iter()
        .filter(|row| row.disposition != Disposition::Delivered)
    {
        assert!(
            marks.iter().any(|m| m.index == row.index),
            "#{} {} not drawn",
            row.index,
            row.disposition.label()
        );
    }
}

#[test]
fn every_disposition_has_its_own_shape() {
    let glyphs: HashSet<Glyph> = Disposition::ALL.into_iter().map(Glyph::of).collect();
    assert_eq!(glyphs.len(), Disposition::ALL.len());
}

#[test]
fn the_drawn_diagram_has_25_edges_with_the_taken_ones_lit_and_t42s_attempt() {
    let (all_nodes, all_edges) = (nodes(), edges());
    let r = run("");
    let svg = a2a_lab::ui::diagram::markup(&all_nodes, &all_edges, &path_taken(&r.trace.rows));
    assert_eq!(svg.matches("<path class=\"diagram__edge").count(), 25);
    assert_eq!(svg.matches("diagram__edge--taken").count(), 2);
    assert!(svg.contains("diagram__node--current\" data-state=\"completed\""));
    assert!(!svg.contains("diagram__attempt\""));
    let t42 = run("preset=t42");
    let svg = a2a_lab::ui::diagram::markup(&all_nodes, &all_edges, &path_taken(&t42.trace.rows));
    assert!(svg.contains("class=\"diagram__attempt\" data-from=\"completed\" data-to=\"failed\""));
}

#[test]
fn the_drawn_timeline_labels_each_mark_with_its_row() {
    let r = run("");
    let timeline = Timeline::new(&r.trace.rows);
    let marks = timeline.marks(None, MAX_MARKS);
    let svg = a2a_lab::ui::timeline::markup(&timeline, &r.trace.rows, &marks);
    assert_eq!(
        svg.matches("class=\"timeline__mark ").count(),
        r.trace.rows.len()
    );
    assert!(svg.contains("aria-label=\"#5 600 ms executor status COMPLETED delivered\""));
    assert_eq!(
        svg.matches("class=\"timeline__lane\"").count(),
        Source::ALL.len()
    );
    assert_eq!(svg.matches("timeline__terminal").count(), 1);
}

#[test]
fn a_second_client_gets_its_own_lane_below_the_first() {
    let r = run("second_client=2");
    let timeline = Timeline::new(&r.trace.rows);
    let labels: Vec<String> = timeline.lanes().iter().map(|l| l.label()).collect();
    assert_eq!(
        labels,
        ["executor", "cancel()", "handler", "client 1", "client 2", "server"]
    );
    let second = timeline.lanes()[4].y;
    for row in &r.trace.rows {
        let mark = timeline.mark(row.index).unwrap();
        assert_eq!(mark.y == second, row.client == 2, "row {}", row.index);
    }
    assert!(timeline.height() > a2a_lab::model::pictures::timeline::HEIGHT);
    let svg =
        a2a_lab::ui::timeline::markup(&timeline, &r.trace.rows, &timeline.marks(None, MAX_MARKS));
    assert!(svg.contains(r#"data-client="2""#) && svg.contains(">client 2</text>"));
    // One client, reconnecting: the lanes stay one per source.
    let r = run("resubscribe=3");
    assert_eq!(Timeline::new(&r.trace.rows).lanes(), lanes().as_slice());
}

#[test]
fn a_webhook_gets_its_own_lane_last_when_the_agent_pushes() {
    let r = run("push=inline&ending=raise");
    let timeline = Timeline::new(&r.trace.rows);
    let labels: Vec<String> = timeline.lanes().iter().map(|l| l.label()).collect();
    assert_eq!(
        labels,
        ["executor", "cancel()", "handler", "client", "server", "webhook"]
    );
    let webhook = timeline.lanes()[5].y;
    let posts: Vec<_> = r
        .trace
        .rows
        .iter()
        .filter(|row| row.source == Source::Webhook)
        .collect();
    assert!(posts.len() >= 2, "the POSTs are rows");
    for row in &r.trace.rows {
        let mark = timeline.mark(row.index).unwrap();
        assert_eq!(
            mark.y == webhook,
            row.source == Source::Webhook,
            "row {}",
            row.index
        );
    }
    let svg =
        a2a_lab::ui::timeline::markup(&timeline, &r.trace.rows, &timeline.marks(None, MAX_MARKS));
    assert!(svg.contains(">webhook</text>"), "the lane is labelled");
    // Without pushes, no webhook lane.
    assert_eq!(
        Timeline::new(&run("").trace.rows).lanes(),
        lanes().as_slice()
    );
}
