//! A client's timeout, one rule for both clients.

use super::effect::View;
use super::state::CallState;

/// What a client's timeout finds when it is due.
pub(super) enum Due {
    /// The call already ended.
    Ignored,
    /// Something arrived since: an inactivity timeout is due again then.
    Later(u64),
    /// The client gives up now, after this many ms.
    Now(u64),
}

/// A client's timeout, for either client: a stream's (and a
/// subscription's) is an inactivity timeout where the profile says so (it
/// restarts with every event received, as httpx's read timeout does); a
/// blocking call's runs from the request.
pub(super) fn timeout_due(
    view: &View,
    call: CallState,
    last_activity: u64,
    streaming: bool,
) -> Due {
    if !matches!(call, CallState::Open | CallState::Stranded) {
        return Due::Ignored;
    }
    let limit = u64::from(view.sc.timeout_ms.unwrap_or(0));
    let due = last_activity + limit;
    if view.profile.timeout_is_inactivity && streaming && view.now < due {
        return Due::Later(due);
    }
    Due::Now(limit)
}
