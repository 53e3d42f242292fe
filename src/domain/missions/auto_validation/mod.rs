//! Mission auto-validation: a worker's time in a mission that nobody validated is
//! validated automatically after a delay in business days, first on the worker's side (one day),
//! then on the admins' (two days after the worker's validation, manual or automatic).
//!
//! `queue` keeps who waits since when, inside the transactions of the changes that start or end
//! a wait; `calendar` counts business days; `job` claims due rows with a lease and validates
//! them, as a validation by the mutation does (regulatory computations included).

pub mod calendar;
pub mod job;
pub mod queue;
