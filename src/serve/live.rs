//! Live's server (`serve --agent`): the page's files and the relay on
//! one router, every route behind the gate, which the launch token of
//! this run opens.

use std::sync::Arc;

use axum::middleware;
use axum::Router;

use super::gate::{guard, launch_token, Gate};
use super::relay::{self, Relay};
use crate::probe::live::AgentOptions;

/// One launch of Live: its token and its relay.
pub struct LiveServer {
    port: u16,
    token: String,
    relay: Arc<Relay>,
}

impl LiveServer {
    /// A launch for a server on 127.0.0.1:`port` relaying to the agent
    /// `options` name, with a token of its own.
    pub fn launch(port: u16, options: AgentOptions) -> Result<LiveServer, String> {
        LiveServer::with_token(port, options, launch_token()?)
    }

    /// As [`LiveServer::launch`] with a token given (the tests').
    pub fn with_token(
        port: u16,
        options: AgentOptions,
        token: String,
    ) -> Result<LiveServer, String> {
        Ok(LiveServer {
            port,
            token,
            relay: Relay::new(options)?,
        })
    }

    /// The URL that opens the page on the Live view with this launch's
    /// token (printed, as Jupyter prints its own).
    pub fn page_url(&self) -> String {
        format!("http://127.0.0.1:{}/?live={}", self.port, self.token)
    }

    /// `files` and the relay, behind the gate.
    pub fn router(&self, files: Router) -> Router {
        let gate = Arc::new(Gate::new(self.port, self.token.clone()));
        relay::router(Arc::clone(&self.relay))
            .merge(files)
            .layer(middleware::from_fn_with_state(gate, guard))
    }
}
