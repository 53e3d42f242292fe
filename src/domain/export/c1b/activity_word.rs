//! ActivityChangeInfo (Appendix 1 §2.1): the 16-bit word `scpaattttttttttt` of a driver card activity change,
//! and how our activity kinds map to it.
//!
//! Why this mapping: drive → DRIVING and work → WORK in the driver slot; transfer → AVAILABILITY; an accompanying
//! employee ("support") is what a VU records for a co-driver while the vehicle moves (req. 036): co-driver slot,
//! CREW, AVAILABILITY (not DRIVING, which would count towards driving time). A gap inside a working day is
//! BREAK/REST with the card left in its slot; at the end of the working day the card is withdrawn (`p` = 1,
//! `c` = 0, `aa` = the activity selected then, BREAK/REST).

use super::input::ActivityKind;

/// `s`: co-driver slot (0 = driver slot).
pub const SLOT_CO_DRIVER: u16 = 1 << 15;
/// `c`: CREW when inserted; KNOWN (manual entry) when not inserted.
pub const C_BIT: u16 = 1 << 14;
/// `p`: card NOT INSERTED or withdrawn.
pub const NOT_INSERTED: u16 = 1 << 13;
pub const ACTIVITY_MASK: u16 = 0b11 << 11;
pub const BREAK_REST: u16 = 0b00 << 11;
pub const AVAILABILITY: u16 = 0b01 << 11;
pub const WORK: u16 = 0b10 << 11;
pub const DRIVING: u16 = 0b11 << 11;
/// `t`: minutes since 00:00 of the record's day.
pub const TIME_MASK: u16 = 0x07FF;

/// State (word without time) while the card is not inserted and nothing is known: driver slot, UNKNOWN,
/// NOT INSERTED, BREAK/REST → `0x2000`.
pub const WITHDRAWN: u16 = NOT_INSERTED;

/// State while doing `kind` with the card inserted.
pub fn state_of(kind: ActivityKind) -> u16 {
    match kind {
        ActivityKind::Drive => DRIVING,
        ActivityKind::Work => WORK,
        ActivityKind::Transfer => AVAILABILITY,
        ActivityKind::Support => SLOT_CO_DRIVER | C_BIT | AVAILABILITY,
    }
}

/// State of a gap inside a working day after `state`: the card stays in its slot with the same driving status,
/// the activity becomes BREAK/REST.
pub fn rest_after(state: u16) -> u16 {
    state & (SLOT_CO_DRIVER | C_BIT)
}

/// State after the card is withdrawn from the slot of `state` with BREAK/REST selected.
pub fn withdrawal_after(state: u16) -> u16 {
    (state & SLOT_CO_DRIVER) | NOT_INSERTED | BREAK_REST
}

/// The activity kind a word stands for, `None` for rest and card-not-inserted time.
pub fn kind_of(word: u16) -> Option<ActivityKind> {
    if word & NOT_INSERTED != 0 {
        return None;
    }
    match word & ACTIVITY_MASK {
        DRIVING => Some(ActivityKind::Drive),
        WORK => Some(ActivityKind::Work),
        AVAILABILITY if word & SLOT_CO_DRIVER != 0 => Some(ActivityKind::Support),
        AVAILABILITY => Some(ActivityKind::Transfer),
        _ => None,
    }
}

pub fn activity_name(word: u16) -> &'static str {
    match word & ACTIVITY_MASK {
        BREAK_REST => "break_rest",
        AVAILABILITY => "availability",
        WORK => "work",
        _ => "driving",
    }
}

pub fn slot_name(word: u16) -> &'static str {
    if word & SLOT_CO_DRIVER != 0 {
        "co_driver"
    } else {
        "driver"
    }
}

pub fn status_name(word: u16) -> &'static str {
    match (word & NOT_INSERTED != 0, word & C_BIT != 0) {
        (false, false) => "single",
        (false, true) => "crew",
        (true, false) => "unknown",
        (true, true) => "known",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_by_hand() {
        // s c p aa t(11): drive = 0 0 0 11 → 0001 1000 0000 0000 = 0x1800 (the spec's "0x1800 | m" example).
        assert_eq!(state_of(ActivityKind::Drive), 0x1800);
        // work = 0 0 0 10 → 0001 0000 … = 0x1000; transfer = 0 0 0 01 → 0000 1000 … = 0x0800.
        assert_eq!(state_of(ActivityKind::Work), 0x1000);
        assert_eq!(state_of(ActivityKind::Transfer), 0x0800);
        // support = 1 1 0 01 → 1100 1000 0000 0000 = 0xC800.
        assert_eq!(state_of(ActivityKind::Support), 0xC800);
        // Driving at 08:30 = minute 510 = 0x1FE → 0x1800 | 0x01FE = 0x19FE.
        assert_eq!(state_of(ActivityKind::Drive) | 510, 0x19FE);
        // Not inserted / unknown at 00:00 → 0 0 1 00 → 0x2000 (the spec's example).
        assert_eq!(WITHDRAWN, 0x2000);
    }

    #[test]
    fn rest_and_withdrawal_keep_the_slot() {
        // Rest after driving: 0x0000; rest after support keeps s and c: 1100 0000 … = 0xC000.
        assert_eq!(rest_after(0x1800), 0x0000);
        assert_eq!(rest_after(0xC800), 0xC000);
        // Withdrawal from the co-driver slot: s = 1, c = 0, p = 1, aa = 00 → 1010 0000 … = 0xA000.
        assert_eq!(withdrawal_after(0xC800), 0xA000);
        assert_eq!(withdrawal_after(0x1000), 0x2000);
    }

    #[test]
    fn decoding_back() {
        assert_eq!(kind_of(0x19FE), Some(ActivityKind::Drive));
        assert_eq!(kind_of(0x1000), Some(ActivityKind::Work));
        assert_eq!(kind_of(0x0800), Some(ActivityKind::Transfer));
        assert_eq!(kind_of(0xC800), Some(ActivityKind::Support));
        assert_eq!(kind_of(0x0000), None);
        assert_eq!(kind_of(0x3800), None); // driving but card not inserted
        assert_eq!(
            (activity_name(0x0800), slot_name(0xC800), status_name(0x6000)),
            ("availability", "co_driver", "known")
        );
    }
}
