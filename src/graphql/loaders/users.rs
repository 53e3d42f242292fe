//! Loads the users that a response mentions (submitters, employees, authors) in one query per
//! batch instead of one per object.

use std::collections::HashMap;

use async_graphql::Context;
use async_graphql::dataloader::Loader;

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::AppError;
use crate::graphql::contract::User;
use crate::graphql::convert::user_seen_by;

use crate::domain::users::accounts;

/// Batches user reads within one request.
pub struct UserLoader {
    pub db: Db,
    /// Who reads them (none when anonymous): see [`user_seen_by`].
    pub actor: Option<Actor>,
}

impl Loader<i64> for UserLoader {
    type Value = User;
    type Error = async_graphql::Error;

    async fn load(&self, keys: &[i64]) -> Result<HashMap<i64, User>, Self::Error> {
        let rows = accounts::find_many(&self.db, keys).await?;
        Ok(rows
            .into_iter()
            .map(|row| (row.id, user_seen_by(row, self.actor)))
            .collect())
    }
}

/// A user mentioned by an object the caller may already read.
pub async fn load_user(ctx: &Context<'_>, id: i64) -> Result<Option<User>, AppError> {
    // Users repeat across a response (the same driver on every activity): the loader keeps
    // those it loaded for the request.
    super::load::<UserLoader, _>(ctx, id).await
}
