//! The pages the floor's `shaped` field answers from memory: missions with every field the
//! benchmark's richer read cases ask for, built per request with values of the lengths of
//! Roadlog's seeded data, so that their cost is the executor's alone.

use async_graphql::SimpleObject;

/// A worker, as an activity's `user { id firstName lastName }` reads one.
#[derive(SimpleObject)]
struct Person {
    id: i64,
    first_name: String,
    last_name: String,
}

#[derive(SimpleObject)]
struct Vehicle {
    id: i64,
    registration_number: String,
    name: String,
}

#[derive(SimpleObject)]
struct Activity {
    id: i64,
    #[graphql(name = "type")]
    kind: &'static str,
    start_time: i64,
    end_time: Option<i64>,
    user_id: i64,
    submitter_id: i64,
    last_update_time: i64,
    user: Person,
}

#[derive(SimpleObject)]
struct Expenditure {
    id: i64,
    #[graphql(name = "type")]
    kind: &'static str,
    spending_date: String,
    user_id: i64,
}

#[derive(SimpleObject)]
struct Comment {
    id: i64,
    text: String,
    submitter_id: i64,
    reception_time: i64,
}

#[derive(SimpleObject)]
struct Validation {
    id: i64,
    user_id: i64,
    is_admin: bool,
    reception_time: i64,
}

/// A mission with every field the benchmark's month case reads.
#[derive(SimpleObject)]
struct Mission {
    id: i64,
    name: String,
    reception_time: i64,
    submitter_id: i64,
    is_ended_for_self: bool,
    vehicle: Vehicle,
    activities: Vec<Activity>,
    expenditures: Vec<Expenditure>,
    comments: Vec<Comment>,
    validations: Vec<Validation>,
}

#[derive(SimpleObject)]
struct MissionEdge {
    node: Mission,
}

#[derive(SimpleObject)]
pub struct MissionPage {
    edges: Vec<MissionEdge>,
}

/// Builds `first` missions of `activities` activities, `expenditures` expenditures, `comments`
/// comments and `validations` validations each, with values of the lengths Roadlog's seeded data
/// has (names, registration numbers, ISO dates), as resolvers would build them per request.
pub fn shaped_page(first: i32, activities: i32, expenditures: i32, comments: i32, validations: i32) -> MissionPage {
    const DAY: i64 = 86_400;
    const TYPES: [&str; 4] = ["drive", "work", "support", "transfer"];
    let count = |n: i32| 0..i64::from(n.clamp(0, 200));
    let edges = count(first)
        .map(|m| {
            let day = 1_790_812_800 - (m + 1) * DAY;
            let worker = 1_000 + m;
            MissionEdge {
                node: Mission {
                    id: 100_000 + m,
                    name: format!("Mission {m} of worker {worker}"),
                    reception_time: day + 6 * 3_600,
                    submitter_id: worker,
                    is_ended_for_self: true,
                    vehicle: Vehicle {
                        id: 10 + m % 7,
                        registration_number: format!("AB-{:03}-CD", m % 1_000),
                        name: format!("Truck {}", m % 7),
                    },
                    activities: count(activities)
                        .map(|a| Activity {
                            id: 1_000_000 + m * 10 + a,
                            kind: TYPES[(a % 4) as usize],
                            start_time: day + 6 * 3_600 + a * 5_400,
                            end_time: Some(day + 6 * 3_600 + (a + 1) * 5_400),
                            user_id: worker,
                            submitter_id: worker,
                            last_update_time: day + 18 * 3_600,
                            user: Person {
                                id: worker,
                                first_name: format!("Worker{worker}"),
                                last_name: format!("Driver{worker}"),
                            },
                        })
                        .collect(),
                    expenditures: count(expenditures)
                        .map(|e| Expenditure {
                            id: 500_000 + m * 10 + e,
                            kind: "snack",
                            spending_date: format!("2026-09-{:02}", 1 + m % 28),
                            user_id: worker,
                        })
                        .collect(),
                    comments: count(comments)
                        .map(|c| Comment {
                            id: 700_000 + m * 10 + c,
                            text: format!("Day {m}: delivery done, waited at the depot"),
                            submitter_id: worker,
                            reception_time: day + 18 * 3_600,
                        })
                        .collect(),
                    validations: count(validations)
                        .map(|v| Validation {
                            id: 900_000 + m * 10 + v,
                            user_id: worker,
                            is_admin: v % 2 == 1,
                            reception_time: day + 19 * 3_600 + v,
                        })
                        .collect(),
                },
            }
        })
        .collect();
    MissionPage { edges }
}
