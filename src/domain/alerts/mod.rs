//! Regulatory alerts as stored: the computations of the pure engine
//! ([`crate::domain::regulation`]) run on a worker's validated missions, stored per worker, day
//! and check, separately for the worker's own validations (`employee`) and the admins'
//! (`admin`); the triggers (a mission validated, a mission cancelled by an admin, the operator's
//! rebuild) and the reads of the API.

pub mod last_mission;
pub mod load;
pub mod read;
pub mod recap;
pub mod store;
pub mod triggers;
