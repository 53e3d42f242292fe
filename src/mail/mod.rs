//! Outgoing e-mail: an outbox table written in the same transaction as the change that causes
//! the message, and a sender that delivers it afterwards. A crash between the two loses nothing:
//! unsent rows are picked up again. `messages` writes what people read.

pub mod kinds;
pub mod messages;
pub mod notices;
pub mod outbox;
pub mod sender;
pub mod smtp;
