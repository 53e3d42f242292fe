//! The custom scalars of `schema/roadlog.graphql`, with the reference service's input and output
//! forms. The generated code refers to each of them by name: a scalar added to the SDL without an
//! implementation here does not compile. Each declares the `@specifiedBy` URL of the SDL (the
//! contract test compares the served schema's with the file's); the enum-like ones point to the
//! page the service serves at `/docs`.

use async_graphql::{InputValueError, InputValueResult, Number, Scalar, ScalarType, Value};
use chrono::NaiveDate;

/// Integer Unix seconds (UTC). As in the reference, an input may also be a numeric string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeStamp(pub i64);

fn parse_timestamp(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.is_finite()).map(|f| f as i64)),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    }
}

#[Scalar(
    name = "TimeStamp",
    use_type_description,
    specified_by_url = "https://pubs.opengroup.org/onlinepubs/9699919799/basedefs/V1_chap04.html"
)]
impl ScalarType for TimeStamp {
    fn parse(value: Value) -> InputValueResult<Self> {
        parse_timestamp(&value)
            .map(TimeStamp)
            .ok_or_else(|| InputValueError::custom(format!("Invalid TimeStamp {value}: expected integer Unix seconds")))
    }

    fn is_valid(value: &Value) -> bool {
        parse_timestamp(value).is_some()
    }

    fn to_value(&self) -> Value {
        Value::Number(Number::from(self.0))
    }
}

/// A calendar date, `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub NaiveDate);

fn parse_date(value: &Value) -> Option<NaiveDate> {
    match value {
        Value::String(s) if s.len() == 10 => NaiveDate::parse_from_str(s, "%Y-%m-%d").ok(),
        _ => None,
    }
}

#[Scalar(
    name = "Date",
    use_type_description,
    specified_by_url = "https://www.rfc-editor.org/rfc/rfc3339#section-5.6"
)]
impl ScalarType for Date {
    fn parse(value: Value) -> InputValueResult<Self> {
        parse_date(&value)
            .map(Date)
            .ok_or_else(|| InputValueError::custom(format!("Invalid Date {value}: expected YYYY-MM-DD")))
    }

    fn is_valid(value: &Value) -> bool {
        parse_date(value).is_some()
    }

    fn to_value(&self) -> Value {
        // `Display` writes the ISO date directly; `format` parses its pattern on every call,
        // for every date of every answer (bench/README.md, "Figures behind code choices").
        Value::String(self.0.to_string())
    }
}

/// An e-mail address, trimmed and lower-cased on input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Email(pub String);

/// Normalises an e-mail address, or `None` when it is not one. Deliberately simple and strict
/// about what breaks delivery or comparisons: one `@`, a non-empty local part, a dotted domain,
/// no white space or control characters, at most 254 characters (RFC 5321).
pub fn normalize_email(raw: &str) -> Option<String> {
    let email = raw.trim().to_lowercase();
    if email.is_empty() || email.len() > 254 || email.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (local, domain) = email.split_once('@')?;
    let labels_ok = domain
        .split('.')
        .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-'));
    if local.is_empty() || local.len() > 64 || domain.contains('@') || !domain.contains('.') || !labels_ok {
        return None;
    }
    Some(email)
}

#[Scalar(
    name = "Email",
    use_type_description,
    specified_by_url = "https://www.rfc-editor.org/rfc/rfc5322#section-3.4.1"
)]
impl ScalarType for Email {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s) => normalize_email(s)
                .map(Email)
                .ok_or_else(|| InputValueError::custom("Invalid Email")),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn is_valid(value: &Value) -> bool {
        matches!(value, Value::String(s) if normalize_email(s).is_some())
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.clone())
    }
}

/// Any JSON value, stored as given.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericScalar(pub serde_json::Value);

#[Scalar(
    name = "GenericScalar",
    use_type_description,
    specified_by_url = "https://www.rfc-editor.org/rfc/rfc8259"
)]
impl ScalarType for GenericScalar {
    fn parse(value: Value) -> InputValueResult<Self> {
        value
            .into_json()
            .map(GenericScalar)
            .map_err(|e| InputValueError::custom(e.to_string()))
    }

    fn to_value(&self) -> Value {
        Value::from_json(self.0.clone()).unwrap_or(Value::Null)
    }
}

/// Serves a domain word list as a reference-style "enum": a custom string scalar whose values
/// are lower-case strings, accepted only as strings (the reference's literal form), rejected at
/// validation otherwise.
macro_rules! string_enum_scalar {
    ($(#[$doc:meta])* $name:ident = $domain:ty, $graphql:literal, $specified_by:literal) => {
        $(#[$doc])*
        pub type $name = $domain;

        #[Scalar(name = $graphql, use_type_description, specified_by_url = $specified_by)]
        impl ScalarType for $domain {
            fn parse(value: Value) -> InputValueResult<Self> {
                match &value {
                    Value::String(s) => Self::from_str_opt(s).ok_or_else(|| {
                        InputValueError::custom(format!(
                            "Expected type \"{}\", found {value}; one of: {}",
                            $graphql,
                            Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
                        ))
                    }),
                    _ => Err(InputValueError::expected_type(value)),
                }
            }

            fn is_valid(value: &Value) -> bool {
                matches!(value, Value::String(s) if Self::from_str_opt(s).is_some())
            }

            fn to_value(&self) -> Value {
                Value::String(self.as_str().to_string())
            }
        }
    };
}

string_enum_scalar!(
    /// Kind of a working-time activity.
    ActivityTypeEnum = crate::domain::kinds::ActivityType, "ActivityTypeEnum", "/docs#ActivityTypeEnum"
);

string_enum_scalar!(
    /// Kind of a professional expense.
    ExpenditureTypeEnum = crate::domain::kinds::ExpenditureType, "ExpenditureTypeEnum", "/docs#ExpenditureTypeEnum"
);

string_enum_scalar!(
    /// Which end of a mission a location entry describes.
    LocationEntryTypeEnum = crate::domain::kinds::LocationEntryType, "LocationEntryTypeEnum", "/docs#LocationEntryTypeEnum"
);

string_enum_scalar!(
    /// Why a mission is validated late.
    OverValidationJustificationEnum = crate::domain::kinds::ValidationJustification, "OverValidationJustificationEnum", "/docs#OverValidationJustificationEnum"
);

string_enum_scalar!(
    /// Whose validations a regulatory computation follows.
    SubmitterTypeEnum = crate::domain::regulation::checks::SubmitterType, "SubmitterTypeEnum", "/docs#SubmitterTypeEnum"
);

string_enum_scalar!(
    /// Unit of a regulatory check.
    UnitTypeEnum = crate::domain::regulation::checks::Unit, "UnitTypeEnum", "/docs#UnitTypeEnum"
);

string_enum_scalar!(
    /// Type of a regulatory check.
    RegulationCheckTypeEnum = crate::domain::regulation::checks::CheckType, "RegulationCheckTypeEnum", "/docs#RegulationCheckTypeEnum"
);

string_enum_scalar!(
    /// Rule of a regulatory check.
    RegulationRuleEnum = crate::domain::regulation::checks::Rule, "RegulationRuleEnum", "/docs#RegulationRuleEnum"
);

string_enum_scalar!(
    /// A user's gender.
    GenderEnum = crate::domain::kinds::Gender, "GenderEnum", "/docs#GenderEnum"
);

string_enum_scalar!(
    /// A warning a user asked not to see again.
    WarningToDisableTypeEnum = crate::domain::kinds::DisabledWarning, "WarningToDisableTypeEnum", "/docs#WarningToDisableTypeEnum"
);

/// A password given by a client. Any string parses: the operation that takes it checks it and
/// answers INVALID_INPUTS, so that the rule and its error are the same for a variable and an
/// inline value. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(pub String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

#[Scalar(name = "Password", use_type_description, specified_by_url = "/docs#Password")]
impl ScalarType for Password {
    fn parse(value: Value) -> InputValueResult<Self> {
        match value {
            Value::String(s) => Ok(Password(s)),
            other => Err(InputValueError::expected_type(other)),
        }
    }

    fn is_valid(value: &Value) -> bool {
        matches!(value, Value::String(_))
    }

    fn to_value(&self) -> Value {
        // Never sent back: no field returns a password.
        Value::String(String::new())
    }
}

/// A JSON document encoded as a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JSONString(pub String);

#[Scalar(
    name = "JSONString",
    use_type_description,
    specified_by_url = "https://www.rfc-editor.org/rfc/rfc8259"
)]
impl ScalarType for JSONString {
    fn parse(value: Value) -> InputValueResult<Self> {
        match value {
            Value::String(s) if serde_json::from_str::<serde_json::Value>(&s).is_ok() => Ok(JSONString(s)),
            other => Err(InputValueError::custom(format!(
                "Invalid JSONString {other}: expected a string of JSON"
            ))),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.clone())
    }
}

/// A month, `YYYY-MM`, read as its first day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortMonth(pub NaiveDate);

fn parse_month(value: &Value) -> Option<NaiveDate> {
    match value {
        Value::String(s) if s.len() == 7 => NaiveDate::parse_from_str(&format!("{s}-01"), "%Y-%m-%d").ok(),
        _ => None,
    }
}

#[Scalar(name = "ShortMonth", use_type_description, specified_by_url = "/docs#ShortMonth")]
impl ScalarType for ShortMonth {
    fn parse(value: Value) -> InputValueResult<Self> {
        parse_month(&value)
            .map(ShortMonth)
            .ok_or_else(|| InputValueError::custom(format!("Invalid ShortMonth {value}: expected YYYY-MM")))
    }

    fn is_valid(value: &Value) -> bool {
        parse_month(value).is_some()
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.format("%Y-%m").to_string())
    }
}

/// Checks a variable's value against a custom scalar, with the scalar's own parser: the reason
/// when it does not parse. Names that are not custom scalars of ours pass.
pub fn validate(name: &str, value: &Value) -> Result<(), String> {
    fn with<T: ScalarType + async_graphql::InputType>(value: &Value) -> Result<(), String> {
        <T as async_graphql::InputType>::parse(Some(value.clone()))
            .map(|_| ())
            .map_err(|e| e.into_server_error(Default::default()).message)
    }
    match name {
        "TimeStamp" => with::<TimeStamp>(value),
        "Date" => with::<Date>(value),
        "Email" => with::<Email>(value),
        "GenericScalar" => with::<GenericScalar>(value),
        "ActivityTypeEnum" => with::<ActivityTypeEnum>(value),
        "ExpenditureTypeEnum" => with::<ExpenditureTypeEnum>(value),
        "LocationEntryTypeEnum" => with::<LocationEntryTypeEnum>(value),
        "OverValidationJustificationEnum" => with::<OverValidationJustificationEnum>(value),
        "SubmitterTypeEnum" => with::<SubmitterTypeEnum>(value),
        "UnitTypeEnum" => with::<UnitTypeEnum>(value),
        "RegulationCheckTypeEnum" => with::<RegulationCheckTypeEnum>(value),
        "RegulationRuleEnum" => with::<RegulationRuleEnum>(value),
        "GenderEnum" => with::<GenderEnum>(value),
        "WarningToDisableTypeEnum" => with::<WarningToDisableTypeEnum>(value),
        "Password" => with::<Password>(value),
        "JSONString" => with::<JSONString>(value),
        "ShortMonth" => with::<ShortMonth>(value),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(
            normalize_email("  Jane.Doe@Example.COM "),
            Some("jane.doe@example.com".into())
        );
        for bad in [
            "",
            "jane",
            "jane@",
            "@example.com",
            "jane@example",
            "ja ne@example.com",
            "a@b@c.com",
            "jane@-x.com",
        ] {
            assert_eq!(normalize_email(bad), None, "{bad:?} must be refused");
        }
    }

    #[test]
    fn timestamps_accept_integers_and_numeric_strings() {
        assert_eq!(
            <TimeStamp as ScalarType>::parse(Value::from(1_700_000_000)).unwrap(),
            TimeStamp(1_700_000_000)
        );
        assert_eq!(
            <TimeStamp as ScalarType>::parse(Value::from("1700000000")).unwrap(),
            TimeStamp(1_700_000_000)
        );
        assert!(<TimeStamp as ScalarType>::parse(Value::from("soon")).is_err());
    }

    #[test]
    fn string_enums_use_the_reference_spelling() {
        assert_eq!(
            <ActivityTypeEnum as ScalarType>::parse(Value::from("drive")).unwrap(),
            ActivityTypeEnum::Drive
        );
        assert!(<ActivityTypeEnum as ScalarType>::parse(Value::from("rest")).is_err());
        assert_eq!(ExpenditureTypeEnum::DayMeal.to_value(), Value::from("day_meal"));
        assert_eq!(
            <WarningToDisableTypeEnum as ScalarType>::parse(Value::from("employee-off-creation")).unwrap(),
            WarningToDisableTypeEnum::EmployeeOffCreation
        );
        assert!(<GenderEnum as ScalarType>::parse(Value::from("FEMALE")).is_err());
        assert_eq!(format!("{:?}", Password("secret".into())), "Password(***)");
    }

    #[test]
    fn short_months_are_year_and_month() {
        assert_eq!(
            <ShortMonth as ScalarType>::parse(Value::from("2025-02")).unwrap(),
            ShortMonth(NaiveDate::from_ymd_opt(2025, 2, 1).unwrap())
        );
        for bad in ["2025-13", "2025-2", "2025-02-01", "février"] {
            assert!(<ShortMonth as ScalarType>::parse(Value::from(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_iso() {
        assert!(<Date as ScalarType>::parse(Value::from("2026-11-22")).is_ok());
        assert!(<Date as ScalarType>::parse(Value::from("22/11/2026")).is_err());
        assert!(<Date as ScalarType>::parse(Value::from("2026-02-30")).is_err());
    }
}
