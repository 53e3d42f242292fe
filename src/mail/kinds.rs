//! Every type of e-mail the service sends, and which of them a user may stop. The optional ones
//! tell a user about something they can read in the service anyway (their time changed, a
//! holiday recorded for them, a colleague's acceptance); the others carry a link or news the
//! account depends on (security, an address change, the account's employments) and cannot be
//! stopped. `docs/src/clients/mails.md` lists them all with their triggers; a test checks it names each.

/// A type of e-mail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MailType {
    AccountActivation,
    EmailChangeConfirmation,
    EmailChanged,
    ResetPassword,
    Invitation,
    InvitationReminder,
    EmploymentInvitation,
    EmploymentInvitationReminder,
    SyncInvitation,
    InvitationAccepted,
    EmploymentTerminated,
    EmploymentReattachment,
    DetachmentRequest,
    DetachmentReminder,
    NewMissionInformation,
    MissionChangesWarning,
    HolidayChangesWarning,
    HolidayLoggingByAdmin,
    TeamAffectation,
    TeamNewColleague,
}

impl MailType {
    /// Every type, in the order of the book's table.
    pub const ALL: [MailType; 20] = [
        MailType::AccountActivation,
        MailType::EmailChangeConfirmation,
        MailType::EmailChanged,
        MailType::ResetPassword,
        MailType::Invitation,
        MailType::InvitationReminder,
        MailType::EmploymentInvitation,
        MailType::EmploymentInvitationReminder,
        MailType::SyncInvitation,
        MailType::InvitationAccepted,
        MailType::EmploymentTerminated,
        MailType::EmploymentReattachment,
        MailType::DetachmentRequest,
        MailType::DetachmentReminder,
        MailType::NewMissionInformation,
        MailType::MissionChangesWarning,
        MailType::HolidayChangesWarning,
        MailType::HolidayLoggingByAdmin,
        MailType::TeamAffectation,
        MailType::TeamNewColleague,
    ];

    /// The name of the type (the reference's where it has one), as `User.emailOptOuts` and
    /// `account.changeEmailOptOut` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            MailType::AccountActivation => "account_activation",
            MailType::EmailChangeConfirmation => "email_change_confirmation",
            MailType::EmailChanged => "email_changed",
            MailType::ResetPassword => "reset_password",
            MailType::Invitation => "invitation",
            MailType::InvitationReminder => "invitation_reminder",
            MailType::EmploymentInvitation => "employment_invitation",
            MailType::EmploymentInvitationReminder => "employment_invitation_reminder",
            MailType::SyncInvitation => "sync_invitation",
            MailType::InvitationAccepted => "invitation_accepted",
            MailType::EmploymentTerminated => "employment_terminated",
            MailType::EmploymentReattachment => "employment_reattachment",
            MailType::DetachmentRequest => "detachment_request",
            MailType::DetachmentReminder => "detachment_relance",
            MailType::NewMissionInformation => "new_mission_information",
            MailType::MissionChangesWarning => "mission_changes_warning",
            MailType::HolidayChangesWarning => "holiday_changes_warning",
            MailType::HolidayLoggingByAdmin => "holiday_logging_by_admin",
            MailType::TeamAffectation => "team_affectation",
            MailType::TeamNewColleague => "team_new_colleague",
        }
    }

    /// The type of a name, if it is one.
    pub fn from_str_opt(name: &str) -> Option<MailType> {
        MailType::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// Whether a user may stop it. A detachment request stays: the employee relies on the
    /// admins reading it.
    pub fn optional(self) -> bool {
        matches!(
            self,
            MailType::InvitationAccepted
                | MailType::NewMissionInformation
                | MailType::MissionChangesWarning
                | MailType::HolidayChangesWarning
                | MailType::HolidayLoggingByAdmin
                | MailType::TeamAffectation
                | MailType::TeamNewColleague
        )
    }

    /// The optional types, in the order of [`MailType::ALL`].
    pub fn optional_ones() -> impl Iterator<Item = MailType> {
        MailType::ALL.into_iter().filter(|kind| kind.optional())
    }
}

#[cfg(test)]
mod tests {
    use super::MailType;

    #[test]
    fn names_are_unique_and_read_back() {
        for kind in MailType::ALL {
            assert_eq!(MailType::from_str_opt(kind.as_str()), Some(kind));
        }
        let mut names: Vec<&str> = MailType::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MailType::ALL.len());
        assert!(!MailType::ResetPassword.optional() && !MailType::EmailChanged.optional());
        assert_eq!(MailType::optional_ones().count(), 7);
    }

    #[test]
    fn the_book_lists_every_type() {
        let book = include_str!("../../docs/src/clients/mails.md");
        for kind in MailType::ALL {
            assert!(
                book.contains(&format!("`{}`", kind.as_str())),
                "{} missing from the book",
                kind.as_str()
            );
        }
    }
}
