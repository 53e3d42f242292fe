//! Who is calling: secrets (passwords and tokens) and the identity behind a request.

pub mod attempts;
pub mod caller;
pub mod client_rate;
pub mod csrf_key;
pub mod oauth_tokens;
pub mod password;
pub mod scope;
pub mod server_secrets;
pub mod tokens;

pub use caller::{Actor, Caller};
pub use scope::Scope;
