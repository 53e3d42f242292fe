//! A mission's history as the sheets `Détail` and `Missions supprimées` tell it: what the
//! database keeps of a worker's activities (their versions, cancellation and dispute), of the
//! mission's validations, expenditures and places, turned into dated French sentences with
//! their author. Times read `dd/mm à HH:MM` in the worker's time zone.

use chrono_tz::Tz;
use serde_json::Value;

use crate::domain::kinds::ActivityType;
use crate::domain::regulation::time::local_datetime;

/// Seconds either side of a validation within which an activity's end belongs to it.
const NEAR: i64 = 60;

/// One version of an activity's times.
#[derive(Clone, Debug)]
pub struct Version {
    pub time: i64,
    pub start: i64,
    pub end: Option<i64>,
    pub context: Option<String>,
    pub submitter: i64,
}

/// One activity of the worker in the mission, its versions by number.
#[derive(Clone, Debug)]
pub struct Activity {
    pub kind: ActivityType,
    pub versions: Vec<Version>,
    pub dismissed: Option<(i64, i64, Option<String>)>,
    pub dispute: Option<String>,
}

/// A validation of the mission concerning the worker.
#[derive(Clone, Debug)]
pub struct Validation {
    pub submitter: Option<i64>,
    pub is_admin: bool,
    pub is_auto: bool,
    pub time: i64,
}

/// An expenditure of the worker: its label, who added it and when, and its cancellation.
#[derive(Clone, Debug)]
pub struct Expenditure {
    pub label: &'static str,
    pub submitter: i64,
    pub time: i64,
    pub dismissed: Option<(i64, i64)>,
}

/// A place where the mission started (`is_start`) or ended.
#[derive(Clone, Debug)]
pub struct Location {
    pub is_start: bool,
    pub submitter: i64,
    pub time: i64,
    pub place: String,
}

/// What is known of one worker's part in one mission.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The mission's name when it holds time off: its activities are then named after it.
    pub holiday_name: Option<String>,
    pub activities: Vec<Activity>,
    pub validations: Vec<Validation>,
    pub expenditures: Vec<Expenditure>,
    pub locations: Vec<Location>,
}

/// Who recorded an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Author {
    /// The service itself (automatic validations).
    Automatic,
    User(i64),
}

/// One row of history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub time: i64,
    pub author: Author,
    pub text: String,
    /// The activity's label when the event creates an activity still standing.
    pub activity: String,
    pub justification: String,
    pub is_deletion: bool,
    order: u8,
}

/// Event kinds in the order events of the same minute are told.
const DELETE: u8 = 0;
const UPDATE: u8 = 1;
const CREATE: u8 = 2;
const DISPUTE: u8 = 3;

/// The label of an expenditure type.
pub fn expenditure_label(kind: &str) -> &'static str {
    match kind {
        "day_meal" => "repas midi",
        "night_meal" => "repas soir",
        "sleep_over" => "découcher(s)",
        _ => "casse-croûte(s)",
    }
}

/// The label of an activity type (`Pause` for time off).
pub fn activity_label(kind: ActivityType) -> &'static str {
    match kind {
        ActivityType::Work => "Autre tâche",
        ActivityType::Drive => "Déplacement",
        ActivityType::Support => "Accompagnement",
        ActivityType::Transfer => "Liaison",
        _ => "Pause",
    }
}

/// `dd/mm à HH:MM` in `tz`.
pub fn when(tz: Tz, t: i64) -> String {
    local_datetime(tz, t).format("%d/%m à %H:%M").to_string()
}

/// The `userComment` of a version's or cancellation's context, if any.
fn user_comment(context: Option<&str>) -> String {
    context
        .and_then(|c| serde_json::from_str::<Value>(c).ok())
        .and_then(|c| c.get("userComment").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_default()
}

struct Builder {
    tz: Tz,
    events: Vec<Event>,
}

impl Builder {
    fn push(&mut self, time: i64, author: Author, order: u8, text: String) -> &mut Event {
        self.events.push(Event {
            time,
            author,
            text,
            activity: String::new(),
            justification: String::new(),
            is_deletion: order == DELETE,
            order,
        });
        let last = self.events.len() - 1;
        &mut self.events[last]
    }

    fn at(&self, t: i64) -> String {
        when(self.tz, t)
    }
}

/// The events of `facts`, disputes last, the others by time then kind.
pub fn events(tz: Tz, facts: &Facts) -> Vec<Event> {
    let mut b = Builder { tz, events: Vec::new() };
    let label = |kind: ActivityType| {
        facts
            .holiday_name
            .clone()
            .unwrap_or_else(|| activity_label(kind).to_string())
    };
    let auto_near = |t: i64| {
        facts
            .validations
            .iter()
            .any(|v| v.is_auto && (v.time - t).abs() <= NEAR)
    };
    for activity in &facts.activities {
        let x = label(activity.kind);
        let Some(first) = activity.versions.first() else {
            continue;
        };
        let text = match first.end {
            Some(end) => format!("a ajouté l'activité {x} du {} au {}", b.at(first.start), b.at(end)),
            None => format!("s'est mis en {x} le {}", b.at(first.start)),
        };
        let standing = activity.dismissed.is_none();
        let event = b.push(first.time, Author::User(first.submitter), CREATE, text);
        event.justification = user_comment(first.context.as_deref());
        if standing {
            event.activity = x.clone();
        }
        for pair in activity.versions.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            let mut texts = Vec::new();
            if before.start != after.start {
                texts.push(format!(
                    "a décalé le début de l'activité {x} du {} au {}",
                    b.at(before.start),
                    b.at(after.start)
                ));
            }
            match (before.end, after.end) {
                (Some(_), None) => texts.push(format!("a repris l'activité {x} le {}", b.at(after.time))),
                (None, Some(end)) if !auto_near(after.time) => {
                    texts.push(format!("a mis fin à l'activité {x} le {}", b.at(end)));
                }
                (Some(old), Some(new)) if old != new => texts.push(format!(
                    "a décalé la fin de l'activité {x} du {} au {}",
                    b.at(old),
                    b.at(new)
                )),
                _ => {}
            }
            let comment = user_comment(after.context.as_deref());
            for text in texts {
                b.push(after.time, Author::User(after.submitter), UPDATE, text)
                    .justification = comment.clone();
            }
        }
        if let Some((at, author, context)) = &activity.dismissed {
            let text = format!("a supprimé l'activité {x} démarrée le {}", b.at(first.start));
            b.push(*at, Author::User(*author), DELETE, text).justification = user_comment(context.as_deref());
        }
        if let Some(dispute) = dispute(&b, activity, &x) {
            let (time, submitter, text, reason) = dispute;
            b.push(time, Author::User(submitter), DISPUTE, text).justification = reason;
        }
    }
    validations(&mut b, facts, &label);
    for e in &facts.expenditures {
        b.push(
            e.time,
            Author::User(e.submitter),
            CREATE,
            format!("a ajouté le frais {}", e.label),
        );
        if let Some((at, author)) = e.dismissed {
            b.push(
                at,
                Author::User(author),
                DELETE,
                format!("a supprimé le frais {}", e.label),
            );
        }
    }
    for l in &facts.locations {
        let side = if l.is_start { "début" } else { "fin" };
        let text = format!("a indiqué comme lieu de {side} de service : {}", l.place);
        b.push(l.time, Author::User(l.submitter), CREATE, text);
    }
    let mut events = b.events;
    events.sort_by_key(|e| (e.order == DISPUTE, e.time, e.order));
    events
}

/// The validations' texts: a manual one in one sentence, an automatic one after the ends of
/// the activities it closed.
fn validations(b: &mut Builder, facts: &Facts, label: &dyn Fn(ActivityType) -> String) {
    let employee_auto = |t: i64| {
        facts
            .validations
            .iter()
            .any(|v| v.is_auto && !v.is_admin && (v.time - t).abs() <= NEAR)
    };
    for v in &facts.validations {
        if !v.is_auto {
            let author = v.submitter.map_or(Author::Automatic, Author::User);
            b.push(v.time, author, CREATE, "a validé la mission".to_string());
            continue;
        }
        if !v.is_admin || !employee_auto(v.time) {
            for activity in &facts.activities {
                let closed = activity
                    .versions
                    .iter()
                    .find_map(|version| version.end.filter(|end| (end - v.time).abs() <= NEAR));
                if let Some(end) = closed {
                    let text = format!("a mis fin à l'activité {} le {}", label(activity.kind), b.at(end));
                    b.push(v.time, Author::Automatic, CREATE, text);
                }
            }
        }
        let side = if v.is_admin { "gestionnaire" } else { "salarié" };
        let text = format!("a validé la mission automatiquement à la place du {side}");
        b.push(v.time, Author::Automatic, CREATE, text);
    }
}

/// A dispute still open or settled: its time, author, sentence and reason.
fn dispute(b: &Builder, activity: &Activity, x: &str) -> Option<(i64, i64, String, String)> {
    let value: Value = serde_json::from_str(activity.dispute.as_deref()?).ok()?;
    if value.get("status").and_then(Value::as_str) == Some("cancelled") {
        return None;
    }
    let time = value.get("time").and_then(Value::as_i64)?;
    let submitter = value.get("submitter_id").and_then(Value::as_i64)?;
    let reason = value
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let (first, last) = (activity.versions.first()?, activity.versions.last()?);
    let what = if activity.dismissed.is_some() {
        "la suppression"
    } else if activity.versions.len() > 1 {
        "la modification"
    } else {
        "l'ajout"
    };
    let mut text = format!("a contesté {what} de l'activité {x}");
    if what == "la modification" {
        let mut changes = Vec::new();
        if first.start != last.start {
            changes.push(format!("début décalé du {} au {}", b.at(first.start), b.at(last.start)));
        }
        if let (Some(old), Some(new)) = (first.end, last.end)
            && old != new
        {
            changes.push(format!("fin décalée du {} au {}", b.at(old), b.at(new)));
        }
        if !changes.is_empty() {
            text.push_str(&format!(" ({})", changes.join(", ")));
        }
    }
    Some((time, submitter, text, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARIS: Tz = chrono_tz::Europe::Paris;
    /// 2026-03-02 08:00 in Paris.
    const EIGHT: i64 = 1_772_434_800;

    fn version(time: i64, start: i64, end: Option<i64>) -> Version {
        Version {
            time,
            start,
            end,
            context: None,
            submitter: 7,
        }
    }

    #[test]
    fn an_activity_added_moved_and_cancelled_reads_as_the_reference_tells_it() {
        let facts = Facts {
            activities: vec![Activity {
                kind: ActivityType::Drive,
                versions: vec![
                    version(EIGHT + 5 * 3600, EIGHT, Some(EIGHT + 4 * 3600)),
                    Version {
                        context: Some(r#"{"userComment":"oubli"}"#.to_string()),
                        ..version(EIGHT + 6 * 3600, EIGHT, Some(EIGHT + 3 * 3600))
                    },
                ],
                dismissed: Some((EIGHT + 7 * 3600, 9, None)),
                dispute: None,
            }],
            ..Facts::default()
        };
        let texts: Vec<(String, String, bool)> = events(PARIS, &facts)
            .into_iter()
            .map(|e| (e.text, e.justification, e.is_deletion))
            .collect();
        assert_eq!(
            texts,
            [
                (
                    "a ajouté l'activité Déplacement du 02/03 à 08:00 au 02/03 à 12:00".to_string(),
                    String::new(),
                    false
                ),
                (
                    "a décalé la fin de l'activité Déplacement du 02/03 à 12:00 au 02/03 à 11:00".to_string(),
                    "oubli".to_string(),
                    false
                ),
                (
                    "a supprimé l'activité Déplacement démarrée le 02/03 à 08:00".to_string(),
                    String::new(),
                    true
                ),
            ]
        );
    }

    #[test]
    fn an_automatic_validation_tells_the_ends_it_closed_and_a_dispute_comes_last() {
        let end = EIGHT + 2 * 3600;
        let facts = Facts {
            holiday_name: None,
            activities: vec![Activity {
                kind: ActivityType::Work,
                versions: vec![
                    version(EIGHT, EIGHT, None),
                    Version {
                        submitter: 3,
                        ..version(end + 30, EIGHT + 600, Some(end))
                    },
                ],
                dismissed: None,
                dispute: Some(r#"{"text":"faux","submitter_id":7,"time":1772434000,"status":"created"}"#.to_string()),
            }],
            validations: vec![Validation {
                submitter: None,
                is_admin: false,
                is_auto: true,
                time: end + 30,
            }],
            ..Facts::default()
        };
        let rows: Vec<(String, Author, String)> = events(PARIS, &facts)
            .into_iter()
            .map(|e| (e.text, e.author, e.justification))
            .collect();
        assert_eq!(
            rows,
            [
                ("s'est mis en Autre tâche le 02/03 à 08:00".to_string(), Author::User(7), String::new()),
                (
                    "a décalé le début de l'activité Autre tâche du 02/03 à 08:00 au 02/03 à 08:10".to_string(),
                    Author::User(3),
                    String::new()
                ),
                (
                    "a mis fin à l'activité Autre tâche le 02/03 à 10:00".to_string(),
                    Author::Automatic,
                    String::new()
                ),
                (
                    "a validé la mission automatiquement à la place du salarié".to_string(),
                    Author::Automatic,
                    String::new()
                ),
                (
                    "a contesté la modification de l'activité Autre tâche (début décalé du 02/03 à 08:00 au 02/03 à 08:10)"
                        .to_string(),
                    Author::User(7),
                    "faux".to_string()
                ),
            ]
        );
    }
}
