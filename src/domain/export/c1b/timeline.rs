//! From the employee's activities to the activity change words of each UTC day.
//!
//! Why these rules (Appendix 1 §2.1/2.5, req. 199, and what a real card holds):
//! * Times are whole minutes (the word has an 11-bit minute field); activities are clipped to the exported
//!   period, sorted, overlaps cut, empty ones dropped, and back-to-back activities of the same kind merged, since
//!   the card writes one change per activity *switch*.
//! * A **working day** is a run of activities whose gaps are shorter than [`DAILY_REST_MINUTES`]. The card is
//!   inserted at its first activity and withdrawn at its last activity's end; the gaps inside it are BREAK/REST
//!   with the card still inserted. 9 hours is the shortest daily rest of Reg. (EC) 561/2006 (art. 4(g), reduced
//!   daily rest), so a gap of that length is certainly a daily rest (the end of a working day), while shorter
//!   gaps (meal breaks, a 3-hour first part of a split rest) stay breaks. Working days are independent of UTC
//!   midnight, so a night shift keeps its card inserted across 00:00.
//! * One day record per UTC day on which the card was inserted at some minute (= every day with activity).
//!   Its first word codes the state at 00:00 (after any change at exactly 00:00); then one word per change.
//!   A day on which the card is not inserted at 00:00 starts with the not-inserted word carried over from the
//!   last withdrawal (as on a real card).

use super::activity_word::{WITHDRAWN, rest_after, state_of, withdrawal_after};
use super::input::{Activity, ActivityKind};
use super::primitives::{MINUTES_PER_DAY, day_number};

/// Shortest gap that ends a working day (card withdrawn), in minutes.
pub const DAILY_REST_MINUTES: i64 = 9 * 60;

/// An activity in whole minutes since 1970-01-01 00:00 UTC, `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub kind: ActivityKind,
    pub start: i64,
    pub end: i64,
}

/// The activity change words of one UTC day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayActivity {
    /// Days since 1970-01-01.
    pub day: i64,
    /// ActivityChangeInfo words, first at minute 0, strictly increasing minutes.
    pub words: Vec<u16>,
}

/// Cleans the activities: whole minutes (floored), clipped to the period `[first_day, last_day]`, sorted,
/// overlaps cut off the later activity, empty ones dropped, touching activities of the same kind merged.
pub fn normalize(activities: &[Activity], first_day: chrono::NaiveDate, last_day: chrono::NaiveDate) -> Vec<Span> {
    let window_start = day_number(first_day) * MINUTES_PER_DAY;
    let window_end = (day_number(last_day) + 1) * MINUTES_PER_DAY;
    let mut spans: Vec<Span> = activities
        .iter()
        .map(|a| Span {
            kind: a.kind,
            start: a.start.div_euclid(60).max(window_start),
            end: a.end.div_euclid(60).min(window_end),
        })
        .filter(|s| s.start < s.end)
        .collect();
    spans.sort_by_key(|s| (s.start, s.end));
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for mut span in spans {
        if let Some(last) = out.last_mut() {
            span.start = span.start.max(last.end);
            if span.start >= span.end {
                continue;
            }
            if span.start == last.end && span.kind == last.kind {
                last.end = span.end;
                continue;
            }
        }
        out.push(span);
    }
    out
}

/// State changes `(minute, state)` with strictly increasing minutes, from normalized spans.
fn changes(spans: &[Span]) -> Vec<(i64, u16)> {
    let mut out = Vec::with_capacity(spans.len() * 2 + 1);
    for (i, span) in spans.iter().enumerate() {
        let state = state_of(span.kind);
        out.push((span.start, state));
        match spans.get(i + 1) {
            Some(next) if next.start == span.end => {}
            Some(next) if next.start - span.end < DAILY_REST_MINUTES => out.push((span.end, rest_after(state))),
            _ => out.push((span.end, withdrawal_after(state))),
        }
    }
    out
}

/// The day records of a normalized activity list, oldest first.
pub fn day_activities(spans: &[Span]) -> Vec<DayActivity> {
    let changes = changes(spans);
    // Days on which the card is inserted at some minute: every day touched by a working day
    // [first start, last end), i.e. every day with activity.
    let mut days: Vec<i64> = Vec::new();
    let mut session_start = None;
    for (i, span) in spans.iter().enumerate() {
        let start = *session_start.get_or_insert(span.start);
        let ends_session = spans
            .get(i + 1)
            .is_none_or(|next| next.start - span.end >= DAILY_REST_MINUTES);
        if ends_session {
            let first = start.div_euclid(MINUTES_PER_DAY);
            let last = (span.end - 1).div_euclid(MINUTES_PER_DAY);
            for day in first..=last {
                if days.last() != Some(&day) {
                    days.push(day);
                }
            }
            session_start = None;
        }
    }

    let mut next_change = 0;
    let mut state = WITHDRAWN;
    days.into_iter()
        .map(|day| {
            let midnight = day * MINUTES_PER_DAY;
            while next_change < changes.len() && changes[next_change].0 <= midnight {
                state = changes[next_change].1;
                next_change += 1;
            }
            let mut words = vec![state];
            while next_change < changes.len() && changes[next_change].0 < midnight + MINUTES_PER_DAY {
                let (minute, new_state) = changes[next_change];
                if new_state != state {
                    state = new_state;
                    words.push(state | (minute - midnight) as u16);
                }
                next_change += 1;
            }
            DayActivity { day, words }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::activity_word::{AVAILABILITY, C_BIT, DRIVING, NOT_INSERTED, SLOT_CO_DRIVER, WORK};
    use super::*;
    use chrono::NaiveDate;

    const DAY: i64 = 19_723; // 2024-01-01

    fn d(y: i32, m: u32, dd: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, dd).unwrap()
    }

    /// Activity on 2024-01-01 + `day_offset`, from HH:MM to HH:MM (end may be ≥ 24:00).
    fn act(kind: ActivityKind, day_offset: i64, from: (i64, i64), to: (i64, i64)) -> Activity {
        let base = (DAY + day_offset) * 86_400;
        Activity {
            kind,
            start: base + from.0 * 3600 + from.1 * 60,
            end: base + to.0 * 3600 + to.1 * 60,
        }
    }

    #[test]
    fn one_working_day() {
        // Drive 06:00–08:30, work 08:30–09:00, (gap 09:00–09:45 = break, card in), transfer 09:45–10:00,
        // support 10:00–12:00, then nothing: card withdrawn at 12:00 from the co-driver slot.
        let acts = [
            act(ActivityKind::Drive, 0, (6, 0), (8, 30)),
            act(ActivityKind::Work, 0, (8, 30), (9, 0)),
            act(ActivityKind::Transfer, 0, (9, 45), (10, 0)),
            act(ActivityKind::Support, 0, (10, 0), (12, 0)),
        ];
        let spans = normalize(&acts, d(2024, 1, 1), d(2024, 1, 1));
        let days = day_activities(&spans);
        assert_eq!(days.len(), 1);
        assert_eq!(days[0].day, DAY);
        // 00:00 not inserted 0x2000; 06:00 = 360 = 0x168 → 0x1800|0x168 = 0x1968; 08:30 = 510 = 0x1FE →
        // 0x1000|0x1FE = 0x11FE; 09:00 = 540 = 0x21C → rest 0x021C; 09:45 = 585 = 0x249 → 0x0800|0x249 =
        // 0x0A49; 10:00 = 600 = 0x258 → 0xC800|0x258 = 0xCA58; 12:00 = 720 = 0x2D0 → withdrawal from co-driver
        // slot 0xA000|0x2D0 = 0xA2D0.
        assert_eq!(
            days[0].words,
            vec![0x2000, 0x1968, 0x11FE, 0x021C, 0x0A49, 0xCA58, 0xA2D0]
        );
    }

    #[test]
    fn night_shift_keeps_the_card_across_midnight() {
        // Work 20:00–02:00 (crosses midnight), rest 9 h+, work 20:00 day 2 to 23:00.
        let acts = [
            act(ActivityKind::Work, 0, (20, 0), (26, 0)),
            act(ActivityKind::Work, 1, (20, 0), (23, 0)),
        ];
        let days = day_activities(&normalize(&acts, d(2024, 1, 1), d(2024, 1, 3)));
        assert_eq!(days.len(), 2);
        // Day 1: 0x2000, 20:00 = 1200 = 0x4B0 → 0x14B0, runs to midnight (no withdrawal).
        assert_eq!(days[0].words, vec![0x2000, 0x14B0]);
        // Day 2: at 00:00 still WORK inserted = 0x1000; 02:00 = 120 = 0x78 → withdrawal 0x2078 (gap 18 h);
        // 20:00 → 0x14B0; 23:00 = 1380 = 0x564 → withdrawal 0x2564.
        assert_eq!(days[1].words, vec![0x1000, 0x2078, 0x14B0, 0x2564]);
    }

    #[test]
    fn short_gap_across_midnight_is_rest_with_card_inserted() {
        // Drive 21:00–23:00, gap 23:00–01:00 (2 h < 9 h), drive 01:00–03:00.
        let acts = [
            act(ActivityKind::Drive, 0, (21, 0), (23, 0)),
            act(ActivityKind::Drive, 1, (1, 0), (3, 0)),
        ];
        let days = day_activities(&normalize(&acts, d(2024, 1, 1), d(2024, 1, 2)));
        // Day 1: 0x2000, 21:00 = 1260 = 0x4EC → 0x1CEC, 23:00 = 1380 = 0x564 → rest 0x0564.
        assert_eq!(days[0].words, vec![0x2000, 0x1CEC, 0x0564]);
        // Day 2: 00:00 rest inserted 0x0000, 01:00 = 60 = 0x3C → 0x183C, 03:00 = 180 = 0xB4 → 0x20B4.
        assert_eq!(days[1].words, vec![0x0000, 0x183C, 0x20B4]);
    }

    #[test]
    fn activity_ending_at_midnight_gets_no_extra_day() {
        // Work 22:00–24:00 then nothing: the withdrawal falls at 00:00 of day 2, a day without card use, so no
        // record for it; day 1 ends with WORK running until 24:00.
        let acts = [act(ActivityKind::Work, 0, (22, 0), (24, 0))];
        let days = day_activities(&normalize(&acts, d(2024, 1, 1), d(2024, 1, 5)));
        assert_eq!(days.len(), 1);
        assert_eq!(days[0].words, vec![0x2000, WORK | 1320]);
    }

    #[test]
    fn normalization_clips_merges_and_cuts_overlaps() {
        let acts = [
            act(ActivityKind::Drive, -1, (23, 0), (25, 0)), // starts before the period: clipped to 00:00
            act(ActivityKind::Drive, 0, (1, 0), (2, 0)),    // touches the previous drive: merged
            act(ActivityKind::Work, 0, (1, 30), (3, 0)),    // overlaps: cut to 02:00–03:00
            act(ActivityKind::Work, 0, (5, 0), (5, 0)),     // empty: dropped
            act(ActivityKind::Support, 1, (23, 0), (25, 0)), // ends after the period: clipped to 24:00
        ];
        let spans = normalize(&acts, d(2024, 1, 1), d(2024, 1, 2));
        let m = DAY * 1440;
        assert_eq!(
            spans,
            vec![
                Span {
                    kind: ActivityKind::Drive,
                    start: m,
                    end: m + 120
                },
                Span {
                    kind: ActivityKind::Work,
                    start: m + 120,
                    end: m + 180
                },
                Span {
                    kind: ActivityKind::Support,
                    start: m + 2820,
                    end: m + 2880
                },
            ]
        );
        let days = day_activities(&spans);
        // Day 1: driving already at 00:00 → first word 0x1800; work at 02:00 = 120 → 0x1078;
        // withdrawal at 03:00 = 180 → 0x20B4. Day 2: 0x2000, support at 23:00 = 1380 → 0xC800|0x564 = 0xCD64.
        assert_eq!(days[0].words, vec![DRIVING, WORK | 120, NOT_INSERTED | 180]);
        assert_eq!(
            days[1].words,
            vec![NOT_INSERTED, SLOT_CO_DRIVER | C_BIT | AVAILABILITY | 1380]
        );
    }

    #[test]
    fn no_activity_no_day() {
        assert!(day_activities(&[]).is_empty());
    }
}
