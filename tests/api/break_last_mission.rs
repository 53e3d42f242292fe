//! `User.hadEnoughBreakLastMission` over the real HTTP API, on both databases: true without a
//! validated mission, false after the worker validates a day without enough breaks, true again
//! after a later mission with its breaks; the user himself only.

use serde_json::json;

use crate::regulation::{company, day, mission, validate};
use crate::support::codes;

const HOUR: i64 = 3600;
const QUERY: &str = "query($u: Int!) { user(id: $u) { hadEnoughBreakLastMission } }";

on_both_backends! {
    async fn the_last_validated_mission_had_enough_break_or_not(app) {
        let c = company(app).await;
        let read = |body: serde_json::Value| body["data"]["user"]["hadEnoughBreakLastMission"].clone();
        assert_eq!(read(app.as_user(&c.worker, QUERY, json!({ "u": c.worker.id })).await), json!(true));

        // Seven hours of driving without a break, validated by the worker.
        let long = mission(app, &c.worker, c.id, &[("drive", day(3) + 7 * HOUR, day(3) + 14 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        assert_eq!(read(app.as_user(&c.worker, QUERY, json!({ "u": c.worker.id })).await), json!(false));

        // A later mission with its break.
        let fine = mission(
            app,
            &c.worker,
            c.id,
            &[("drive", day(1) + 7 * HOUR, day(1) + 11 * HOUR), ("work", day(1) + 12 * HOUR, day(1) + 15 * HOUR)],
        )
        .await;
        validate(app, &c.worker, fine, &c.worker).await;
        assert_eq!(read(app.as_user(&c.worker, QUERY, json!({ "u": c.worker.id })).await), json!(true));

        // The user himself only.
        let body = app.as_user(&c.admin, QUERY, json!({ "u": c.worker.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
    }
}
