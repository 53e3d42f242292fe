//! What a company's records say about it as a whole: whether any time was ever recorded in it
//! (`Company.hasNoActivity`), and the establishments it stands for (`Company.sirets`).

use crate::db::Db;
use crate::errors::AppResult;

/// Records statements.
pub mod sql {
    crate::statements! {
        /// One activity, not cancelled, in a mission of company `$1`.
        pub const ANY_ACTIVITY: &str = "SELECT 1 FROM activities a JOIN missions m ON m.id = a.mission_id
             WHERE m.company_id = $1 AND a.dismissed_at IS NULL LIMIT 1";
        /// The SIRET of company `$1` (NULL: every establishment of its SIREN).
        pub const SIRET: &str = "SELECT siret FROM companies WHERE id = $1";
    }
}

/// `Company.hasNoActivity`: no activity that is not cancelled in any of its missions.
pub async fn has_no_activity(db: &Db, company_id: i64) -> AppResult<bool> {
    let any: Option<(i64,)> = sqlx::query_as(sql::ANY_ACTIVITY)
        .bind(company_id)
        .fetch_optional(&db.pool)
        .await?;
    Ok(any.is_none())
}

/// `Company.sirets`: the 14-digit SIRET the company was registered with, or none when it
/// stands for its whole SIREN.
pub async fn sirets(db: &Db, company_id: i64) -> AppResult<Vec<String>> {
    let row: Option<(Option<String>,)> = sqlx::query_as(sql::SIRET)
        .bind(company_id)
        .fetch_optional(&db.pool)
        .await?;
    Ok(row.and_then(|(siret,)| siret).into_iter().collect())
}
