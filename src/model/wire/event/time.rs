//! A status event's timestamp, read as Unix milliseconds.

use super::RawEvent;

impl RawEvent<'_> {
    /// A status timestamp in Unix milliseconds, where the event has one
    /// (a 1.0 status update's or task's, or a 0.3 event's own).
    pub fn timestamp_ms(&self) -> Option<u64> {
        let inner = self
            .status_update
            .as_deref()
            .or(self.task.as_deref())
            .unwrap_or(self);
        parse_rfc3339_ms(inner.status.as_ref()?.timestamp.as_deref()?)
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` to Unix milliseconds. Digits
/// are read by hand: the page's bundle then carries no number parser.
pub fn parse_rfc3339_ms(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        b.get(from..from + len)?.iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut scale = 100;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            millis += i64::from(c - b'0') * scale;
            scale /= 10;
            i += 1;
        }
    }
    let offset_min = match b.get(i)? {
        b'Z' | b'z' => 0,
        b'+' => num(i + 1, 2)? * 60 + num(i + 4, 2)?,
        b'-' => -(num(i + 1, 2)? * 60 + num(i + 4, 2)?),
        _ => return None,
    };
    // Days from 1970-01-01 (proleptic Gregorian).
    let (y2, m2) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let ms = ((days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60) * 1000) + millis;
    u64::try_from(ms).ok()
}
