//! Live (`a2a-lab serve --agent`): the pure half of a session with a real
//! agent. The page asks ([`ask`]); the relay, which alone talks to the
//! agent, answers each ask as [`frame`]s: the request it sent, each answer
//! as it came, how the call ended, read back a few at a time by
//! [`frame_lines`]. The [`session`] keeps those frames as a
//! capture that `check` reads, requests included, and judges it with the
//! capture reader as it grows; when the card declares push, the webhook's
//! POSTs are kept beside it as a log `check --webhook` reads ([`pushes`]).
//! Before any call, the relay's [`doctor`]
//! says, step by step, whether the agent can be talked to and how to fix
//! what stops it. Nothing here does IO: the relay's is `crate::probe::live`
//! and `crate::serve::relay`, the page's `crate::ui`.

pub mod ask;
pub mod doctor;
pub mod frame;
pub mod frame_lines;
pub mod pushes;
pub mod session;

/// The longest launch token the page takes (`serve --agent` makes 32 hex
/// digits).
pub const MAX_TOKEN: usize = 64;

/// A launch token as the page takes it from its URL (`live=`): letters,
/// digits, `-` and `_`, 1 to [`MAX_TOKEN`] of them; the error says what
/// to do instead.
pub fn launch_token(text: &str) -> Result<&str, &'static str> {
    let fits = !text.is_empty()
        && text.len() <= MAX_TOKEN
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    match fits {
        true => Ok(text),
        false => Err("live= is not a launch token: open the URL a2a-lab serve --agent printed"),
    }
}
