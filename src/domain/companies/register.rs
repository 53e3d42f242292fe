//! The national company register (INSEE's SIRENE), which the reference consults for a SIREN's
//! legal name and establishments. Roadlog consults it
//! through [`CompanyRegister`], chosen at the composition root (`server.rs`).
//!
//! The only implementation is [`Offline`]: this server does not reach the register, and it says
//! so ([`RegisterError::NotConfigured`]) rather than answering with made-up data. Consulting it
//! is best effort where the reference's is (a company's sign-up goes on without it), so a
//! register added later fills what it knows and nothing else changes.

use crate::errors::AppResult;

/// What the register says of a legal unit (a SIREN).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalUnit {
    /// The registered name (`denominationUniteLegale`, or the person's names).
    pub name: String,
}

/// What the register holds on a SIREN, in the shapes of the reference's `sirenInfo`: the legal
/// unit (`siren`, `name`, `tranche_effectif`, `tranche_effectif_year`, `activity`,
/// `activity_code`, `creation_date`) and its open establishments (`siret`, `activity`,
/// `activity_code`, `name`, `address`, `postal_code`, `tranche_effectif`, `tranche_effectif_year`),
/// each as the register gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct SirenRecord {
    pub legal_unit: serde_json::Map<String, serde_json::Value>,
    pub facilities: Vec<Facility>,
}

/// One open establishment of a legal unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Facility {
    /// Its 14-digit SIRET.
    pub siret: String,
    /// Its description (the keys of [`SirenRecord`]), `siret` included.
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Why the register gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
    /// No register is configured on this server.
    NotConfigured,
    /// The register knows no such SIREN.
    NotFound,
    /// The register failed or could not be reached.
    Unavailable(String),
}

impl std::fmt::Display for RegisterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegisterError::NotConfigured => f.write_str("no company register is configured on this server"),
            RegisterError::NotFound => f.write_str("the company register knows no such SIREN"),
            RegisterError::Unavailable(why) => write!(f, "the company register is unavailable: {why}"),
        }
    }
}

/// A source of legal units by SIREN.
#[async_trait::async_trait]
pub trait CompanyRegister: Send + Sync + 'static {
    /// The legal unit of a 9-digit SIREN.
    async fn legal_unit(&self, siren: &str) -> Result<LegalUnit, RegisterError>;
    /// The legal unit and open establishments of a 9-digit SIREN (`sirenInfo`).
    async fn siren_record(&self, siren: &str) -> Result<SirenRecord, RegisterError>;
}

/// The register of a server that cannot reach SIRENE: it never answers, and says why.
#[derive(Debug, Clone, Copy, Default)]
pub struct Offline;

#[async_trait::async_trait]
impl CompanyRegister for Offline {
    async fn legal_unit(&self, _siren: &str) -> Result<LegalUnit, RegisterError> {
        Err(RegisterError::NotConfigured)
    }

    async fn siren_record(&self, _siren: &str) -> Result<SirenRecord, RegisterError> {
        Err(RegisterError::NotConfigured)
    }
}

/// The legal name the register gives a SIREN at sign-up, if it gives one: any failure is
/// logged and the sign-up goes on without it, as the reference's does.
pub async fn legal_name_for_sign_up(register: &dyn CompanyRegister, siren: &str) -> AppResult<Option<String>> {
    match register.legal_unit(siren).await {
        Ok(unit) => Ok(Some(unit.name).filter(|name| !name.trim().is_empty())),
        Err(RegisterError::NotConfigured) => Ok(None),
        Err(error) => {
            tracing::warn!(%error, "company register not consulted at sign-up");
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Known;

    #[async_trait::async_trait]
    impl CompanyRegister for Known {
        async fn legal_unit(&self, siren: &str) -> Result<LegalUnit, RegisterError> {
            match siren {
                "123456789" => Ok(LegalUnit {
                    name: "ACME SAS".into(),
                }),
                "000000000" => Err(RegisterError::Unavailable("HTTP 503".into())),
                _ => Err(RegisterError::NotFound),
            }
        }

        async fn siren_record(&self, siren: &str) -> Result<SirenRecord, RegisterError> {
            Err(RegisterError::Unavailable(format!("no record of {siren} in this test")))
        }
    }

    #[tokio::test]
    async fn offline_register_answers_that_it_is_not_configured() {
        assert_eq!(Offline.legal_unit("123456789").await, Err(RegisterError::NotConfigured));
        assert_eq!(
            Offline.siren_record("123456789").await,
            Err(RegisterError::NotConfigured)
        );
        assert_eq!(legal_name_for_sign_up(&Offline, "123456789").await.unwrap(), None);
    }

    #[tokio::test]
    async fn sign_up_takes_the_registered_name_and_goes_on_without_one() {
        assert_eq!(
            legal_name_for_sign_up(&Known, "123456789").await.unwrap(),
            Some("ACME SAS".to_string())
        );
        assert_eq!(legal_name_for_sign_up(&Known, "000000000").await.unwrap(), None);
        assert_eq!(legal_name_for_sign_up(&Known, "987654321").await.unwrap(), None);
    }
}
