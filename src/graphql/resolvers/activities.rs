//! `Mutations.activities`: missions, activities, expenditures, comments and locations, each
//! mutation one call to the domain.

use async_graphql::Context;

use crate::domain::activities::log::{self, ActivityEdit, NewActivity, lock_users};
use crate::domain::expenditures::{self, NewExpenditure};
use crate::errors::{AppError, AppResult};
use crate::graphql::contract::{
    ActivitiesResolver, Activity, BulkActivityItem, BulkExpenditureItem, Comment, Expenditure, LocationEntry, Mission,
    Vehicle, Void,
};
use crate::graphql::scalars::{
    ActivityTypeEnum, Date, ExpenditureTypeEnum, GenericScalar, LocationEntryTypeEnum, OverValidationJustificationEnum,
    TimeStamp,
};
use crate::graphql::{Api, caller};

use crate::domain::missions::{comments, locations, permissions, store, validation, vehicles};
use crate::graphql::convert::ToGraphql;

fn name(raw: &str) -> AppResult<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(AppError::invalid_inputs("A mission name has between 1 and 255 characters").with("field", "name"));
    }
    Ok(name.to_string())
}

impl Api {
    async fn mission_object(&self, id: i64, viewer: i64) -> AppResult<Mission> {
        Ok(store::load_one(&self.db, id, viewer).await?.to_graphql())
    }

    /// Runs `work` in a write transaction with the rows of `users` locked first.
    async fn write<T, F>(&self, mut users: Vec<i64>, work: F) -> AppResult<T>
    where
        F: for<'c> FnOnce(&'c mut sqlx::AnyConnection) -> futures::future::BoxFuture<'c, AppResult<T>>,
    {
        let mut tx = self.db.begin_write().await?;
        lock_users(&mut tx, &mut users).await?;
        let value = work(&mut tx).await?;
        tx.commit().await?;
        Ok(value)
    }
}

/// One correction of `validateMission`: a mission-level write check only (an admin corrects
/// activities that someone else recorded).
async fn bulk_item(
    conn: &mut sqlx::AnyConnection,
    actor: i64,
    mission_id: i64,
    item: &BulkActivityItem,
) -> AppResult<()> {
    let given = [item.log.is_some(), item.edit.is_some(), item.cancel.is_some()]
        .iter()
        .filter(|x| **x)
        .count();
    if given != 1 {
        return Err(AppError::invalid_inputs(
            "Each activity item holds exactly one of log, edit or cancel",
        ));
    }
    if let Some(new) = &item.log {
        if i64::from(new.mission_id) != mission_id {
            return Err(AppError::invalid_inputs(
                "activityItems must concern the validated mission",
            ));
        }
        let new = NewActivity {
            mission_id,
            user_id: new.user_id.map(i64::from),
            kind: new.r#type,
            start: new.start_time.0,
            end: new.end_time.map(|t| t.0),
            switch: new.switch.unwrap_or(new.end_time.is_none()),
            context: new.context.clone().map(|c| c.0),
            creation_time: new.creation_time.map(|t| t.0),
        };
        log::log(conn, actor, &new, false).await?;
    }
    if let Some(edit) = &item.edit {
        let edit = ActivityEdit {
            activity_id: edit.activity_id.into(),
            start: edit.start_time.map(|t| t.0),
            end: edit.end_time.map(|t| t.0),
            remove_end: edit.remove_end_time.unwrap_or(false),
            context: edit.context.clone().map(|c| c.0),
            creation_time: edit.creation_time.map(|t| t.0),
        };
        ensure_in_mission(conn, edit.activity_id, mission_id).await?;
        log::edit(conn, actor, &edit, false).await?;
    }
    if let Some(cancel) = &item.cancel {
        ensure_in_mission(conn, cancel.activity_id.into(), mission_id).await?;
        log::cancel(
            conn,
            actor,
            cancel.activity_id.into(),
            cancel.context.as_ref().map(|c| &c.0),
            false,
        )
        .await?;
    }
    Ok(())
}

async fn ensure_in_mission(conn: &mut sqlx::AnyConnection, activity_id: i64, mission_id: i64) -> AppResult<()> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT mission_id FROM activities WHERE id = $1")
        .bind(activity_id)
        .fetch_optional(conn)
        .await?;
    match row {
        Some((m,)) if m == mission_id => Ok(()),
        _ => Err(AppError::invalid_inputs(
            "activityItems must concern the validated mission",
        )),
    }
}

impl Api {
    async fn worker_of_activity(&self, activity_id: i64) -> AppResult<Vec<i64>> {
        let mut conn = self.db.pool.acquire().await?;
        Ok(log::worker_of(&mut conn, activity_id).await?.into_iter().collect())
    }
}

#[async_trait::async_trait]
impl ActivitiesResolver for Api {
    async fn create_mission(
        &self,
        ctx: &Context<'_>,
        company_id: i32,
        context: Option<GenericScalar>,
        creation_time: Option<TimeStamp>,
        name: Option<String>,
        past_registration_justification: Option<String>,
        vehicle_id: Option<i32>,
        vehicle_registration_number: Option<String>,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).user_id()?;
        let name = name.as_deref().map(self::name).transpose()?;
        let company_id = i64::from(company_id);
        let id = self
            .write(vec![], move |conn| {
                Box::pin(async move {
                    permissions::can_create(conn, actor, company_id).await?;
                    let vehicle =
                        vehicles::resolve(conn, company_id, vehicle_id, vehicle_registration_number.as_deref()).await?;
                    let new = store::NewMission {
                        company_id,
                        submitter_id: actor,
                        name: name.as_deref(),
                        context: context.as_ref().map(|c| &c.0),
                        vehicle_id: vehicle.map(|v| v.id),
                        creation_time: creation_time.map(|t| t.0),
                        past_registration_justification: past_registration_justification.as_deref(),
                    };
                    store::insert(conn, &new).await
                })
            })
            .await?;
        Ok(Some(self.mission_object(id, actor).await?))
    }

    async fn log_activity(
        &self,
        ctx: &Context<'_>,
        context: Option<GenericScalar>,
        creation_time: Option<TimeStamp>,
        end_time: Option<TimeStamp>,
        mission_id: i32,
        start_time: TimeStamp,
        switch: Option<bool>,
        r#type: ActivityTypeEnum,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).user_id()?;
        let new = NewActivity {
            mission_id: mission_id.into(),
            user_id: user_id.map(i64::from),
            kind: r#type,
            start: start_time.0,
            end: end_time.map(|t| t.0),
            switch: switch.unwrap_or(true),
            context: context.map(|c| c.0),
            creation_time: creation_time.map(|t| t.0),
        };
        let worker = new.user_id.unwrap_or(actor);
        let row = self
            .write(vec![worker], move |conn| {
                Box::pin(async move { log::log(conn, actor, &new, true).await })
            })
            .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn edit_activity(
        &self,
        ctx: &Context<'_>,
        activity_id: i32,
        context: Option<GenericScalar>,
        creation_time: Option<TimeStamp>,
        end_time: Option<TimeStamp>,
        remove_end_time: Option<bool>,
        start_time: Option<TimeStamp>,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).user_id()?;
        let edit = ActivityEdit {
            activity_id: activity_id.into(),
            start: start_time.map(|t| t.0),
            end: end_time.map(|t| t.0),
            remove_end: remove_end_time.unwrap_or(false),
            context: context.map(|c| c.0),
            creation_time: creation_time.map(|t| t.0),
        };
        let worker = self.worker_of_activity(edit.activity_id).await?;
        let row = self
            .write(worker, move |conn| {
                Box::pin(async move { log::edit(conn, actor, &edit, true).await })
            })
            .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn cancel_activity(
        &self,
        ctx: &Context<'_>,
        activity_id: i32,
        context: Option<GenericScalar>,
        _creation_time: Option<TimeStamp>,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).user_id()?;
        let id = i64::from(activity_id);
        let worker = self.worker_of_activity(id).await?;
        self.write(worker, move |conn| {
            Box::pin(async move { log::cancel(conn, actor, id, context.as_ref().map(|c| &c.0), true).await })
        })
        .await?;
        Ok(Some(Void { success: true }))
    }

    async fn end_mission(
        &self,
        ctx: &Context<'_>,
        _creation_time: Option<TimeStamp>,
        end_time: TimeStamp,
        mission_id: i32,
        _past_registration_justification: Option<String>,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).user_id()?;
        let worker = user_id.map(i64::from).unwrap_or(actor);
        let mission = i64::from(mission_id);
        self.write(vec![worker], move |conn| {
            Box::pin(async move { validation::end_mission(conn, actor, mission, end_time.0, Some(worker)).await })
        })
        .await?;
        Ok(Some(self.mission_object(mission, actor).await?))
    }

    async fn validate_mission(
        &self,
        ctx: &Context<'_>,
        activity_items: Option<Vec<Option<BulkActivityItem>>>,
        creation_time: Option<TimeStamp>,
        expenditures_cancel_ids: Option<Vec<Option<i32>>>,
        expenditures_inputs: Option<Vec<Option<BulkExpenditureItem>>>,
        justification: Option<OverValidationJustificationEnum>,
        mission_id: i32,
        users_ids: Vec<Option<i32>>,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).user_id()?;
        let mission = i64::from(mission_id);
        let users: Vec<i64> = users_ids.into_iter().flatten().map(i64::from).collect();
        let items: Vec<BulkActivityItem> = activity_items.into_iter().flatten().flatten().collect();
        let cancels: Vec<i64> = expenditures_cancel_ids
            .into_iter()
            .flatten()
            .flatten()
            .map(i64::from)
            .collect();
        let inputs: Vec<BulkExpenditureItem> = expenditures_inputs.into_iter().flatten().flatten().collect();
        // Every worker the corrections touch is locked, with the validated ones.
        let mut workers = users.clone();
        for item in &items {
            if let Some(new) = &item.log {
                workers.push(new.user_id.map(i64::from).unwrap_or(actor));
            }
            for id in [
                item.edit.as_ref().map(|e| e.activity_id),
                item.cancel.as_ref().map(|c| c.activity_id),
            ]
            .into_iter()
            .flatten()
            {
                workers.extend(self.worker_of_activity(id.into()).await?);
            }
        }
        let mut conn = self.db.pool.acquire().await?;
        for id in &cancels {
            workers.extend(expenditures::worker_of(&mut conn, *id).await?);
        }
        drop(conn);
        workers.extend(inputs.iter().map(|i| i.user_id.map(i64::from).unwrap_or(actor)));
        self.write(workers, move |conn| {
            Box::pin(async move {
                let mission_row = permissions::readable(conn, actor, mission).await?;
                for item in &items {
                    bulk_item(conn, actor, mission_row.id, item).await?;
                }
                for id in &cancels {
                    expenditures::cancel(conn, actor, *id).await?;
                }
                for input in &inputs {
                    if i64::from(input.mission_id) != mission_row.id {
                        return Err(AppError::invalid_inputs(
                            "expendituresInputs must concern the validated mission",
                        ));
                    }
                    let new = NewExpenditure {
                        mission_id: input.mission_id.into(),
                        user_id: input.user_id.map(i64::from),
                        kind: input.r#type,
                        spending_date: input.spending_date.0,
                        creation_time: input.creation_time.map(|t| t.0),
                    };
                    expenditures::log(conn, actor, &new).await?;
                }
                validation::validate(conn, actor, mission, &users, justification, creation_time.map(|t| t.0)).await
            })
        })
        .await?;
        Ok(Some(self.mission_object(mission, actor).await?))
    }

    async fn log_expenditure(
        &self,
        ctx: &Context<'_>,
        creation_time: Option<TimeStamp>,
        mission_id: i32,
        spending_date: Date,
        r#type: ExpenditureTypeEnum,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Expenditure>> {
        let actor = caller(ctx).user_id()?;
        let new = NewExpenditure {
            mission_id: mission_id.into(),
            user_id: user_id.map(i64::from),
            kind: r#type,
            spending_date: spending_date.0,
            creation_time: creation_time.map(|t| t.0),
        };
        let worker = new.user_id.unwrap_or(actor);
        let row = self
            .write(vec![worker], move |conn| {
                Box::pin(async move { expenditures::log(conn, actor, &new).await })
            })
            .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn cancel_expenditure(&self, ctx: &Context<'_>, expenditure_id: i32) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).user_id()?;
        let id = i64::from(expenditure_id);
        let mut conn = self.db.pool.acquire().await?;
        let worker = expenditures::worker_of(&mut conn, id).await?;
        drop(conn);
        let worker = worker.ok_or_else(|| AppError::authorization("Forbidden access"))?;
        self.write(vec![worker], move |conn| {
            Box::pin(async move { expenditures::cancel(conn, actor, id).await })
        })
        .await?;
        Ok(Some(Void { success: true }))
    }

    async fn log_comment(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        text: String,
    ) -> async_graphql::Result<Option<Comment>> {
        let actor = caller(ctx).user_id()?;
        let mut conn = self.db.pool.acquire().await?;
        Ok(Some(
            comments::log(&mut conn, actor, mission_id.into(), &text)
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_comment(&self, ctx: &Context<'_>, comment_id: i32) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).user_id()?;
        let mut conn = self.db.pool.acquire().await?;
        comments::cancel(&mut conn, actor, comment_id.into()).await?;
        Ok(Some(Void { success: true }))
    }

    async fn log_location(
        &self,
        ctx: &Context<'_>,
        company_known_address_id: Option<i32>,
        _creation_time: Option<TimeStamp>,
        geo_api_data: Option<GenericScalar>,
        kilometer_reading: Option<i32>,
        manual_address: Option<String>,
        mission_id: i32,
        override_existing: Option<bool>,
        r#type: LocationEntryTypeEnum,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        let actor = caller(ctx).user_id()?;
        let address = locations::address(manual_address, geo_api_data.map(|g| g.0), company_known_address_id)?;
        let mission = i64::from(mission_id);
        let row = self
            .write(vec![actor], move |conn| {
                Box::pin(async move {
                    locations::log(
                        conn,
                        actor,
                        mission,
                        r#type,
                        address,
                        kilometer_reading,
                        override_existing.unwrap_or(false),
                    )
                    .await
                })
            })
            .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn change_mission_name(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        name: String,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).user_id()?;
        let name = self::name(&name)?;
        let mission = i64::from(mission_id);
        self.write(vec![actor], move |conn| {
            Box::pin(async move {
                permissions::writable(conn, actor, mission, actor, crate::db::now(), None).await?;
                sqlx::query("UPDATE missions SET name = $2 WHERE id = $1")
                    .bind(mission)
                    .bind(&name)
                    .execute(conn)
                    .await?;
                Ok(())
            })
        })
        .await?;
        Ok(Some(self.mission_object(mission, actor).await?))
    }

    async fn cancel_mission(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        user_id: i32,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).user_id()?;
        let (mission, worker) = (i64::from(mission_id), i64::from(user_id));
        self.write(vec![worker], move |conn| {
            Box::pin(async move {
                let span: (Option<i64>, Option<i64>) = sqlx::query_as(
                    "SELECT MIN(start_time), MAX(COALESCE(end_time, start_time)) FROM activities
                     WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
                )
                .bind(mission)
                .bind(worker)
                .fetch_one(&mut *conn)
                .await?;
                let start = span.0.unwrap_or_else(crate::db::now);
                permissions::writable(conn, actor, mission, worker, start, span.1).await?;
                let live: Vec<(i64,)> = sqlx::query_as(
                    "SELECT id FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
                )
                .bind(mission)
                .bind(worker)
                .fetch_all(&mut *conn)
                .await?;
                for (id,) in live {
                    log::dismiss(conn, actor, id, None).await?;
                }
                sqlx::query(
                    "UPDATE expenditures SET dismissed_at = $3, dismiss_author_id = $4
                     WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
                )
                .bind(mission)
                .bind(worker)
                .bind(crate::db::now())
                .bind(actor)
                .execute(conn)
                .await?;
                Ok(())
            })
        })
        .await?;
        Ok(Some(self.mission_object(mission, actor).await?))
    }

    async fn update_mission_vehicle(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        vehicle_id: Option<i32>,
        vehicle_registration_number: Option<String>,
    ) -> async_graphql::Result<Option<Vehicle>> {
        let actor = caller(ctx).user_id()?;
        if vehicle_id.is_none() && vehicle_registration_number.is_none() {
            return Err(AppError::invalid_inputs("Either vehicleId or vehicleRegistrationNumber should be set").into());
        }
        let mission = i64::from(mission_id);
        let vehicle = self
            .write(vec![actor], move |conn| {
                Box::pin(async move {
                    let access = permissions::writable(conn, actor, mission, actor, crate::db::now(), None).await?;
                    let vehicle = vehicles::resolve(
                        conn,
                        access.mission.company_id,
                        vehicle_id,
                        vehicle_registration_number.as_deref(),
                    )
                    .await?
                    .ok_or_else(|| {
                        AppError::invalid_inputs("Unknown vehicle for this company").with("field", "vehicleId")
                    })?;
                    sqlx::query("UPDATE missions SET vehicle_id = $2 WHERE id = $1")
                        .bind(mission)
                        .bind(vehicle.id)
                        .execute(conn)
                        .await?;
                    Ok(vehicle)
                })
            })
            .await?;
        Ok(Some(vehicle.to_graphql()))
    }
}
