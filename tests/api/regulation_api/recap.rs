//! The month's recap: the same counts with and without the days' details, the company's day
//! counts under concurrent validations and without its former workers, and the other companies
//! of a worker named on their alerted days.

use super::*;

on_both_backends! {
    async fn the_recap_counts_alike_with_and_without_day_details(app) {
        // Without `dayDetails` the recap counts from the month summaries; with them, from the
        // alerts: both must agree, over whole months and over a period across two months, and
        // both follow an admin's cancellation.
        let c = company(app).await;
        let days = [day(45), day(40), day(12), day(10), day(8)];
        let mut missions = vec![];
        for d in days {
            let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
            validate(app, &c.worker, long, &c.worker).await;
            validate(app, &c.admin, long, &c.worker).await;
            missions.push(long);
        }
        let counts = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date) { company(id: $c) { \
            regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t) { hasAnyComputation month totalNbAlerts \
            totalNbAlertsPreviousMonth dailyAlerts { alertsType nbAlerts days } weeklyAlerts { alertsType nbAlerts days } } } }";
        let detailed = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date) { company(id: $c) { \
            regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t) { hasAnyComputation month totalNbAlerts \
            totalNbAlertsPreviousMonth dailyAlerts { alertsType nbAlerts days dayDetails { day userId } } \
            weeklyAlerts { alertsType nbAlerts days dayDetails { day userId } } } } }";
        let without_details = |mut recap: Value| {
            for kind in ["dailyAlerts", "weeklyAlerts"] {
                for group in recap[kind].as_array_mut().unwrap() {
                    group.as_object_mut().unwrap().remove("dayDetails");
                }
            }
            recap
        };
        let admin = &c.admin;
        let both = |variables: Value| async move {
            let plain = app.as_user(admin, counts, variables.clone()).await;
            let full = app.as_user(admin, detailed, variables).await;
            assert!(plain["errors"].is_null() && full["errors"].is_null(), "{plain} {full}");
            let plain = plain["data"]["company"]["regulatoryAlertsRecap"].clone();
            let full = full["data"]["company"]["regulatoryAlertsRecap"].clone();
            assert_eq!(plain, without_details(full), "summaries and alerts disagree");
            plain
        };
        let alerted_days = |recap: &Value| -> Vec<String> {
            let mut days: Vec<String> = recap["dailyAlerts"][1]["days"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_string())
                .collect();
            days.sort();
            days
        };
        // Each alerted day in the recap of its month (13 h of driving: maximumWorkDayTime),
        // and the month before counted as the previous month.
        let last_month = month_of(&date(days[4]));
        let recap = both(json!({ "c": c.id, "m": last_month })).await;
        let in_last_month: Vec<String> =
            days.iter().map(|d| date(*d)).filter(|d| month_of(d) == last_month).collect();
        assert_eq!(alerted_days(&recap), in_last_month, "{recap}");
        assert_eq!(recap["totalNbAlerts"], 3 * in_last_month.len() as i64 + weekly_total(&recap));
        let (year, number): (i32, u32) = (last_month[..4].parse().unwrap(), last_month[5..].parse().unwrap());
        let month_before = if number == 1 { format!("{}-12", year - 1) } else { format!("{year}-{:02}", number - 1) };
        let previous = both(json!({ "c": c.id, "m": month_before })).await;
        assert_eq!(recap["totalNbAlertsPreviousMonth"], previous["totalNbAlerts"]);
        // A period across two months: from the second day (included) to the fourth (excluded).
        let period = both(json!({ "c": c.id, "m": last_month, "f": date(days[1]), "t": date(days[3]) })).await;
        let expected: Vec<String> = days[1..3].iter().map(|d| date(*d)).collect();
        assert_eq!(alerted_days(&period), expected, "{period}");
        assert_eq!(period["totalNbAlertsPreviousMonth"], 0);

        // The admin cancels the worker's time on the fourth day: its alerts go, in both ways.
        let body = app.as_user(&c.admin, CANCEL, json!({ "m": missions[3], "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let recap = both(json!({ "c": c.id, "m": month_of(&date(days[3])) })).await;
        assert!(!alerted_days(&recap).contains(&date(days[3])), "{recap}");
        let period = both(json!({ "c": c.id, "m": last_month, "f": date(days[0]), "t": date(days[4] + 86_400) })).await;
        let expected: Vec<String> = [days[0], days[1], days[2], days[4]].iter().map(|d| date(*d)).collect();
        assert_eq!(alerted_days(&period), expected, "{period}");
        month_rows_summarise_the_alerts(app).await;
    }
}

on_both_backends! {
    async fn recap_names_the_other_companies_of_alerted_days(app) {
        let c = company(app).await;
        // Two more employers of the worker: one with another SIREN, one sharing the company's (as
        // companies signed up before a SIREN was signed up once may: the API signs it up once).
        let other_admin = app.new_user("other@example.com").await;
        let other = app.new_company(&other_admin, "Autre Transport").await;
        let sister = app.new_company(&other_admin, "Martin Sud").await;
        sqlx::query("UPDATE companies SET siren = (SELECT siren FROM companies WHERE id = $2) WHERE id = $1")
            .bind(sister)
            .bind(c.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        app.hire(&other_admin, other, &c.worker).await;
        app.hire(&other_admin, sister, &c.worker).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        // Three alerted days in the company (13 h of driving each); the first also has an hour
        // for the other SIREN, the second an hour for the sister company, the third nothing else.
        let (d1, d2, d3) = (day(12), day(10), day(8));
        for d in [d1, d2, d3] {
            let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
            validate(app, &c.worker, long, &c.worker).await;
            validate(app, &c.admin, long, &c.worker).await;
        }
        mission(app, &c.worker, other, &[("work", d1 + 19 * HOUR, d1 + 20 * HOUR)]).await;
        mission(app, &c.worker, sister, &[("work", d2 + 19 * HOUR, d2 + 20 * HOUR)]).await;
        // An hour for the other SIREN on a day with no alert changes nothing.
        mission(app, &c.worker, other, &[("work", day(9) + 19 * HOUR, day(9) + 20 * HOUR)]).await;

        // Each day read in the recap of its own month (the days may straddle two).
        for (d, expected) in [(d1, json!("company")), (d2, json!("establishment")), (d3, Value::Null)] {
            let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": month_of(&date(d)) })).await;
            assert!(body["errors"].is_null(), "{body}");
            let group = body["data"]["company"]["regulatoryAlertsRecap"]["dailyAlerts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["alertsType"] == "maximumWorkDayTime")
                .cloned()
                .unwrap();
            let details: Vec<&Value> = group["dayDetails"].as_array().unwrap().iter().filter(|x| x["day"] == date(d)).collect();
            assert_eq!(details.len(), 1, "{body}");
            assert_eq!(details[0]["otherCompanyRelation"], expected, "{}: {body}", date(d));
        }
    }
}

on_both_backends! {
    async fn the_recap_of_a_company_counts_its_current_workers_under_concurrent_validations(app) {
        // Four workers with 13 h of driving on the same two days: the admin validates all their
        // missions at once, so that the company's day counts are written by concurrent
        // transactions (on PostgreSQL, each waiting on the others' rows).
        let c = company(app).await;
        let mut workers = vec![c.worker.clone()];
        for n in 1..4 {
            let worker = app.new_user(&format!("driver{n}@example.com")).await;
            app.hire(&c.admin, c.id, &worker).await;
            workers.push(worker);
        }
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let (d1, d2) = (day(9), day(8));
        let mut missions = vec![];
        for worker in &workers {
            for d in [d1, d2] {
                let long = mission(app, worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
                validate(app, worker, long, worker).await;
                missions.push((long, worker));
            }
        }
        futures::future::join_all(missions.iter().map(|(m, w)| validate(app, &c.admin, *m, w))).await;
        month_rows_summarise_the_alerts(app).await;

        let month = month_of(&date(d2));
        let period = json!({ "m": month });
        let in_month = [d1, d2].iter().filter(|d| month_of(&date(**d)) == month).count() as i64;
        let work_day_alerts = |recap: &Value| -> i64 {
            recap["dailyAlerts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["alertsType"] == "maximumWorkDayTime")
                .map_or(0, |g| g["nbAlerts"].as_i64().unwrap())
        };
        let recap = counted(app, &c.admin, c.id, &period, None).await;
        assert_eq!(work_day_alerts(&recap), 4 * in_month, "{recap}");

        // Two of them leave: one ended yesterday, one dismissed. The recap counts the two others
        // only (the day counts less the former workers' month rows), as the alerts do.
        sqlx::query("UPDATE employments SET end_date = $1 WHERE company_id = $2 AND user_id = $3")
            .bind(date(day(1)))
            .bind(c.id)
            .bind(workers[1].id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        sqlx::query("UPDATE employments SET dismissed_at = 1, dismiss_author_id = $1 WHERE company_id = $2 AND user_id = $3")
            .bind(c.admin.id)
            .bind(c.id)
            .bind(workers[2].id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let recap = counted(app, &c.admin, c.id, &period, None).await;
        assert_eq!(work_day_alerts(&recap), 2 * in_month, "{recap}");
    }
}
