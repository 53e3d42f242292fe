//! What a reader would flag in a well-formed file: the consistency of the vehicle records, the daily distances,
//! the card's validity, the current usage and the certificates with each other.
//!
//! Why: the readers decode a file whose structure is right, and then show what a company or a control officer
//! takes for wrong data: a 300 700 km day when a vehicle record's odometer restarts at 0, activities recorded
//! before the card was issued, a session still open in a vehicle whose use the file shows ended, "signatures
//! failed" for certificates of zero bytes. Each such inconsistency is one line of the report's `findings`, so
//! the encoder's output is checked for them by the same tests that decode it.

use chrono::NaiveDateTime;

use super::primitives::SECONDS_PER_DAY;
use super::report::{CertificateStatus, Report, VehicleReport};

/// `23:59` of a day, the last use of a vehicle record that runs on past midnight (req. 197).
const LAST_MINUTE: i64 = SECONDS_PER_DAY - 60;

/// Unix seconds of a report time (`YYYY-MM-DDTHH:MM:SSZ`).
fn seconds(time: &Option<String>) -> Option<i64> {
    let text = time.as_deref()?;
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%SZ")
        .ok()
        .map(|t| t.and_utc().timestamp())
}

fn describe(v: &VehicleReport) -> String {
    format!(
        "vehicle record {} ({}, {})",
        v.vu_data_block_counter,
        v.registration,
        v.first_use.as_deref().unwrap_or("no time")
    )
}

/// Every inconsistency of `report`, oldest data first.
pub fn findings(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    vehicles(report, &mut out);
    distances(report, &mut out);
    validity(report, &mut out);
    current_usage(report, &mut out);
    certificates(report, &mut out);
    out
}

fn vehicles(report: &Report, out: &mut Vec<String>) {
    for (i, v) in report.vehicles.iter().enumerate() {
        if v.odometer_begin > v.odometer_end {
            out.push(format!(
                "{}: odometer begin {} km above end {} km",
                describe(v),
                v.odometer_begin,
                v.odometer_end
            ));
        }
        let (Some(first), Some(last)) = (seconds(&v.first_use), seconds(&v.last_use)) else {
            out.push(format!("{}: first or last use missing", describe(v)));
            continue;
        };
        if first > last {
            out.push(format!("{}: last use before first use", describe(v)));
        }
        if first.div_euclid(SECONDS_PER_DAY) != last.div_euclid(SECONDS_PER_DAY) {
            out.push(format!(
                "{}: spans midnight, where one record per calendar day ends at 23:59 (req. 197)",
                describe(v)
            ));
        }
        // A use carried over midnight: the next record of the vehicle starts at 00:00 where this one ended.
        if let Some(next) = report.vehicles.get(i + 1)
            && next.registration == v.registration
            && last.rem_euclid(SECONDS_PER_DAY) == LAST_MINUTE
            && seconds(&next.first_use) == Some(last + 60)
            && next.odometer_begin != v.odometer_end
        {
            out.push(format!(
                "{}: odometer jumps from {} km to {} km at midnight",
                describe(next),
                v.odometer_end,
                next.odometer_begin
            ));
        }
    }
}

/// The distance of each day is what that day's vehicle records travelled.
fn distances(report: &Report, out: &mut Vec<String>) {
    for day in &report.activity.days {
        let records: Vec<&VehicleReport> = report
            .vehicles
            .iter()
            .filter(|v| {
                seconds(&v.first_use).map(|t| t.div_euclid(SECONDS_PER_DAY)) == Some(day.record_time / SECONDS_PER_DAY)
            })
            .collect();
        let travelled: u32 = records
            .iter()
            .map(|v| v.odometer_end.saturating_sub(v.odometer_begin))
            .sum();
        if records.is_empty() && day.distance_km > 0 {
            out.push(format!(
                "day {}: distance {} km without any vehicle record",
                day.date, day.distance_km
            ));
        } else if !records.is_empty() && u32::from(day.distance_km) != travelled.min(9_999) {
            out.push(format!(
                "day {}: distance {} km, but its vehicle records travelled {travelled} km",
                day.date, day.distance_km
            ));
        }
    }
}

/// The card is issued and valid before the first data it holds, and until the last.
fn validity(report: &Report, out: &mut Vec<String>) {
    let ident = &report.identification;
    let days = report
        .activity
        .days
        .iter()
        .flat_map(|d| [d.record_time, d.record_time + SECONDS_PER_DAY - 1]);
    let uses = report
        .vehicles
        .iter()
        .flat_map(|v| [seconds(&v.first_use), seconds(&v.last_use)])
        .flatten();
    let times: Vec<i64> = days.chain(uses).collect();
    let (first, last) = (times.iter().min().copied(), times.iter().max().copied());
    let (Some(first), Some(last)) = (first, last) else {
        return;
    };
    for (label, time) in [
        ("issue date", &ident.card_issue),
        ("validity begin", &ident.card_validity_begin),
    ] {
        match seconds(time) {
            Some(t) if t <= first => {}
            _ => out.push(format!(
                "card {label} {} is after the first data of the file ({})",
                time.as_deref().unwrap_or("missing"),
                super::primitives::format_unix(first)
            )),
        }
    }
    if seconds(&ident.card_expiry).is_none_or(|expiry| expiry < last) {
        out.push(format!(
            "card expiry {} is before the last data of the file ({})",
            ident.card_expiry.as_deref().unwrap_or("missing"),
            super::primitives::format_unix(last)
        ));
    }
}

/// An open session must be the newest vehicle use, still going on at the end of the activity data.
fn current_usage(report: &Report, out: &mut Vec<String>) {
    let Some(usage) = report.current_usage.as_ref().filter(|u| u.open_session) else {
        return;
    };
    let withdrawn = report
        .activity
        .days
        .last()
        .and_then(|d| d.changes.last())
        .is_none_or(|c| !c.card_inserted);
    let newest = report.vehicles.last();
    let in_newest = newest.is_some_and(|v| {
        let open = seconds(&usage.session_open_time);
        v.registration == usage.vehicle
            && open.is_some_and(|t| {
                seconds(&v.first_use).is_some_and(|f| f <= t) && seconds(&v.last_use).is_some_and(|l| t <= l)
            })
    });
    if withdrawn || !in_newest {
        out.push(format!(
            "EF_Current_Usage claims a session open since {} in vehicle '{}', but {}",
            usage.session_open_time.as_deref().unwrap_or("no time"),
            usage.vehicle,
            if withdrawn {
                "the activity data ends with the card withdrawn"
            } else {
                "that is not the newest vehicle use"
            }
        ));
    }
}

fn certificates(report: &Report, out: &mut Vec<String>) {
    for (label, certificate) in [
        ("EF_CA_Certificate", &report.certificates.ca),
        ("EF_Card_Certificate", &report.certificates.card),
    ] {
        if certificate.status == CertificateStatus::Empty {
            out.push(format!(
                "{label} is 194 zero bytes: no reader can open the chain, some report every signature as failed"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::encode::{Signatures, encode};
    use super::super::input::{Activity, ActivityKind};
    use super::super::inspect::inspect;
    use super::super::missions::{Mission, mission_records};
    use super::super::primitives::day_start;
    use super::super::testkit::{self, date, export};
    use super::*;

    /// Two nights of driving across midnight with readings: a consistent file.
    fn consistent() -> Report {
        let night = |d: u32| day_start(date(2024, 3, d)) + 20 * 3600;
        let mut e = export(4, Vec::new());
        let mut missions = Vec::new();
        for (d, km) in [(1, 300_000), (2, 300_700)] {
            e.activities.push(Activity {
                kind: ActivityKind::Drive,
                start: night(d),
                end: night(d) + 8 * 3600,
            });
            missions.push(Mission {
                registration: Some("AB123CD".into()),
                activities: vec![(night(d), night(d) + 8 * 3600)],
                odometer_begin: Some(km),
                odometer_end: Some(km + 700),
            });
        }
        let records = mission_records(&missions, e.period_start, e.period_end);
        (e.vehicles, e.places, e.day_distances) = (records.vehicles, records.places, records.day_distances);
        let keys = testkit::keys();
        inspect(&encode(&e, &keys.signer, Signatures::Omitted), None).unwrap()
    }

    #[test]
    fn a_consistent_file_has_no_finding() {
        let report = consistent();
        assert_eq!(report.vehicles.len(), 4);
        assert_eq!(report.findings, Vec::<String>::new());
    }

    #[test]
    fn each_inconsistency_is_found() {
        let base = consistent();
        // What the export wrote before: the midnight split restarting at odometer 0.
        let mut r = base.clone();
        r.vehicles[1].odometer_begin = 0;
        let found = findings(&r);
        assert!(
            found.iter().any(|f| f.contains("jumps from 300350 km to 0 km")),
            "{found:?}"
        );
        assert!(found.iter().any(|f| f.contains("travelled")), "{found:?}");
        let mut r = base.clone();
        r.vehicles[0].odometer_end = 299_000;
        assert!(findings(&r).iter().any(|f| f.contains("above end")));
        let mut r = base.clone();
        r.vehicles[0].last_use = Some("2024-03-02T00:00:00Z".into());
        assert!(findings(&r).iter().any(|f| f.contains("spans midnight")));
        // The whole distance on the first day.
        let mut r = base.clone();
        r.activity.days[0].distance_km = 700;
        assert!(findings(&r).iter().any(|f| f.contains("distance 700 km")));
        // A card issued after the first activity, or expired before the last.
        let mut r = base.clone();
        r.identification.card_issue = Some("2024-03-02T00:00:00Z".into());
        assert!(findings(&r).iter().any(|f| f.contains("card issue date")));
        let mut r = base.clone();
        r.identification.card_expiry = Some("2024-03-02T23:59:59Z".into());
        assert!(findings(&r).iter().any(|f| f.contains("card expiry")));
        // A session open at the download time in no vehicle, while the data ends withdrawn.
        let mut r = base.clone();
        let usage = r.current_usage.as_mut().unwrap();
        usage.open_session = true;
        usage.session_open_time = Some("2024-03-05T08:00:00Z".into());
        assert!(findings(&r).iter().any(|f| f.contains("card withdrawn")));
        // Certificates of zero bytes.
        let mut r = base;
        r.certificates.ca.status = CertificateStatus::Empty;
        assert!(findings(&r).iter().any(|f| f.contains("zero bytes")));
    }
}
