//! EF_Identification `0520` (CardIdentification + DriverCardHolderIdentification) and
//! EF_Driving_Licence_Info `0521`.
//!
//! Why: this is what every reader shows first. The card number and issuing authority must make clear the file
//! is not an official card (see `input`); times are TimeReal UTC with the validity running from 00:00:00 of the
//! first day to 23:59:59 of the expiry day (as on a real card); the birth date is a BCD Datef, not a TimeReal.
//! We know nothing of the driving licence, so EF_Driving_Licence_Info holds its default (empty) values.

use super::input::DriverCard;
use super::layout::{LANGUAGE, NATION};
use super::primitives::{SECONDS_PER_DAY, datef, day_start, put_time_real};
use super::text::{ia5, name};

/// EF_Identification (143 bytes).
pub fn identification(card: &DriverCard) -> Vec<u8> {
    let mut out = Vec::with_capacity(143);
    // CardIdentification (65).
    out.push(NATION);
    out.extend_from_slice(&ia5(&card.card_number, 16));
    out.extend_from_slice(&name(&card.issuing_authority));
    put_time_real(&mut out, day_start(card.card_issue));
    put_time_real(&mut out, day_start(card.card_validity_begin));
    put_time_real(&mut out, day_start(card.card_expiry) + SECONDS_PER_DAY - 1);
    // DriverCardHolderIdentification (78).
    out.extend_from_slice(&name(&card.surname));
    out.extend_from_slice(&name(&card.first_names));
    out.extend_from_slice(&datef(card.birth_date));
    out.extend_from_slice(&LANGUAGE);
    out
}

/// EF_Driving_Licence_Info (53 bytes): authority Name `00` + 35 spaces ‖ nation `00` ‖ number 16 spaces.
pub fn driving_licence_info() -> Vec<u8> {
    let mut out = name("").to_vec();
    out.push(0x00);
    out.extend_from_slice(&[b' '; 16]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn d(y: i32, m: u32, dd: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, dd).unwrap()
    }

    fn padded(code_page: u8, text: &[u8]) -> Vec<u8> {
        let mut v = vec![code_page];
        v.extend_from_slice(text);
        v.resize(36, b' ');
        v
    }

    #[test]
    fn identification_by_hand() {
        let card = DriverCard {
            card_number: "RL00000000004200".into(),
            surname: "Hélène".into(),
            first_names: "Zoë".into(),
            birth_date: Some(d(1985, 7, 3)),
            company_name: "Transports X".into(),
            issuing_authority: "ROADLOG".into(),
            card_issue: d(2024, 1, 1),
            card_validity_begin: d(2024, 1, 1),
            card_expiry: d(2024, 1, 2),
        };
        let v = identification(&card);
        assert_eq!(v.len(), 143);
        let mut expected = vec![0x11];
        expected.extend_from_slice(b"RL00000000004200");
        expected.extend_from_slice(&padded(0x01, b"ROADLOG"));
        // issue = validity begin = 2024-01-01 00:00:00 = 1 704 067 200 = 65 92 00 80;
        // expiry = 2024-01-02 23:59:59 = 1 704 067 200 + 86 400 + 86 399 = 1 704 239 999 = 0x6594_A37F.
        expected.extend_from_slice(&[0x65, 0x92, 0x00, 0x80, 0x65, 0x92, 0x00, 0x80, 0x65, 0x94, 0xA3, 0x7F]);
        // Names in Latin-1: é = E9, è = E8, ë = EB.
        expected.extend_from_slice(&padded(0x01, &[b'H', 0xE9, b'l', 0xE8, b'n', b'e']));
        expected.extend_from_slice(&padded(0x01, &[b'Z', b'o', 0xEB]));
        // Datef 1985-07-03 → 19 85 07 03; language "fr" = 66 72.
        expected.extend_from_slice(&[0x19, 0x85, 0x07, 0x03, 0x66, 0x72]);
        assert_eq!(v, expected);
    }

    #[test]
    fn no_birth_date_is_zero_datef() {
        let card = DriverCard {
            card_number: "X".into(),
            surname: String::new(),
            first_names: String::new(),
            birth_date: None,
            company_name: String::new(),
            issuing_authority: String::new(),
            card_issue: d(2024, 1, 1),
            card_validity_begin: d(2024, 1, 1),
            card_expiry: d(2024, 1, 1),
        };
        let v = identification(&card);
        assert_eq!(&v[1..17], b"X               ");
        assert_eq!(v[17], 0x00); // empty Name: code page 00
        assert_eq!(&v[137..141], &[0, 0, 0, 0]);
    }

    #[test]
    fn driving_licence_defaults() {
        let v = driving_licence_info();
        let mut expected = vec![0x00];
        expected.extend_from_slice(&[0x20; 35]);
        expected.push(0x00);
        expected.extend_from_slice(&[0x20; 16]);
        assert_eq!(v, expected);
    }
}
