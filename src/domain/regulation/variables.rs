//! The variables of each check as the reference stores them (`variables` JSON, from
//! `app/services/get_regulation_checks.py`: thresholds and descriptions with their legal
//! sources, word for word), and their resolution for a business.

use serde_json::{Map, Value, json};

use super::business::BusinessType;
use super::check_type::CheckType;

/// The reference's `resolve_variables`: a variable is a scalar, or a map by transport type name
/// whose value is a scalar or a map by business type name with an optional `default`. The
/// matching business type wins even when null; otherwise `default` is used when truthy.
pub fn resolve(variables: &Value, business: BusinessType) -> Map<String, Value> {
    let mut resolved = Map::new();
    let Some(map) = variables.as_object() else {
        return resolved;
    };
    for (key, value) in map {
        let Some(by_transport) = value.as_object() else {
            resolved.insert(key.clone(), value.clone());
            continue;
        };
        let Some(for_transport) = by_transport.get(business.transport().name()) else {
            continue;
        };
        let Some(by_business) = for_transport.as_object() else {
            resolved.insert(key.clone(), for_transport.clone());
            continue;
        };
        if let Some(v) = by_business.get(business.name()) {
            resolved.insert(key.clone(), v.clone());
        } else if let Some(default) = by_business.get("default").filter(|d| truthy(d)) {
            resolved.insert(key.clone(), default.clone());
        }
    }
    resolved
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

const BREAK_DESCRIPTION_NEW: &str = "La pause doit intervenir avant la 6e heure de travail ininterrompu et durer au moins 30 minutes lorsque le total des heures travaillées est compris entre 6 et 9 heures, et au moins 45 minutes au-delà de 9 heures de travail par jour (article L. 3312-2 du Code des transports).";
const BREAK_DESCRIPTION_OLD: &str = "La pause doit intervenir avant la 6e heure de travail ininterrompu et durer au moins 30 minutes lorsque le total des heures travaillées est compris entre 6 et 9 heures, et 45 minutes au-delà de 9 heures de travail par jour. Le temps de pause peut être réparti en périodes d'au moins 15 minutes (L. 3312-2 du Code des transports).";
pub const MAX_WORK_TRV_FREQUENT: &str = "La durée du travail quotidien est limitée à 10h si l’amplitude de la journée est inférieure à 13h, et à 9h si l’amplitude est supérieure à 13h (article D. 3312-6 du Code des transports). Attention, les dérogations ne sont pas intégrées dans Mobilic.";
pub const MAX_WORK_TRV_INFREQUENT: &str = "La durée du travail quotidien est limitée à 10h (article D. 3312-6 du Code des transports). Attention, les dérogations ne sont pas intégrées dans Mobilic.";
pub const MAX_WORK_TRV_OTHERS: &str = "La durée du travail quotidien est limitée à 10h si l’amplitude de la journée est inférieure à 12h, et à 9h si l’amplitude est supérieure à 12h (article D. 3312-6 du Code des transports). Attention, les dérogations ne sont pas intégrées dans Mobilic.";

/// The variables as the reference stores them (`app/services/get_regulation_checks.py`).
pub fn variables(check: CheckType) -> Value {
    match check {
        CheckType::MinimumDailyRest => json!({
            "LONG_BREAK_DURATION_IN_HOURS": 10,
            "DESCRIPTION": "La durée du repos quotidien est d'au moins 10h toutes les 24h (article R. 3312-53, 2° du Code des transports).",
        }),
        CheckType::MaximumWorkDayTime => json!({
            "MAXIMUM_DURATION_OF_NIGHT_WORK_IN_HOURS": 10,
            "MAXIMUM_DURATION_OF_DAY_WORK_IN_HOURS": {"TRM": 12, "TRV": 10},
            "LONG_BREAK_DURATION_IN_HOURS": 10,
            "AMPLITUDE_TRIGGER_IN_HOURS": {"TRM": null, "TRV": {"FREQUENT": 13, "INFREQUENT": null, "default": 12}},
            "MAXIMUM_DURATION_OF_DAY_WORK_IF_HIGH_AMPLITUDE_IN_HOURS": 9,
            "DESCRIPTION": {
                "TRM": "La durée du travail quotidien est limitée à 12h (article R. 3312-a51 du Code des transports).",
                "TRV": {"FREQUENT": MAX_WORK_TRV_FREQUENT, "INFREQUENT": MAX_WORK_TRV_INFREQUENT, "default": MAX_WORK_TRV_OTHERS},
            },
            "NIGHT_WORK_DESCRIPTION": {
                "TRM": "Si une partie du travail de la journée s'effectue entre minuit et 5 heures, la durée maximale du travail est réduite à 10 heures (L. 3312-1 du Code des transports).",
                "TRV": "La durée du travail quotidien compris entre minuit et 5 heures est limitée à 10h (L. 3312-1 du Code des transports).",
            },
        }),
        CheckType::MinimumWorkDayBreak => json!({
            "MINIMUM_DURATION_INDIVIDUAL_BREAK_IN_MIN": 15,
            "MINIMUM_DURATION_WORK_IN_HOURS_1": 6,
            "MINIMUM_DURATION_WORK_IN_HOURS_2": 9,
            "MINIMUM_DURATION_BREAK_IN_MIN_1": 30,
            "MINIMUM_DURATION_BREAK_IN_MIN_2": 45,
            "DESCRIPTION": BREAK_DESCRIPTION_OLD,
        }),
        CheckType::MaximumUninterruptedWorkTime => json!({
            "MAXIMUM_DURATION_OF_UNINTERRUPTED_WORK_IN_HOURS": 6,
            "DESCRIPTION": "Le temps de travail doit être interrompu par une pause avant la 6e heure consécutive (article L3312-2 du Code des transports).",
        }),
        CheckType::MaximumWorkedDaysInWeek => json!({
            "MINIMUM_WEEKLY_BREAK_IN_HOURS": 34,
            "MAXIMUM_DAY_WORKED_BY_WEEK": 6,
            "DESCRIPTION": "Il est interdit de travailler plus de six jours dans la semaine (article L. 3132-1 du Code du travail). Le repos hebdomadaire doit durer au minimum 34h (article L. 3132-2 du Code du travail).",
        }),
        CheckType::NoLic => json!({
            "DESCRIPTION": {
                "TRM": "Défaut de documents nécessaires au décompte de la durée du travail (L. 3121-67 du Code du travail et R. 3312-58 du Code des transports + arrêté du 20 juillet 1998).",
                "TRV": "Défaut de documents nécessaires au décompte de la durée du travail (L. 3121-67 du Code du travail et R. 3312-19 du Code des transports + arrêté du 20 juillet 1998).",
            },
        }),
        CheckType::MaximumWorkInCalendarWeek => json!({
            "MAXIMUM_WEEKLY_WORK_IN_HOURS": {"TRM": {"LONG_DISTANCE": 56, "SHORT_DISTANCE": 52, "SHIPPING": 48}, "TRV": 48},
            "DESCRIPTION": {
                "TRM": {
                    "LONG_DISTANCE": "La durée de travail hebdomadaire sur une semaine isolée est limitée à 56 heures (article R.3312-50 du Code des transports).",
                    "SHORT_DISTANCE": "La durée de travail hebdomadaire sur une semaine isolée est limitée à 52 heures (article R.3312-50 du Code des transports).",
                    "SHIPPING": "La durée de travail hebdomadaire sur une semaine isolée est limitée à 48 heures (article R.3312-50 du Code des transports).",
                },
                "TRV": "La durée de travail hebdomadaire sur une semaine isolée est limitée à 48 heures (article L.3121-20 du Code du travail). Attention, les dérogations ne sont pas intégrées dans Mobilic.",
            },
        }),
        CheckType::EuDailyDriving => json!({
            "MAXIMUM_DAILY_DRIVING_IN_HOURS": 9,
            "MAXIMUM_EXTENDED_DAILY_DRIVING_IN_HOURS": 10,
            "MAXIMUM_EXTENSIONS_BY_WEEK": 2,
            "DESCRIPTION": "Extension Roadlog. La durée de conduite journalière ne dépasse pas 9 heures ; elle peut être prolongée jusqu'à 10 heures au maximum deux fois au cours de la semaine (article 6, paragraphe 1, du règlement (CE) n° 561/2006).",
        }),
        CheckType::EuBreak => json!({
            "MAXIMUM_DRIVING_BEFORE_BREAK_IN_MIN": 270,
            "MINIMUM_BREAK_IN_MIN": 45,
            "SPLIT_BREAK_IN_MIN": [15, 30],
            "DESCRIPTION": "Extension Roadlog. Après un temps de conduite de quatre heures et demie, le conducteur observe une pause ininterrompue d'au moins 45 minutes, qui peut être remplacée par une pause d'au moins 15 minutes suivie d'une pause d'au moins 30 minutes (article 7 du règlement (CE) n° 561/2006).",
        }),
        CheckType::EuDailyRest => json!({
            "MINIMUM_DAILY_REST_IN_HOURS": 11,
            "MINIMUM_REDUCED_DAILY_REST_IN_HOURS": 9,
            "MAXIMUM_REDUCED_DAILY_RESTS_BETWEEN_WEEKLY_RESTS": 3,
            "SPLIT_DAILY_REST_IN_HOURS": [3, 9],
            "DESCRIPTION": "Extension Roadlog. Dans chaque période de 24 heures suivant la fin du repos précédent, le conducteur prend un repos journalier de 11 heures (ou 3 heures puis 9 heures), réduit à 9 heures au plus trois fois entre deux repos hebdomadaires (article 8, paragraphes 2 et 4, du règlement (CE) n° 561/2006).",
        }),
        CheckType::EuWeeklyDriving => json!({
            "MAXIMUM_WEEKLY_DRIVING_IN_HOURS": 56,
            "DESCRIPTION": "Extension Roadlog. La durée de conduite hebdomadaire ne dépasse pas 56 heures (article 6, paragraphe 2, du règlement (CE) n° 561/2006).",
        }),
        CheckType::EuTwoWeekDriving => json!({
            "MAXIMUM_TWO_WEEK_DRIVING_IN_HOURS": 90,
            "DESCRIPTION": "Extension Roadlog. La durée de conduite totale sur deux semaines consécutives ne dépasse pas 90 heures (article 6, paragraphe 3, du règlement (CE) n° 561/2006).",
        }),
        CheckType::EuWeeklyRest => json!({
            "MINIMUM_WEEKLY_REST_IN_HOURS": 45,
            "MINIMUM_REDUCED_WEEKLY_REST_IN_HOURS": 24,
            "DESCRIPTION": "Extension Roadlog. Au cours de deux semaines consécutives, le conducteur prend au moins deux repos hebdomadaires normaux de 45 heures, ou un repos normal et un repos réduit d'au moins 24 heures (article 8, paragraphe 6, du règlement (CE) n° 561/2006). La compensation des repos réduits n'est pas vérifiée.",
        }),
        CheckType::EnoughBreak => json!({
            "MINIMUM_DURATION_INDIVIDUAL_BREAK_IN_MIN": 15,
            "MINIMUM_DURATION_WORK_IN_HOURS_1": 6,
            "MINIMUM_DURATION_WORK_IN_HOURS_2": 9,
            "MINIMUM_DURATION_BREAK_IN_MIN_1": 30,
            "MINIMUM_DURATION_BREAK_IN_MIN_2": 45,
            "MAXIMUM_DURATION_OF_UNINTERRUPTED_WORK_IN_HOURS": 6,
            "DESCRIPTION": BREAK_DESCRIPTION_NEW,
        }),
    }
}
