//! From an employee's missions (their activities, vehicle and odometer readings) to the vehicle records, place
//! records and daily distances of a file.
//!
//! Why these rules (Annex 1B req. 197, Appendix 1 CardVehicleRecord, and what readers show):
//! * A vehicle is used while the card would be inserted: the employee's activities of the mission, joined
//!   across gaps shorter than a daily rest (`timeline::DAILY_REST_MINUTES`, the same rule that withdraws the
//!   card in the activity data). Each use is cut at every 00:00 UTC into one record per calendar day; a record
//!   that runs on past midnight ends at 23:59 (`vehicleLastUse`), the next one begins at 00:00.
//! * A mission records at most two odometer readings (at its start and end). The reading at each cut is
//!   interpolated between them in proportion to the time of use on each side, so every record begins where the
//!   previous one ended, begins ≤ ends, and the records' distances add up to the mission's. With one reading
//!   only, it is carried over the whole mission (no distance); an end reading below the start reading is ignored
//!   the same way; without readings the odometers are unknown (written 0, as a card with no VU data would).
//! * `activityDayDistance` of a day is the sum of that day's records' distances, so the days' distances of a
//!   mission add up to the mission's.
//! * Records, places and distances outside the exported period are left out (the interpolation still runs over
//!   the whole mission, so the first exported day starts at the interpolated reading).

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::input::{Place, PlaceEntryType, VehicleUse};
use super::primitives::{SECONDS_PER_DAY, date_of_day, day_number};
use super::timeline::DAILY_REST_MINUTES;

/// One mission of the employee, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mission {
    /// The mission's vehicle, if any.
    pub registration: Option<String>,
    /// The employee's activities in the mission, `(start, end)` in Unix seconds, `start < end`.
    pub activities: Vec<(i64, i64)>,
    /// km at the mission's start and end locations.
    pub odometer_begin: Option<u32>,
    pub odometer_end: Option<u32>,
}

/// The records of a file built from its missions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissionRecords {
    pub vehicles: Vec<VehicleUse>,
    pub places: Vec<Place>,
    pub day_distances: BTreeMap<NaiveDate, u16>,
}

/// One day's piece of a use, `[start, end)` in seconds (whole minutes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    start: i64,
    end: i64,
}

/// The uses of a mission (activities joined across gaps shorter than a daily rest), cut at every midnight.
fn pieces(activities: &[(i64, i64)]) -> Vec<Piece> {
    let mut spans: Vec<(i64, i64)> = activities
        .iter()
        .map(|&(s, e)| (s - s.rem_euclid(60), e - e.rem_euclid(60)))
        .filter(|(s, e)| s < e)
        .collect();
    spans.sort_unstable();
    let mut uses: Vec<(i64, i64)> = Vec::new();
    for (start, end) in spans {
        match uses.last_mut() {
            Some(last) if start - last.1 < DAILY_REST_MINUTES * 60 => last.1 = last.1.max(end),
            _ => uses.push((start, end)),
        }
    }
    let mut out = Vec::new();
    for (mut start, end) in uses {
        while start < end {
            let midnight = (start.div_euclid(SECONDS_PER_DAY) + 1) * SECONDS_PER_DAY;
            let piece_end = end.min(midnight);
            out.push(Piece { start, end: piece_end });
            start = piece_end;
        }
    }
    out
}

/// The odometer at `elapsed` seconds of use out of `total`, between the two readings; `None` when unknown.
fn odometer_at(readings: (Option<u32>, Option<u32>), elapsed: i64, total: i64) -> Option<u32> {
    match readings {
        (Some(begin), Some(end)) if end >= begin && total > 0 => {
            let distance = i64::from(end - begin);
            // Rounded to the nearest km; non-decreasing in `elapsed`, exact at both ends.
            let travelled = (distance * elapsed + total / 2) / total;
            Some(begin + travelled as u32)
        }
        (Some(begin), _) => Some(begin),
        (None, end) => end,
    }
}

/// The vehicle records, places and daily distances of `missions`, restricted to the days
/// `[first_day, last_day]`.
pub fn mission_records(missions: &[Mission], first_day: NaiveDate, last_day: NaiveDate) -> MissionRecords {
    let (first, last) = (day_number(first_day), day_number(last_day));
    let in_period = |t: i64| (first..=last).contains(&t.div_euclid(SECONDS_PER_DAY));
    let mut records = MissionRecords::default();
    for mission in missions {
        let pieces = pieces(&mission.activities);
        let (Some(begin), Some(end)) = (pieces.first(), pieces.last()) else {
            continue;
        };
        let readings = (mission.odometer_begin, mission.odometer_end);
        let total: i64 = pieces.iter().map(|p| p.end - p.start).sum();
        for (time, entry_type, odometer) in [
            (begin.start, PlaceEntryType::Begin, mission.odometer_begin),
            (end.end, PlaceEntryType::End, mission.odometer_end),
        ] {
            // A mission ending at 24:00 ends on its last day, not on the next one.
            let day_of = if entry_type == PlaceEntryType::End {
                time - 60
            } else {
                time
            };
            if in_period(day_of) {
                records.places.push(Place {
                    time,
                    entry_type,
                    odometer,
                });
            }
        }
        let mut elapsed = 0;
        for piece in pieces {
            let odometer_begin = odometer_at(readings, elapsed, total);
            elapsed += piece.end - piece.start;
            let odometer_end = odometer_at(readings, elapsed, total);
            if !in_period(piece.start) {
                continue;
            }
            if let (Some(b), Some(e)) = (odometer_begin, odometer_end)
                && let Some(day) = date_of_day(piece.start.div_euclid(SECONDS_PER_DAY))
            {
                let distance = records.day_distances.entry(day).or_default();
                *distance = distance.saturating_add(u16::try_from(e - b).unwrap_or(u16::MAX));
            }
            let Some(registration) = &mission.registration else {
                continue;
            };
            // A use that reaches midnight ends the day's record at 23:59 (req. 197): one record per calendar day.
            let reaches_midnight = piece.end % SECONDS_PER_DAY == 0;
            records.vehicles.push(VehicleUse {
                registration: registration.clone(),
                first_use: piece.start,
                last_use: if reaches_midnight { piece.end - 60 } else { piece.end },
                odometer_begin,
                odometer_end,
            });
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 19_723 * SECONDS_PER_DAY; // 2024-01-01 00:00 UTC
    const H: i64 = 3600;

    fn d(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2024, 1, day).unwrap()
    }

    fn mission(activities: Vec<(i64, i64)>, km: (Option<u32>, Option<u32>)) -> Mission {
        Mission {
            registration: Some("AB123CD".into()),
            activities,
            odometer_begin: km.0,
            odometer_end: km.1,
        }
    }

    fn uses(records: &MissionRecords) -> Vec<(i64, i64, Option<u32>, Option<u32>)> {
        records
            .vehicles
            .iter()
            .map(|v| (v.first_use, v.last_use, v.odometer_begin, v.odometer_end))
            .collect()
    }

    #[test]
    fn a_mission_across_midnight_is_cut_at_23_59_with_interpolated_odometers() {
        // 20:00 → 04:00 next day, 300 000 → 300 700 km: 4 h before midnight, 4 h after → 350 km each side.
        let m = mission(vec![(DAY + 20 * H, DAY + 28 * H)], (Some(300_000), Some(300_700)));
        let r = mission_records(&[m], d(1), d(2));
        assert_eq!(
            uses(&r),
            vec![
                (DAY + 20 * H, DAY + 24 * H - 60, Some(300_000), Some(300_350)),
                (DAY + 24 * H, DAY + 28 * H, Some(300_350), Some(300_700)),
            ]
        );
        assert_eq!(r.day_distances.get(&d(1)), Some(&350));
        assert_eq!(r.day_distances.get(&d(2)), Some(&350));
        let places: Vec<_> = r.places.iter().map(|p| (p.time, p.entry_type, p.odometer)).collect();
        assert_eq!(
            places,
            vec![
                (DAY + 20 * H, PlaceEntryType::Begin, Some(300_000)),
                (DAY + 28 * H, PlaceEntryType::End, Some(300_700)),
            ]
        );
    }

    #[test]
    fn several_midnights_share_the_distance_by_time_of_use() {
        // 14 activities of 1 h 50 min with 10-minute breaks from 22:00 on day 1: one use until 01:50 on day 3,
        // 120 + 1 440 + 110 = 1 670 minutes for 1 001 km. Cuts at 120/1670 × 1 001 = 71.9 → 72 and
        // 1 560/1 670 × 1 001 = 935.1 → 935: shares 72, 863, 66, which add up to 1 001.
        let acts: Vec<(i64, i64)> = (0..14)
            .map(|k| (DAY + 22 * H + k * 2 * H, DAY + 22 * H + k * 2 * H + 2 * H - 600))
            .collect();
        let m = mission(acts, (Some(5_000), Some(6_001)));
        let r = mission_records(&[m], d(1), d(3));
        let odometers: Vec<_> = r
            .vehicles
            .iter()
            .map(|v| (v.odometer_begin.unwrap(), v.odometer_end.unwrap()))
            .collect();
        assert_eq!(odometers, vec![(5_000, 5_072), (5_072, 5_935), (5_935, 6_001)]);
        assert_eq!(r.vehicles[1].first_use, DAY + 24 * H);
        assert_eq!(r.vehicles[1].last_use, DAY + 48 * H - 60);
        let shares: Vec<u16> = r.day_distances.values().copied().collect();
        assert_eq!(shares, vec![72, 863, 66]);
        assert_eq!(shares.iter().map(|&s| u32::from(s)).sum::<u32>(), 1_001);
    }

    #[test]
    fn a_daily_rest_inside_a_mission_ends_the_use() {
        // Day 1 08:00–12:00, a 20-hour rest, day 2 08:00–10:00: two uses, 4 h + 2 h for 600 km → 400 + 200.
        let m = mission(
            vec![(DAY + 8 * H, DAY + 12 * H), (DAY + 32 * H, DAY + 34 * H)],
            (Some(1_000), Some(1_600)),
        );
        let r = mission_records(&[m], d(1), d(2));
        assert_eq!(
            uses(&r),
            vec![
                (DAY + 8 * H, DAY + 12 * H, Some(1_000), Some(1_400)),
                (DAY + 32 * H, DAY + 34 * H, Some(1_400), Some(1_600)),
            ]
        );
    }

    #[test]
    fn a_vehicle_change_within_the_day_adds_both_distances() {
        let first = mission(vec![(DAY + 6 * H, DAY + 10 * H)], (Some(100), Some(250)));
        let mut second = mission(vec![(DAY + 10 * H, DAY + 14 * H)], (Some(9_000), Some(9_080)));
        second.registration = Some("XY987ZT".into());
        let r = mission_records(&[first, second], d(1), d(1));
        assert_eq!(r.vehicles.len(), 2);
        assert_eq!(r.vehicles[1].registration, "XY987ZT");
        assert_eq!(r.day_distances.get(&d(1)), Some(&230));
    }

    #[test]
    fn one_reading_is_carried_and_none_stays_unknown() {
        let across = vec![(DAY + 20 * H, DAY + 28 * H)];
        let r = mission_records(&[mission(across.clone(), (Some(42), None))], d(1), d(2));
        assert_eq!(
            uses(&r).iter().map(|u| (u.2, u.3)).collect::<Vec<_>>(),
            vec![(Some(42), Some(42)), (Some(42), Some(42))]
        );
        assert!(r.day_distances.values().all(|&km| km == 0));
        let r = mission_records(&[mission(across.clone(), (None, Some(77)))], d(1), d(2));
        assert_eq!(uses(&r)[0].2, Some(77));
        let r = mission_records(&[mission(across.clone(), (Some(500), Some(400)))], d(1), d(2));
        assert_eq!(uses(&r)[1].3, Some(500), "an end reading below the start is ignored");
        let r = mission_records(&[mission(across, (None, None))], d(1), d(2));
        assert!(uses(&r).iter().all(|u| u.2.is_none() && u.3.is_none()));
        assert!(r.day_distances.is_empty());
    }

    #[test]
    fn outside_the_period_nothing_is_written_but_the_odometer_still_runs() {
        // The same 20:00 → 04:00 mission, exporting day 2 only: its record starts at the interpolated 300 350.
        let m = mission(vec![(DAY + 20 * H, DAY + 28 * H)], (Some(300_000), Some(300_700)));
        let r = mission_records(&[m], d(2), d(2));
        assert_eq!(
            uses(&r),
            vec![(DAY + 24 * H, DAY + 28 * H, Some(300_350), Some(300_700))]
        );
        assert_eq!(r.places.len(), 1);
        assert_eq!(r.places[0].entry_type, PlaceEntryType::End);
        assert_eq!(r.day_distances.keys().copied().collect::<Vec<_>>(), vec![d(2)]);
    }

    #[test]
    fn a_mission_ending_at_midnight_stays_on_its_day() {
        let m = mission(vec![(DAY + 20 * H, DAY + 24 * H)], (Some(10), Some(90)));
        let r = mission_records(&[m], d(1), d(1));
        assert_eq!(uses(&r), vec![(DAY + 20 * H, DAY + 24 * H - 60, Some(10), Some(90))]);
        assert_eq!(
            r.places.len(),
            2,
            "its end place (00:00 next day) belongs to the mission's last day"
        );
        assert_eq!(r.day_distances.get(&d(1)), Some(&80));
    }

    #[test]
    fn no_vehicle_no_record_but_places() {
        let mut m = mission(vec![(DAY + 8 * H, DAY + 9 * H)], (None, None));
        m.registration = None;
        let r = mission_records(&[m], d(1), d(1));
        assert!(r.vehicles.is_empty());
        assert_eq!(r.places.len(), 2);
    }
}
