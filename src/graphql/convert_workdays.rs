//! Days of work (`crate::domain::workdays`) as the contract's `WorkDayConnection`: the maps of
//! durations, expenditures and mission names as JSON objects (`GenericScalar`), as the reference
//! serves them.

use std::collections::HashMap;

use async_graphql::Context;
use serde_json::{Map, Value};

use crate::domain::workdays::{Flavor, Page};
use crate::errors::AppError;
use crate::graphql::contract::{PageInfo, User, WorkDayConnection, WorkDayEdge, WorkDayOutput};
use crate::graphql::loaders::users::load_user;
use crate::graphql::scalars::{Date, GenericScalar, TimeStamp};

fn seconds(n: i64) -> Option<i32> {
    Some(n.clamp(0, i64::from(i32::MAX)) as i32)
}

/// The page as a connection; the workers are read through the request's user loader, once each.
pub async fn connection(ctx: &Context<'_>, page: &Page, flavor: Flavor) -> Result<WorkDayConnection, AppError> {
    let mut users: HashMap<i64, Option<User>> = HashMap::new();
    for day in &page.days {
        if let std::collections::hash_map::Entry::Vacant(entry) = users.entry(day.day.user_id) {
            entry.insert(load_user(ctx, day.day.user_id).await?);
        }
    }
    let edges = page
        .days
        .iter()
        .map(|work_day| {
            let day = &work_day.day;
            let durations: Map<String, Value> = day
                .durations_by_type()
                .map(|(kind, d)| (kind.to_string(), Value::from(d)))
                .collect();
            let expenditures: Map<String, Value> = work_day
                .expenditures
                .iter()
                .map(|(kind, n)| (kind.to_string(), Value::from(*n)))
                .collect();
            let mission_names = match flavor {
                Flavor::User => Value::Array(
                    work_day
                        .mission_names
                        .iter()
                        .map(|(_, name)| name.clone().map_or(Value::Null, Value::String))
                        .collect(),
                ),
                Flavor::Company => Value::Object(
                    work_day
                        .mission_names
                        .iter()
                        .map(|(id, name)| (id.to_string(), name.clone().map_or(Value::Null, Value::String)))
                        .collect(),
                ),
            };
            Some(WorkDayEdge {
                node: Some(WorkDayOutput {
                    user: users.get(&day.user_id).cloned().flatten(),
                    user_id: Some(day.user_id as i32),
                    expenditures: Some(GenericScalar(Value::Object(expenditures))),
                    day: Some(Date(day.day)),
                    start_time: Some(TimeStamp(day.start_time)),
                    last_activity_start_time: day.last_activity_start.map(TimeStamp),
                    end_time: day.end_time.map(TimeStamp),
                    service_duration: seconds(day.service_duration),
                    total_work_duration: seconds(day.total_work_duration),
                    mission_names: Some(GenericScalar(mission_names)),
                    activity_durations: Some(GenericScalar(Value::Object(durations))),
                }),
                cursor: work_day.cursor.clone(),
            })
        })
        .collect();
    Ok(WorkDayConnection {
        page_info: PageInfo {
            has_next_page: page.has_next_page,
            has_previous_page: false,
            start_cursor: page.days.first().map(|d| d.cursor.clone()),
            end_cursor: page.days.last().map(|d| d.cursor.clone()),
        },
        edges,
    })
}
