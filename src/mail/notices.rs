//! The texts of the e-mails that follow what others did to a user's time and employments
//! (a mission an admin validated or changed, a holiday recorded for them, an invitation
//! accepted, an employment ended), each in the recipient's language, from askama text templates
//! (`templates/mail/`). Times are the recipient's local times; days are `dd/mm` in French and
//! `YYYY-MM-DD` in English; durations `XhYY`.

use askama::Template;
use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;

use super::messages::{Message, render};
use crate::i18n::Lang;

#[derive(Template)]
#[template(path = "mail/unsubscribe_footer.txt")]
struct Footer<'a> {
    fr: bool,
    link: &'a str,
}

/// The end of an optional e-mail: how to stop that type, with its link.
pub fn unsubscribe_footer(lang: Lang, link: &str) -> String {
    render(
        &Footer {
            fr: lang == Lang::Fr,
            link,
        },
        link,
    )
}

/// The local date and time of an instant in a zone.
pub fn local(tz: Tz, at: i64) -> NaiveDateTime {
    tz.timestamp_opt(at, 0)
        .earliest()
        .map_or_else(|| chrono::DateTime::UNIX_EPOCH.naive_utc(), |t| t.naive_local())
}

/// A day as the language writes it in these e-mails.
pub fn day_text(lang: Lang, day: NaiveDate) -> String {
    match lang {
        Lang::Fr => day.format("%d/%m").to_string(),
        Lang::En => day.format("%Y-%m-%d").to_string(),
    }
}

/// A full date (`dd/mm/YYYY` in French).
pub fn date_text(lang: Lang, day: NaiveDate) -> String {
    match lang {
        Lang::Fr => day.format("%d/%m/%Y").to_string(),
        Lang::En => day.format("%Y-%m-%d").to_string(),
    }
}

/// A duration in seconds as `XhYY`.
pub fn duration_text(seconds: i64) -> String {
    let minutes = seconds.max(0) / 60;
    format!("{}h{:02}", minutes / 60, minutes % 60)
}

/// A time of the mission: `HH:MM`, with its day when the times of the e-mail span several days.
fn time_text(lang: Lang, tz: Tz, at: Option<i64>, with_day: bool) -> String {
    let Some(at) = at else {
        return match lang {
            Lang::Fr => "en cours".into(),
            Lang::En => "running".into(),
        };
    };
    let t = local(tz, at);
    match (with_day, lang) {
        (false, _) => t.format("%H:%M").to_string(),
        (true, Lang::Fr) => format!("{} à {}", t.format("%d/%m"), t.format("%H:%M")),
        (true, Lang::En) => t.format("%Y-%m-%d %H:%M").to_string(),
    }
}

/// A worker's time in a mission: first start, last end (`None`: running), work seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: i64,
    pub end: Option<i64>,
    pub work: i64,
}

/// What the mission e-mails say about the mission and who validated it.
pub struct MissionMail<'a> {
    pub recipient: &'a str,
    pub mission_id: i64,
    pub mission_name: Option<&'a str>,
    pub admin: &'a str,
    pub company: &'a str,
    pub tz: Tz,
}

impl MissionMail<'_> {
    fn label(&self) -> String {
        match self.mission_name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => name.to_string(),
            None => format!("#{}", self.mission_id),
        }
    }
}

/// Whether the times span more than one local day.
fn several_days(tz: Tz, spans: &[Span]) -> bool {
    let mut days = spans
        .iter()
        .flat_map(|s| [Some(s.start), s.end])
        .flatten()
        .map(|t| local(tz, t).date());
    let Some(first) = days.next() else {
        return false;
    };
    days.any(|d| d != first)
}

#[derive(Template)]
#[template(path = "mail/new_mission.txt")]
struct NewMission<'a> {
    fr: bool,
    name: &'a str,
    label: &'a str,
    day: &'a str,
    admin: &'a str,
    company: &'a str,
    start: &'a str,
    end: &'a str,
    work: &'a str,
    mission_id: i64,
}

/// `new_mission_information`: an admin validated a mission of the worker's they never acted on.
pub fn new_mission(lang: Lang, mail: &MissionMail, now: Span) -> Message {
    let label = mail.label();
    let day = day_text(lang, local(mail.tz, now.start).date());
    let with_day = several_days(mail.tz, &[now]);
    let company = mail.company.to_uppercase();
    let subject = match lang {
        Lang::Fr => format!("La mission {label} du {day} a été rajoutée à votre historique"),
        Lang::En => format!("The mission {label} of {day} was added to your history"),
    };
    let text = NewMission {
        fr: lang == Lang::Fr,
        name: mail.recipient,
        label: &label,
        day: &day,
        admin: mail.admin,
        company: &company,
        start: &time_text(lang, mail.tz, Some(now.start), with_day),
        end: &time_text(lang, mail.tz, now.end, with_day),
        work: &duration_text(now.work),
        mission_id: mail.mission_id,
    };
    Message {
        subject,
        body: render(&text, &label),
    }
}

#[derive(Template)]
#[template(path = "mail/mission_changes.txt")]
struct Changes<'a> {
    fr: bool,
    holiday: bool,
    name: &'a str,
    label: &'a str,
    day: &'a str,
    admin: &'a str,
    company: &'a str,
    lines: Vec<String>,
    mission_id: i64,
}

/// One line of the changes: `Début : 08:00 → 09:00`, or the value alone when it did not change.
fn change_line(lang: Lang, what: &str, before: String, after: String, note: Option<&str>) -> String {
    let unchanged = match lang {
        Lang::Fr => "inchangé",
        Lang::En => "unchanged",
    };
    let colon = if lang == Lang::Fr { " :" } else { ":" };
    if before == after {
        format!("{what}{colon} {after} ({unchanged})")
    } else {
        match note {
            Some(note) => format!("{what}{colon} {before} → {after} ({note})"),
            None => format!("{what}{colon} {before} → {after}"),
        }
    }
}

/// `mission_changes_warning` (or `holiday_changes_warning` for a holiday): an admin changed the
/// worker's time after the worker's last action, then validated it.
pub fn mission_changes(lang: Lang, mail: &MissionMail, before: Span, after: Span, holiday: bool) -> Message {
    let label = match holiday {
        true => mail.label().to_lowercase(),
        false => mail.label(),
    };
    let day = day_text(lang, local(mail.tz, before.start).date());
    let with_day = several_days(mail.tz, &[before, after]);
    let company = mail.company.to_uppercase();
    let time = |at| time_text(lang, mail.tz, at, with_day);
    let longer = after.work > before.work;
    let note = match (lang, longer) {
        (Lang::Fr, true) => "allongé",
        (Lang::Fr, false) => "réduit",
        (Lang::En, true) => "longer",
        (Lang::En, false) => "shorter",
    };
    let (start_word, end_word, work_word) = match (lang, holiday) {
        (Lang::Fr, false) => ("Début", "Fin", "Temps de travail"),
        (Lang::Fr, true) => ("Début", "Fin", "Temps total"),
        (Lang::En, false) => ("Start", "End", "Work time"),
        (Lang::En, true) => ("Start", "End", "Total time"),
    };
    let lines = vec![
        change_line(
            lang,
            start_word,
            time(Some(before.start)),
            time(Some(after.start)),
            None,
        ),
        change_line(lang, end_word, time(before.end), time(after.end), None),
        change_line(
            lang,
            work_word,
            duration_text(before.work),
            duration_text(after.work),
            Some(note),
        ),
    ];
    let subject = match (lang, holiday) {
        (Lang::Fr, false) => format!("Modifications sur votre mission {label} du {day}"),
        (Lang::Fr, true) => format!("Modification de votre {label} du {day}"),
        (Lang::En, false) => format!("Changes to your mission {label} of {day}"),
        (Lang::En, true) => format!("Change to your {label} of {day}"),
    };
    let text = Changes {
        fr: lang == Lang::Fr,
        holiday,
        name: mail.recipient,
        label: &label,
        day: &day,
        admin: mail.admin,
        company: &company,
        lines,
        mission_id: mail.mission_id,
    };
    Message {
        subject,
        body: render(&text, &label),
    }
}

#[derive(Template)]
#[template(path = "mail/holiday_logged.txt")]
struct HolidayLogged<'a> {
    fr: bool,
    name: &'a str,
    admin: &'a str,
    company: &'a str,
    title: &'a str,
    days: Vec<(String, String, String)>,
}

/// `holiday_logging_by_admin`: an admin recorded a holiday for the worker; `periods` are its
/// daily periods.
pub fn holiday_logged(
    lang: Lang,
    recipient: &str,
    admin: &str,
    company: &str,
    title: &str,
    tz: Tz,
    periods: &[(i64, i64)],
) -> Message {
    let days = periods
        .iter()
        .map(|&(start, end)| {
            (
                date_text(lang, local(tz, start).date()),
                local(tz, start).format("%H:%M").to_string(),
                local(tz, end).format("%H:%M").to_string(),
            )
        })
        .collect();
    let company = company.to_uppercase();
    let subject = match lang {
        Lang::Fr => "Enregistrement d’un congé ou d’une absence par votre gestionnaire".to_string(),
        Lang::En => "Your administrator recorded a holiday or an absence for you".to_string(),
    };
    let text = HolidayLogged {
        fr: lang == Lang::Fr,
        name: recipient,
        admin,
        company: &company,
        title: &title.to_lowercase(),
        days,
    };
    Message {
        subject,
        body: render(&text, title),
    }
}

#[derive(Template)]
#[template(path = "mail/invitation_accepted.txt")]
struct InvitationAccepted<'a> {
    fr: bool,
    name: &'a str,
    employee: &'a str,
    company: &'a str,
    admin: bool,
    employment_id: i64,
}

/// `invitation_accepted`: to the admin who invited, the invited person joined the company.
pub fn invitation_accepted(
    lang: Lang,
    recipient: &str,
    employee: &str,
    company: &str,
    admin: bool,
    employment_id: i64,
) -> Message {
    let subject = match lang {
        Lang::Fr => format!("{employee} a rejoint l'entreprise {company} sur Roadlog"),
        Lang::En => format!("{employee} joined {company} on Roadlog"),
    };
    let text = InvitationAccepted {
        fr: lang == Lang::Fr,
        name: recipient,
        employee,
        company,
        admin,
        employment_id,
    };
    Message {
        subject,
        body: render(&text, employee),
    }
}

#[derive(Template)]
#[template(path = "mail/employment_terminated.txt")]
struct Terminated<'a> {
    fr: bool,
    name: &'a str,
    company: &'a str,
    end: &'a str,
}

/// `employment_terminated`: the company ended the employee's employment on `end`.
pub fn employment_terminated(lang: Lang, recipient: &str, company: &str, end: NaiveDate) -> Message {
    let end = date_text(lang, end);
    let subject = match lang {
        Lang::Fr => format!("Compte Roadlog détaché de l'entreprise {company}"),
        Lang::En => format!("{company} ended your employment"),
    };
    let text = Terminated {
        fr: lang == Lang::Fr,
        name: recipient,
        company,
        end: &end,
    };
    Message {
        subject,
        body: render(&text, company),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARIS: Tz = chrono_tz::Europe::Paris;
    // 2026-03-02 08:00 in Paris.
    const MONDAY_8: i64 = 1_772_434_800;

    fn mail() -> MissionMail<'static> {
        MissionMail {
            recipient: "Léa Dupont",
            mission_id: 7,
            mission_name: Some("Tournée <nord>"),
            admin: "Paul Martin",
            company: "Transports Ève",
            tz: PARIS,
        }
    }

    #[test]
    fn a_new_mission_reads_in_both_languages() {
        let now = Span {
            start: MONDAY_8,
            end: Some(MONDAY_8 + 9 * 3600),
            work: 8 * 3600 + 30 * 60,
        };
        let fr = new_mission(Lang::Fr, &mail(), now);
        assert_eq!(
            fr.subject,
            "La mission Tournée <nord> du 02/03 a été rajoutée à votre historique"
        );
        assert!(
            fr.body
                .contains("    Début : 08:00\n    Fin : 17:00\n    Temps de travail : 8h30\n"),
            "{}",
            fr.body
        );
        assert!(fr.body.contains("gestionnaire de l'entreprise TRANSPORTS ÈVE"));
        let en = new_mission(Lang::En, &mail(), now);
        assert_eq!(
            en.subject,
            "The mission Tournée <nord> of 2026-03-02 was added to your history"
        );
        assert!(
            en.body
                .contains("    Start: 08:00\n    End: 17:00\n    Work time: 8h30\n"),
            "{}",
            en.body
        );
    }

    #[test]
    fn changes_show_before_and_after() {
        let before = Span {
            start: MONDAY_8,
            end: Some(MONDAY_8 + 9 * 3600),
            work: 9 * 3600,
        };
        let after = Span {
            start: MONDAY_8 + 3600,
            end: Some(MONDAY_8 + 9 * 3600),
            work: 8 * 3600,
        };
        let fr = mission_changes(Lang::Fr, &mail(), before, after, false);
        assert_eq!(fr.subject, "Modifications sur votre mission Tournée <nord> du 02/03");
        assert!(fr.body.contains("Début : 08:00 → 09:00\n"), "{}", fr.body);
        assert!(fr.body.contains("Fin : 17:00 (inchangé)\n"), "{}", fr.body);
        assert!(
            fr.body.contains("Temps de travail : 9h00 → 8h00 (réduit)\n"),
            "{}",
            fr.body
        );
        let en = mission_changes(Lang::En, &mail(), before, after, true);
        assert_eq!(en.subject, "Change to your tournée <nord> of 2026-03-02");
        assert!(en.body.contains("Total time: 9h00 → 8h00 (shorter)"), "{}", en.body);
        // Times over two days carry their day.
        let night = Span {
            start: MONDAY_8 + 14 * 3600,
            end: Some(MONDAY_8 + 20 * 3600),
            work: 6 * 3600,
        };
        let fr = mission_changes(Lang::Fr, &mail(), before, night, false);
        assert!(fr.body.contains("Fin : 02/03 à 17:00 → 03/03 à 04:00"), "{}", fr.body);
    }

    #[test]
    fn footers_durations_and_holidays() {
        assert_eq!(duration_text(0), "0h00");
        assert_eq!(duration_text(36 * 3600 + 5 * 60 + 59), "36h05");
        let footer = unsubscribe_footer(Lang::En, "https://r.example/mail/unsubscribe?token=u1.x.y");
        assert!(footer.contains("\n    https://r.example/mail/unsubscribe?token=u1.x.y\n"));
        let holiday = holiday_logged(
            Lang::Fr,
            "Léa",
            "Paul",
            "Acme",
            "Congé payé",
            PARIS,
            &[(MONDAY_8, MONDAY_8 + 9 * 3600)],
        );
        assert!(
            holiday
                .body
                .contains("le 02/03/2026, une absence de type « congé payé » de 08:00 à 17:00"),
            "{}",
            holiday.body
        );
    }
}
