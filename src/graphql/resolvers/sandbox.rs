//! `Mutations.seedSandboxCompany` (Roadlog extension): the caller's seed of demo data, and the
//! domain's report as the contract's `SandboxSeedOutput`.

use async_graphql::Context;

use crate::app::App;
use crate::domain::sandbox::{self, SeedReport, Seeder};
use crate::graphql::caller;
use crate::graphql::contract::{SandboxBreach, SandboxDemoWorker, SandboxSeedOutput};
use crate::graphql::scalars::{Date, Email};

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn id(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Seeds the company on behalf of the caller, who must be one of its admins.
pub(super) async fn seed(app: &App, ctx: &Context<'_>, company_id: i32) -> async_graphql::Result<SandboxSeedOutput> {
    let actor = caller(ctx).actor()?;
    let report = sandbox::seed(app.db(ctx), app.environment, company_id.into(), Seeder::Admin(actor)).await?;
    Ok(output(report))
}

fn output(report: SeedReport) -> SandboxSeedOutput {
    SandboxSeedOutput {
        company_id: id(report.company_id),
        first_day: Date(report.first_day),
        last_day: Date(report.last_day),
        workers: report
            .workers
            .into_iter()
            .map(|w| SandboxDemoWorker {
                id: id(w.id),
                email: Email(w.email),
                first_name: w.first_name,
                last_name: w.last_name,
                password: w.password,
                profile: w.profile,
            })
            .collect(),
        nb_missions: count(report.missions),
        nb_activities: count(report.activities),
        nb_expenditures: count(report.expenditures),
        nb_comments: count(report.comments),
        nb_vehicles: count(report.vehicles),
        nb_worker_validations: count(report.worker_validations),
        nb_admin_validations: count(report.admin_validations),
        nb_alerts: i32::try_from(report.alerts).unwrap_or(i32::MAX),
        breaches: report
            .breaches
            .into_iter()
            .map(|b| SandboxBreach {
                user_id: id(b.user_id),
                day: Date(b.day),
                r#type: b.check,
            })
            .collect(),
    }
}
