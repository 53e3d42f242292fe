//! The heavy attacks, run on demand and measured, never timed in the normal suite:
//!
//! ```sh
//! cargo test --release --test api -- --ignored stress
//! ```
//!
//! Each prints its figures (time to refuse, peak memory, `/health` latency under attack) on
//! SQLite and, when a server is available, PostgreSQL; each asserts only that the service stayed
//! up and answered as documented.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::support::app::postgres_url;
use crate::support::cleanup;
use crate::support::process::{ServerProcess, command};

/// The database URLs to attack: a SQLite file, and a fresh PostgreSQL database if there is one.
async fn databases() -> Vec<(&'static str, String)> {
    let mut all = vec![(
        "SQLite",
        format!("sqlite://{}/roadlog.db?mode=rwc", cleanup::new_dir().display()),
    )];
    if let Some(admin) = postgres_url() {
        let name = cleanup::unique_name();
        sqlx::any::install_default_drivers();
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&admin)
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap();
        cleanup::register_database(&admin, &name);
        let mut url = url::Url::parse(&admin).unwrap();
        url.set_path(&format!("/{name}"));
        all.push(("PostgreSQL", url.to_string()));
    }
    all
}

fn raise_own_file_limit() {
    // SAFETY: plain getrlimit/setrlimit on this process.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// A client that opens a new connection for every request (no pooling).
fn fresh_client() -> reqwest::Client {
    reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap()
}

async fn health_latencies(server: &ServerProcess, n: usize) -> Vec<Duration> {
    let client = fresh_client();
    let mut samples = Vec::new();
    for _ in 0..n {
        let started = Instant::now();
        let response = client.get(server.url("/health")).send().await.expect("/health answers");
        assert_eq!(response.status(), 200);
        samples.push(started.elapsed());
    }
    samples
}

async fn open_connections(server: &ServerProcess) -> i64 {
    let text = fresh_client()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find(|l| l.starts_with("roadlog_http_connections_open "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1)
}

tests! {
    #[needs(OnDemand)]
    async fn stress_connection_flood() {
        raise_own_file_limit();
        for (backend, database) in databases().await {
            // Started as a shell with the common soft limit of 1,024 open files would start it.
            let server = ServerProcess::start_limited(&[], &[("DATABASE_URL", &database)], Some(1024));
            let quiet = median(health_latencies(&server, 20).await);
            let addr = server.addr.clone();
            let mut idle = Vec::new();
            for _ in 0..1100 {
                idle.push(tokio::net::TcpStream::connect(&addr).await.expect("connect"));
            }
            let mut trickling = Vec::new();
            for _ in 0..200 {
                let addr = addr.clone();
                trickling.push(tokio::spawn(async move {
                    let Ok(mut stream) = tokio::net::TcpStream::connect(&addr).await else { return 0 };
                    let head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n\r\n";
                    let mut sent = 0;
                    for byte in head {
                        if stream.write_all(&[*byte]).await.is_err() {
                            break;
                        }
                        sent += 1;
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    sent
                }));
            }
            let under_attack = health_latencies(&server, 20).await;
            let during = open_connections(&server).await;
            // The header-read timeout (10 s by default) closes what sends no whole request head.
            tokio::time::sleep(Duration::from_secs(12)).await;
            let after = open_connections(&server).await;
            let closed_early = trickling.iter().filter(|t| t.is_finished()).count();
            for task in &trickling {
                task.abort();
            }
            drop(idle);
            println!(
                "{backend}: /health median {} quiet; under 1,100 idle + 200 trickling connections: median {}, max {}; open connections {} during, {} after 12 s; {} trickling connections cut before finishing their head",
                ms(quiet),
                ms(median(under_attack.clone())),
                ms(*under_attack.iter().max().unwrap()),
                during,
                after,
                closed_early
            );
            assert!(after < during, "idle connections are closed");
            let (status, _, _) = server.terminate();
            assert!(status.success(), "the server stopped cleanly after the flood");
        }
    }

    #[needs(OnDemand)]
    async fn stress_credential_floods_and_memory() {
        for (backend, database) in databases().await {
            let server = ServerProcess::start(&[], &[("DATABASE_URL", &database)]);
            let graphql = server.url("/api/graphql");
            let client = reqwest::Client::new();
            client
                .post(&graphql)
                .json(&json!({ "query": "mutation { signUp { user(email: \"flood@example.com\", password: \"a long passphrase\", firstName: \"F\", lastName: \"L\") { accessToken } } }" }))
                .send()
                .await
                .unwrap();
            let baseline = server.resident_mib();
            // 8 concurrent requests of 128 aliased logins.
            let aliased: String = (0..128)
                .map(|i| format!("a{i}: login(email: \"flood@example.com\", password: \"wrong guess {i}\") {{ accessToken }} "))
                .collect();
            let body = json!({ "query": format!("mutation {{ auth {{ {aliased} }} }}") });
            let started = Instant::now();
            let answers = futures::future::join_all((0..8).map(|_| client.post(&graphql).json(&body).send())).await;
            let elapsed = started.elapsed();
            let statuses: Vec<u16> = answers.into_iter().map(|r| r.unwrap().status().as_u16()).collect();
            assert!(statuses.iter().all(|s| *s == 400), "{statuses:?}");
            let after_aliases = server.peak_mib();
            // 64 concurrent single logins: they queue on the hashing budget.
            let one = json!({ "query": "mutation { auth { login(email: \"flood@example.com\", password: \"a long passphrase\") { accessToken } } }" });
            let started = Instant::now();
            let answers = futures::future::join_all((0..64).map(|_| client.post(&graphql).json(&one).send())).await;
            let logins = started.elapsed();
            let mut by_status = std::collections::BTreeMap::new();
            for answer in answers {
                *by_status.entry(answer.unwrap().status().as_u16()).or_insert(0) += 1;
            }
            let after_logins = server.peak_mib();
            // 32 concurrent token requests with valid client credentials and junk codes.
            let created = command(
                &["client", "create", "--name", "Flood", "--redirect-uri", "https://flood.example.com/cb"],
                &[("DATABASE_URL", &database)],
            )
            .output()
            .unwrap();
            let created: Value = serde_json::from_slice(&created.stdout).unwrap();
            let (id, secret) = (created["client_id"].as_str().unwrap(), created["client_secret"].as_str().unwrap());
            let started = Instant::now();
            let answers = futures::future::join_all((0..32).map(|_| {
                client
                    .post(server.url("/api/oauth/token"))
                    .basic_auth(id, Some(secret))
                    .form(&[("grant_type", "authorization_code"), ("code", "rl_code_junk"), ("redirect_uri", "https://flood.example.com/cb")])
                    .send()
            }))
            .await;
            let tokens = started.elapsed();
            assert!(answers.into_iter().all(|r| r.unwrap().status() == 400));
            let after_tokens = server.peak_mib();
            let health = median(health_latencies(&server, 10).await);
            println!(
                "{backend}: resident {baseline:.0} MiB at rest; 8 × 128 aliased logins refused (400) in {}, peak {after_aliases:.0} MiB; 64 concurrent logins in {} ({by_status:?} by status), peak {after_logins:.0} MiB; 32 token requests with junk codes in {}, peak {after_tokens:.0} MiB; /health after: {}",
                ms(elapsed),
                ms(logins),
                ms(tokens),
                ms(health)
            );
            assert!(after_tokens < 512.0, "peak memory {after_tokens} MiB");
            server.terminate();
        }
    }

    #[needs(OnDemand)]
    async fn stress_refusal_times() {
        for (backend, database) in databases().await {
            let server = ServerProcess::start(&[], &[("DATABASE_URL", &database)]);
            let graphql = server.url("/api/graphql");
            let client = reqwest::Client::new();
            let deep = format!("{{ me {{ missions(first: {}1{}) {{ edges {{ node {{ id }} }} }} }} }}", "[".repeat(2000), "]".repeat(2000));
            let mut chain = String::from("query { ...F30 }\nfragment F0 on Queries { __typename }\n");
            for i in 1..=30 {
                chain.push_str(&format!("fragment F{i} on Queries {{ ...F{} ...F{} }}\n", i - 1, i - 1));
            }
            let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
                ("2,000-deep list argument (POST)", client.post(&graphql).json(&json!({ "query": deep }))),
                ("2,000-deep list argument (GET)", client.get(&graphql).query(&[("query", &deep)])),
                ("30 doubling fragments", client.post(&graphql).json(&json!({ "query": chain }))),
                (
                    "missing required variable",
                    client.post(&graphql).json(&json!({ "query": "mutation($n: String!) { signUp { company(usualName: $n, siren: \"1\") { company { id } } } }" })),
                ),
                (
                    "export with 40,000 user ids",
                    client
                        .post(server.url("/companies/generate_tachograph_files"))
                        .bearer_auth("rl_at_unknown")
                        .json(&json!({ "company_ids": [1], "user_ids": (0..40_000).collect::<Vec<i64>>() })),
                ),
            ];
            for (name, request) in cases {
                let mut samples = Vec::new();
                let mut status = 0;
                for _ in 0..5 {
                    let request = request.try_clone().unwrap();
                    let started = Instant::now();
                    status = request.send().await.unwrap().status().as_u16();
                    samples.push(started.elapsed());
                }
                println!("{backend}: {name}: {status} in {} (median of 5)", ms(median(samples)));
            }
            // Unknown e-mail against wrong password: the same work, so similar times.
            client
                .post(&graphql)
                .json(&json!({ "query": "mutation { signUp { user(email: \"known@example.com\", password: \"a long passphrase\", firstName: \"K\", lastName: \"N\") { accessToken } } }" }))
                .send()
                .await
                .unwrap();
            let mut known = Vec::new();
            let mut unknown = Vec::new();
            for i in 0..9 {
                for (email, samples) in [("known@example.com", &mut known), ("unknown@example.com", &mut unknown)] {
                    let query = format!("mutation {{ auth {{ login(email: \"{email}\", password: \"guess {i}\") {{ accessToken }} }} }}");
                    let started = Instant::now();
                    client.post(&graphql).json(&json!({ "query": query })).send().await.unwrap();
                    samples.push(started.elapsed());
                }
            }
            println!(
                "{backend}: login with a wrong password: median {}; with an unknown e-mail: median {}",
                ms(median(known)),
                ms(median(unknown))
            );
            let (status, _, _) = server.terminate();
            assert!(status.success());
        }
    }

    #[needs(OnDemand)]
    async fn stress_made_up_client_ids() {
        use futures::StreamExt;
        // The flood of the issue: 4,000 token requests with a fresh 30 KB client id each, then
        // 4,000 revocations, each from its own address (the server trusts 127.0.0.1 as its
        // proxy), so that no per-address limit stops them early: the worst case for memory.
        const FLOOD: usize = 4_000;
        for (backend, database) in databases().await {
            let server = ServerProcess::start(&["--trusted-proxy", "127.0.0.1/32"], &[("DATABASE_URL", &database)]);
            let client = reqwest::Client::new();
            let flood = |path: &'static str, offset: usize| {
                let (client, url) = (client.clone(), server.url(path));
                async move {
                    let started = Instant::now();
                    let statuses: Vec<u16> = futures::stream::iter(0..FLOOD)
                        .map(|n| {
                            let n = n + offset;
                            let id = format!("{n:09}{}", "7".repeat(30 * 1024));
                            let address = format!("10.{}.{}.{}", n / 65_536, (n / 256) % 256, n % 256);
                            let mut form = if path.ends_with("token") {
                                vec![
                                    ("grant_type", "authorization_code".to_string()),
                                    ("code", "rl_code_junk".to_string()),
                                    ("redirect_uri", "https://flood.example.com/cb".to_string()),
                                ]
                            } else {
                                vec![("token", "rl_oat_x".to_string())]
                            };
                            form.extend([("client_id", id), ("client_secret", "wrong".to_string())]);
                            let request = client.post(&url).header("x-forwarded-for", address).form(&form);
                            async move { request.send().await.unwrap().status().as_u16() }
                        })
                        .buffer_unordered(16)
                        .collect()
                        .await;
                    (statuses, started.elapsed())
                }
            };
            let before = server.resident_mib();
            let (token, token_time) = flood("/api/oauth/token", 0).await;
            let after_token = server.resident_mib();
            let (revoke, revoke_time) = flood("/api/oauth/revoke", FLOOD).await;
            let after_revoke = server.resident_mib();
            let peak = server.peak_mib();
            println!(
                "{backend}: resident {before:.0} MiB at rest; {FLOOD} token requests with distinct 30 KB client ids in {}: {after_token:.0} MiB; {FLOOD} revocations in {}: {after_revoke:.0} MiB; peak {peak:.0} MiB",
                ms(token_time),
                ms(revoke_time)
            );
            assert!(token.iter().chain(&revoke).all(|s| *s == 401), "every made-up client is refused");
            // What may grow is the allocator's pools for 16 requests in flight, not the
            // requests' number.
            assert!(after_revoke - before < 32.0, "{before:.0} MiB -> {after_revoke:.0} MiB");
            let (status, _, _) = server.terminate();
            assert!(status.success());
        }
    }
}
