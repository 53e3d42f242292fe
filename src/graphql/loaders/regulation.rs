//! The alerts behind `RegulationCheck.alert`. A check object carries only the check's own fields,
//! while its alert depends on the enclosing computation (worker, day, submitter type): the
//! `regulationChecks` resolver, which knows the computation, leaves each check's alert here,
//! keyed by the response path of its list, and `RegulationCheck.alert` reads it back by its own
//! path (`…regulationChecks.<index>.alert`). One stash per request.

use std::collections::HashMap;
use std::sync::Mutex;

use async_graphql::Context;
use async_graphql::context::{QueryPathNode, QueryPathSegment};

use crate::domain::alerts::read::AlertRow;
use crate::errors::AppError;

/// The alerts of the check lists of one request.
#[derive(Default)]
pub struct AlertStash(Mutex<HashMap<String, Vec<Option<AlertRow>>>>);

fn key(node: &QueryPathNode<'_>) -> String {
    let mut parts = vec![];
    let mut current = Some(node);
    while let Some(n) = current {
        parts.push(match n.segment {
            QueryPathSegment::Index(i) => i.to_string(),
            QueryPathSegment::Name(name) => name.to_string(),
        });
        current = n.parent;
    }
    parts.reverse();
    parts.join(".")
}

fn stash<'a>(ctx: &'a Context<'_>) -> Result<&'a AlertStash, AppError> {
    crate::graphql::RequestData::of(ctx)
        .map(|data| &data.alerts)
        .ok_or_else(|| AppError::internal("the alert stash is missing from the request"))
}

/// Leaves the alerts of the check list being resolved, in list order.
pub fn put(ctx: &Context<'_>, alerts: Vec<Option<AlertRow>>) -> Result<(), AppError> {
    let Some(node) = ctx.path_node else {
        return Ok(());
    };
    let mut map = stash(ctx)?
        .0
        .lock()
        .map_err(|_| AppError::internal("alert stash poisoned"))?;
    map.insert(key(&node), alerts);
    Ok(())
}

/// The alert of the check whose `alert` field is being resolved.
pub fn take(ctx: &Context<'_>) -> Result<Option<AlertRow>, AppError> {
    let Some(item) = ctx.path_node.and_then(|n| n.parent) else {
        return Ok(None);
    };
    let (QueryPathSegment::Index(index), Some(list)) = (item.segment, item.parent) else {
        return Ok(None);
    };
    let map = stash(ctx)?
        .0
        .lock()
        .map_err(|_| AppError::internal("alert stash poisoned"))?;
    Ok(map
        .get(&key(list))
        .and_then(|alerts| alerts.get(index).cloned().flatten()))
}
