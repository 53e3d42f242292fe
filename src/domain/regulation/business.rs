//! Businesses, as the reference service has them: a transport type (goods `TRM`, passengers `TRV`) and a business
//! type, which set the thresholds of the checks. Rows of the `businesses` table have the ids
//! below; the API names them by their member names (`LONG_DISTANCE`, …), the database also keeps
//! the reference's French labels.

/// Goods (`TRM`) or passengers (`TRV`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransportType {
    Trm,
    Trv,
}

impl TransportType {
    /// The GraphQL enum member (`TRM`, `TRV`).
    pub fn name(self) -> &'static str {
        match self {
            TransportType::Trm => "TRM",
            TransportType::Trv => "TRV",
        }
    }

    /// The reference's database value.
    pub fn label(self) -> &'static str {
        match self {
            TransportType::Trm => "Marchandises",
            TransportType::Trv => "Voyageurs",
        }
    }
}

/// The business types of the reference, in the order of its enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BusinessType {
    LongDistance,
    ShortDistance,
    Shipping,
    Frequent,
    Infrequent,
    TaxiGeneral,
    TaxiRegulated,
    Vtc,
    Loti,
}

impl BusinessType {
    /// Every business type, in the order of the contract.
    pub const ALL: [BusinessType; 9] = [
        BusinessType::LongDistance,
        BusinessType::ShortDistance,
        BusinessType::Shipping,
        BusinessType::Frequent,
        BusinessType::Infrequent,
        BusinessType::TaxiGeneral,
        BusinessType::TaxiRegulated,
        BusinessType::Vtc,
        BusinessType::Loti,
    ];

    /// The business used when a worker has none (reference `get_default_business`).
    pub const DEFAULT: BusinessType = BusinessType::Shipping;

    /// The GraphQL enum member, as `newBusinessType` and `changeEmployeeBusinessType` take it.
    pub fn name(self) -> &'static str {
        match self {
            BusinessType::LongDistance => "LONG_DISTANCE",
            BusinessType::ShortDistance => "SHORT_DISTANCE",
            BusinessType::Shipping => "SHIPPING",
            BusinessType::Frequent => "FREQUENT",
            BusinessType::Infrequent => "INFREQUENT",
            BusinessType::TaxiGeneral => "TAXI_GENERAL",
            BusinessType::TaxiRegulated => "TAXI_REGULATED",
            BusinessType::Vtc => "VTC",
            BusinessType::Loti => "LOTI",
        }
    }

    /// Reads a member name (exact spelling).
    pub fn from_name(name: &str) -> Option<BusinessType> {
        BusinessType::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The reference's database value (French).
    pub fn label(self) -> &'static str {
        match self {
            BusinessType::LongDistance => "Longue distance",
            BusinessType::ShortDistance => "Courte distance",
            BusinessType::Shipping => "Messagerie, Fonds et valeur",
            BusinessType::Frequent => "Lignes régulières",
            BusinessType::Infrequent => "Occasionnels",
            BusinessType::TaxiGeneral => "Taxi général",
            BusinessType::TaxiRegulated => "Taxi conventionné",
            BusinessType::Vtc => "VTC",
            BusinessType::Loti => "LOTI",
        }
    }

    /// The id of its row in `businesses` (1 to 9, in the order of the reference's enum).
    pub fn id(self) -> i64 {
        match self {
            BusinessType::LongDistance => 1,
            BusinessType::ShortDistance => 2,
            BusinessType::Shipping => 3,
            BusinessType::Frequent => 4,
            BusinessType::Infrequent => 5,
            BusinessType::TaxiGeneral => 6,
            BusinessType::TaxiRegulated => 7,
            BusinessType::Vtc => 8,
            BusinessType::Loti => 9,
        }
    }

    /// The business of a row id.
    pub fn from_id(id: i64) -> Option<BusinessType> {
        BusinessType::ALL.into_iter().find(|b| b.id() == id)
    }

    pub fn transport(self) -> TransportType {
        match self {
            BusinessType::LongDistance | BusinessType::ShortDistance | BusinessType::Shipping => TransportType::Trm,
            _ => TransportType::Trv,
        }
    }

    /// The thresholds of the reference's checks for this business (§1.4), as its variables
    /// resolve: the business-type entry wins even when null (`INFREQUENT` has no amplitude
    /// rule), else the transport type's `default`.
    pub fn thresholds(self) -> Thresholds {
        let trm = self.transport() == TransportType::Trm;
        Thresholds {
            max_day_work_hours: if trm { 12 } else { 10 },
            max_night_work_hours: 10,
            amplitude_trigger_hours: match self {
                _ if trm => None,
                BusinessType::Frequent => Some(13),
                BusinessType::Infrequent => None,
                _ => Some(12),
            },
            max_day_work_if_high_amplitude_hours: 9,
            long_break_hours: 10,
            max_weekly_work_hours: match self {
                BusinessType::LongDistance => 56,
                BusinessType::ShortDistance => 52,
                _ => 48,
            },
        }
    }
}

/// The thresholds that depend on the business (the others are the same for all, see
/// [`super::checks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// `MAXIMUM_DURATION_OF_DAY_WORK_IN_HOURS`.
    pub max_day_work_hours: i64,
    /// `MAXIMUM_DURATION_OF_NIGHT_WORK_IN_HOURS`.
    pub max_night_work_hours: i64,
    /// `AMPLITUDE_TRIGGER_IN_HOURS`.
    pub amplitude_trigger_hours: Option<i64>,
    /// `MAXIMUM_DURATION_OF_DAY_WORK_IF_HIGH_AMPLITUDE_IN_HOURS`.
    pub max_day_work_if_high_amplitude_hours: i64,
    /// `LONG_BREAK_DURATION_IN_HOURS`.
    pub long_break_hours: i64,
    /// `MAXIMUM_WEEKLY_WORK_IN_HOURS`.
    pub max_weekly_work_hours: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_per_business_match_the_reference_table() {
        // (business, day max, amplitude trigger, weekly max)
        let table = [
            (BusinessType::LongDistance, 12, None, 56),
            (BusinessType::ShortDistance, 12, None, 52),
            (BusinessType::Shipping, 12, None, 48),
            (BusinessType::Frequent, 10, Some(13), 48),
            (BusinessType::Infrequent, 10, None, 48),
            (BusinessType::TaxiGeneral, 10, Some(12), 48),
            (BusinessType::TaxiRegulated, 10, Some(12), 48),
            (BusinessType::Vtc, 10, Some(12), 48),
            (BusinessType::Loti, 10, Some(12), 48),
        ];
        for (business, day, amplitude, week) in table {
            let t = business.thresholds();
            assert_eq!(t.max_day_work_hours, day, "{business:?}");
            assert_eq!(t.amplitude_trigger_hours, amplitude, "{business:?}");
            assert_eq!(t.max_weekly_work_hours, week, "{business:?}");
            assert_eq!(t.max_night_work_hours, 10);
            assert_eq!(t.max_day_work_if_high_amplitude_hours, 9);
            assert_eq!(t.long_break_hours, 10);
        }
    }

    #[test]
    fn names_ids_and_defaults() {
        for business in BusinessType::ALL {
            assert_eq!(BusinessType::from_name(business.name()), Some(business));
            assert_eq!(BusinessType::from_id(business.id()), Some(business));
        }
        assert_eq!(BusinessType::from_name("shipping"), None);
        assert_eq!(BusinessType::DEFAULT.name(), "SHIPPING");
        assert_eq!(BusinessType::DEFAULT.transport(), TransportType::Trm);
        assert_eq!(BusinessType::Vtc.transport().name(), "TRV");
    }
}
