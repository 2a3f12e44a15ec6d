//! The agent's server: a2a-server-lf's `DefaultRequestHandler` with its
//! `InMemoryTaskStore`, its JSON-RPC router at `/`, its REST router at `/rest`
//! (`rest=on|only`) and its agent-card router, on axum, 127.0.0.1 only.
//!
//! Config: the JSON object tests/agents/launch.py and the recorder pass to every
//! SDK's `serve` child: `scenario` (the lab's keys), `step_ms`, `side` (side channel
//! file), `db`, `port`, `v03_compat`, and optionally `push`, `rest`, `card`,
//! `shared_state`.

use std::sync::Arc;
use std::time::Duration;

use a2a::*;
use a2a_server::{
    DefaultRequestHandler, HttpPushSender, HttpPushSenderConfig, InMemoryPushConfigStore,
    InMemoryTaskStore, StaticAgentCard,
};
use serde_json::{Value, json};

use crate::executor::{OrderStatusExecutor, SharedStateExecutor};
use crate::scenario::Scenario;
use crate::side::SideChannel;

pub struct Config {
    pub scenario: Scenario,
    pub step_ms: u64,
    pub side: String,
    pub port: u16,
    pub v03_compat: bool,
    pub push: bool,
    pub rest: Option<String>,
    pub thin_card: bool,
    pub shared_state: Option<String>,
}

impl Config {
    pub fn from_json(v: &Value) -> Result<Self, String> {
        let port = v["port"].as_u64().ok_or("config: port missing")?;
        Ok(Config {
            scenario: Scenario::from_json(&v["scenario"]),
            step_ms: v["step_ms"].as_u64().unwrap_or(200),
            side: v["side"].as_str().unwrap_or("/dev/null").to_string(),
            port: u16::try_from(port).map_err(|_| "config: bad port")?,
            v03_compat: v["v03_compat"].as_bool().unwrap_or(false),
            push: v["push"].as_bool().unwrap_or(false),
            rest: v["rest"].as_str().map(str::to_string),
            thin_card: v["card"].as_str() == Some("thin"),
            shared_state: v["shared_state"].as_str().map(str::to_string),
        })
    }
}

pub fn agent_card(conf: &Config) -> AgentCard {
    let base = format!("http://127.0.0.1:{}", conf.port);
    let mut interfaces = Vec::new();
    if conf.rest.as_deref() != Some("only") {
        interfaces.push(AgentInterface::new(format!("{base}/"), TRANSPORT_PROTOCOL_JSONRPC));
    }
    if conf.rest.is_some() {
        interfaces.push(AgentInterface::new(format!("{base}/rest"), TRANSPORT_PROTOCOL_HTTP_JSON));
    }
    let mut card = AgentCard {
        name: "Belgavi Book Store order status".into(),
        description: "Tells where an order is (BBS-1042 fidelity run).".into(),
        version: "1.0.0".into(),
        supported_interfaces: interfaces,
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: conf.push.then_some(true),
            extensions: None,
            extended_agent_card: None,
        },
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![AgentSkill {
            id: "order-status".into(),
            name: "Order status".into(),
            description: "Courier tracking for an order".into(),
            tags: vec!["orders".into()],
            examples: None,
            input_modes: None,
            output_modes: None,
            security_requirements: None,
        }],
        provider: None,
        documentation_url: None,
        icon_url: None,
        security_schemes: None,
        security_requirements: None,
        signatures: None,
    };
    if conf.thin_card {
        // A card whose author left out the description, the skills and the output
        // modes: these are plain String / Vec fields in a2a-lf, so the card still
        // has them, empty ("description": "", "skills": [], "defaultOutputModes": []).
        card.description = String::new();
        card.skills.clear();
        card.default_output_modes.clear();
    }
    card
}

pub fn router(conf: &Config) -> axum::Router {
    let side = SideChannel::new(conf.side.clone());
    let step = Duration::from_millis(conf.step_ms);
    let card = agent_card(conf);
    let store = InMemoryTaskStore::new();
    let handler = match conf.shared_state.as_deref() {
        Some(mode) => DefaultRequestHandler::new(
            SharedStateExecutor::new(mode == "queue", conf.scenario.chunks(), step, side.clone()),
            store,
        ),
        None => DefaultRequestHandler::new(
            OrderStatusExecutor::new(conf.scenario.clone(), step, side.clone()),
            store,
        ),
    };
    // The handler refuses what the card does not declare (handler.rs require_capability).
    let mut handler = handler.with_capabilities(card.capabilities.clone());
    if conf.push {
        // Push as the SDK wires it, with one change: the sender's SSRF guard refuses
        // loopback webhooks (push/sender.rs validate_push_url), and every webhook here
        // is on 127.0.0.1, so it is off (`validate_urls: false`, the documented opt-out
        // for local test webhooks). Timeout and error handling are the defaults (30 s,
        // a failed POST is logged and execution goes on).
        let sender = HttpPushSender::new(Some(HttpPushSenderConfig {
            validate_urls: false,
            ..HttpPushSenderConfig::default()
        }));
        handler = handler.with_push_notifications(InMemoryPushConfigStore::new(), sender);
    }
    let handler = Arc::new(handler);
    let mut app = axum::Router::new();
    if conf.rest.as_deref() != Some("only") {
        app = app.merge(a2a_server::jsonrpc::jsonrpc_router(handler.clone()));
    }
    if conf.rest.is_some() {
        app = app.nest("/rest", a2a_server::rest::rest_router(handler.clone()));
    }
    side.log("server_start", &[("store", json!(conf.scenario.get("store"))), ("handler", json!("DefaultRequestHandler"))]);
    app.merge(a2a_server::agent_card::agent_card_router(Arc::new(StaticAgentCard::new(card))))
}

/// Runs the agent until the process is killed.
pub async fn run(conf: Config) -> Result<(), String> {
    if conf.v03_compat {
        return Err("a2a-server-lf 0.5.3 has no A2A 0.3 mode: its JSON-RPC binding refuses a request \
                    without `A2A-Version: 1.x` (jsonrpc.rs check_a2a_version)"
            .into());
    }
    if conf.scenario.get("store") == "database" {
        return Err("a2a-server-lf 0.5.3 ships only InMemoryTaskStore (task_store/mod.rs): store=database \
                    has no SDK counterpart"
            .into());
    }
    let app = router(&conf);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", conf.port))
        .await
        .map_err(|e| format!("bind 127.0.0.1:{}: {e}", conf.port))?;
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}
