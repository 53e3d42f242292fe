//! Software vendors (issue 18): the second door of third-party software beside the OAuth code
//! grant. A registered client holds API keys ([`api_keys`]) and calls `/protected` to register
//! companies ([`companies`]) and sync their employees ([`employees`]); each employee accepts or
//! declines in a browser ([`acceptance`]), and an accepted link yields an employment token.

pub mod acceptance;
pub mod api_keys;
pub mod companies;
pub mod employees;
