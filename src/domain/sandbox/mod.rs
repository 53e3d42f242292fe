//! Sandbox on day one: fills a sandbox company with demo workers and the 30 days before today of
//! missions, activities, locations, expenditures, comments, vehicles and validations (by the
//! workers and by an admin), including days that break the working-time rules, so that the
//! mission history, the regulatory alerts and the C1B export have something to show at once.
//!
//! What an integrator can rely on (`docs/src/clients/sandbox.md`):
//! - **sandbox only**: production refuses with AUTHORIZATION_ERROR (the CLI refuses too);
//! - **once per company**: a second seed is refused with INVALID_RESOURCE
//!   (`reason: SANDBOX_ALREADY_SEEDED`) and changes nothing. Demo data is a fixture: a second
//!   batch would double every alert and file, and the first batch's passwords are not shown
//!   again; a company that wants a fresh start signs up a new company;
//! - **all or nothing**: everything is written in one transaction (the recording itself runs
//!   through the domain functions of the mutations, with their rules and the regulation
//!   computations that validations trigger), with the company's claim on its seed, so a
//!   failure leaves nothing behind and two concurrent seeds cannot both succeed;
//! - **demo workers** have e-mails on the reserved `.invalid` domain (RFC 2606), receive no mail
//!   (their employments are recorded as accepted, without the notification), and get a random
//!   password each, returned once in the answer and stored as an argon2id hash, so that an
//!   integrator can log in as one of them (or through OAuth) to see the worker's side.
//!
//! [`plan`] decides the data (pure), [`day`] records one worker's day, [`seed`](self::seed)
//! runs the whole plan.

pub mod day;
pub mod plan;
mod seed;

pub use seed::{DemoWorker, SeedReport, SeededBreach, Seeder, seed};

/// The reserved domain of the demo workers' e-mails: `.invalid` never resolves, so nothing can
/// be delivered to these addresses even by mistake.
pub const DEMO_EMAIL_DOMAIN: &str = "demo.roadlog.invalid";

/// The demo workers' time zone: the plan's days are local days there.
pub const DEMO_TIME_ZONE: chrono_tz::Tz = chrono_tz::Europe::Paris;

pub mod sql {
    crate::statements! {
        /// `$1` company.
        pub const SEEDED: &str = "SELECT seeded_at, first_day, last_day FROM sandbox_seeds WHERE company_id = $1";
        pub const CLAIM: &str = "INSERT INTO sandbox_seeds (company_id, admin_id, seeded_at, first_day, last_day) \
             VALUES ($1, $2, $3, $4, $5)";
        /// The company's current admin with the oldest admin employment (`$2` today), for the
        /// operator's seed, which acts on no one's behalf.
        pub const FIRST_ADMIN: &str = "SELECT user_id FROM employments WHERE company_id = $1 AND user_id IS NOT NULL \
             AND has_admin_rights = 1 AND validation_status = 'approved' AND dismissed_at IS NULL \
             AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2) ORDER BY id LIMIT 1";
        /// The admin-side alerts of the demo workers (`$1` their ids as a JSON array), who have
        /// no data but the seeded days.
        pub const ALERTS: crate::db::PerBackend = crate::per_backend!(
            "SELECT COUNT(*) FROM regulatory_alerts WHERE submitter_type = 'admin' AND ",
            ["user_id" in 1]
        );
    }
}
