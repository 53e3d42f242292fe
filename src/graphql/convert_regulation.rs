//! From the regulation domain's values (businesses, computations, checks, alerts) to the
//! contract's objects.

use crate::domain::regulation::business::{self, BusinessType};

use super::contract::{self, Business};

impl From<BusinessType> for Business {
    fn from(value: BusinessType) -> Business {
        let business_type = match value {
            BusinessType::LongDistance => contract::BusinessType::LongDistance,
            BusinessType::ShortDistance => contract::BusinessType::ShortDistance,
            BusinessType::Shipping => contract::BusinessType::Shipping,
            BusinessType::Frequent => contract::BusinessType::Frequent,
            BusinessType::Infrequent => contract::BusinessType::Infrequent,
            BusinessType::TaxiGeneral => contract::BusinessType::TaxiGeneral,
            BusinessType::TaxiRegulated => contract::BusinessType::TaxiRegulated,
            BusinessType::Vtc => contract::BusinessType::Vtc,
            BusinessType::Loti => contract::BusinessType::Loti,
        };
        let transport_type = match value.transport() {
            business::TransportType::Trm => contract::TransportType::Trm,
            business::TransportType::Trv => contract::TransportType::Trv,
        };
        Business {
            id: Some(value.id() as i32),
            transport_type,
            business_type,
        }
    }
}

use crate::domain::alerts::read::{AlertRow, ComputationRow};
use crate::domain::alerts::recap::{AdminDay, Group, Summary};
use crate::domain::companies::parse_date;
use crate::domain::regulation::checks::{CheckDef, CheckType, SubmitterType};
use crate::domain::regulation::explain::Explanation;

use super::contract::{
    AlertDayDetail, AlertsGroup, CompanyAdminRegulationComputationsByUserAndDay, RegulationCheck,
    RegulationComputation, RegulatoryAlert, RegulatoryAlertEvidence, RegulatoryAlertExplanation,
    RegulatoryAlertsSummary,
};
use super::scalars::{Date, GenericScalar, JSONString, TimeStamp};

fn date(text: &str) -> Date {
    Date(parse_date(text).unwrap_or_default())
}

impl From<&ComputationRow> for RegulationComputation {
    fn from(row: &ComputationRow) -> RegulationComputation {
        RegulationComputation {
            id: Some(row.id as i32),
            creation_time: JSONString(row.creation_time_json()),
            day: date(&row.day),
            submitter_type: SubmitterType::from_str_opt(&row.submitter_type).unwrap_or(SubmitterType::Employee),
            user_id: Some(row.user_id as i32),
        }
    }
}

/// A check of a computation, worded for its alert (night work, business).
pub fn check(def: &CheckDef, alert: Option<&AlertRow>) -> RegulationCheck {
    let night = alert.is_some_and(|a| a.check() == Some(CheckType::MaximumWorkDayTime) && a.content.night_work == 1);
    let business = alert.map(AlertRow::business).unwrap_or(BusinessType::DEFAULT);
    RegulationCheck {
        id: Some(def.id as i32),
        r#type: def.check_type,
        label: def.label_for(night),
        regulation_rule: def.rule,
        variables: Some(JSONString(def.variables_text())),
        unit: def.unit,
        description: def.description_for(business, night),
    }
}

impl From<&AlertRow> for RegulatoryAlert {
    fn from(row: &AlertRow) -> RegulatoryAlert {
        RegulatoryAlert {
            id: Some(row.id as i32),
            // The reference returns `extra` as a JSON-encoded string, not as an object.
            extra: Some(GenericScalar(serde_json::Value::String(row.content.extra.clone()))),
        }
    }
}

impl From<&Explanation> for RegulatoryAlertExplanation {
    fn from(e: &Explanation) -> RegulatoryAlertExplanation {
        RegulatoryAlertExplanation {
            summary_en: e.summary_en.clone(),
            summary_fr: e.summary_fr.clone(),
            threshold_en: e.threshold_en.clone(),
            threshold_fr: e.threshold_fr.clone(),
            evidence: e
                .evidence
                .iter()
                .map(|v| RegulatoryAlertEvidence {
                    start_time: TimeStamp(v.start),
                    end_time: TimeStamp(v.end),
                    activity_ids: v.activity_ids.iter().map(|id| *id as i32).collect(),
                    description_en: v.en.clone(),
                    description_fr: v.fr.clone(),
                })
                .collect(),
        }
    }
}

fn group(g: &Group) -> AlertsGroup {
    AlertsGroup {
        alerts_type: Some(g.alerts_type.clone()),
        nb_alerts: Some(g.nb_alerts as i32),
        days: Some(g.days.iter().map(|d| Some(Date(*d))).collect()),
        day_details: Some(
            g.details
                .iter()
                .map(|d| {
                    Some(AlertDayDetail {
                        day: Some(Date(d.day)),
                        user_name: Some(d.user_name.clone()),
                        user_id: Some(d.user_id as i32),
                        other_company_relation: d.other_company_relation.map(str::to_string),
                    })
                })
                .collect(),
        ),
    }
}

impl From<&Summary> for RegulatoryAlertsSummary {
    fn from(s: &Summary) -> RegulatoryAlertsSummary {
        RegulatoryAlertsSummary {
            has_any_computation: Some(s.has_any_computation),
            month: Some(s.month.format("%Y-%m-%d").to_string()),
            total_nb_alerts: Some(s.total as i32),
            total_nb_alerts_previous_month: Some(s.total_previous_month as i32),
            daily_alerts: Some(s.daily.iter().map(|g| Some(group(g))).collect()),
            weekly_alerts: Some(s.weekly.iter().map(|g| Some(group(g))).collect()),
        }
    }
}

impl From<&AdminDay> for CompanyAdminRegulationComputationsByUserAndDay {
    fn from(d: &AdminDay) -> CompanyAdminRegulationComputationsByUserAndDay {
        CompanyAdminRegulationComputationsByUserAndDay {
            day: Some(date(&d.day)),
            user_id: Some(d.user_id as i32),
            nb_alerts_daily_admin: Some(d.nb_alerts_daily_admin as i32),
            nb_alerts_weekly_admin: Some(d.nb_alerts_weekly_admin as i32),
        }
    }
}
