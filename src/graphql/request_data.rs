//! What an operation's resolvers read besides their arguments — the request's database, the
//! caller, their token, the loaders — placed in the request as one value. async-graphql boxes each value of a request's
//! data and files it under its type: seventeen values, most never read, cost a small request
//! more than its execution.

use async_graphql::Context;

use crate::app::App;
use crate::db::Db;
use crate::domain::auth::Caller;
use crate::domain::auth::caller::BearerToken;
use crate::domain::auth::password::Hashing;
use crate::domain::vendors::api_keys::Vendor;
use crate::i18n::Lang;

use super::Refusals;
use super::loaders::Loaders;
use super::loaders::regulation::AlertStash;

/// The data of one operation.
pub struct RequestData {
    /// The request's database: its statements share one connection ([`Db::for_request`]).
    pub db: Db,
    /// The core the request's password hashes run on (taken before it ran when it checks one).
    pub hashing: Hashing,
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
    /// The language the request's `Accept-Language` names, if it names one of ours (the
    /// language a sign-up stores).
    pub stated_lang: Option<Lang>,
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

impl App {
    /// The database a resolver runs its statements on: its request's.
    pub fn db<'a>(&'a self, ctx: &'a Context<'_>) -> &'a Db {
        RequestData::of(ctx).map_or(&self.db, |data| &data.db)
    }
}

/// How the current request's password hashes get a core.
pub fn hashing(ctx: &Context<'_>) -> Hashing {
    RequestData::of(ctx)
        .map(|data| data.hashing.clone())
        .unwrap_or_default()
}

/// The identity behind the current request (anonymous when the glue placed none).
pub fn caller<'a>(ctx: &'a Context<'_>) -> &'a Caller {
    const ANONYMOUS: &Caller = &Caller::Anonymous;
    RequestData::of(ctx).map_or(ANONYMOUS, |data| &data.caller)
}

/// The bearer token the request carried, if any (for the mutations that act on the token
/// itself: refresh, logout).
pub fn bearer<'a>(ctx: &'a Context<'_>) -> Option<&'a str> {
    RequestData::of(ctx).and_then(|data| data.bearer.0.as_deref())
}

/// The client's address, as the transport determined it (for the login throttle).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddress(pub std::net::IpAddr);
