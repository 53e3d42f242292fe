//! The check types, as `RegulationCheckTypeEnum` spells them (their catalogue rows are in
//! `checks`).

/// A check's type, as `RegulationCheckTypeEnum` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckType {
    MinimumDailyRest,
    MaximumWorkDayTime,
    MinimumWorkDayBreak,
    MaximumUninterruptedWorkTime,
    MaximumWorkedDaysInWeek,
    NoLic,
    MaximumWorkInCalendarWeek,
    EnoughBreak,
    EuDailyDriving,
    EuBreak,
    EuDailyRest,
    EuWeeklyDriving,
    EuTwoWeekDriving,
    EuWeeklyRest,
}

impl CheckType {
    pub const ALL: [CheckType; 14] = [
        CheckType::MinimumDailyRest,
        CheckType::MaximumWorkDayTime,
        CheckType::MinimumWorkDayBreak,
        CheckType::MaximumUninterruptedWorkTime,
        CheckType::MaximumWorkedDaysInWeek,
        CheckType::NoLic,
        CheckType::MaximumWorkInCalendarWeek,
        CheckType::EnoughBreak,
        CheckType::EuDailyDriving,
        CheckType::EuBreak,
        CheckType::EuDailyRest,
        CheckType::EuWeeklyDriving,
        CheckType::EuTwoWeekDriving,
        CheckType::EuWeeklyRest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CheckType::MinimumDailyRest => "minimumDailyRest",
            CheckType::MaximumWorkDayTime => "maximumWorkDayTime",
            CheckType::MinimumWorkDayBreak => "minimumWorkDayBreak",
            CheckType::MaximumUninterruptedWorkTime => "maximumUninterruptedWorkTime",
            CheckType::MaximumWorkedDaysInWeek => "maximumWorkedDaysInWeek",
            CheckType::NoLic => "noLic",
            CheckType::MaximumWorkInCalendarWeek => "maximumWorkInCalendarWeek",
            CheckType::EnoughBreak => "enoughBreak",
            CheckType::EuDailyDriving => "euDailyDriving",
            CheckType::EuBreak => "euBreak",
            CheckType::EuDailyRest => "euDailyRest",
            CheckType::EuWeeklyDriving => "euWeeklyDriving",
            CheckType::EuTwoWeekDriving => "euTwoWeekDriving",
            CheckType::EuWeeklyRest => "euWeeklyRest",
        }
    }

    pub fn from_str_opt(text: &str) -> Option<CheckType> {
        CheckType::ALL.into_iter().find(|c| c.as_str() == text)
    }
}
