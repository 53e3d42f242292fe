//! The closed lists of words the domain stores and compares (activity kinds, expenditure
//! kinds, …), spelled as the reference spells them on the wire and in the database. The GraphQL
//! layer serves them as its string scalars; the domain knows them as plain enums.

/// Declares an enum of lower-case words with its spelling both ways.
macro_rules! text_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every value, in the order of the contract.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire (and database) spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Reads the wire spelling.
            pub fn from_str_opt(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }
    };
}

text_enum!(
    /// Kind of a working-time activity.
    ActivityType {
        Drive => "drive",
        Work => "work",
        Support => "support",
        Transfer => "transfer",
        Off => "off",
    }
);

text_enum!(
    /// Kind of a professional expense.
    ExpenditureType {
        DayMeal => "day_meal",
        NightMeal => "night_meal",
        SleepOver => "sleep_over",
        Snack => "snack",
    }
);

text_enum!(
    /// Which end of a mission a location entry describes.
    LocationEntryType {
        MissionStartLocation => "mission_start_location",
        MissionEndLocation => "mission_end_location",
    }
);

text_enum!(
    /// Why a mission is validated late.
    ValidationJustification {
        Personal => "personal",
        Professional => "professional",
        TimeOff => "time_off",
    }
);

text_enum!(
    /// Kind of a notification of a user, spelled as the reference service stores it.
    NotificationType {
        MissionChangesWarning => "mission_changes_warning",
        NewMissionByAdmin => "new_mission_by_admin",
        MissionAutoValidation => "mission_auto_validation",
    }
);

text_enum!(
    /// A user's gender, as the reference spells it (`User.gender`).
    Gender {
        Female => "female",
        Male => "male",
    }
);

text_enum!(
    /// A warning of the reference's applications that a user asked not to see again
    /// (`User.disabledWarnings`).
    DisabledWarning {
        EmployeeValidation => "employee-validation",
        AdminMissionModification => "admin-mission-modification",
        EmployeeGeolocationInformation => "employee-geolocation-information",
        EmployeeOffCreation => "employee-off-creation",
    }
);
