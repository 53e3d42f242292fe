//! Decoding the EFs of a download into the inspector's report: EF_Application_Identification (which sizes the
//! others), identification, events and faults, vehicles, places, current usage, control activity and specific
//! conditions.
//!
//! Why apart from `inspect`: `inspect` checks the file's structure (TLVs, order, sizes, signatures); this file
//! reads each EF's fields, refusing only what would make a reader misread the file (an out-of-range parameter, a
//! pointer outside its table, a BCD field that is not BCD).

use super::layout::*;
use super::primitives::{decode_bcd, decode_datef, format_time_real, get_u16, get_u24, get_u32, hex};
use super::report::*;
use super::text::{decode_code_paged, decode_ia5};

pub fn decode_application(v: &[u8]) -> Result<(ApplicationReport, CardParameters), Violation> {
    let fid = EF_APPLICATION_IDENTIFICATION;
    if v.len() != 10 {
        return Err(Violation::ef(fid, format!("{} bytes, 10 expected", v.len())));
    }
    if v[0] != 0x01 {
        return Err(Violation::ef(
            fid,
            format!("card type {:02X} is not a driver card (01)", v[0]),
        ));
    }
    let params = CardParameters {
        events_per_type: usize::from(v[3]),
        faults_per_type: usize::from(v[4]),
        activity_structure_length: usize::from(get_u16(v, 5)),
        vehicle_records: usize::from(get_u16(v, 7)),
        place_records: usize::from(v[9]),
    };
    let checks = [
        ("noOfEventsPerType", params.events_per_type, EVENTS_PER_TYPE_RANGE),
        ("noOfFaultsPerType", params.faults_per_type, FAULTS_PER_TYPE_RANGE),
        (
            "activityStructureLength",
            params.activity_structure_length,
            ACTIVITY_STRUCTURE_LENGTH_RANGE,
        ),
        ("noOfCardVehicleRecords", params.vehicle_records, VEHICLE_RECORDS_RANGE),
        ("noOfCardPlaceRecords", params.place_records, PLACE_RECORDS_RANGE),
    ];
    for (name, value, (min, max)) in checks {
        if !(min..=max).contains(&value) {
            return Err(Violation::ef(
                fid,
                format!("{name} = {value} outside {min}..={max} (TCS_404)"),
            ));
        }
    }
    let report = ApplicationReport {
        card_type: v[0],
        structure_version: hex(&v[1..3]),
        events_per_type: params.events_per_type,
        faults_per_type: params.faults_per_type,
        activity_structure_length: params.activity_structure_length,
        vehicle_records: params.vehicle_records,
        place_records: params.place_records,
    };
    Ok((report, params))
}

pub fn decode_identification(v: &[u8]) -> Result<IdentificationReport, Violation> {
    let birth = decode_datef(&v[137..141]).map_err(|e| Violation::ef(EF_IDENTIFICATION, e))?;
    Ok(IdentificationReport {
        issuing_member_state: v[0],
        card_number: decode_ia5(&v[1..17]),
        issuing_authority: decode_code_paged(&v[17..53]),
        card_issue: format_time_real(get_u32(v, 53)),
        card_validity_begin: format_time_real(get_u32(v, 57)),
        card_expiry: format_time_real(get_u32(v, 61)),
        surname: decode_code_paged(&v[65..101]),
        first_names: decode_code_paged(&v[101..137]),
        birth_date: birth.map(|d| d.format("%Y-%m-%d").to_string()),
        preferred_language: decode_ia5(&v[141..143]),
    })
}

/// Non-empty CardEventRecords / CardFaultRecords (type or times set).
pub fn decode_event_records(v: &[u8]) -> Vec<EventFaultReport> {
    v.chunks(CARD_EVENT_RECORD_LEN)
        .filter(|r| r[..9].iter().any(|&b| b != 0))
        .map(|r| EventFaultReport {
            kind: format!("{:02X}", r[0]),
            begin: format_time_real(get_u32(r, 1)),
            end: format_time_real(get_u32(r, 5)),
            vehicle: decode_code_paged(&r[10..24]),
        })
        .collect()
}

/// Index order oldest → newest of a cyclic table whose newest record is at `pointer`.
fn cyclic_order(pointer: usize, records: usize) -> impl Iterator<Item = usize> {
    (1..=records).map(move |k| (pointer + k) % records)
}

pub fn decode_vehicles(v: &[u8], records: usize) -> Result<Vec<VehicleReport>, Violation> {
    let pointer = usize::from(get_u16(v, 0));
    if pointer >= records {
        return Err(Violation::ef(
            EF_VEHICLES_USED,
            format!("newest-record pointer {pointer} ≥ {records}"),
        ));
    }
    let mut out = Vec::new();
    for i in cyclic_order(pointer, records) {
        let r = &v[2 + i * CARD_VEHICLE_RECORD_LEN..2 + (i + 1) * CARD_VEHICLE_RECORD_LEN];
        let counter = decode_bcd(&r[29..31]).ok_or_else(|| {
            Violation::ef(
                EF_VEHICLES_USED,
                format!("record {i}: vuDataBlockCounter {:02X?} is not BCD", &r[29..31]),
            )
        })?;
        if r[..14].iter().all(|&b| b == 0) {
            continue; // empty record
        }
        out.push(VehicleReport {
            odometer_begin: get_u24(r, 0),
            odometer_end: get_u24(r, 3),
            first_use: format_time_real(get_u32(r, 6)),
            last_use: format_time_real(get_u32(r, 10)),
            registration_nation: r[14],
            registration: decode_code_paged(&r[15..29]),
            vu_data_block_counter: counter as u16,
        });
    }
    Ok(out)
}

pub fn decode_places(v: &[u8], records: usize) -> Result<Vec<PlaceReport>, Violation> {
    let pointer = usize::from(v[0]);
    if pointer >= records {
        return Err(Violation::ef(
            EF_PLACES,
            format!("newest-record pointer {pointer} ≥ {records}"),
        ));
    }
    Ok(cyclic_order(pointer, records)
        .map(|i| &v[1 + i * PLACE_RECORD_LEN..1 + (i + 1) * PLACE_RECORD_LEN])
        .filter(|r| r.iter().any(|&b| b != 0))
        .map(|r| PlaceReport {
            time: format_time_real(get_u32(r, 0)),
            entry_type: match r[4] {
                0 => "begin".into(),
                1 => "end".into(),
                2 => "begin_manual".into(),
                3 => "end_manual".into(),
                4 => "begin_assumed".into(),
                5 => "end_assumed".into(),
                other => format!("{other:02X}"),
            },
            country: r[5],
            region: r[6],
            odometer: get_u24(r, 7),
        })
        .collect())
}

pub fn decode_control(v: &[u8]) -> Option<ControlReport> {
    (v[..5].iter().any(|&b| b != 0)).then(|| ControlReport {
        control_type: format!("{:02X}", v[0]),
        time: format_time_real(get_u32(v, 1)),
        control_card_number: decode_ia5(&v[7..23]),
        vehicle: decode_code_paged(&v[24..38]),
        download_period_begin: format_time_real(get_u32(v, 38)),
        download_period_end: format_time_real(get_u32(v, 42)),
    })
}

pub fn decode_specific_conditions(v: &[u8]) -> Vec<SpecificConditionReport> {
    v.chunks(SPECIFIC_CONDITION_RECORD_LEN)
        .filter(|r| r.iter().any(|&b| b != 0))
        .map(|r| SpecificConditionReport {
            time: format_time_real(get_u32(r, 0)),
            kind: format!("{:02X}", r[4]),
        })
        .collect()
}

pub fn decode_current_usage(v: &[u8]) -> CurrentUsageReport {
    CurrentUsageReport {
        open_session: v.iter().any(|&b| b != 0),
        session_open_time: format_time_real(get_u32(v, 0)),
        vehicle_nation: v[4],
        vehicle: decode_code_paged(&v[5..19]),
    }
}
