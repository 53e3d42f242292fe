//! The shape of a gen-1 driver card download: which EFs, in which order, signed or not, and how big.
//!
//! Why fixed max-size parameters: readers size EF_Events/Faults/Driver_Activity/Vehicles/Places from
//! EF_Application_Identification (TCS_404), so the numbers written there and the EF sizes must agree. We use the
//! maximum card parameters, the layout of a real max-size card file (26 635 bytes signed), because it holds the
//! most history (13 776 bytes of activity = 28 days × 240 changes).

/// NoOfEventsPerType (n1), max card value.
pub const EVENTS_PER_TYPE: usize = 12;
/// NoOfFaultsPerType (n2), max card value.
pub const FAULTS_PER_TYPE: usize = 24;
/// CardActivityLengthRange (n6), max card value.
pub const ACTIVITY_STRUCTURE_LENGTH: usize = 13_776;
/// NoOfCardVehicleRecords (n3), max card value.
pub const VEHICLE_RECORDS: usize = 200;
/// NoOfCardPlaceRecords (n4), max card value.
pub const PLACE_RECORDS: usize = 112;

/// Ranges allowed by TCS_404 for a driver card: (min, max) of n1, n2, n6, n3, n4.
pub const EVENTS_PER_TYPE_RANGE: (usize, usize) = (6, 12);
pub const FAULTS_PER_TYPE_RANGE: (usize, usize) = (12, 24);
pub const ACTIVITY_STRUCTURE_LENGTH_RANGE: (usize, usize) = (5_544, 13_776);
pub const VEHICLE_RECORDS_RANGE: (usize, usize) = (84, 200);
pub const PLACE_RECORDS_RANGE: (usize, usize) = (84, 112);

/// Nation written as card issuing member state, vehicle registration nation and place country: `11` = F.
/// The service keeps French employers' records; the file claims no official authority (see the issuing
/// authority name and the non-official key identifiers).
pub const NATION: u8 = 0x11;
/// cardHolderPreferredLanguage ("fr", ISO 639), matching [`NATION`].
pub const LANGUAGE: [u8; 2] = *b"fr";

pub const EF_ICC: u16 = 0x0002;
pub const EF_IC: u16 = 0x0005;
pub const EF_APPLICATION_IDENTIFICATION: u16 = 0x0501;
pub const EF_CARD_CERTIFICATE: u16 = 0xC100;
pub const EF_CA_CERTIFICATE: u16 = 0xC108;
pub const EF_IDENTIFICATION: u16 = 0x0520;
pub const EF_CARD_DOWNLOAD: u16 = 0x050E;
pub const EF_DRIVING_LICENCE_INFO: u16 = 0x0521;
pub const EF_EVENTS_DATA: u16 = 0x0502;
pub const EF_FAULTS_DATA: u16 = 0x0503;
pub const EF_DRIVER_ACTIVITY_DATA: u16 = 0x0504;
pub const EF_VEHICLES_USED: u16 = 0x0505;
pub const EF_PLACES: u16 = 0x0506;
pub const EF_CURRENT_USAGE: u16 = 0x0507;
pub const EF_CONTROL_ACTIVITY_DATA: u16 = 0x0508;
pub const EF_SPECIFIC_CONDITIONS: u16 = 0x0522;

pub const CERTIFICATE_LEN: usize = 194;
pub const SIGNATURE_LEN: usize = 128;
pub const CARD_EVENT_RECORD_LEN: usize = 24;
pub const CARD_VEHICLE_RECORD_LEN: usize = 31;
pub const PLACE_RECORD_LEN: usize = 10;
pub const SPECIFIC_CONDITION_RECORDS: usize = 56;
pub const SPECIFIC_CONDITION_RECORD_LEN: usize = 5;

/// One EF of the download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EfSpec {
    pub fid: u16,
    pub name: &'static str,
    /// Followed by an appendix-`01` signature TLV.
    pub signed: bool,
    /// Required by DDP_035 (the inspector rejects a file without it).
    pub mandatory: bool,
}

const fn ef(fid: u16, name: &'static str, signed: bool, mandatory: bool) -> EfSpec {
    EfSpec {
        fid,
        name,
        signed,
        mandatory,
    }
}

/// The 16 EFs in the order of a real card file (§1.2); 0501 precedes the EFs it sizes. EF_Card_Download is
/// signed too, as on a real card file (a reader validating signatures throws when it is not).
pub const FILE_ORDER: [EfSpec; 16] = [
    ef(EF_ICC, "EF_ICC", false, false),
    ef(EF_IC, "EF_IC", false, false),
    ef(
        EF_APPLICATION_IDENTIFICATION,
        "EF_Application_Identification",
        true,
        true,
    ),
    ef(EF_CARD_CERTIFICATE, "EF_Card_Certificate", false, true),
    ef(EF_CA_CERTIFICATE, "EF_CA_Certificate", false, true),
    ef(EF_IDENTIFICATION, "EF_Identification", true, true),
    ef(EF_CARD_DOWNLOAD, "EF_Card_Download", true, false),
    ef(EF_DRIVING_LICENCE_INFO, "EF_Driving_Licence_Info", true, false),
    ef(EF_EVENTS_DATA, "EF_Events_Data", true, true),
    ef(EF_FAULTS_DATA, "EF_Faults_Data", true, true),
    ef(EF_DRIVER_ACTIVITY_DATA, "EF_Driver_Activity_Data", true, true),
    ef(EF_VEHICLES_USED, "EF_Vehicles_Used", true, true),
    ef(EF_PLACES, "EF_Places", true, true),
    ef(EF_CURRENT_USAGE, "EF_Current_Usage", true, false),
    ef(EF_CONTROL_ACTIVITY_DATA, "EF_Control_Activity_Data", true, true),
    ef(EF_SPECIFIC_CONDITIONS, "EF_Specific_Conditions", true, true),
];

pub fn spec(fid: u16) -> Option<&'static EfSpec> {
    FILE_ORDER.iter().find(|e| e.fid == fid)
}

/// Card parameters read from (or written to) EF_Application_Identification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardParameters {
    pub events_per_type: usize,
    pub faults_per_type: usize,
    pub activity_structure_length: usize,
    pub vehicle_records: usize,
    pub place_records: usize,
}

impl CardParameters {
    pub const MAX: CardParameters = CardParameters {
        events_per_type: EVENTS_PER_TYPE,
        faults_per_type: FAULTS_PER_TYPE,
        activity_structure_length: ACTIVITY_STRUCTURE_LENGTH,
        vehicle_records: VEHICLE_RECORDS,
        place_records: PLACE_RECORDS,
    };

    /// Value size of an EF for these parameters (§9 item 2).
    pub fn ef_size(&self, fid: u16) -> Option<usize> {
        Some(match fid {
            EF_ICC => 25,
            EF_IC => 8,
            EF_APPLICATION_IDENTIFICATION => 10,
            EF_CARD_CERTIFICATE | EF_CA_CERTIFICATE => CERTIFICATE_LEN,
            EF_IDENTIFICATION => 143,
            EF_CARD_DOWNLOAD => 4,
            EF_DRIVING_LICENCE_INFO => 53,
            EF_EVENTS_DATA => 6 * self.events_per_type * CARD_EVENT_RECORD_LEN,
            EF_FAULTS_DATA => 2 * self.faults_per_type * CARD_EVENT_RECORD_LEN,
            EF_DRIVER_ACTIVITY_DATA => 4 + self.activity_structure_length,
            EF_VEHICLES_USED => 2 + CARD_VEHICLE_RECORD_LEN * self.vehicle_records,
            EF_PLACES => 1 + PLACE_RECORD_LEN * self.place_records,
            EF_CURRENT_USAGE => 19,
            EF_CONTROL_ACTIVITY_DATA => 46,
            EF_SPECIFIC_CONDITIONS => SPECIFIC_CONDITION_RECORDS * SPECIFIC_CONDITION_RECORD_LEN,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_card_sizes_add_up_to_a_real_max_size_file() {
        // §1.2: value bytes of a max-size card = 24 959; + 16 TLV headers × 5 + 12 signatures × (5 + 128)
        // = 24 959 + 80 + 1 596 = 26 635 bytes.
        let p = CardParameters::MAX;
        let values: usize = FILE_ORDER.iter().map(|e| p.ef_size(e.fid).unwrap()).sum();
        assert_eq!(values, 24_959);
        let signed = FILE_ORDER.iter().filter(|e| e.signed).count();
        assert_eq!(signed, 12);
        assert_eq!(values + 16 * 5 + signed * (5 + SIGNATURE_LEN), 26_635);
        // Individual sizes from §1.2: 1728, 1152, 13 780, 6202, 1121.
        assert_eq!(p.ef_size(EF_EVENTS_DATA), Some(1728));
        assert_eq!(p.ef_size(EF_FAULTS_DATA), Some(1152));
        assert_eq!(p.ef_size(EF_DRIVER_ACTIVITY_DATA), Some(13_780));
        assert_eq!(p.ef_size(EF_VEHICLES_USED), Some(6202));
        assert_eq!(p.ef_size(EF_PLACES), Some(1121));
        assert_eq!(p.ef_size(EF_SPECIFIC_CONDITIONS), Some(280));
    }
}
