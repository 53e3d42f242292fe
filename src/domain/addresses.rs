//! An address as the API takes it, shared by the places that hold one: mission locations and
//! the company's book of known addresses (which sit side by side, neither below the other).

/// An address as given: a typed-in text, a feature of the national address API, or one of the
/// company's known addresses (read from the book when the location is logged).
pub struct Address {
    pub name: String,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    /// The known address, when given by `companyKnownAddressId`.
    pub known: Option<i64>,
}
