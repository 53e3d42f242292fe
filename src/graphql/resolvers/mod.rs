//! The hand-written side of the generated resolver traits, one file per trait: each resolver
//! maps its arguments, asks the domain (which checks permissions and runs the transaction), and
//! turns what it answers into the contract's objects.

mod activities;
mod activity;
mod company;
mod expenditure;
mod queries;
mod user;
