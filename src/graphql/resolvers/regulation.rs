//! `RegulationComputation`, `RegulationCheck` and `RegulatoryAlert`: a computation's checks with
//! their alerts, and each alert's explanation (Roadlog extension).

use async_graphql::Context;

use crate::app::App;
use crate::domain::alerts::read;
use crate::graphql::contract::{
    RegulationCheck, RegulationCheckResolver, RegulationComputation, RegulationComputationRegulationChecksArgs,
    RegulationComputationResolver, RegulatoryAlert, RegulatoryAlertExplanation, RegulatoryAlertResolver, User,
};
use crate::graphql::convert_regulation::check;
use crate::graphql::loaders::regulation as stash;

#[async_trait::async_trait]
impl RegulationComputationResolver for App {
    async fn user(&self, ctx: &Context<'_>, parent: &RegulationComputation) -> async_graphql::Result<Option<User>> {
        match parent.user_id {
            Some(id) => Ok(crate::graphql::loaders::users::load_user(ctx, id.into()).await?),
            None => Ok(None),
        }
    }

    async fn regulation_checks(
        &self,
        ctx: &Context<'_>,
        parent: &RegulationComputation,
        args: RegulationComputationRegulationChecksArgs,
    ) -> async_graphql::Result<Option<Vec<Option<RegulationCheck>>>> {
        let Some(id) = parent.id else {
            return Ok(None);
        };
        let row = read::ComputationRow {
            id: id.into(),
            creation_time: parse_creation(&parent.creation_time.0),
            day: parent.day.0.format("%Y-%m-%d").to_string(),
            submitter_type: parent.submitter_type.as_str().to_string(),
            user_id: parent.user_id.map(i64::from).unwrap_or_default(),
        };
        let extensions = read::eu_worker(self.db(ctx), row.user_id).await?;
        let checks = row.checks(args.unit, extensions);
        if checks.is_empty() {
            return Ok(None);
        }
        let alerts = read::alerts_of(self.db(ctx), &row).await?;
        let matched: Vec<Option<read::AlertRow>> = checks
            .iter()
            .map(|c| {
                alerts
                    .iter()
                    .find(|a| a.content.check_type == c.check_type.as_str())
                    .cloned()
            })
            .collect();
        let objects = checks
            .iter()
            .zip(&matched)
            .map(|(c, a)| Some(check(c, a.as_ref())))
            .collect();
        stash::put(ctx, matched)?;
        Ok(Some(objects))
    }
}

/// Reads back the instant of `creationTime` (a JSON string of a UTC time without offset).
fn parse_creation(json: &str) -> i64 {
    serde_json::from_str::<String>(json)
        .ok()
        .and_then(|text| chrono::NaiveDateTime::parse_from_str(&text, "%Y-%m-%dT%H:%M:%S").ok())
        .map(|t| t.and_utc().timestamp())
        .unwrap_or_default()
}

#[async_trait::async_trait]
impl RegulationCheckResolver for App {
    async fn alert(
        &self,
        ctx: &Context<'_>,
        _parent: &RegulationCheck,
    ) -> async_graphql::Result<Option<RegulatoryAlert>> {
        Ok(stash::take(ctx)?.as_ref().map(RegulatoryAlert::from))
    }
}

#[async_trait::async_trait]
impl RegulatoryAlertResolver for App {
    async fn explanation(
        &self,
        ctx: &Context<'_>,
        parent: &RegulatoryAlert,
    ) -> async_graphql::Result<Option<RegulatoryAlertExplanation>> {
        let Some(id) = parent.id else {
            return Ok(None);
        };
        Ok(read::alert(self.db(ctx), id.into())
            .await?
            .map(|row| RegulatoryAlertExplanation::from(&row.explanation())))
    }
}
