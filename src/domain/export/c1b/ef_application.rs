//! EF_Application_Identification `0501` (DriverCardApplicationIdentification).
//!
//! Why it must come first among the data EFs and match them: readers take the record counts of EF_Events,
//! EF_Faults, EF_Driver_Activity, EF_Vehicles_Used and EF_Places from here (TCS_404), in file order.

use super::layout::CardParameters;

/// EquipmentType of a driver card.
pub const DRIVER_CARD: u8 = 0x01;

/// typeOfTachographCardId(1) ‖ cardStructureVersion(2) ‖ noOfEventsPerType(1) ‖ noOfFaultsPerType(1) ‖
/// activityStructureLength(2) ‖ noOfCardVehicleRecords(2) ‖ noOfCardPlaceRecords(1). The structure version stays
/// the gen-1 value `00 00` (a file is marked as ours by its identification and keys, not by a non-standard
/// version that a reader could reject).
pub fn application_identification(p: &CardParameters) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    out.push(DRIVER_CARD);
    out.extend_from_slice(&[0x00, 0x00]);
    out.push(p.events_per_type as u8);
    out.push(p.faults_per_type as u8);
    out.extend_from_slice(&(p.activity_structure_length as u16).to_be_bytes());
    out.extend_from_slice(&(p.vehicle_records as u16).to_be_bytes());
    out.push(p.place_records as u8);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_size_card_by_hand() {
        // 01 | 00 00 | 12 = 0C | 24 = 18 | 13 776 = 0x35D0 | 200 = 0x00C8 | 112 = 0x70 — the bytes of a real
        // max-size card (§2.4).
        assert_eq!(
            application_identification(&CardParameters::MAX),
            vec![0x01, 0x00, 0x00, 0x0C, 0x18, 0x35, 0xD0, 0x00, 0xC8, 0x70]
        );
    }
}
