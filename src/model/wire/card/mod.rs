//! An agent card, typed (A2A 1.0 `supportedInterfaces`; A2A 0.3 `url`,
//! `preferredTransport`, `additionalInterfaces`), and the endpoint, wire
//! and binding a client speaks to it; the fields its protocol version
//! requires in [`fields`].

pub mod fields;

use serde::Deserialize;

use super::read_error::{CardFault, ReadError, ReadKind};
use super::rest::Binding;
use super::Wire;

/// The card's paths, tried in order.
pub const CARD_PATHS: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

/// What the lab reads of a card; fields it does not read are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// The agent's name.
    #[serde(default)]
    pub name: Option<String>,
    /// A 0.3 card's protocol version.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// A 0.3 card's own URL.
    #[serde(default)]
    pub url: Option<String>,
    /// A 0.3 card's transport at `url` (JSON-RPC when it names none).
    #[serde(default)]
    pub preferred_transport: Option<String>,
    /// A 0.3 card's other interfaces.
    #[serde(default)]
    pub additional_interfaces: Vec<CardInterface>,
    /// A 1.0 card's interfaces.
    #[serde(default)]
    pub supported_interfaces: Vec<CardInterface>,
    /// What the agent says it can do.
    #[serde(default)]
    pub capabilities: Option<Capabilities>,
}

/// The card's `capabilities`, as far as the lab reads them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// Whether the agent POSTs task events to a client's webhook.
    #[serde(default)]
    pub push_notifications: Option<bool>,
}

/// One interface as a card lists it (1.0 `protocolBinding` and
/// `protocolVersion`; 0.3 `transport`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardInterface {
    /// Where it is served.
    #[serde(default)]
    pub url: Option<String>,
    /// 1.0: `JSONRPC`, `HTTP+JSON`, `GRPC`.
    #[serde(default)]
    pub protocol_binding: Option<String>,
    /// 1.0: the protocol version spoken there.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// 0.3: the transport.
    #[serde(default)]
    pub transport: Option<String>,
}

/// What a client needs of a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The agent's name.
    pub name: String,
    /// The interface's URL.
    pub url: String,
    /// The wire to speak there.
    pub wire: Wire,
    /// JSON-RPC or REST.
    pub binding: Binding,
    /// The card declares `capabilities.pushNotifications`.
    pub push: bool,
    /// The card offers this binding (else `--binding` asked for one it
    /// does not list, spoken at the URL given).
    pub offered: bool,
}

/// One interface a card offers, as the lab compares them.
struct Interface<'a> {
    url: &'a str,
    binding: &'a str,
    version: &'a str,
}

impl AgentCard {
    /// Reads a card from its bytes.
    pub fn parse(bytes: &[u8]) -> Result<AgentCard, ReadError> {
        let text = std::str::from_utf8(bytes).map_err(|_| fault(CardFault::NotUtf8))?;
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|_| fault(CardFault::NotJson))?;
        if !value.is_object() {
            return Err(fault(CardFault::NotObject));
        }
        serde_json::from_value(value).map_err(|e| fault(CardFault::Unreadable(e.to_string())))
    }

    /// The endpoint: of the `binding` asked for, else JSON-RPC when the
    /// card offers it, else REST (SPEC §11). On JSON-RPC, the interface of
    /// the `forced` wire if there is one (else the first, spoken in that
    /// wire), otherwise A2A 1.0 before 0.3; REST is spoken in A2A 1.0 only
    /// (the 0.3 REST form is another API: other paths, other bodies).
    pub fn endpoint(
        &self,
        forced: Option<Wire>,
        binding: Option<Binding>,
        base: &str,
    ) -> Result<Endpoint, ReadError> {
        let asked = binding;
        let name = self
            .name
            .clone()
            .unwrap_or_else(|| "(unnamed agent)".into());
        let interfaces = self.interfaces();
        let of = |b: Binding| -> Vec<&Interface> {
            interfaces
                .iter()
                .filter(|i| b.is_named(i.binding))
                .collect()
        };
        // By default JSON-RPC when offered in a version the probe speaks,
        // else REST when offered in 1.0, else whichever is offered (and
        // its error says why it cannot be spoken).
        let binding = match binding {
            Some(b) => b,
            None => Binding::ALL
                .into_iter()
                .find(|b| choose(&of(*b), *b, None).is_some())
                .or_else(|| Binding::ALL.into_iter().find(|b| !of(*b).is_empty()))
                .unwrap_or(Binding::JsonRpc),
        };
        let offered = of(binding);
        if let (Some(asked), true) = (asked, offered.is_empty()) {
            return self.unoffered(name, asked, forced, base);
        }
        if offered.is_empty() {
            let all: Vec<String> = interfaces.iter().map(|i| i.binding.to_string()).collect();
            return Err(fault(if all.is_empty() {
                CardFault::NoInterface
            } else {
                CardFault::NotOffered {
                    wanted: binding.card_name(),
                    offered: all,
                }
            }));
        }
        if binding != Binding::JsonRpc && forced == Some(Wire::V0_3) {
            return Err(fault(CardFault::Only1_0(binding.name())));
        }
        let chosen = choose(&offered, binding, forced);
        let Some((url, wire)) = chosen else {
            let versions: Vec<String> = offered.iter().map(|i| i.version.to_string()).collect();
            return Err(fault(match binding {
                Binding::JsonRpc => CardFault::JsonRpcVersion(versions),
                Binding::Rest | Binding::Grpc => CardFault::Not1_0(binding.card_name(), versions),
            }));
        };
        Ok(Endpoint {
            name,
            url: url.to_string(),
            wire,
            binding,
            push: self.push(),
            offered: true,
        })
    }

    /// Every binding the card offers in a wire the probe speaks (`forced`,
    /// else any), in the order a probe prefers them: what `--binding all`
    /// probes.
    pub fn offered(&self, forced: Option<Wire>, base: &str) -> Vec<Binding> {
        Binding::ALL
            .into_iter()
            .filter(|b| {
                self.endpoint(forced, Some(*b), base)
                    .is_ok_and(|e| e.offered)
            })
            .collect()
    }

    /// A binding asked for that the card does not offer, spoken at the URL
    /// given (SPEC §13: --binding is honoured; the report says so).
    fn unoffered(
        &self,
        name: String,
        asked: Binding,
        forced: Option<Wire>,
        base: &str,
    ) -> Result<Endpoint, ReadError> {
        if asked != Binding::JsonRpc && forced == Some(Wire::V0_3) {
            return Err(fault(CardFault::Only1_0(asked.name())));
        }
        Ok(Endpoint {
            name,
            url: base.trim_end_matches('/').to_string(),
            wire: forced.unwrap_or(Wire::V1_0),
            binding: asked,
            push: self.push(),
            offered: false,
        })
    }

    /// Whether the card declares push notifications.
    fn push(&self) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.push_notifications)
            .unwrap_or(false)
    }

    /// Every interface with a URL: the 1.0 list, then a 0.3 card's own URL
    /// with its preferred transport, then its additional interfaces.
    fn interfaces(&self) -> Vec<Interface<'_>> {
        let mut out: Vec<Interface> = self
            .supported_interfaces
            .iter()
            .filter_map(|i| {
                Some(Interface {
                    url: i.url.as_deref()?,
                    binding: i.protocol_binding.as_deref().unwrap_or(""),
                    version: i.protocol_version.as_deref().unwrap_or(""),
                })
            })
            .collect();
        let version = self.protocol_version.as_deref().unwrap_or("0.3");
        if let Some(url) = &self.url {
            out.push(Interface {
                url,
                binding: self.preferred_transport.as_deref().unwrap_or("JSONRPC"),
                version,
            });
        }
        out.extend(self.additional_interfaces.iter().filter_map(|i| {
            Some(Interface {
                url: i.url.as_deref()?,
                binding: i.transport.as_deref().unwrap_or(""),
                version,
            })
        }));
        out
    }
}

/// The interface of `offered` (all of `binding`) to speak to, and in which
/// wire: REST in A2A 1.0 only; JSON-RPC in the `forced` wire (at its
/// interface, else the first), otherwise A2A 1.0 before 0.3.
fn choose<'a>(
    offered: &[&Interface<'a>],
    binding: Binding,
    forced: Option<Wire>,
) -> Option<(&'a str, Wire)> {
    let at = |wire: Wire| offered.iter().find(|i| wire_of(i.version) == Some(wire));
    match (binding, forced) {
        (Binding::Rest | Binding::Grpc, Some(Wire::V0_3)) => None,
        (Binding::Rest | Binding::Grpc, _) => at(Wire::V1_0).map(|i| (i.url, Wire::V1_0)),
        (Binding::JsonRpc, Some(wire)) => at(wire).or(offered.first()).map(|i| (i.url, wire)),
        (Binding::JsonRpc, None) => [Wire::V1_0, Wire::V0_3]
            .into_iter()
            .find_map(|wire| at(wire).map(|i| (i.url, wire))),
    }
}

fn fault(fault: CardFault) -> ReadError {
    ReadError::new(ReadKind::Card(fault))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn endpoint(card: &Value, forced: Option<Wire>) -> Result<Endpoint, ReadError> {
        AgentCard::parse(card.to_string().as_bytes())?.endpoint(forced, None, "http://h")
    }

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
        // gRPC when it is all the card offers (SPEC §16).
        let grpc = json!({"name": "C", "supportedInterfaces": [
            {"url": "127.0.0.1:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]});
        let got = endpoint(&grpc, None).unwrap();
        assert_eq!(
            (got.url.as_str(), got.binding, got.wire),
            ("127.0.0.1:50051", Binding::Grpc, Wire::V1_0)
        );
        let other = json!({"name": "C", "supportedInterfaces": [
            {"url": "http://h/", "protocolBinding": "KAFKA", "protocolVersion": "1.0"}]});
        let e = endpoint(&other, None).unwrap_err();
        assert!(e.to_string().contains("only KAFKA"));
        assert_eq!(
            e.kind(),
            &ReadKind::Card(CardFault::NotOffered {
                wanted: "JSON-RPC",
                offered: vec!["KAFKA".into()]
            })
        );
        let grpc_0_3 = json!({"name": "C", "supportedInterfaces": [
            {"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "0.3"}]});
        let e = endpoint(&grpc_0_3, None).unwrap_err();
        assert!(
            e.to_string()
                .contains("GRPC interface speaks protocol version 0.3"),
            "{e}"
        );
        // REST when it is all the card offers, or when asked for.
        let rest = json!({"name": "R", "supportedInterfaces": [
            {"url": "http://h/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]});
        let got = endpoint(&rest, None).unwrap();
        assert_eq!(
            (got.url.as_str(), got.binding),
            ("http://h/rest", Binding::Rest)
        );
        let card = AgentCard::parse(rest.to_string().as_bytes()).unwrap();
        // A binding asked for and not offered is spoken at the URL given.
        let asked = card
            .endpoint(None, Some(Binding::JsonRpc), "http://h/given/")
            .unwrap();
        assert_eq!(
            (asked.url.as_str(), asked.binding, asked.offered),
            ("http://h/given", Binding::JsonRpc, false)
        );
        assert!(got.offered);
        assert!(card
            .endpoint(Some(Wire::V0_3), Some(Binding::Rest), "http://h")
            .unwrap_err()
            .to_string()
            .contains("A2A 1.0 only"));
        let rpc_only = json!({"name": "J", "supportedInterfaces": [
            {"url": "http://h/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]});
        let card = AgentCard::parse(rpc_only.to_string().as_bytes()).unwrap();
        assert!(card
            .endpoint(Some(Wire::V0_3), Some(Binding::Rest), "http://h")
            .unwrap_err()
            .to_string()
            .contains("A2A 1.0 only"));
        let old_rest = json!({"name": "O", "protocolVersion": "0.3.0", "url": "http://h/rest",
                              "preferredTransport": "HTTP+JSON"});
        assert!(endpoint(&old_rest, None)
            .unwrap_err()
            .to_string()
            .contains("version 0.3.0"));
        // A JSON-RPC interface in a version the probe cannot speak: REST 1.0.
        let mixed = json!({"name": "M", "supportedInterfaces": [
            {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"},
            {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]});
        assert_eq!(endpoint(&mixed, None).unwrap().binding, Binding::Rest);
        assert!(endpoint(&json!([1]), None).is_err());
        assert!(endpoint(&json!({"name": "D"}), None)
            .unwrap_err()
            .to_string()
            .contains("no interface"));
    }
}
