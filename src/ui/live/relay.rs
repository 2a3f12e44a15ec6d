//! The page's side of the relay (`serve --agent`): the connect and each
//! call, with the launch token in its header. A call's answer is read as
//! it streams, a JSON line (a frame) at a time; the page parses frames,
//! never an agent's answer (that is the session's, through the wire's
//! reader). Natively there is no relay to call.

#[cfg(target_arch = "wasm32")]
use crate::model::evidence::live::doctor::DoctorView;
#[cfg(target_arch = "wasm32")]
use crate::model::evidence::live::frame::Frame;
#[cfg(target_arch = "wasm32")]
use crate::model::evidence::live::frame_lines::FrameLines;

/// The fetches, written against `fetch` and the stream reader as plain
/// JavaScript objects (`Reflect`, `Function.call`): the glue of a typed
/// import (web-sys's `Request`, `Response`, `AbortController`, …) sits in
/// the first view's module whatever chunk calls it, and Live must not make
/// the first view heavier.
#[cfg(target_arch = "wasm32")]
mod fetch {
    use js_sys::{Function, Object, Reflect, Uint8Array};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    use super::{DoctorView, Frame, FrameLines, SLICE};
    use crate::ui::pacer::SLICE_MS;

    const TOKEN_HEADER: &str = "X-A2A-Lab-Token";

    fn said(e: JsValue) -> String {
        e.as_string()
            .or_else(|| get(&e, "message").ok().and_then(|m| m.as_string()))
            .unwrap_or_else(|| "the relay could not be reached".into())
    }

    fn get(target: &JsValue, key: &str) -> Result<JsValue, JsValue> {
        Reflect::get(target, &JsValue::from_str(key))
    }

    fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), String> {
        Reflect::set(target, &JsValue::from_str(key), value)
            .map(drop)
            .map_err(said)
    }

    /// `target[name](arg)`, awaited when it gives a promise.
    async fn method(target: &JsValue, name: &str, arg: &JsValue) -> Result<JsValue, String> {
        let function: Function = get(target, name)
            .map_err(said)?
            .dyn_into()
            .map_err(|_| format!("the browser has no {name}"))?;
        let value = function.call1(target, arg).map_err(said)?;
        match value.dyn_ref::<js_sys::Promise>() {
            Some(promise) => JsFuture::from(promise.clone()).await.map_err(said),
            None => Ok(value),
        }
    }

    /// One fetch of the relay with the token; an answer that is not OK is
    /// its text, as the relay's refusals say why.
    async fn send(
        token: &str,
        http: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<JsValue, String> {
        let headers = Object::new();
        set(&headers, TOKEN_HEADER, &JsValue::from_str(token))?;
        let init = Object::new();
        set(&init, "method", &JsValue::from_str(http))?;
        set(&init, "headers", &headers)?;
        set(&init, "cache", &JsValue::from_str("no-store"))?;
        if let Some(body) = body {
            set(
                &headers,
                "Content-Type",
                &JsValue::from_str("application/json"),
            )?;
            set(&init, "body", &JsValue::from_str(body))?;
        }
        let window: JsValue = web_sys::window().ok_or("no window")?.into();
        let fetch: Function = get(&window, "fetch")
            .map_err(said)?
            .dyn_into()
            .map_err(|_| "the browser has no fetch")?;
        let promise = fetch
            .call2(&window, &JsValue::from_str(path), &init)
            .map_err(said)?;
        let promise: js_sys::Promise = promise.dyn_into().map_err(said)?;
        let answer = JsFuture::from(promise).await.map_err(said)?;
        if get(&answer, "ok").ok().and_then(|ok| ok.as_bool()) == Some(true) {
            return Ok(answer);
        }
        let text = method(&answer, "text", &JsValue::UNDEFINED).await?;
        Err(format!(
            "the relay said: {}",
            text.as_string().unwrap_or_default()
        ))
    }

    /// Asks the relay to reach for the agent: what it found, with the
    /// doctor's steps.
    pub async fn connect(token: &str) -> Result<DoctorView, String> {
        let answer = send(token, "GET", "live/connect", None).await?;
        let text = method(&answer, "text", &JsValue::UNDEFINED).await?;
        serde_json::from_str(&text.as_string().unwrap_or_default())
            .map_err(|e| format!("the relay's connect did not read: {e}"))
    }

    /// A call's stream, read a chunk at a time.
    pub struct Reader(JsValue);

    impl Reader {
        /// Stops reading: the relay sees the page go and drops the call.
        pub fn cancel(&self) {
            if let Ok(cancel) = get(&self.0, "cancel").and_then(|c| c.dyn_into::<Function>()) {
                let _ = cancel.call1(&self.0, &JsValue::UNDEFINED);
            }
        }
    }

    /// Follows the webhook's POSTs, a line each, read with [`read_lines`];
    /// an error when the relay has no webhook (no push on the card: an empty answer).
    pub async fn follow(token: &str) -> Result<Reader, String> {
        open_at(token, "GET", "live/pushes", None).await
    }

    /// Reads the webhook's POSTs to their end, handing each complete
    /// line to `on_line` as it comes (the relay sends each whole: a
    /// line's bytes never wait for the next chunk's but at its end).
    pub async fn read_lines(reader: &Reader, on_line: &mut dyn FnMut(&str)) -> Result<(), String> {
        let mut lines = FrameLines::default();
        loop {
            let read = method(&reader.0, "read", &JsValue::UNDEFINED).await?;
            if get(&read, "done").ok().and_then(|d| d.as_bool()) != Some(false) {
                return Ok(());
            }
            lines.push(&Uint8Array::new(&get(&read, "value").map_err(said)?).to_vec());
            while let Some(line) = lines.next_line() {
                let line = line.map_err(|_| "the relay sent a POST over its limit")?;
                on_line(&String::from_utf8_lossy(line));
            }
        }
    }

    /// Starts one call; its frames are read with [`read`].
    pub async fn open(token: &str, ask: &str) -> Result<Reader, String> {
        open_at(token, "POST", "live/call", Some(ask)).await
    }

    async fn open_at(
        token: &str,
        http: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<Reader, String> {
        let answer = send(token, http, path, body).await?;
        let body = get(&answer, "body").map_err(said)?;
        if body.is_null() || body.is_undefined() {
            return Err("the relay's answer has no body".into());
        }
        Ok(Reader(
            method(&body, "getReader", &JsValue::UNDEFINED).await?,
        ))
    }

    /// Reads a call to its end, handing its frames to `on_frames` as they
    /// come; a cancelled reader ends it too. A chunk of the relay's answer
    /// may hold thousands of frames: they are handed over a few at a time,
    /// and the page lets the browser handle input and paint whenever
    /// [`SLICE_MS`] went by since it last did (the pace of a long search),
    /// so a flood of events never holds a frame.
    pub async fn read(
        reader: &Reader,
        on_frames: &mut dyn FnMut(Vec<Frame>),
    ) -> Result<(), String> {
        use crate::ui::browser::{next_task, now_ms};
        let mut lines = FrameLines::default();
        let mut since = now_ms();
        loop {
            let read = method(&reader.0, "read", &JsValue::UNDEFINED).await?;
            if get(&read, "done").ok().and_then(|d| d.as_bool()) != Some(false) {
                return Ok(());
            }
            let value = get(&read, "value").map_err(said)?;
            lines.push(&Uint8Array::new(&value).to_vec());
            loop {
                let mut slice = Vec::with_capacity(SLICE);
                while slice.len() < SLICE {
                    match lines.next_frame() {
                        Some(frame) => slice.push(frame?),
                        None => break,
                    }
                }
                if slice.is_empty() {
                    break;
                }
                on_frames(slice);
                if now_ms() - since >= SLICE_MS {
                    next_task().await;
                    since = now_ms();
                }
            }
        }
    }
}

/// Frames handed to the session at once, between two looks at the clock.
#[cfg(target_arch = "wasm32")]
const SLICE: usize = 32;

#[cfg(target_arch = "wasm32")]
pub use fetch::{connect, follow, open, read, read_lines, Reader};
