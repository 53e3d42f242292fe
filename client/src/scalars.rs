//! The custom scalars of the GraphQL schema as Rust types, for cynic's derives: a field of type
//! `TimeStamp` is a [`TimeStamp`] in your `QueryFragment`. Each keeps the wire form (the formats
//! are described on the scalars in the SDL and on a server's `/docs` page); the enum-like
//! scalars stay strings, as the schema makes them scalars rather than enums.

/// `TimeStamp`: integer Unix seconds (UTC).
#[derive(cynic::Scalar, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cynic(graphql_type = "TimeStamp", schema_module = "crate::schema")]
pub struct TimeStamp(pub i64);

/// `Date`: a calendar date, `YYYY-MM-DD`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cynic(graphql_type = "Date", schema_module = "crate::schema")]
pub struct Date(pub String);

/// `Email`: an e-mail address (`local-part@domain`).
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "Email", schema_module = "crate::schema")]
pub struct Email(pub String);

/// `GenericScalar`: any JSON value.
#[derive(cynic::Scalar, Debug, Clone, PartialEq)]
#[cynic(graphql_type = "GenericScalar", schema_module = "crate::schema")]
pub struct GenericScalar(pub serde_json::Value);

/// `JSONString`: a string whose content is a JSON document.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "JSONString", schema_module = "crate::schema")]
pub struct JsonString(pub String);

/// `ShortMonth`: a month, `YYYY-MM`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cynic(graphql_type = "ShortMonth", schema_module = "crate::schema")]
pub struct ShortMonth(pub String);

/// `ActivityTypeEnum`: `drive`, `work`, `support`, `transfer` or `off`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "ActivityTypeEnum", schema_module = "crate::schema")]
pub struct ActivityTypeEnum(pub String);

/// `ExpenditureTypeEnum`: `day_meal`, `night_meal`, `sleep_over` or `snack`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "ExpenditureTypeEnum", schema_module = "crate::schema")]
pub struct ExpenditureTypeEnum(pub String);

/// `LocationEntryTypeEnum`: `mission_start_location` or `mission_end_location`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "LocationEntryTypeEnum", schema_module = "crate::schema")]
pub struct LocationEntryTypeEnum(pub String);

/// `OverValidationJustificationEnum`: `personal`, `professional` or `time_off`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "OverValidationJustificationEnum", schema_module = "crate::schema")]
pub struct OverValidationJustificationEnum(pub String);

/// `SubmitterTypeEnum`: `employee` or `admin`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "SubmitterTypeEnum", schema_module = "crate::schema")]
pub struct SubmitterTypeEnum(pub String);

/// `UnitTypeEnum`: `day` or `week`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "UnitTypeEnum", schema_module = "crate::schema")]
pub struct UnitTypeEnum(pub String);

/// `RegulationCheckTypeEnum`: the type of a regulatory check (`minimumDailyRest`, `euBreak`, …).
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "RegulationCheckTypeEnum", schema_module = "crate::schema")]
pub struct RegulationCheckTypeEnum(pub String);

/// `RegulationRuleEnum`: `dailyWork`, `dailyRest`, `weeklyWork` or `weeklyRest`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq, Hash)]
#[cynic(graphql_type = "RegulationRuleEnum", schema_module = "crate::schema")]
pub struct RegulationRuleEnum(pub String);
