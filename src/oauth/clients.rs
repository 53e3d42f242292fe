//! The client registry: applications registered by an operator, each with a secret shown once
//! and stored as a SHA-256 hash, and the exact redirect URIs it may use.
//!
//! Why SHA-256 and not a password hash: the secret is 256 random bits the service generated, so
//! no dictionary or brute force applies, and a slow hash would only make every token request
//! cost an argon2 run (19 MiB of memory and a share of a core each). Secrets registered by
//! earlier versions hold an argon2id hash, replaced by the SHA-256 one on their next successful
//! use.

use serde::Serialize;

use subtle::ConstantTimeEq;

use crate::config::Environment;
use crate::db::{Db, is_unique_violation, now};
use crate::domain::auth::{password, tokens};
use crate::errors::{AppError, AppResult};

/// Checks a redirect URI: absolute, without fragment (RFC 6749 §3.1.2), and kept exactly as given
/// since it is matched by exact string comparison. In production, `http://` is accepted only for
/// loopback hosts (native applications, RFC 8252 §7.3): a code sent in clear over a network can
/// be read on the way.
pub fn validate_redirect_uri(uri: &str, environment: Environment) -> AppResult<String> {
    let parsed = url::Url::parse(uri)
        .map_err(|e| AppError::invalid_inputs(format!("redirect URI {uri:?} is not an absolute URI: {e}")))?;
    if parsed.fragment().is_some() || uri.contains('#') {
        return Err(AppError::invalid_inputs(format!(
            "redirect URI {uri:?} must not have a fragment"
        )));
    }
    if parsed.cannot_be_a_base() && parsed.scheme() != "urn" {
        return Err(AppError::invalid_inputs(format!(
            "redirect URI {uri:?} is not a hierarchical URI"
        )));
    }
    if environment == Environment::Production && parsed.scheme() == "http" && !is_loopback(&parsed) {
        return Err(AppError::invalid_inputs(format!(
            "redirect URI {uri:?}: production accepts http:// only for loopback hosts (127.0.0.1, [::1], localhost); use https://"
        )));
    }
    Ok(uri.to_string())
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// What `roadlog client create` prints, once.
#[derive(Serialize, Debug)]
pub struct Created {
    pub client_id: String,
    pub client_secret: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
}

/// Registers a client.
pub async fn create(db: &Db, environment: Environment, name: &str, redirect_uris: &[String]) -> AppResult<Created> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AppError::invalid_inputs(
            "the client name must have between 1 and 100 characters",
        ));
    }
    if redirect_uris.is_empty() {
        return Err(AppError::invalid_inputs("a client needs at least one redirect URI"));
    }
    let uris: Vec<String> = redirect_uris
        .iter()
        .map(|u| validate_redirect_uri(u, environment))
        .collect::<AppResult<_>>()?;
    // URL-safe characters only: clients send secrets in forms and Basic headers alike.
    let (secret, _) = tokens::generate("rl_cs_")?;
    let secret_hash = secret_hash(&secret);
    for _ in 0..5 {
        let id = tokens::random_in(100_000_000, 999_999_999)?;
        let mut tx = db.begin_write().await?;
        let inserted =
            sqlx::query("INSERT INTO oauth_clients (id, name, secret_hash, created_at) VALUES ($1, $2, $3, $4)")
                .bind(id)
                .bind(name)
                .bind(&secret_hash)
                .bind(now())
                .execute(&mut *tx)
                .await;
        match inserted {
            Ok(_) => {
                for uri in &uris {
                    sqlx::query(
                        "INSERT INTO oauth_client_redirect_uris (client_id, uri) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    )
                    .bind(id)
                    .bind(uri)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                return Ok(Created {
                    client_id: id.to_string(),
                    client_secret: secret,
                    name: name.to_string(),
                    redirect_uris: uris,
                });
            }
            Err(e) if is_unique_violation(&e) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(AppError::internal("could not allocate a client id"))
}

/// The stored form of a client secret.
pub fn secret_hash(secret: &str) -> String {
    format!("sha256:{}", tokens::hash(secret))
}

/// Whether `secret` is the client's, given its stored hash. A hash of the old argon2id form is
/// replaced by the SHA-256 form once the secret matches it.
pub async fn secret_matches(db: &Db, client_id: i64, secret: &str, stored: &str) -> AppResult<bool> {
    if stored.starts_with("$argon2") {
        let matches = password::verify(secret.to_string(), stored.to_string(), &password::Hashing::queued()).await?;
        if matches {
            sqlx::query("UPDATE oauth_clients SET secret_hash = $1 WHERE id = $2 AND secret_hash = $3")
                .bind(secret_hash(secret))
                .bind(client_id)
                .bind(stored)
                .execute(db)
                .await?;
        }
        return Ok(matches);
    }
    // Same length whatever the secret, compared in constant time.
    Ok(secret_hash(secret).as_bytes().ct_eq(stored.as_bytes()).into())
}

/// A client as `roadlog client list` shows it (never its secret).
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Listed {
    pub client_id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// Every client of the environment.
pub async fn list(db: &Db) -> AppResult<Vec<Listed>> {
    let clients: Vec<(i64, String, i64, Option<i64>)> =
        sqlx::query_as("SELECT id, name, created_at, revoked_at FROM oauth_clients ORDER BY created_at, id")
            .fetch_all(db)
            .await?;
    let uris: Vec<(i64, String)> = sqlx::query_as("SELECT client_id, uri FROM oauth_client_redirect_uris ORDER BY uri")
        .fetch_all(db)
        .await?;
    Ok(clients
        .into_iter()
        .map(|(id, name, created_at, revoked_at)| Listed {
            client_id: id.to_string(),
            name,
            redirect_uris: uris.iter().filter(|(c, _)| *c == id).map(|(_, u)| u.clone()).collect(),
            created_at,
            revoked_at,
        })
        .collect())
}

/// Revokes a client and every token it holds; false when there is no such active client.
pub async fn revoke(db: &Db, client_id: &str) -> AppResult<bool> {
    let Ok(id) = client_id.trim().parse::<i64>() else {
        return Ok(false);
    };
    let at = now();
    let mut tx = db.begin_write().await?;
    let done = sqlx::query("UPDATE oauth_clients SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL")
        .bind(id)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE oauth_tokens SET revoked_at = $2 WHERE client_id = $1 AND revoked_at IS NULL")
        .bind(id)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

/// The registered name of a client; `None` for an id that is not a registered client.
pub async fn name(db: &Db, client_id: &str) -> AppResult<Option<String>> {
    let Ok(id) = client_id.parse::<i64>() else {
        return Ok(None);
    };
    let row: Option<(String,)> = sqlx::query_as("SELECT name FROM oauth_clients WHERE id = $1")
        .bind(id)
        .fetch_optional(db)
        .await?;
    Ok(row.map(|(name,)| name))
}

#[cfg(test)]
mod tests {
    use super::validate_redirect_uri;
    use crate::config::Environment::{Production, Sandbox};

    #[test]
    fn redirect_uris_are_absolute_without_fragment() {
        for good in [
            "https://app.example.com/callback",
            "http://127.0.0.1:8000/cb?x=1",
            "com.example.app:/oauth",
        ] {
            assert!(validate_redirect_uri(good, Sandbox).is_ok(), "{good}");
        }
        for bad in ["/callback", "https://app.example.com/cb#frag", "app.example.com/cb", ""] {
            assert!(validate_redirect_uri(bad, Sandbox).is_err(), "{bad}");
        }
    }

    #[test]
    fn production_takes_http_only_on_loopback() {
        assert!(validate_redirect_uri("http://fleet.example.com/cb", Sandbox).is_ok());
        let refused = validate_redirect_uri("http://fleet.example.com/cb", Production).unwrap_err();
        assert!(refused.message.contains("loopback"), "{}", refused.message);
        for good in [
            "https://fleet.example.com/cb",
            "http://127.0.0.1:8000/cb",
            "http://[::1]/cb",
            "http://localhost:3000/cb",
            "com.example.app:/oauth",
        ] {
            assert!(validate_redirect_uri(good, Production).is_ok(), "{good}");
        }
    }
}
