//! How much of the reference service's public API Roadlog serves: the schema the server builds is
//! compared with the reference's printed schema (`tests/reference/mobilic-schema-public.graphql`),
//! field by field of every object type, outside the groups left out on purpose (see
//! `docs/src/clients/reference-api.md`). The figure is printed; the test fails when it drops below
//! what has been reached (the ratchet constants, raised as fields are added), and when a field
//! both serve differs in a way that would break software written against the reference: a missing
//! argument, an argument a reference request could not fill, an extra argument that is required,
//! or another output type.

use std::collections::BTreeMap;
use std::path::Path;

use async_graphql::parser::types::{BaseType, Type, TypeKind, TypeSystemDefinition};

use crate::support::{Backend, TestApp};

/// Object types of the reference left out whole: control officers' tools, certification badges,
/// user agreements, surveys. They serve the reference's own web application, not third-party
/// software.
const LEFT_OUT_TYPES: &[&str] = &[
    // Control officers' tools.
    "ControllerControl",
    "ControlBulletinFields",
    "ObservedInfraction",
    "ControllerUser",
    "ControlPictureOutput",
    // Certification badges.
    "CertificateCriterias",
    "CompanyCertificationType",
    // User agreements.
    "UserAgreement",
    // Surveys.
    "UserSurveyActions",
];

/// Fields of other types that belong to the same groups, and the TOTP second factor of the
/// reference's staff login (which Roadlog serves to every user, outside the count).
const LEFT_OUT_FIELDS: &[(&str, &str)] = &[
    ("User", "userControls"),
    ("Company", "currentCompanyCertification"),
    ("Employment", "shouldSeeCertificateInfo"),
    ("User", "userAgreementStatus"),
    ("User", "surveyActions"),
    ("Auth", "validateTotpLogin"),
    ("LoginOutput", "totpRequired"),
    ("User", "totpEnabled"),
];

/// Reference fields served for compatibility but holding no data in Roadlog: each answers a
/// constant, says so in its SDL description, and is not counted as covered.
const CONSTANT_FIELDS: &[(&str, &str)] = &[
    // Always false: the reference's flag for its own staff; Roadlog has no staff accounts.
    ("User", "admin"),
    // Always false: the reference's impersonation by its staff; Roadlog has none.
    ("User", "isImpersonated"),
];

/// The fields the issue counts (the reference's object fields outside the left-out groups).
const REFERENCE_FIELDS: usize = 349;

/// The ratchet: reference fields Roadlog serves with data, and arguments of those it takes. Every
/// reference field is served (the test fails on a missing one): these plus [`CONSTANT_FIELDS`]
/// make all of [`REFERENCE_FIELDS`]. They never go down.
const SERVED_AT_LEAST: usize = 347;
const ARGUMENTS_AT_LEAST: usize = 171;

/// Arguments of served reference fields that Roadlog does not take yet, each named; the list may
/// only shrink (the test fails when one of them is taken, so that it is struck off).
const ARGUMENTS_NOT_YET_TAKEN: &[&str] = &[];

/// One field of an object type: its output type and its arguments (type, has a default).
struct Field {
    output: String,
    arguments: BTreeMap<String, (Type, bool)>,
}

/// Every field of every object type of an SDL document, by `(type, field)`.
fn object_fields(sdl: &str) -> BTreeMap<(String, String), Field> {
    let document = async_graphql::parser::parse_schema(sdl).expect("the SDL parses");
    let mut fields = BTreeMap::new();
    for definition in document.definitions {
        let TypeSystemDefinition::Type(t) = definition else {
            continue;
        };
        let t = t.node;
        let TypeKind::Object(object) = t.kind else {
            continue;
        };
        for field in object.fields {
            let field = field.node;
            let arguments = field
                .arguments
                .into_iter()
                .map(|a| {
                    let a = a.node;
                    (a.name.node.to_string(), (a.ty.node, a.default_value.is_some()))
                })
                .collect();
            fields.insert(
                (t.name.node.to_string(), field.name.node.to_string()),
                Field {
                    output: field.ty.node.to_string(),
                    arguments,
                },
            );
        }
    }
    fields
}

/// Whether an argument typed `ours` accepts every value a reference client may send for one
/// typed `theirs`: the same named types at the same list depths, and optional wherever the
/// reference's is optional.
fn accepts(ours: &Type, theirs: &Type) -> bool {
    if theirs.nullable && !ours.nullable {
        return false;
    }
    match (&ours.base, &theirs.base) {
        (BaseType::Named(a), BaseType::Named(b)) => a == b,
        (BaseType::List(a), BaseType::List(b)) => accepts(a, b),
        _ => false,
    }
}

fn left_out(type_name: &str, field: &str) -> bool {
    LEFT_OUT_TYPES.contains(&type_name) || LEFT_OUT_FIELDS.contains(&(type_name, field))
}

tests! {
async fn the_reference_api_is_covered_at_least_as_far_as_reached() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let served = roadlog::graphql::build_schema(app.server.app.clone()).sdl();
    app.cleanup().await;
    let reference = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/mobilic-schema-public.graphql"),
    )
    .unwrap();
    let (ours, theirs) = (object_fields(&served), object_fields(&reference));

    let mut counted = 0;
    let mut served_fields = 0;
    let (mut arguments, mut served_arguments) = (0, 0);
    let mut missing_fields = Vec::new();
    let mut missing_arguments = Vec::new();
    let mut incompatible = Vec::new();
    for ((type_name, name), reference_field) in &theirs {
        if left_out(type_name, name) {
            continue;
        }
        counted += 1;
        let Some(field) = ours.get(&(type_name.clone(), name.clone())) else {
            missing_fields.push(format!("{type_name}.{name}"));
            continue;
        };
        if !CONSTANT_FIELDS.contains(&(type_name.as_str(), name.as_str())) {
            served_fields += 1;
        }
        if field.output != reference_field.output {
            incompatible.push(format!(
                "{type_name}.{name}: returns {}, the reference {}",
                field.output, reference_field.output
            ));
        }
        for (argument, (their_type, _)) in &reference_field.arguments {
            arguments += 1;
            match field.arguments.get(argument) {
                None => missing_arguments.push(format!("{type_name}.{name}({argument})")),
                Some((our_type, _)) => {
                    served_arguments += 1;
                    if !accepts(our_type, their_type) {
                        incompatible.push(format!(
                            "{type_name}.{name}({argument}): takes {our_type}, the reference {their_type}"
                        ));
                    }
                }
            }
        }
        for (argument, (our_type, has_default)) in &field.arguments {
            let required = !our_type.nullable && !has_default;
            if required && !reference_field.arguments.contains_key(argument) {
                incompatible.push(format!(
                    "{type_name}.{name}({argument}): required here, unknown to the reference"
                ));
            }
        }
    }

    println!(
        "reference coverage: {served_fields} of {counted} fields hold data ({:.1} %; {} more served as documented constants), {served_arguments} of their {arguments} arguments",
        100.0 * served_fields as f64 / counted as f64,
        CONSTANT_FIELDS.len()
    );
    for (type_name, name) in CONSTANT_FIELDS {
        let key = (type_name.to_string(), name.to_string());
        assert!(ours.contains_key(&key), "{type_name}.{name} is listed as a constant but not served");
        assert!(theirs.contains_key(&key), "{type_name}.{name} is listed as a constant but not in the reference");
    }
    println!(
        "reference fields served: {} of {counted}",
        counted - missing_fields.len()
    );
    println!("missing fields ({}): {}", missing_fields.len(), missing_fields.join(", "));
    println!("missing arguments ({}): {}", missing_arguments.len(), missing_arguments.join(", "));

    assert_eq!(counted, REFERENCE_FIELDS, "the reference schema or the left-out groups changed");
    assert!(
        incompatible.is_empty(),
        "fields served under the reference's names but not as the reference types them:\n{}",
        incompatible.join("\n")
    );
    assert!(
        missing_fields.is_empty(),
        "every reference field is served; missing: {}",
        missing_fields.join(", ")
    );
    assert_eq!(
        missing_arguments, ARGUMENTS_NOT_YET_TAKEN,
        "served reference fields without all the reference's arguments (strike taken ones off the list)"
    );
    assert!(
        served_fields >= SERVED_AT_LEAST && served_arguments >= ARGUMENTS_AT_LEAST,
        "coverage dropped: {served_fields} fields (at least {SERVED_AT_LEAST}), {served_arguments} arguments (at least {ARGUMENTS_AT_LEAST})"
    );
}
}
