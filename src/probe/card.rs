//! Discovery: the agent card's name, and the JSON-RPC endpoint and wire to
//! probe, from an A2A 1.0 card (`supportedInterfaces`) or an A2A 0.3 card
//! (`url`, `preferredTransport`, `additionalInterfaces`).

use serde_json::Value;

use crate::model::evidence::capture::Wire;

/// The card's paths, tried in order.
pub const CARD_PATHS: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

/// What the probe needs of a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The agent's name.
    pub name: String,
    /// The JSON-RPC URL.
    pub url: String,
    /// The wire to speak there.
    pub wire: Wire,
}

/// One interface a card offers.
struct Interface<'a> {
    url: &'a str,
    binding: &'a str,
    version: &'a str,
}

/// The JSON-RPC endpoint of `card`: the one of the `forced` wire if there is
/// one (else the first JSON-RPC one, spoken in that wire), otherwise A2A 1.0
/// before 0.3.
pub fn endpoint(card: &Value, forced: Option<Wire>) -> Result<Endpoint, String> {
    let Some(object) = card.as_object() else {
        return Err("the agent card is not a JSON object".into());
    };
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("(unnamed agent)")
        .to_string();
    let interfaces = interfaces(card);
    let jsonrpc: Vec<&Interface> = interfaces
        .iter()
        .filter(|i| i.binding.eq_ignore_ascii_case("JSONRPC"))
        .collect();
    if jsonrpc.is_empty() {
        let offered: Vec<&str> = interfaces.iter().map(|i| i.binding).collect();
        return Err(if offered.is_empty() {
            "the agent card names no interface (no supportedInterfaces, no url)".into()
        } else {
            format!(
                "the agent card offers no JSON-RPC interface (only {})",
                offered.join(", ")
            )
        });
    }
    let chosen = match forced {
        Some(wire) => jsonrpc
            .iter()
            .find(|i| wire_of(i.version) == Some(wire))
            .or(jsonrpc.first())
            .map(|i| (i.url, wire)),
        None => [Wire::V1_0, Wire::V0_3].into_iter().find_map(|wire| {
            jsonrpc
                .iter()
                .find(|i| wire_of(i.version) == Some(wire))
                .map(|i| (i.url, wire))
        }),
    };
    let Some((url, wire)) = chosen else {
        let versions: Vec<&str> = jsonrpc.iter().map(|i| i.version).collect();
        return Err(format!(
            "the agent's JSON-RPC interface speaks protocol version {}, not 1.0 or 0.3 (--wire forces one)",
            versions.join(", ")
        ));
    };
    Ok(Endpoint {
        name,
        url: url.to_string(),
        wire,
    })
}

/// `1.0` for any 1.x, `0.3` for any 0.3.x.
fn wire_of(version: &str) -> Option<Wire> {
    if version == "1" || version.starts_with("1.") {
        Some(Wire::V1_0)
    } else if version == "0.3" || version.starts_with("0.3.") {
        Some(Wire::V0_3)
    } else {
        None
    }
}

fn interfaces(card: &Value) -> Vec<Interface<'_>> {
    let mut out = Vec::new();
    let listed = |key: &str| {
        card.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    };
    for i in listed("supportedInterfaces") {
        if let Some(url) = i.get("url").and_then(Value::as_str) {
            out.push(Interface {
                url,
                binding: text(i, "protocolBinding", ""),
                version: text(i, "protocolVersion", ""),
            });
        }
    }
    // An A2A 0.3 card: its own url with its preferred transport (JSON-RPC
    // when it names none), then its additional interfaces.
    let version = text(card, "protocolVersion", "0.3");
    if let Some(url) = card.get("url").and_then(Value::as_str) {
        out.push(Interface {
            url,
            binding: text(card, "preferredTransport", "JSONRPC"),
            version,
        });
    }
    for i in listed("additionalInterfaces") {
        if let Some(url) = i.get("url").and_then(Value::as_str) {
            out.push(Interface {
                url,
                binding: text(i, "transport", ""),
                version,
            });
        }
    }
    out
}

/// The string at `key`, or `or`.
fn text<'a>(v: &'a Value, key: &str, or: &'a str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or(or)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_1_0_card_is_spoken_in_1_0_unless_forced() {
        let card = json!({"name": "A", "supportedInterfaces": [
            {"url": "http://h/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://h/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]});
        assert_eq!(endpoint(&card, None).unwrap().url, "http://h/");
        assert_eq!(endpoint(&card, None).unwrap().wire, Wire::V1_0);
        let forced = endpoint(&card, Some(Wire::V0_3)).unwrap();
        assert_eq!(
            (forced.url.as_str(), forced.wire),
            ("http://h/v03", Wire::V0_3)
        );
    }

    #[test]
    fn a_0_3_card_and_cards_that_cannot_be_probed() {
        let card = json!({"name": "B", "protocolVersion": "0.3.0", "url": "http://h/rpc",
                          "preferredTransport": "JSONRPC"});
        let got = endpoint(&card, None).unwrap();
        assert_eq!((got.url.as_str(), got.wire), ("http://h/rpc", Wire::V0_3));
        let grpc = json!({"name": "C", "supportedInterfaces": [
            {"url": "http://h/", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]});
        assert!(endpoint(&grpc, None).unwrap_err().contains("only GRPC"));
        assert!(endpoint(&json!([1]), None).is_err());
        assert!(endpoint(&json!({"name": "D"}), None)
            .unwrap_err()
            .contains("no interface"));
    }
}
