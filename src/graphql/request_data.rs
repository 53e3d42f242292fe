//! What an operation's resolvers read besides their arguments — the caller, their token, the
//! loaders — placed in the request as one value. async-graphql boxes each value of a request's
//! data and files it under its type: seventeen values, most never read, cost a small request
//! more than its execution.

use async_graphql::Context;

use crate::domain::auth::Caller;
use crate::domain::auth::caller::BearerToken;
use crate::domain::vendors::api_keys::Vendor;
use crate::i18n::Lang;

use super::loaders::Loaders;
use super::loaders::regulation::AlertStash;
use super::{ClientAddress, Refusals};

/// The data of one operation.
pub struct RequestData {
    /// Who acts (anonymous when no credential was sent).
    pub caller: Caller,
    /// The bearer value as sent, for the mutations that act on the token itself.
    pub bearer: BearerToken,
    /// Fields refused by the active-account check, added to the answer's errors.
    pub refusals: Refusals,
    /// The software vendor of `/protected`.
    pub vendor: Option<Vendor>,
    /// The client's address, for the login throttle.
    pub client: Option<ClientAddress>,
    /// The language of the e-mails a mutation sends to the caller.
    pub lang: Lang,
    pub loaders: Loaders,
    /// The alerts of the regulation check lists being resolved.
    pub alerts: AlertStash,
}

impl RequestData {
    /// The operation's data; `None` only for a request that did not come through the transport
    /// (which always places it).
    pub fn of<'a>(ctx: &'a Context<'_>) -> Option<&'a RequestData> {
        ctx.data_opt::<RequestData>()
    }
}
