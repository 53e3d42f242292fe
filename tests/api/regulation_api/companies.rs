//! A worker's alerts read by each of their companies, and concurrent computations that keep
//! the month rows whole.

use super::*;

on_both_backends! {
    async fn every_company_of_the_worker_reads_their_alerts(app) {
        // The recap reads month rows kept per company (migration 0059): a company the
        // worker joins gets the alerts computed before, hired directly or by an e-mailed
        // invitation; every company follows the computations after; a worker who left is no
        // longer counted though their summaries stay.
        let c = company(app).await;
        let (d1, d2) = (day(12), day(10));
        let period = json!({ "m": month_of(&date(d1)), "f": date(d1), "t": date(d2 + 86_400) });
        let long = mission(app, &c.worker, c.id, &[("drive", d1 + 5 * HOUR, d1 + 18 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        validate(app, &c.admin, long, &c.worker).await;
        let before = counted(app, &c.admin, c.id, &period, None).await;
        assert!(before["totalNbAlerts"].as_i64().unwrap() > 0, "{before}");

        // Hired by a second company, invited by e-mail to a third: both read what the first does.
        let other_admin = app.new_user("other@example.com").await;
        let other = app.new_company(&other_admin, "Autre Transport").await;
        app.hire(&other_admin, other, &c.worker).await;
        assert_eq!(counted(app, &other_admin, other, &period, None).await, before);
        let third_admin = app.new_user("third@example.com").await;
        let third = app.new_company(&third_admin, "Tiers Transport").await;
        let invite = "mutation($c: Int!, $m: Email!) { employments { createEmployment(companyId: $c, mail: $m) { id } } }";
        // (An address of no account: the worker redeems the invitation with theirs.)
        let body = app.as_user(&third_admin, invite, json!({ "c": third, "m": "driver.invited@example.com" })).await;
        assert!(body["errors"].is_null(), "{body}");
        let mail = outbox(app, "driver.invited@example.com").await;
        let token = mail
            .iter()
            .filter_map(|m| m["body"].as_str())
            .flat_map(str::split_whitespace)
            .find(|w| w.starts_with("rl_inv_"))
            .expect("the invitation's token")
            .to_string();
        let redeem = "mutation($t: String!) { signUp { redeemInvite(token: $t) { id } } }";
        let body = app.as_user(&c.worker, redeem, json!({ "t": token })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(counted(app, &third_admin, third, &period, None).await, before);
        let since_2020 = || async {
            sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
                .execute(&app.server.db.pool)
                .await
                .unwrap();
        };
        since_2020().await;

        // A later day, alerted, computed in the second company: all three follow.
        let later = mission(app, &c.worker, other, &[("drive", d2 + 5 * HOUR, d2 + 18 * HOUR)]).await;
        validate(app, &c.worker, later, &c.worker).await;
        validate(app, &other_admin, later, &c.worker).await;
        let after = counted(app, &c.admin, c.id, &period, None).await;
        assert!(after["totalNbAlerts"].as_i64() > before["totalNbAlerts"].as_i64(), "{after}");
        assert_eq!(counted(app, &other_admin, other, &period, None).await, after);
        assert_eq!(counted(app, &third_admin, third, &period, None).await, after);

        // The second company's own worker, alerted too; then the first worker leaves it.
        let own = app.new_user("own@example.com").await;
        app.hire(&other_admin, other, &own).await;
        since_2020().await;
        let theirs = mission(app, &own, other, &[("drive", d2 + 4 * HOUR, d2 + 18 * HOUR)]).await;
        validate(app, &own, theirs, &own).await;
        validate(app, &other_admin, theirs, &own).await;
        let own_only = counted(app, &other_admin, other, &period, Some(own.id)).await;
        assert!(own_only["totalNbAlerts"].as_i64().unwrap() > 0, "{own_only}");
        let both = counted(app, &other_admin, other, &period, None).await;
        assert_eq!(
            both["totalNbAlerts"].as_i64().unwrap(),
            own_only["totalNbAlerts"].as_i64().unwrap() + after["totalNbAlerts"].as_i64().unwrap(),
            "{both}"
        );
        sqlx::query("UPDATE employments SET start_date = '2020-01-01', end_date = '2021-01-01' WHERE company_id = $1 AND user_id = $2")
            .bind(other)
            .bind(c.worker.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(counted(app, &other_admin, other, &period, None).await, own_only);
        assert_eq!(counted(app, &c.admin, c.id, &period, None).await, after, "the first company still counts them");
        month_rows_summarise_the_alerts(app).await;
    }

    async fn concurrent_computations_keep_the_month_rows_whole(app) {
        // The admin's validations of 20 workers and the operator's rebuild of the month (16
        // workers per transaction) run at once: none fails (each transaction writes only the
        // month rows of the workers it locked), the month rows summarise the alerts, and the
        // recap counts what the alerts do.
        let c = company(app).await;
        let d = day(12);
        let mut workers = vec![];
        for i in 0..20 {
            let worker = app.new_user(&format!("driver{i}@example.com")).await;
            app.hire(&c.admin, c.id, &worker).await;
            workers.push(worker);
        }
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let mut missions = vec![];
        for worker in &workers {
            let long = mission(app, worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
            validate(app, worker, long, worker).await;
            missions.push(long);
        }
        let (company, from, to) = (c.id.to_string(), date(d - 86_400), date(d + 86_400));
        let database = app.database_url.clone();
        let rebuild = tokio::task::spawn_blocking(move || {
            let args = ["regulation", "rebuild", "--company", company.as_str(), "--from", from.as_str(), "--to", to.as_str()];
            crate::support::process::command(&args, &[("DATABASE_URL", database.as_str())]).output().unwrap()
        });
        let validate = "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }";
        let validations = workers
            .iter()
            .zip(&missions)
            .map(|(worker, long)| app.as_user(&c.admin, validate, json!({ "m": long, "u": [worker.id] })));
        for body in futures::future::join_all(validations).await {
            assert!(body["errors"].is_null(), "{body}");
        }
        let output = rebuild.await.unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        month_rows_summarise_the_alerts(app).await;
        let period = json!({ "m": month_of(&date(d)), "f": date(d), "t": date(d + 86_400) });
        let all = counted(app, &c.admin, c.id, &period, None).await;
        let one = counted(app, &c.admin, c.id, &period, Some(workers[0].id)).await;
        assert!(one["totalNbAlerts"].as_i64().unwrap() > 0, "{one}");
        assert_eq!(all["totalNbAlerts"].as_i64(), one["totalNbAlerts"].as_i64().map(|n| 20 * n), "{all}");
    }
}
