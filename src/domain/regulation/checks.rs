//! The catalogue of checks (the reference service's table `regulation_check`): type, label, rule, unit,
//! dates of application, variables and descriptions with their legal sources, word for word.
//! The reference keeps them as database rows; Roadlog keeps them here, with the same ids, and
//! stores alerts by check type.

use chrono::NaiveDate;
use serde_json::Value;

use super::business::BusinessType;
use super::pyjson;
use super::variables::{resolve, variables};

pub use super::check_type::CheckType;

impl CheckType {
    /// Its row of the catalogue.
    pub fn def(self) -> &'static CheckDef {
        CHECKS
            .iter()
            .find(|c| c.check_type == self)
            .expect("every check type has a row")
    }
}

/// `UnitTypeEnum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Day,
    Week,
}

impl Unit {
    pub const ALL: [Unit; 2] = [Unit::Day, Unit::Week];

    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Day => "day",
            Unit::Week => "week",
        }
    }

    pub fn from_str_opt(text: &str) -> Option<Unit> {
        match text {
            "day" => Some(Unit::Day),
            "week" => Some(Unit::Week),
            _ => None,
        }
    }
}

/// `SubmitterTypeEnum`: whose validation the computation follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SubmitterType {
    Employee,
    Admin,
}

impl SubmitterType {
    pub const ALL: [SubmitterType; 2] = [SubmitterType::Employee, SubmitterType::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            SubmitterType::Employee => "employee",
            SubmitterType::Admin => "admin",
        }
    }

    pub fn from_str_opt(text: &str) -> Option<SubmitterType> {
        match text {
            "employee" => Some(SubmitterType::Employee),
            "admin" => Some(SubmitterType::Admin),
            _ => None,
        }
    }
}

/// `RegulationRuleEnum`: the rule a check belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    DailyWork,
    DailyRest,
    WeeklyWork,
    WeeklyRest,
}

impl Rule {
    pub const ALL: [Rule; 4] = [Rule::DailyWork, Rule::DailyRest, Rule::WeeklyWork, Rule::WeeklyRest];

    pub fn as_str(self) -> &'static str {
        match self {
            Rule::DailyWork => "dailyWork",
            Rule::DailyRest => "dailyRest",
            Rule::WeeklyWork => "weeklyWork",
            Rule::WeeklyRest => "weeklyRest",
        }
    }

    pub fn from_str_opt(text: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// One row of the catalogue.
#[derive(Debug)]
pub struct CheckDef {
    pub id: i64,
    pub check_type: CheckType,
    pub label: &'static str,
    pub rule: Option<Rule>,
    pub unit: Unit,
    /// `date_application_start` (`YYYY-MM-DD`).
    pub start: &'static str,
    /// `date_application_end`, exclusive.
    pub end: Option<&'static str>,
    /// A Roadlog extension (EU driving-time rules), computed and listed only for companies that
    /// opted in.
    pub extension: bool,
}

/// The day the reference replaced `minimumWorkDayBreak` and `maximumUninterruptedWorkTime` by
/// `enoughBreak` (NATINF 35187): the day its migration `60f5c0616731` was created.
pub const ENOUGH_BREAK_SINCE: &str = "2025-04-07";

/// The day Regulation (EC) No 561/2006 applies from.
const EU_SINCE: &str = "2007-04-11";

/// Declares a Roadlog extension check.
const fn eu(id: i64, check_type: CheckType, label: &'static str, rule: Rule, unit: Unit) -> CheckDef {
    CheckDef {
        id,
        check_type,
        label,
        rule: Some(rule),
        unit,
        start: EU_SINCE,
        end: None,
        extension: true,
    }
}

/// The catalogue: the reference's checks in its id order, then Roadlog's extensions.
pub const CHECKS: [CheckDef; 14] = [
    CheckDef {
        id: 1,
        check_type: CheckType::MinimumDailyRest,
        label: "Non-respect(s) du repos quotidien",
        rule: Some(Rule::DailyRest),
        unit: Unit::Day,
        start: "2019-11-01",
        end: None,
        extension: false,
    },
    CheckDef {
        id: 2,
        check_type: CheckType::MaximumWorkDayTime,
        label: "Dépassement(s) de la durée maximale du travail quotidien",
        rule: Some(Rule::DailyWork),
        unit: Unit::Day,
        start: "2019-11-01",
        end: None,
        extension: false,
    },
    CheckDef {
        id: 3,
        check_type: CheckType::MinimumWorkDayBreak,
        label: "Non-respect(s) du temps de pause",
        rule: Some(Rule::DailyRest),
        unit: Unit::Day,
        start: "2019-11-01",
        end: Some(ENOUGH_BREAK_SINCE),
        extension: false,
    },
    CheckDef {
        id: 4,
        check_type: CheckType::MaximumUninterruptedWorkTime,
        label: "Dépassement(s) de la durée maximale du travail ininterrompu",
        rule: Some(Rule::DailyRest),
        unit: Unit::Day,
        start: "2019-11-01",
        end: Some(ENOUGH_BREAK_SINCE),
        extension: false,
    },
    CheckDef {
        id: 5,
        check_type: CheckType::MaximumWorkedDaysInWeek,
        label: "Non-respect(s) du repos hebdomadaire",
        rule: Some(Rule::WeeklyRest),
        unit: Unit::Week,
        start: "2019-11-01",
        end: None,
        extension: false,
    },
    CheckDef {
        id: 6,
        check_type: CheckType::NoLic,
        label: "Tenue non conforme du livret individuel de contrôle",
        rule: None,
        unit: Unit::Day,
        start: "2019-11-01",
        end: None,
        extension: false,
    },
    CheckDef {
        id: 7,
        check_type: CheckType::MaximumWorkInCalendarWeek,
        label: "Dépassement(s) de la durée maximale de travail hebdomadaire sur une semaine civile isolée",
        rule: Some(Rule::WeeklyWork),
        unit: Unit::Week,
        start: "2019-11-01",
        end: None,
        extension: false,
    },
    CheckDef {
        id: 8,
        check_type: CheckType::EnoughBreak,
        label: "Non-respect du temps de pause et/ou dépassement de la durée maximale de travail ininterrompu",
        rule: Some(Rule::DailyRest),
        unit: Unit::Day,
        start: ENOUGH_BREAK_SINCE,
        end: None,
        extension: false,
    },
    eu(
        101,
        CheckType::EuDailyDriving,
        "Dépassement(s) de la durée de conduite journalière (UE)",
        Rule::DailyWork,
        Unit::Day,
    ),
    eu(
        102,
        CheckType::EuBreak,
        "Non-respect(s) de la pause après 4 h 30 de conduite (UE)",
        Rule::DailyRest,
        Unit::Day,
    ),
    eu(
        103,
        CheckType::EuDailyRest,
        "Non-respect(s) du repos journalier des conducteurs (UE)",
        Rule::DailyRest,
        Unit::Day,
    ),
    eu(
        104,
        CheckType::EuWeeklyDriving,
        "Dépassement(s) de la durée de conduite hebdomadaire (UE)",
        Rule::WeeklyWork,
        Unit::Week,
    ),
    eu(
        105,
        CheckType::EuTwoWeekDriving,
        "Dépassement(s) de la durée de conduite sur deux semaines (UE)",
        Rule::WeeklyWork,
        Unit::Week,
    ),
    eu(
        106,
        CheckType::EuWeeklyRest,
        "Non-respect(s) du repos hebdomadaire des conducteurs (UE)",
        Rule::WeeklyRest,
        Unit::Week,
    ),
];

impl CheckDef {
    /// Whether the check applies on `date` (`start ≤ date` and (no end or `end > date`)).
    pub fn valid_on(&self, date: NaiveDate) -> bool {
        let start: NaiveDate = self.start.parse().unwrap_or(NaiveDate::MIN);
        let end: Option<NaiveDate> = self.end.and_then(|e| e.parse().ok());
        start <= date && end.is_none_or(|e| e > date)
    }

    /// The stored variables, unresolved.
    pub fn variables(&self) -> Value {
        variables(self.check_type)
    }

    /// `RegulationCheck.variables`: the JSON string the reference returns.
    pub fn variables_text(&self) -> String {
        pyjson::dumps(&self.variables())
    }

    /// `RegulationCheck.label`; an alert of night work (NATINF 32083) says `de nuit` instead of
    /// `quotidien`.
    pub fn label_for(&self, night_work: bool) -> String {
        if night_work {
            self.label.replace("quotidien", "de nuit")
        } else {
            self.label.to_string()
        }
    }

    /// `RegulationCheck.description` for a business; with night work the night description
    /// follows after one space.
    pub fn description_for(&self, business: BusinessType, night_work: bool) -> String {
        let resolved = resolve(&self.variables(), business);
        let text = |key: &str| {
            resolved
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let description = text("DESCRIPTION");
        if night_work {
            format!("{description} {}", text("NIGHT_WORK_DESCRIPTION"))
        } else {
            description
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::regulation::variables::{MAX_WORK_TRV_FREQUENT, MAX_WORK_TRV_INFREQUENT, MAX_WORK_TRV_OTHERS};

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn since_april_2025_the_daily_checks_are_rest_work_and_enough_break() {
        let active = |day: &str| -> Vec<&str> {
            CHECKS
                .iter()
                .filter(|c| {
                    c.unit == Unit::Day && !c.extension && c.check_type != CheckType::NoLic && c.valid_on(date(day))
                })
                .map(|c| c.check_type.as_str())
                .collect()
        };
        assert_eq!(
            active("2025-06-01"),
            ["minimumDailyRest", "maximumWorkDayTime", "enoughBreak"]
        );
        assert_eq!(
            active("2025-04-06"),
            [
                "minimumDailyRest",
                "maximumWorkDayTime",
                "minimumWorkDayBreak",
                "maximumUninterruptedWorkTime"
            ]
        );
    }

    #[test]
    fn descriptions_resolve_per_business() {
        let def = CheckType::MaximumWorkDayTime.def();
        assert!(
            def.description_for(BusinessType::Shipping, false)
                .contains("limitée à 12h")
        );
        assert_eq!(
            def.description_for(BusinessType::Frequent, false),
            MAX_WORK_TRV_FREQUENT
        );
        assert_eq!(
            def.description_for(BusinessType::Infrequent, false),
            MAX_WORK_TRV_INFREQUENT
        );
        assert_eq!(def.description_for(BusinessType::Vtc, false), MAX_WORK_TRV_OTHERS);
        assert!(def.description_for(BusinessType::Shipping, true).ends_with(
            "(article R. 3312-a51 du Code des transports). Si une partie du travail de la journée s'effectue entre minuit et 5 heures, la durée maximale du travail est réduite à 10 heures (L. 3312-1 du Code des transports)."
        ));
        assert_eq!(
            def.label_for(true),
            "Dépassement(s) de la durée maximale du travail de nuit"
        );
        let week = CheckType::MaximumWorkInCalendarWeek.def();
        assert!(
            week.description_for(BusinessType::ShortDistance, false)
                .contains("52 heures")
        );
        assert!(week.description_for(BusinessType::Loti, false).contains("L.3121-20"));
    }

    #[test]
    fn resolution_keeps_a_null_business_entry() {
        let resolved = resolve(&variables(CheckType::MaximumWorkDayTime), BusinessType::Infrequent);
        assert_eq!(resolved.get("AMPLITUDE_TRIGGER_IN_HOURS"), Some(&Value::Null));
        let resolved = resolve(&variables(CheckType::MaximumWorkDayTime), BusinessType::Shipping);
        assert_eq!(resolved.get("AMPLITUDE_TRIGGER_IN_HOURS"), Some(&Value::Null));
        let resolved = resolve(&variables(CheckType::MaximumWorkDayTime), BusinessType::TaxiGeneral);
        assert_eq!(resolved.get("AMPLITUDE_TRIGGER_IN_HOURS"), Some(&json!(12)));
    }

    #[test]
    fn thresholds_agree_with_the_stored_variables() {
        for business in BusinessType::ALL {
            let t = business.thresholds();
            let day = resolve(&variables(CheckType::MaximumWorkDayTime), business);
            assert_eq!(
                day["MAXIMUM_DURATION_OF_DAY_WORK_IN_HOURS"],
                json!(t.max_day_work_hours)
            );
            assert_eq!(
                day["MAXIMUM_DURATION_OF_NIGHT_WORK_IN_HOURS"],
                json!(t.max_night_work_hours)
            );
            assert_eq!(
                day.get("AMPLITUDE_TRIGGER_IN_HOURS").and_then(Value::as_i64),
                t.amplitude_trigger_hours,
                "{business:?}"
            );
            let week = resolve(&variables(CheckType::MaximumWorkInCalendarWeek), business);
            assert_eq!(week["MAXIMUM_WEEKLY_WORK_IN_HOURS"], json!(t.max_weekly_work_hours));
        }
    }

    #[test]
    fn variables_are_printed_like_the_reference() {
        let text = CheckType::MinimumDailyRest.def().variables_text();
        assert_eq!(
            text,
            "{\"DESCRIPTION\": \"La dur\\u00e9e du repos quotidien est d'au moins 10h toutes les 24h (article R. 3312-53, 2\\u00b0 du Code des transports).\", \"LONG_BREAK_DURATION_IN_HOURS\": 10}"
        );
    }
}
