//! Test fixtures shared by the unit tests of this module: one key hierarchy (generated once per test run, since
//! RSA key generation is the slow part) and sample exports.
//!
//! Why a file: several files' tests need the same keys and inputs; generating keys in each test would make the
//! suite slow on a 2-core machine.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::NaiveDate;

use super::input::{Activity, ActivityKind, DEFAULT_ISSUING_AUTHORITY, DriverCard, Export, roadlog_card_number};
use super::keys::{CaKey, CardKey, CardSigner, RootKey};
use super::primitives::day_start;

pub struct Keys {
    pub root: RootKey,
    pub ca: CaKey,
    pub card: CardKey,
    pub signer: CardSigner,
}

pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let root = RootKey::generate();
        let ca = CaKey::generate_signed_by(&root);
        let card = CardKey::generate();
        let signer = CardSigner::new(card.clone(), &ca);
        Keys { root, ca, card, signer }
    })
}

pub fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

pub fn card() -> DriverCard {
    DriverCard {
        card_number: roadlog_card_number(4321, 0).unwrap(),
        surname: "Dupont-Lefèvre".into(),
        first_names: "Élodie Marie".into(),
        birth_date: Some(date(1988, 11, 5)),
        company_name: "Transports Martin".into(),
        issuing_authority: DEFAULT_ISSUING_AUTHORITY.into(),
        card_issue: date(2024, 1, 1),
        card_validity_begin: date(2024, 1, 1),
        card_expiry: date(2028, 12, 31),
    }
}

/// An export of `days` days from 2024-03-01 with the given activities.
pub fn export(days: u64, activities: Vec<Activity>) -> Export {
    let start = date(2024, 3, 1);
    let end = start + chrono::Days::new(days - 1);
    Export {
        card: card(),
        period_start: start,
        period_end: end,
        activities,
        vehicles: Vec::new(),
        places: Vec::new(),
        day_distances: BTreeMap::new(),
        generated_at: day_start(end) + 86_400 + 8 * 3600,
    }
}

/// `per_day` activities a day for `days` days from 2024-03-01: from 06:00, cycling drive, work, support,
/// transfer, each `minutes` long, with a 15-minute break after every fourth.
pub fn busy_activities(days: i64, per_day: usize, minutes: i64) -> Vec<Activity> {
    let kinds = [
        ActivityKind::Drive,
        ActivityKind::Work,
        ActivityKind::Support,
        ActivityKind::Transfer,
    ];
    let first = day_start(date(2024, 3, 1));
    let mut out = Vec::new();
    for d in 0..days {
        let mut t = first + d * 86_400 + 6 * 3600;
        for i in 0..per_day {
            out.push(Activity {
                kind: kinds[i % 4],
                start: t,
                end: t + minutes * 60,
            });
            t += minutes * 60;
            if i % 4 == 3 {
                t += 15 * 60;
            }
        }
    }
    out
}
