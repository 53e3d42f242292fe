//! From the regulation domain's values (businesses, computations, checks, alerts) to the
//! contract's objects.

use crate::domain::regulation::business::{self, BusinessType};

use super::contract::{self, Business};

impl From<BusinessType> for Business {
    fn from(value: BusinessType) -> Business {
        let business_type = match value {
            BusinessType::LongDistance => contract::BusinessType::LongDistance,
            BusinessType::ShortDistance => contract::BusinessType::ShortDistance,
            BusinessType::Shipping => contract::BusinessType::Shipping,
            BusinessType::Frequent => contract::BusinessType::Frequent,
            BusinessType::Infrequent => contract::BusinessType::Infrequent,
            BusinessType::TaxiGeneral => contract::BusinessType::TaxiGeneral,
            BusinessType::TaxiRegulated => contract::BusinessType::TaxiRegulated,
            BusinessType::Vtc => contract::BusinessType::Vtc,
            BusinessType::Loti => contract::BusinessType::Loti,
        };
        let transport_type = match value.transport() {
            business::TransportType::Trm => contract::TransportType::Trm,
            business::TransportType::Trv => contract::TransportType::Trv,
        };
        Business {
            id: Some(value.id() as i32),
            transport_type,
            business_type,
        }
    }
}
