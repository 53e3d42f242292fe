//! The hand-written side of the generated resolver traits, one file per trait: each resolver
//! maps its arguments, asks the domain (which checks permissions and runs the transaction), and
//! turns what it answers into the contract's objects.

mod account;
mod activities;
mod activity;
mod activity_version;
mod auth;
mod comment;
mod company;
mod employment;
mod employments;
mod expenditure;
mod location_entry;
mod locations;
mod mission;
mod mission_validation;
mod mutations;
mod queries;
mod regulation;
mod sandbox;
mod sign_up;
mod teams;
mod user;
mod vehicle;
mod vehicles;
mod vendor_access;
mod vendors;
