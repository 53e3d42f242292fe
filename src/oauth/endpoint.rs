//! The oxide-auth endpoint both flows drive: our database primitives, the owner solicitor of the
//! authorization pages (none at the token endpoint), and what the flow learned for the response.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use oxide_auth::code_grant::error::AccessTokenErrorType;
use oxide_auth::endpoint::{OAuthError, Scopes, Template};
use oxide_auth_async::endpoint::{Endpoint, OwnerSolicitor};
use oxide_auth_async::primitives::{Authorizer, Issuer, Registrar};

use super::primitives::{DbAuthorizer, DbIssuer, DbRegistrar, SharedState};
use super::web::{OAuthRequest, OAuthResponse, WebError};

/// One request's endpoint.
pub struct FlowEndpoint {
    pub registrar: DbRegistrar,
    pub authorizer: DbAuthorizer,
    pub issuer: Option<DbIssuer>,
    pub solicitor: Option<Box<dyn OwnerSolicitor<OAuthRequest> + Send + Sync>>,
    pub state: SharedState,
    /// Whether the flow failed on a bad request (unknown client, unregistered redirect URI)
    /// rather than on our database.
    pub bad_request: Arc<AtomicBool>,
}

impl Endpoint<OAuthRequest> for FlowEndpoint {
    type Error = WebError;

    fn registrar(&self) -> Option<&(dyn Registrar + Sync)> {
        Some(&self.registrar)
    }

    fn authorizer_mut(&mut self) -> Option<&mut (dyn Authorizer + Send)> {
        Some(&mut self.authorizer)
    }

    fn issuer_mut(&mut self) -> Option<&mut (dyn Issuer + Send)> {
        self.issuer.as_mut().map(|i| i as &mut (dyn Issuer + Send))
    }

    fn owner_solicitor(&mut self) -> Option<&mut (dyn OwnerSolicitor<OAuthRequest> + Send)> {
        self.solicitor
            .as_deref_mut()
            .map(|s| s as &mut (dyn OwnerSolicitor<OAuthRequest> + Send))
    }

    fn scopes(&mut self) -> Option<&mut dyn Scopes<OAuthRequest>> {
        None
    }

    /// oxide-auth answers a code it could not extract with `invalid_request`; RFC 6749 §5.2 says
    /// `invalid_grant`.
    fn response(&mut self, _request: &mut OAuthRequest, mut kind: Template) -> Result<OAuthResponse, WebError> {
        if self.state.lock().map(|s| s.code_refused).unwrap_or(false)
            && let Some(error) = kind.access_token_error()
        {
            error.set_type(AccessTokenErrorType::InvalidGrant);
        }
        Ok(OAuthResponse::default())
    }

    fn error(&mut self, err: OAuthError) -> WebError {
        if !matches!(err, OAuthError::PrimitiveError) {
            self.bad_request.store(true, Ordering::SeqCst);
        }
        WebError
    }

    fn web_error(&mut self, err: WebError) -> WebError {
        err
    }
}

impl FlowEndpoint {
    /// Whether the flow's failure was the request's fault.
    pub fn was_bad_request(flag: &Arc<AtomicBool>) -> bool {
        flag.load(Ordering::SeqCst)
    }
}
