//! The agent's server: a2a-server-lf's `DefaultRequestHandler` with its
//! `InMemoryTaskStore`, its JSON-RPC router at `/`, its REST router at `/rest`
//! (`rest=on|only`) and its agent-card router, on axum, and a2a-grpc's tonic
//! service over the same handler on a port of its own (`grpc=on|only`), 127.0.0.1 only.
//!
//! Config: the JSON object tests/agents/launch.py and the recorder pass to every
//! SDK's `serve` child: `scenario` (the lab's keys), `step_ms`, `side` (side channel
//! file), `db`, `port`, `v03_compat`, and optionally `push`, `rest`, `card`,
//! `shared_state`, `grpc` with `grpc_port`.

use std::sync::Arc;
use std::time::Duration;

use a2a::*;
use a2a_grpc::GrpcHandler;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::{
    DefaultRequestHandler, HttpPushSender, HttpPushSenderConfig, InMemoryPushConfigStore,
    InMemoryTaskStore, StaticAgentCard,
};
use serde_json::{Value, json};
use tonic::transport::server::TcpIncoming;

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
    /// `on` or `only`, with the port of the gRPC listener.
    pub grpc: Option<(String, u16)>,
}

/// The tonic service a2a-grpc builds over the same handler as the HTTP routes.
pub type GrpcService = A2aServiceServer<GrpcHandler<DefaultRequestHandler>>;

impl Config {
    pub fn from_json(v: &Value) -> Result<Self, String> {
        let port = v["port"].as_u64().ok_or("config: port missing")?;
        let grpc = match v["grpc"].as_str() {
            None | Some("off") => None,
            Some(mode @ ("on" | "only")) => {
                let p = v["grpc_port"].as_u64().ok_or("config: grpc without grpc_port")?;
                Some((mode.to_string(), u16::try_from(p).map_err(|_| "config: bad grpc_port")?))
            }
            Some(other) => return Err(format!("config: grpc must be on or only, not {other:?}")),
        };
        let rest = v["rest"].as_str().map(str::to_string);
        if grpc.as_ref().is_some_and(|(m, _)| m == "only") && rest.is_some() {
            // As the Python serve child: `only` means the card lists that one interface.
            return Err("config: grpc=only lists the GRPC interface alone; it cannot go with rest".into());
        }
        Ok(Config {
            scenario: Scenario::from_json(&v["scenario"]),
            step_ms: v["step_ms"].as_u64().unwrap_or(200),
            side: v["side"].as_str().unwrap_or("/dev/null").to_string(),
            port: u16::try_from(port).map_err(|_| "config: bad port")?,
            v03_compat: v["v03_compat"].as_bool().unwrap_or(false),
            push: v["push"].as_bool().unwrap_or(false),
            rest,
            thin_card: v["card"].as_str() == Some("thin"),
            shared_state: v["shared_state"].as_str().map(str::to_string),
            grpc,
        })
    }
}

pub fn agent_card(conf: &Config) -> AgentCard {
    let base = format!("http://127.0.0.1:{}", conf.port);
    let mut interfaces = Vec::new();
    if serves_jsonrpc(conf) {
        interfaces.push(AgentInterface::new(format!("{base}/"), TRANSPORT_PROTOCOL_JSONRPC));
    }
    if conf.rest.is_some() {
        interfaces.push(AgentInterface::new(format!("{base}/rest"), TRANSPORT_PROTOCOL_HTTP_JSON));
    }
    if let Some((_, port)) = &conf.grpc {
        // Bare HOST:PORT, the form a2a-lf itself writes for GRPC (agent_card.rs
        // normalize_agent_interface_url strips an `http://`) and a2a-sdk's grpc.aio
        // channel takes; a2a-grpc's client puts `http://` back (client.rs
        // normalize_grpc_endpoint).
        interfaces.push(AgentInterface::new(format!("127.0.0.1:{port}"), TRANSPORT_PROTOCOL_GRPC));
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

fn serves_jsonrpc(conf: &Config) -> bool {
    conf.rest.as_deref() != Some("only") && conf.grpc.as_ref().is_none_or(|(m, _)| m != "only")
}

/// The HTTP routes, and the gRPC service when `grpc` is set: one handler (one task
/// store, one executor) behind both, so a task started on one binding is the same
/// task on the other.
pub fn router(conf: &Config) -> (axum::Router, Option<GrpcService>) {
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
    let grpc = conf.grpc.is_some().then(|| A2aServiceServer::new(GrpcHandler::new(handler.clone())));
    let mut app = axum::Router::new();
    if serves_jsonrpc(conf) {
        app = app.merge(a2a_server::jsonrpc::jsonrpc_router(handler.clone()));
    }
    if conf.rest.is_some() {
        app = app.nest("/rest", a2a_server::rest::rest_router(handler.clone()));
    }
    side.log("server_start", &[("store", json!(conf.scenario.get("store"))), ("handler", json!("DefaultRequestHandler"))]);
    let app = app.merge(a2a_server::agent_card::agent_card_router(Arc::new(StaticAgentCard::new(card))));
    (app, grpc)
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
    let (app, grpc) = router(&conf);
    // The gRPC listener is bound before the HTTP one: the launcher takes an answering
    // card to mean the whole agent is ready.
    let grpc = match (grpc, &conf.grpc) {
        (Some(service), Some((_, port))) => {
            // TCP_NODELAY as tonic's own `Server::serve(addr)` sets it (its builder's
            // default): without it a stream's second small frame waits out the
            // client's delayed ACK (~40 ms on loopback).
            let incoming = TcpIncoming::from(bind(*port).await?).with_nodelay(Some(true));
            Some(tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming))
        }
        _ => None,
    };
    let listener = bind(conf.port).await?;
    let http = async { axum::serve(listener, app).await.map_err(|e| e.to_string()) };
    match grpc {
        None => http.await,
        Some(grpc) => tokio::select! {
            r = http => r,
            r = grpc => r.map_err(|e| format!("gRPC server: {e}")),
        },
    }
}

async fn bind(port: u16) -> Result<tokio::net::TcpListener, String> {
    tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("bind 127.0.0.1:{port}: {e}"))
}
