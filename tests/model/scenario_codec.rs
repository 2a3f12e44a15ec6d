//! The scenario codec: one parser for the URL, the CLI and the export.

use a2a_lab::model::sim::scenario::{Scenario, KEYS, SINCE_FORMAT};

#[test]
fn defaults_round_trip_to_an_empty_query() {
    assert_eq!(Scenario::from_query("").unwrap(), Scenario::default());
    assert_eq!(Scenario::default().to_query(), "");
    assert_eq!(Scenario::default().slug(), "defaults");
}

#[test]
fn query_inputs_and_canonical_form_agree() {
    let s = Scenario::from_query("?ending=never&cancel=3&guard=on").unwrap();
    assert_eq!(s.to_query(), "ending=never&cancel=3&guard=on");
    assert_eq!(Scenario::from_inputs(&s.to_inputs()).unwrap(), s);
    let inputs = s.to_inputs();
    assert_eq!(
        inputs.as_object().unwrap().len(),
        KEYS.len() - 1 - SINCE_FORMAT.len(),
        "every key but preset and, at their defaults, the keys newer than the format"
    );
    let on_0_3 = Scenario::from_query("wire=0.3").unwrap();
    assert_eq!(on_0_3.to_inputs()["wire"], "0.3");
    assert_eq!(Scenario::from_inputs(&on_0_3.to_inputs()).unwrap(), on_0_3);
}

#[test]
fn subscriber_keys_are_listed_in_inputs_only_when_set() {
    let s = Scenario::from_query("resubscribe=3&second_client=2").unwrap();
    assert_eq!(s.to_query(), "resubscribe=3&second_client=2");
    let inputs = s.to_inputs();
    assert_eq!(inputs["resubscribe"], "3");
    assert_eq!(inputs["second_client"], "2");
    // Every key but preset, and the other keys newer than the format
    // (wire, the push keys), at their defaults.
    assert_eq!(
        inputs.as_object().unwrap().len(),
        KEYS.len() - 1 - (SINCE_FORMAT.len() - 2)
    );
    assert_eq!(Scenario::from_inputs(&inputs).unwrap(), s);
    let plain = Scenario::default().to_inputs();
    assert!(plain.get("resubscribe").is_none() && plain.get("second_client").is_none());
}

#[test]
fn a_subscriber_key_out_of_range_says_how_many_events_the_stream_carries() {
    let e = Scenario::from_query("resubscribe=7").unwrap_err();
    assert_eq!(e.key, "resubscribe");
    assert!(
        e.message.starts_with(
            "7 is out of range (1 – 6): with these keys client 1's stream carries at most 6 events"
        ),
        "{e}"
    );
    // A late artifact is one event more; no final status one fewer.
    assert!(Scenario::from_query("resubscribe=7&late=0").is_ok());
    let e = Scenario::from_query("second_client=6&ending=return").unwrap_err();
    assert_eq!(e.key, "second_client");
    assert!(e.message.contains("at most 5 events"), "{e}");
    let e = Scenario::from_query("resubscribe=0").unwrap_err();
    assert_eq!(e.message, "0 is out of range (1 – 10004), or `none`");
}

#[test]
fn subscriber_keys_refuse_only_what_cannot_happen_and_say_why() {
    for (q, key, says) in [
        (
            "resubscribe=2&client=block",
            "resubscribe",
            "needs client=stream",
        ),
        (
            "second_client=2&client=block",
            "second_client",
            "a blocking call has none",
        ),
        ("preset=t42&resubscribe=3", "resubscribe", "preset"),
    ] {
        let e = Scenario::from_query(q).expect_err(q);
        assert_eq!(e.key, key, "{q}: {e}");
        assert!(e.message.contains(says), "{q}: {e}");
    }
    // SPEC §14: measured, or given a meaning (dup), so taken.
    for q in [
        "resubscribe=3&dup=2",
        "second_client=3&retry=on",
        "resubscribe=3&interrupt=auth",
    ] {
        assert!(Scenario::from_query(q).is_ok(), "{q}");
    }
}

#[test]
fn subscriber_controls_are_disabled_for_a_blocking_client_or_a_preset() {
    use a2a_lab::model::sim::scenario::Key;
    let block = Scenario::from_query("client=block").unwrap();
    let preset = Scenario::from_query("preset=t43").unwrap();
    let stream = Scenario::default();
    for key in [Key::Resubscribe, Key::SecondClient] {
        assert!(block.applies(key).is_err(), "{key:?}");
        assert!(preset.applies(key).is_err(), "{key:?}");
        assert_eq!(stream.applies(key), Ok(()), "{key:?}");
    }
}

#[test]
fn unknown_repeated_and_out_of_range_keys_are_errors_naming_the_key() {
    for (q, key) in [
        ("color=red", "color"),
        ("chunks=3&chunks=4", "chunks"),
        ("chunks=10001", "chunks"),
        ("chunks=-1", "chunks"),
        ("step_ms=0", "step_ms"),
        ("ending=explode", "ending"),
        ("cancel=4", "cancel"),
        ("restart=9&chunks=2", "restart"),
        ("timeout_ms=0", "timeout_ms"),
        ("late=600001", "late"),
        ("dup=1&client=block", "dup"),
        ("conflict=on", "conflict"),
        ("preset=t42&chunks=3", "chunks"),
        ("guard=yes", "guard"),
        ("resubscribe=7", "resubscribe"),
        ("second_client=x", "second_client"),
    ] {
        let e = Scenario::from_query(q).expect_err(q);
        assert_eq!(e.key, key, "{q}: {e}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn percent_encoding_and_plus_are_decoded_and_bad_escapes_refused() {
    assert_eq!(
        Scenario::from_query("ending=%6Eever").unwrap().to_query(),
        "ending=never"
    );
    assert!(Scenario::from_query("ending=%ZZ").is_err());
    assert!(Scenario::from_query(&"a".repeat(5000)).is_err());
}

#[test]
fn with_changes_one_key_and_keeps_the_rest() {
    let s = Scenario::from_query("ending=never").unwrap();
    let t = s.with("cancel", "3").unwrap();
    assert_eq!(t.to_query(), "ending=never&cancel=3");
    assert!(s.with("cancel", "99").is_err());
}

#[test]
fn the_key_table_lists_every_key_once_in_declaration_order() {
    use a2a_lab::model::sim::scenario::Key;
    for (i, spec) in KEYS.iter().enumerate() {
        assert_eq!(spec.key as usize, i, "{} is out of place", spec.name);
        assert_eq!(spec.key.spec().name, spec.name);
        assert_eq!(Key::from_name(spec.name), Some(spec.key));
    }
}

#[test]
fn every_value_of_every_key_round_trips_through_the_query() {
    for spec in KEYS {
        for value in spec.choices() {
            let query = format!("{}={value}", spec.name);
            let scenario = match Scenario::from_query(&query) {
                Ok(s) => s,
                // A value whose key needs another key first says so.
                Err(e) => {
                    assert_eq!(e.key, spec.name, "{query}: {e}");
                    continue;
                }
            };
            assert_eq!(scenario.get(spec.name).as_deref(), Some(*value), "{query}");
        }
    }
}

#[test]
fn push_keys_are_listed_in_inputs_only_when_set_and_read_back() {
    let s = Scenario::from_query("push=after:2&webhook=error&webhook_delay_ms=300&push_auth=both")
        .unwrap();
    let inputs = s.to_inputs();
    assert_eq!(inputs["push"], "after:2");
    assert_eq!(inputs["webhook_delay_ms"], "300");
    assert_eq!(Scenario::from_inputs(&inputs).unwrap(), s);
    let plain = Scenario::default().to_inputs();
    assert!(["push", "webhook", "webhook_delay_ms", "push_auth"]
        .iter()
        .all(|k| plain.get(k).is_none()));
    assert_eq!(
        Scenario::from_query("push=after:0").unwrap_err().key,
        "push"
    );
    assert!(Scenario::from_query("push=inline&dup=2").is_ok());
    assert_eq!(
        Scenario::from_query("push=after:2&client=block")
            .unwrap_err()
            .key,
        "push"
    );
}
