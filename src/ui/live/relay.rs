//! The page's side of the relay (`serve --agent`): the connect and each
//! call, with the launch token in its header. A call's answer is read as
//! it streams, a JSON line (a frame) at a time; the page parses frames,
//! never an agent's answer (that is the session's, through the wire's
//! reader). Natively there is no relay to call.

#[cfg(target_arch = "wasm32")]
use crate::model::evidence::live::doctor::Connect;
use crate::model::evidence::live::frame::Frame;

/// The longest frame the page holds while it waits for its end (the
/// relay's answers are events; a bigger one is refused, not held).
pub const MAX_FRAME: usize = 16 << 20;

/// Splits a stream of JSON lines into frames, whatever its chunks.
#[derive(Default)]
pub struct Lines {
    carry: Vec<u8>,
}

impl Lines {
    /// The frames `chunk` completes.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Frame>, String> {
        self.carry.extend_from_slice(chunk);
        let mut frames = Vec::new();
        let mut start = 0;
        while let Some(end) = self.carry[start..].iter().position(|&b| b == b'\n') {
            let line = &self.carry[start..start + end];
            start += end + 1;
            let text = std::str::from_utf8(line).map_err(|_| "the relay sent a frame that is not UTF-8")?;
            if !text.trim().is_empty() {
                frames.push(Frame::parse(text)?);
            }
        }
        self.carry.drain(..start);
        if self.carry.len() > MAX_FRAME {
            return Err(format!("the relay sent a frame over {} MiB", MAX_FRAME >> 20));
        }
        Ok(frames)
    }
}

#[cfg(target_arch = "wasm32")]
mod fetch {
    use js_sys::{Reflect, Uint8Array};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{AbortSignal, Request, RequestInit, Response};

    use super::{Connect, Frame, Lines};

    const TOKEN_HEADER: &str = "X-A2A-Lab-Token";

    fn said(e: JsValue) -> String {
        e.as_string()
            .or_else(|| {
                e.dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
            })
            .unwrap_or_else(|| "the relay could not be reached".into())
    }

    async fn send(
        token: &str,
        method: &str,
        path: &str,
        body: Option<&str>,
        signal: Option<&AbortSignal>,
    ) -> Result<Response, String> {
        let init = RequestInit::new();
        init.set_method(method);
        if let Some(body) = body {
            init.set_body(&JsValue::from_str(body));
        }
        if let Some(signal) = signal {
            init.set_signal(Some(signal));
        }
        let request = Request::new_with_str_and_init(path, &init).map_err(said)?;
        request
            .headers()
            .set(TOKEN_HEADER, token)
            .map_err(said)?;
        if body.is_some() {
            let _ = request.headers().set("Content-Type", "application/json");
        }
        let window = web_sys::window().ok_or("no window")?;
        let answer = JsFuture::from(window.fetch_with_request(&request))
            .await
            .map_err(said)?;
        let answer: Response = answer.dyn_into().map_err(said)?;
        if answer.ok() {
            return Ok(answer);
        }
        let status = answer.status();
        let text = match answer.text() {
            Ok(promise) => JsFuture::from(promise)
                .await
                .ok()
                .and_then(|t| t.as_string())
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        Err(format!("the relay answered {status}: {text}"))
    }

    /// Asks the relay to reach for the agent.
    pub async fn connect(token: &str) -> Result<Connect, String> {
        let answer = send(token, "GET", "live/connect", None, None).await?;
        let text = JsFuture::from(answer.text().map_err(said)?)
            .await
            .map_err(said)?
            .as_string()
            .unwrap_or_default();
        serde_json::from_str(&text).map_err(|e| format!("the relay's connect did not read: {e}"))
    }

    /// Makes one call, handing its frames to `on_frames` as they stream
    /// in; ends when the relay ends it, or `signal` aborts it.
    pub async fn call(
        token: &str,
        ask: &str,
        signal: &AbortSignal,
        on_frames: &mut dyn FnMut(Vec<Frame>),
    ) -> Result<(), String> {
        let answer = send(token, "POST", "live/call", Some(ask), Some(signal)).await?;
        let body = answer.body().ok_or("the relay's answer has no body")?;
        let reader: web_sys::ReadableStreamDefaultReader =
            body
            .get_reader()
            .dyn_into()
            .map_err(|_| "the relay's answer cannot be read as a stream".to_string())?;
        let mut lines = Lines::default();
        loop {
            let read = JsFuture::from(reader.read()).await.map_err(said)?;
            let done = Reflect::get(&read, &JsValue::from_str("done"))
                .ok()
                .and_then(|d| d.as_bool())
                .unwrap_or(true);
            if done {
                return Ok(());
            }
            let value = Reflect::get(&read, &JsValue::from_str("value")).map_err(said)?;
            let bytes = Uint8Array::new(&value).to_vec();
            on_frames(lines.feed(&bytes)?);
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub use fetch::{call, connect};
