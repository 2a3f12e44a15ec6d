//! The page's own state as data: what its URL says beyond the scenario
//! (the slider's step, `embed`, Live's launch token), read and written in
//! one place, and the
//! playback cursor, which is only an index into a finished trace.

use crate::model::sim::query::split_view_keys;
use crate::model::sim::scenario::Scenario;

/// What the page's URL says.
#[derive(Debug, Clone, PartialEq)]
pub struct PageUrl {
    /// The scenario (the defaults when the URL's is bad).
    pub scenario: Scenario,
    /// Rows revealed; `None` shows all.
    pub step: Option<usize>,
    /// Shown inside an iframe without page chrome.
    pub embed: bool,
    /// Live's launch token (`live=`), in the URL `serve --agent` prints,
    /// as given: the page opens on the Live view, which checks it
    /// ([`launch_token`]) and connects with it. The page then leaves the
    /// address bar as it was opened (the scenario is not Live's).
    pub live: Option<String>,
    /// What was wrong with the URL, for the page to say; the lab works on.
    pub problem: Option<String>,
}

impl PageUrl {
    /// Reads a URL's query (without `?`).
    pub fn read(query: &str) -> PageUrl {
        let (scenario_pairs, view) = match split_view_keys(query) {
            Ok(split) => split,
            Err(e) => {
                return PageUrl {
                    scenario: Scenario::default(),
                    step: None,
                    embed: false,
                    live: None,
                    problem: Some(format!("URL: {e}")),
                }
            }
        };
        let embed = view.iter().any(|(k, v)| k == "embed" && v == "1");
        let mut problem = None;
        let step = view.iter().find(|(k, _)| k == "step").and_then(|(_, v)| {
            let n = v.parse::<usize>().ok();
            if n.is_none() {
                problem = Some(format!(
                    "URL: step: `{v}` is not a row number; showing all rows"
                ));
            }
            n
        });
        // Checked by the Live view, which says what is wrong with it: the
        // first view only needs to know it is there.
        let live = view
            .iter()
            .find(|(k, _)| k == "live")
            .map(|(_, v)| v.clone());
        match Scenario::from_pairs(scenario_pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
            Ok(scenario) => PageUrl {
                scenario,
                step,
                embed,
                live,
                problem,
            },
            Err(e) => PageUrl {
                scenario: Scenario::default(),
                step: None,
                embed,
                live,
                problem: Some(format!("URL: {e}. Showing the defaults instead.")),
            },
        }
    }

    /// The query that brings the page back: the scenario, then the step
    /// (when it is within the trace's `rows`), then `embed`.
    pub fn write(scenario: &Scenario, step: Option<usize>, rows: usize, embed: bool) -> String {
        let mut query = scenario.to_query();
        let mut push = |key: &str, value: &str| {
            if !query.is_empty() {
                query.push('&');
            }
            query.push_str(key);
            query.push('=');
            query.push_str(value);
        };
        if let Some(s) = step.filter(|s| *s < rows) {
            push("step", &s.to_string());
        }
        if embed {
            push("embed", "1");
        }
        query
    }
}

/// Where playback is: how many rows of a trace of `len` rows are shown.
/// `None` shows them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// Rows revealed; `None` shows all.
    pub step: Option<usize>,
    /// The trace's rows.
    pub len: usize,
}

impl Cursor {
    /// Rows revealed now, within the trace.
    pub fn revealed(self) -> usize {
        self.step.map_or(self.len, |s| s.min(self.len))
    }

    /// Whether every row is shown.
    pub fn at_end(self) -> bool {
        self.revealed() >= self.len
    }

    /// One row more, unless all are shown.
    pub fn next(self) -> Option<usize> {
        let n = self.revealed();
        Some(if n < self.len { n + 1 } else { n })
    }

    /// One row fewer.
    pub fn back(self) -> Option<usize> {
        self.jump(self.revealed().saturating_sub(1))
    }

    /// Row `n`, within the trace.
    pub fn jump(self, n: usize) -> Option<usize> {
        Some(n.min(self.len))
    }

    /// Where Start trace begins: where it is, or the first row once every
    /// row was shown.
    pub fn start(self) -> Option<usize> {
        if self.at_end() {
            Some(0)
        } else {
            self.step
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gives_the_scenario_the_step_and_embed_and_writes_back_the_same() {
        let url = PageUrl::read("late=0&step=3&embed=1");
        assert_eq!(url.scenario, Scenario::from_query("late=0").unwrap());
        assert_eq!(
            (url.step, url.embed, url.problem.as_deref()),
            (Some(3), true, None)
        );
        assert_eq!(
            PageUrl::write(&url.scenario, url.step, 7, url.embed),
            "late=0&step=3&embed=1"
        );
        // A step past the trace is not written; nor is a missing one.
        assert_eq!(PageUrl::write(&url.scenario, Some(7), 7, false), "late=0");
        assert_eq!(
            PageUrl::write(&Scenario::default(), None, 6, true),
            "embed=1"
        );
    }

    #[test]
    fn a_bad_url_is_said_and_the_lab_shows_the_defaults() {
        let url = PageUrl::read("chunks=x&embed=1");
        assert_eq!(url.scenario, Scenario::default());
        assert!(url.embed);
        assert!(url
            .problem
            .unwrap()
            .contains("Showing the defaults instead"));
        let url = PageUrl::read("late=0&step=two");
        assert_eq!(url.scenario, Scenario::from_query("late=0").unwrap());
        assert_eq!(url.step, None);
        assert!(url.problem.unwrap().contains("`two` is not a row number"));
    }

    #[test]
    fn the_cursor_moves_within_the_trace() {
        let at = |step| Cursor { step, len: 6 };
        assert_eq!(at(None).revealed(), 6);
        assert_eq!(at(Some(9)).revealed(), 6);
        assert_eq!(at(Some(2)).next(), Some(3));
        assert_eq!(at(Some(6)).next(), Some(6));
        assert_eq!(at(Some(0)).back(), Some(0));
        assert_eq!(at(Some(4)).back(), Some(3));
        assert_eq!(at(None).jump(10), Some(6));
        assert_eq!(at(None).start(), Some(0), "a finished playback starts over");
        assert_eq!(at(Some(2)).start(), Some(2));
        assert!(at(None).at_end() && !at(Some(5)).at_end());
    }
}
