//! Software vendors: the second door of third-party software beside the OAuth code
//! grant. A registered client holds API keys ([`api_keys`]) and calls `/protected` to register
//! companies ([`companies`]) and sync their employees ([`employees`]); each employee accepts or
//! declines in a browser ([`acceptance`]), and an accepted link yields an employment token,
//! with which the client acts for the employee on the main API inside that one company
//! ([`employment_tokens`], the scope in `auth::scope`). Employees and admins withdraw access
//! ([`revocation`]); every vendor action is recorded for the company's admins ([`audit`]).

pub mod acceptance;
pub mod api_keys;
pub mod audit;
pub mod companies;
pub mod employees;
pub mod employment_tokens;
pub mod revocation;
