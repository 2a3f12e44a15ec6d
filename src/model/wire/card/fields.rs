//! The fields an agent card's protocol version requires (SPEC §11
//! `card-field`), judged by the shape the card was served in: a card with
//! `supportedInterfaces` is an A2A 1.0 card, even when it also lists a 0.3
//! interface; one with a 0.3 `url` or `protocolVersion` and no
//! `supportedInterfaces` is a 0.3 card.

use serde_json::Value;

use crate::model::wire::Wire;

/// What a required field must hold.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Object,
    /// A list with at least one entry (1.0: a REQUIRED repeated field,
    /// A2A 1.0 §5.7).
    List,
    /// A list, which may be empty (0.3's schema requires the field, not an
    /// entry).
    AnyList,
}

use Kind::{AnyList, List, Object, Text};

/// A 1.0 card's required fields.
const FIELDS_1_0: [(&str, Kind); 8] = [
    ("name", Text),
    ("description", Text),
    ("version", Text),
    ("supportedInterfaces", List),
    ("capabilities", Object),
    ("defaultInputModes", List),
    ("defaultOutputModes", List),
    ("skills", List),
];

/// A 0.3 card's required fields.
const FIELDS_0_3: [(&str, Kind); 9] = [
    ("name", Text),
    ("description", Text),
    ("url", Text),
    ("version", Text),
    ("protocolVersion", Text),
    ("capabilities", Object),
    ("defaultInputModes", AnyList),
    ("defaultOutputModes", AnyList),
    ("skills", AnyList),
];

/// The protocol version whose shape `card` was served in; `fallback` (the
/// wire the agent is spoken to in) when its fields tell neither.
pub fn card_shape(card: &Value, fallback: Wire) -> Wire {
    if card.get("supportedInterfaces").is_some() {
        Wire::V1_0
    } else if card.get("protocolVersion").is_some() || card.get("url").is_some() {
        Wire::V0_3
    } else {
        fallback
    }
}

/// Each required field of `card`'s shape that is missing, of the wrong
/// type, or an empty list where one entry is needed: the field's name and
/// what is wrong, one per field.
pub fn card_faults(card: &Value, shape: Wire) -> Vec<(&'static str, String)> {
    let fields: &[(&str, Kind)] = match shape {
        Wire::V1_0 => &FIELDS_1_0,
        Wire::V0_3 => &FIELDS_0_3,
    };
    let version = shape.name();
    fields
        .iter()
        .filter_map(|&(field, kind)| {
            let problem = match (card.get(field), kind) {
                (None, _) => format!("is missing; an A2A {version} card needs it"),
                (Some(Value::String(_)), Text) | (Some(Value::Object(_)), Object) => return None,
                (Some(Value::Array(list)), List) if !list.is_empty() => return None,
                (Some(Value::Array(_)), AnyList) => return None,
                (Some(Value::Array(_)), List) => {
                    format!("is an empty list; an A2A {version} card needs at least one entry")
                }
                (Some(other), kind) => format!(
                    "is {}, not {}",
                    type_name(other),
                    match kind {
                        Text => "text",
                        Object => "an object",
                        List | AnyList => "a list",
                    }
                ),
            };
            Some((field, problem))
        })
        .collect()
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn full_1_0() -> Value {
        json!({"name": "A", "description": "d", "version": "1",
               "supportedInterfaces": [{"url": "http://h/", "protocolBinding": "JSONRPC"}],
               "capabilities": {}, "defaultInputModes": ["text/plain"],
               "defaultOutputModes": ["text/plain"], "skills": [{"id": "s"}]})
    }

    #[test]
    fn a_complete_card_has_no_fault_and_each_gap_is_one_fault() {
        assert!(card_faults(&full_1_0(), Wire::V1_0).is_empty());
        let mut card = full_1_0();
        card["skills"] = json!([]);
        card["version"] = json!(1);
        card.as_object_mut().unwrap().remove("description");
        let faults = card_faults(&card, Wire::V1_0);
        let fields: Vec<&str> = faults.iter().map(|(f, _)| *f).collect();
        assert_eq!(fields, ["description", "version", "skills"]);
        assert!(faults[0].1.contains("missing"));
        assert_eq!(faults[1].1, "is a number, not text");
        assert!(faults[2].1.contains("empty list"));
    }

    #[test]
    fn a_card_is_judged_by_the_shape_it_was_served_in() {
        let mut card = full_1_0();
        card["additionalInterfaces"] = json!([{"url": "http://h/v03", "transport": "JSONRPC"}]);
        assert_eq!(card_shape(&card, Wire::V0_3), Wire::V1_0);
        let old = json!({"name": "B", "url": "http://h/", "protocolVersion": "0.3.0"});
        assert_eq!(card_shape(&old, Wire::V1_0), Wire::V0_3);
        let fields: Vec<&str> = card_faults(&old, Wire::V0_3)
            .iter()
            .map(|(f, _)| *f)
            .collect();
        assert_eq!(
            fields,
            [
                "description",
                "version",
                "capabilities",
                "defaultInputModes",
                "defaultOutputModes",
                "skills"
            ]
        );
        assert_eq!(card_shape(&json!({"name": "C"}), Wire::V0_3), Wire::V0_3);
    }

    #[test]
    fn an_empty_list_is_a_fault_only_where_the_version_needs_an_entry() {
        let mut card = json!({"name": "B", "description": "d", "url": "http://h/", "version": "1",
                              "protocolVersion": "0.3.0", "capabilities": {},
                              "defaultInputModes": [], "defaultOutputModes": [], "skills": []});
        assert!(card_faults(&card, Wire::V0_3).is_empty());
        card["skills"] = json!({});
        assert_eq!(
            card_faults(&card, Wire::V0_3)[0].1,
            "is an object, not a list"
        );
    }
}
