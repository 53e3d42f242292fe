//! The typed GraphQL query of the application, checked against the schema at compile time by
//! cynic: the user, their most recent missions and the companies they administer.

use anyhow::{Context, anyhow, bail};
use cynic::QueryBuilder;
use cynic::http::ReqwestExt;
use roadlog_client::scalars::TimeStamp;
use roadlog_client::schema;

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Queries")]
struct MeQuery {
    me: Option<User>,
}

#[derive(cynic::QueryFragment, Debug)]
struct User {
    id: i32,
    first_name: String,
    last_name: String,
    #[arguments(first: 20)]
    missions: Option<MissionConnection>,
    admined_companies: Option<Vec<Option<Company>>>,
}

#[derive(cynic::QueryFragment, Debug)]
struct MissionConnection {
    edges: Vec<Option<MissionEdge>>,
}

#[derive(cynic::QueryFragment, Debug)]
struct MissionEdge {
    node: Option<Mission>,
}

/// A mission as the application shows it.
#[derive(cynic::QueryFragment, Debug)]
pub struct Mission {
    pub id: i32,
    pub name: Option<String>,
    pub company_id: i32,
    pub reception_time: TimeStamp,
}

/// A company the user administers.
#[derive(cynic::QueryFragment, Debug)]
pub struct Company {
    pub id: i32,
    pub name: Option<String>,
}

/// What the application read about its user.
pub struct Me {
    pub id: i32,
    pub first_name: String,
    pub last_name: String,
    pub missions: Vec<Mission>,
    pub admined_companies: Vec<Company>,
}

/// Runs the query with the user's access token.
pub async fn read(http: &reqwest::Client, server: &str, token: &str) -> anyhow::Result<Me> {
    let answer = http
        .post(format!("{server}/api/graphql"))
        .bearer_auth(token)
        .run_graphql(MeQuery::build(()))
        .await
        .context("the GraphQL request failed")?;
    if let Some(errors) = answer.errors.filter(|e| !e.is_empty()) {
        let messages: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
        bail!("the GraphQL query answered errors: {}", messages.join("; "));
    }
    let user = answer
        .data
        .and_then(|data| data.me)
        .ok_or_else(|| anyhow!("`me` is null: the token does not authenticate a user"))?;
    Ok(Me {
        id: user.id,
        first_name: user.first_name,
        last_name: user.last_name,
        missions: user
            .missions
            .map(|connection| {
                connection
                    .edges
                    .into_iter()
                    .flatten()
                    .filter_map(|edge| edge.node)
                    .collect()
            })
            .unwrap_or_default(),
        admined_companies: user
            .admined_companies
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect(),
    })
}
