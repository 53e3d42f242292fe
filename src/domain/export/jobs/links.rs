//! Download links of built reports: the job's id and an expiry, signed with HMAC-SHA256 by a key
//! the service generates at first start and shares between its instances (`server_secrets`).
//! A link works alone, without other credentials, for [`LIFETIME_SECS`].

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::db::Db;
use crate::domain::auth::server_secrets;
use crate::errors::AppResult;

/// How long a link works, as the reference's pre-signed links.
pub const LIFETIME_SECS: i64 = 60;

/// The key's name among the server's secrets.
const SECRET: &str = "export-links";

/// The signing key of download links.
#[derive(Clone)]
pub struct LinkKey([u8; 32]);

impl std::fmt::Debug for LinkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkKey(..)")
    }
}

impl LinkKey {
    /// The deployment's key, generated and stored the first time.
    pub async fn load(db: &Db) -> AppResult<LinkKey> {
        Ok(LinkKey(server_secrets::get_or_create(db, SECRET).await?))
    }

    fn mac(&self, id: i64, expires: i64) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(format!("export:{id}:{expires}").as_bytes());
        mac
    }

    /// The signature (lowercase hex) of job `id`'s link expiring at `expires` (Unix seconds).
    pub fn sign(&self, id: i64, expires: i64) -> String {
        self.mac(id, expires)
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `signature` signs job `id`'s link expiring at `expires`, and `now` is before that
    /// (the comparison takes the same time whatever bytes differ).
    pub fn verify(&self, id: i64, expires: i64, signature: &str, now: i64) -> bool {
        if now >= expires || expires > now + LIFETIME_SECS {
            return false;
        }
        let Some(bytes) = hex(signature) else {
            return false;
        };
        self.mac(id, expires).verify_slice(&bytes).is_ok()
    }
}

/// The bytes of a lowercase or uppercase hex text of 64 digits.
fn hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_valid_for_its_job_until_it_expires() {
        let key = LinkKey([7; 32]);
        let other = LinkKey([8; 32]);
        let signature = key.sign(12, 1060);
        assert_eq!(signature.len(), 64);
        assert!(key.verify(12, 1060, &signature, 1000));
        assert!(key.verify(12, 1060, &signature.to_uppercase(), 1059));
        assert!(!key.verify(12, 1060, &signature, 1060), "expired");
        assert!(!key.verify(13, 1060, &signature, 1000), "another job");
        assert!(!key.verify(12, 1061, &signature, 1000), "another expiry");
        assert!(!other.verify(12, 1060, &signature, 1000), "another key");
        assert!(!key.verify(12, 1060, &signature[..62], 1000));
        assert!(!key.verify(12, 1060, &format!("{}zz", &signature[..62]), 1000));
        // An expiry further than a link's lifetime was never handed out.
        let far = key.sign(12, 5000);
        assert!(!key.verify(12, 5000, &far, 1000));
    }
}
