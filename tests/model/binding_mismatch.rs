//! `probe --binding all` (SPEC §16): recorded runs of one agent over two
//! bindings compared. The same agent over JSON-RPC and HTTP+JSON agrees;
//! two runs that mean different things differ exactly on the probes where
//! they do, each a `binding-mismatch` citing A2A 1.0 §5.1.
#![cfg(not(target_arch = "wasm32"))]

use a2a_lab::model::evidence::probe::bindings::{compared, BindingRun};
use a2a_lab::model::evidence::probe::plan::replay_report;
use a2a_lab::model::evidence::probe::report::ProbeCode;
use a2a_lab::model::wire::rest::Binding;
use model_support::probe::records;

use crate::model_support;

fn run(binding: Binding, name: &str) -> BindingRun {
    let records = records(name);
    BindingRun {
        binding,
        report: replay_report(&records).unwrap(),
        records,
    }
}

fn mismatches(runs: &[BindingRun]) -> Vec<String> {
    compared(runs)
        .unwrap()
        .findings
        .iter()
        .filter(|f| f.code == ProbeCode::BindingMismatch)
        .map(|f| format!("{}: {}", f.probe, f.message))
        .collect()
}

#[test]
fn one_agent_over_json_rpc_and_rest_agrees() {
    for sdk in ["python", "js"] {
        for defect in ["none", "no-final", "late-artifact", "cancel-raises"] {
            let runs = [
                run(Binding::JsonRpc, &format!("{sdk}-1.0-{defect}")),
                run(Binding::Rest, &format!("rest-{sdk}-1.0-{defect}")),
            ];
            assert_eq!(mismatches(&runs), Vec::<String>::new(), "{sdk} {defect}");
            // The compared report keeps the first binding's findings.
            assert_eq!(
                compared(&runs).unwrap().findings,
                runs[0].report.findings,
                "{sdk} {defect}"
            );
        }
    }
}

#[test]
fn a_binding_that_answers_otherwise_is_found_where_it_differs() {
    // As if the agent ended its tasks over JSON-RPC but not over REST.
    let runs = [
        run(Binding::JsonRpc, "python-1.0-none"),
        run(Binding::Rest, "rest-python-1.0-no-final"),
    ];
    let found = mismatches(&runs);
    let probes: Vec<&str> = found.iter().map(|f| f.split(':').next().unwrap()).collect();
    assert_eq!(
        probes,
        [
            "stream",
            "get",
            "cancel-terminal",
            "resubscribe",
            "subscribe-terminal"
        ],
        "{found:#?}"
    );
    assert!(
        found[0].starts_with(
            "stream: over JSON-RPC clean, TASK_STATE_COMPLETED; over HTTP+JSON broken, found missing-terminal"
        ),
        "{}",
        found[0]
    );
    assert!(found[0].ends_with("(A2A 1.0 §5.1: every binding returns semantically equivalent results for the same requests)"));
    let report = compared(&runs).unwrap();
    let stream = report
        .probes
        .iter()
        .find(|p| p.name.name() == "stream")
        .unwrap();
    assert_eq!(stream.findings, [ProbeCode::BindingMismatch]);
    assert_eq!(stream.outcome.name(), "broken");
}
