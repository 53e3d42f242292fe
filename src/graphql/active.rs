//! Production only: an account whose e-mail address is not confirmed cannot act on a company, as
//! in the reference (`active(user)`: "Actor is not active. The email activation is required to
//! perform mutations."). Every mutation is refused for it with AUTHORIZATION_ERROR, except logging
//! in (`auth`), creating the account (`signUp.user`), redeeming an invitation
//! (`signUp.redeemInvite`, which confirms the address it was sent to) and the mutations of the
//! caller's own account (`account`, as the reference: a user who mistyped a new address in
//! `changeEmail` corrects it there). Only production's
//! mutations run on a schema with this extension (`build_executors`: queries never need it, and
//! any extension slows every field); the sandbox does not install it: integrators' test
//! accounts act at once (the book says so: `docs/src/clients/account-pages.md`).
//!
//! The refusal is the field's: `null` in `data` at its place and an error with its path, like a
//! resolver's. The extension cannot add errors itself, so it hands them to the HTTP layer through
//! [`Refusals`], which appends them to the response.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextResolve, ResolveInfo};
use async_graphql::{PathSegment, ServerError, ServerResult, Value};

use crate::db::Db;
use crate::domain::auth::Caller;
use crate::domain::users::confirmation;
use crate::errors::AppError;

/// Errors of refused fields, collected during one operation (placed in the request's data).
#[derive(Clone, Default, Debug)]
pub struct Refusals(pub Arc<Mutex<Vec<ServerError>>>);

impl Refusals {
    /// The errors collected, emptied.
    pub fn take(&self) -> Vec<ServerError> {
        self.0
            .lock()
            .map(|mut errors| std::mem::take(&mut *errors))
            .unwrap_or_default()
    }
}

pub(super) struct ActiveAccount {
    pub db: Db,
}

impl ExtensionFactory for ActiveAccount {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(ActiveAccountExtension {
            db: self.db.clone(),
            in_mutation: AtomicBool::new(false),
        })
    }
}

/// One per request.
struct ActiveAccountExtension {
    db: Db,
    /// Set when a root field of `Mutations` runs (mutations run one after the other, their
    /// fields inside their root field).
    in_mutation: AtomicBool,
}

/// A field of `Mutations` that groups mutations (`employments: Employments`): its type is its
/// own name, capitalised.
fn is_namespace(name: &str, return_type: &str) -> bool {
    let mut chars = name.chars();
    let capitalised: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    return_type.trim_end_matches('!') == capitalised
}

/// Whether a field is a mutation that needs an active account, from its place: a root field of
/// `Mutations` that is not a namespace, or a field of a namespace of `Mutations` (`in_mutation`:
/// the operation is a mutation), except the allowed ones.
fn needs_active(info: &ResolveInfo<'_>, in_mutation: bool) -> bool {
    match info.path_node.parent {
        None => {
            info.parent_type == "Mutations"
                && !is_namespace(info.name, info.return_type)
                && !matches!(info.name, "auth" | "signUp")
        }
        Some(root) if root.parent.is_none() && in_mutation => {
            let async_graphql::context::QueryPathSegment::Name(root_name) = root.segment else {
                return false;
            };
            is_namespace(root_name, info.parent_type)
                && !matches!(root_name, "auth" | "account")
                && !(root_name == "signUp" && matches!(info.name, "user" | "redeemInvite"))
        }
        Some(_) => false,
    }
}

#[async_trait::async_trait]
impl Extension for ActiveAccountExtension {
    async fn resolve(
        &self,
        ctx: &ExtensionContext<'_>,
        info: ResolveInfo<'_>,
        next: NextResolve<'_>,
    ) -> ServerResult<Option<Value>> {
        if info.path_node.parent.is_none() {
            self.in_mutation
                .store(info.parent_type == "Mutations", Ordering::SeqCst);
        }
        if info.is_for_introspection || !needs_active(&info, self.in_mutation.load(Ordering::SeqCst)) {
            return next.run(ctx, info).await;
        }
        let data = ctx.data_opt::<super::RequestData>();
        let Some(Caller::User { user_id, .. }) = data.map(|d| &d.caller) else {
            // Anonymous or rejected: the resolver answers AUTHENTICATION_ERROR itself.
            return next.run(ctx, info).await;
        };
        let refusal = match confirmation::is_confirmed(data.map_or(&self.db, |d| &d.db), *user_id).await {
            Ok(true) => return next.run(ctx, info).await,
            Ok(false) => AppError::authorization(confirmation::NOT_ACTIVE),
            Err(error) => error,
        };
        let mut error = async_graphql::Error::from(refusal).into_server_error(info.field.name.pos);
        // The path from the root: the node and its parents, reversed.
        let mut path: Vec<PathSegment> = std::iter::once(info.path_node)
            .chain(info.path_node.parents())
            .map(|node| match node.segment {
                async_graphql::context::QueryPathSegment::Name(name) => PathSegment::Field(name.to_string()),
                async_graphql::context::QueryPathSegment::Index(index) => PathSegment::Index(index),
            })
            .collect();
        path.reverse();
        error.path = path;
        match data.map(|d| &d.refusals) {
            Some(refusals) => {
                if let Ok(mut errors) = refusals.0.lock() {
                    errors.push(error);
                }
                Ok(Some(Value::Null))
            }
            None => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn namespaces_are_named_after_their_type() {
        assert!(super::is_namespace("employments", "Employments"));
        assert!(super::is_namespace("signUp", "SignUp"));
        assert!(!super::is_namespace("updateCompanyDetails", "Company"));
        assert!(!super::is_namespace("seedSandboxCompany", "SandboxSeedOutput!"));
    }
}
