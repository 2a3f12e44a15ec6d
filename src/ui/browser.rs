//! The few browser facilities the page uses, each behind a function that
//! does nothing (or returns nothing) where there is no window, so the page
//! code compiles and its logic is testable natively.

// Both `imp`s are documented at their re-exports below.
#[cfg(target_arch = "wasm32")]
#[allow(missing_docs)]
mod imp {
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};

    fn window() -> Option<web_sys::Window> {
        web_sys::window()
    }

    pub fn query() -> String {
        window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default()
    }

    pub fn is_narrow() -> bool {
        window()
            .and_then(|w| w.match_media("(max-width: 760px)").ok().flatten())
            .is_some_and(|m| m.matches())
    }

    pub fn base_url() -> String {
        window()
            .and_then(|w| {
                let l = w.location();
                Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
            })
            .unwrap_or_default()
    }

    pub fn replace_query(query: &str) {
        let Some(w) = window() else { return };
        let Ok(history) = w.history() else { return };
        let path = w.location().pathname().unwrap_or_default();
        let url = if query.is_empty() {
            path
        } else {
            format!("{path}?{query}")
        };
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }

    pub fn download(filename: &str, text: &str) -> Result<(), String> {
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("application/json");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
            .map_err(|_| "could not create the file".to_string())?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)
            .map_err(|_| "could not create a download link".to_string())?;
        let document = window().and_then(|w| w.document()).ok_or("no document")?;
        let anchor: web_sys::HtmlAnchorElement = document
            .create_element("a")
            .map_err(|_| "could not create a link")?
            .unchecked_into();
        anchor.set_href(&url);
        anchor.set_download(filename);
        anchor.click();
        let _ = web_sys::Url::revoke_object_url(&url);
        Ok(())
    }

    pub fn copy(text: &str) {
        if let Some(w) = window() {
            let _ = w.navigator().clipboard().write_text(text);
        }
    }

    pub fn post_height_soon() {
        gloo_timers::callback::Timeout::new(0, || {
            let Some(w) = window() else { return };
            let height = w
                .document()
                .and_then(|d| d.document_element())
                .map(|e| e.scroll_height())
                .unwrap_or(0);
            if let Ok(Some(parent)) = w.parent() {
                let message = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&message, &"type".into(), &"a2a-lab:height".into());
                let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
                let _ = parent.post_message(&message, "*");
            }
        })
        .forget();
    }

    pub fn now_ms() -> f64 {
        js_sys::Date::now()
    }

    pub async fn next_task() {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            if let Some(w) = window() {
                let _ = w.set_timeout_with_callback(&resolve);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }

    pub async fn sleep(ms: u32) {
        // gloo's timer: the setTimeout the page already imports.
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            gloo_timers::callback::Timeout::new(ms, move || {
                let _ = resolve.call1(&JsValue::NULL, &JsValue::NULL);
            })
            .forget();
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }

    pub async fn after_paint() {
        // The frame's callback runs before its paint; a task queued from it
        // runs after.
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            if let Some(w) = window() {
                let later = Closure::once_into_js(move || {
                    if let Some(w) = window() {
                        let _ = w.set_timeout_with_callback(resolve.unchecked_ref());
                    }
                });
                let _ = w.request_animation_frame(later.unchecked_ref());
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }

    pub fn field_owns_key(target: Option<web_sys::EventTarget>, key: &str) -> bool {
        let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
            return false;
        };
        match el.tag_name().as_str() {
            "INPUT" | "SELECT" | "TEXTAREA" => true,
            "BUTTON" | "SUMMARY" | "LABEL" => key == " " || key == "Enter",
            _ => false,
        }
    }
}

// Stand-ins off the browser.
#[cfg(not(target_arch = "wasm32"))]
#[allow(missing_docs)]
mod imp {
    pub fn query() -> String {
        String::new()
    }
    pub fn base_url() -> String {
        String::new()
    }
    pub fn is_narrow() -> bool {
        false
    }
    pub fn replace_query(_query: &str) {}
    pub fn download(_filename: &str, _text: &str) -> Result<(), String> {
        Err("downloads need a browser".into())
    }
    pub fn copy(_text: &str) {}
    pub fn post_height_soon() {}
    pub async fn next_task() {}
    pub async fn sleep(_ms: u32) {}
    pub fn now_ms() -> f64 {
        0.0
    }
    pub async fn after_paint() {}
    pub fn field_owns_key(_target: Option<web_sys::EventTarget>, _key: &str) -> bool {
        false
    }
}

/// Resolves once the page has painted what it shows now.
pub use imp::after_paint;
/// Origin and path of the page, without the query.
pub use imp::base_url;
/// Copies text to the clipboard.
pub use imp::copy;
/// Offers `text` as a download named `filename`.
pub use imp::download;
/// Whether a key press belongs to the focused form field or button rather
/// than to playback.
pub use imp::field_owns_key;
/// A phone-sized viewport, where the controls start folded as a drawer.
pub use imp::is_narrow;
/// Resolves in a later task of the event loop, once the page could paint
/// and answer input.
pub use imp::next_task;
/// The browser's clock in milliseconds (0 off the browser), for pacing
/// long work; the model never reads it.
pub use imp::now_ms;
/// Tells an embedding page the lab's height (`postMessage`).
pub use imp::post_height_soon;
/// The page URL's query string (with its `?`).
pub use imp::query;
/// Replaces the query in the address bar without a navigation.
pub use imp::replace_query;
/// Resolves after `ms` milliseconds (at once off the browser).
pub use imp::sleep;
