//! What depends on the national company register, which this server does not reach: `sirenInfo`
//! answers `NO_SIREN_API_CREDENTIALS` and tells nothing; `signUp.companies` registers
//! establishments with what the caller gives, all or none; and the reference's `Address` type,
//! which no field returns, in the served schema.

use serde_json::{Value, json};

use crate::support::codes;

const SIREN_INFO: &str = "query($s: String!) { sirenInfo(siren: $s) { registrationStatus legalUnit facilities } }";
const COMPANIES: &str = "mutation($s: String!, $c: [CompanySiret]!) { signUp { companies(siren: $s, companies: $c) { company { id name siren sirets legalName numberWorkers settings { allowOtherTask } } employment { id userId companyId hasAdminRights validationStatus business { businessType } } } } }";

fn message(body: &Value) -> &str {
    body["errors"][0]["message"].as_str().unwrap_or("<none>")
}

on_both_backends! {
    async fn siren_info_says_no_register_is_configured(app) {
        let admin = app.new_user("siren@example.com").await;
        let company = app.new_company(&admin, "Martin").await;
        let (known,): (String,) = sqlx::query_as("SELECT siren FROM companies WHERE id = $1")
            .bind(company)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        // Anonymous or signed in, a known SIREN or not: the register's absence, nothing else.
        for token in [None, Some(admin.token.as_str())] {
            for siren in [known.as_str(), "987 654 321"] {
                let (_, body) = app.graphql(SIREN_INFO, json!({ "s": siren }), token).await;
                assert_eq!(codes(&body), ["NO_SIREN_API_CREDENTIALS"], "{body}");
                assert!(message(&body).contains("No company register is configured"), "{body}");
                assert_eq!(body["data"]["sirenInfo"], Value::Null, "{body}");
            }
        }
        let (_, body) = app.graphql(SIREN_INFO, json!({ "s": "12345" }), None).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(message(&body), "SIREN must be exactly 9 characters (received: 5)");
    }

    async fn sign_up_companies_registers_each_establishment_as_a_company(app) {
        let admin = app.new_user("multi@example.com").await;
        let items = json!([
            { "siret": "123456789 00012", "usualName": " Martin Nord ", "phoneNumber": "0102030405", "businessType": "LONG_DISTANCE", "nbWorkers": 12 },
            { "siret": "12345678900020", "usualName": "Martin Sud", "businessType": "SHIPPING" },
            { "siret": "12345678900038", "usualName": "Martin Est" },
        ]);
        let body = app.as_user(&admin, COMPANIES, json!({ "s": "123456789", "c": items })).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        let created = body["data"]["signUp"]["companies"].as_array().unwrap().clone();
        assert_eq!(created.len(), 3);
        let expected = [
            ("Martin Nord", "12345678900012", json!(12), json!(true), json!("LONG_DISTANCE")),
            ("Martin Sud", "12345678900020", Value::Null, json!(false), json!("SHIPPING")),
            ("Martin Est", "12345678900038", Value::Null, Value::Null, Value::Null),
        ];
        for (output, (name, siret, workers, other_task, business)) in created.iter().zip(expected) {
            let company = &output["company"];
            assert_eq!(company["name"], name);
            assert_eq!(company["siren"], "123456789");
            assert_eq!(company["sirets"], json!([siret]));
            // The register is not consulted: no legal name is made up.
            assert_eq!(company["legalName"], Value::Null);
            assert_eq!(company["numberWorkers"], workers);
            assert_eq!(company["settings"]["allowOtherTask"], other_task, "{output}");
            let employment = &output["employment"];
            assert_eq!(employment["userId"], admin.id);
            assert_eq!(employment["companyId"], company["id"]);
            assert_eq!(employment["hasAdminRights"], true);
            assert_eq!(employment["validationStatus"], "approved");
            assert_eq!(employment["business"]["businessType"], business, "{output}");
        }
        let (phone,): (Option<String>,) = sqlx::query_as("SELECT phone_number FROM companies WHERE siret = '12345678900012'")
            .fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(phone.as_deref(), Some("0102030405"));

        // A SIRET registered already: refused, with its position, and nothing more is created.
        let again = json!([{ "siret": "12345678900046", "usualName": "Martin Ouest" }, { "siret": "12345678900020", "usualName": "Martin Sud bis" }]);
        let body = app.as_user(&admin, COMPANIES, json!({ "s": "123456789", "c": again })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(message(&body), "Company 2: SIRET already registered");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "SIRET_ALREADY_SIGNED_UP");
        assert_eq!(body["errors"][0]["extensions"]["index"], 1);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 3);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 3);
    }

    async fn sign_up_companies_refuses_and_creates_nothing(app) {
        let admin = app.new_user("refused@example.com").await;
        let item = |siret: Value, name: Value| json!({ "siret": siret, "usualName": name });
        let cases = [
            ("123456789", json!([]), "Companies list cannot be empty", None),
            ("12345", json!([item(json!("12345000000012"), json!("A"))]), "SIREN must be exactly 9 characters (received: 5)", None),
            ("123456789", json!([item(json!("12345678900012"), json!("A")), item(Value::Null, json!("B"))]), "Company 2: SIRET is required", None),
            ("123456789", json!([item(json!("12345678900012"), json!(" "))]), "Company 1: Company usual name is required", None),
            ("123456789", json!([item(json!("1234567890001"), json!("A"))]), "Company 1: SIRET must be exactly 14 digits", None),
            ("123456789", json!([item(json!("98765432100012"), json!("A"))]), "Company 1: SIRET must start with the company SIREN", None),
            ("123456789", json!([{ "siret": "12345678900012", "usualName": "A", "nbWorkers": 0 }]), "Company 1: Number of workers must be greater than 0", None),
            ("123456789", json!([{ "siret": "12345678900012", "usualName": "A", "businessType": "ROCKETS" }]), "Company 1: Business type ROCKETS not found", None),
            ("123456789", json!([item(json!("12345678900012"), json!("A")), item(json!("123456789 00012"), json!("B"))]), "Company 2: SIRET given twice", Some("SIRET_ALREADY_SIGNED_UP")),
            ("123456789", json!([null]), "Company 1: Company usual name is required", None),
        ];
        for (siren, items, expected, reason) in cases {
            let body = app.as_user(&admin, COMPANIES, json!({ "s": siren, "c": items })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
            assert_eq!(message(&body), expected, "{body}");
            assert_eq!(body["errors"][0]["extensions"]["reason"].as_str(), reason, "{body}");
            assert_eq!(body["data"]["signUp"]["companies"], Value::Null);
        }
        let many: Vec<Value> = (0..101).map(|n| item(json!(format!("123456789{n:05}")), json!("A"))).collect();
        let body = app.as_user(&admin, COMPANIES, json!({ "s": "123456789", "c": many })).await;
        assert_eq!(message(&body), "At most 100 companies can be signed up at once", "{body}");
        // Without a caller: nothing either.
        let (_, body) = app.graphql(COMPANIES, json!({ "s": "123456789", "c": [item(json!("12345678900012"), json!("A"))] }), None).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 0);

        // A company standing for the whole SIREN: no establishment of it can be signed up.
        let body = app.as_user(&admin, "mutation { signUp { company(usualName: \"Martin\", siren: \"123456789\") { company { id sirets } } } }", json!({})).await;
        assert_eq!(body["data"]["signUp"]["company"]["company"]["sirets"], json!([]), "{body}");
        let body = app.as_user(&admin, COMPANIES, json!({ "s": "123456789", "c": [item(json!("12345678900012"), json!("A"))] })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "SIREN_ALREADY_SIGNED_UP", "{body}");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 1);
    }

    async fn the_address_type_is_served_and_returned_by_no_field(app) {
        let address = "type Address {";
        // In the schema the server builds, and in the published SDL clients generate from.
        let sdl = roadlog::graphql::build_schema(app.server.app.clone()).sdl();
        let published = app.client.get(app.url("/schema.graphql")).send().await.unwrap().text().await.unwrap();
        for text in [&sdl, &published] {
            let start = text.find(address).unwrap_or_else(|| panic!("no Address in {}", &text[..200]));
            let body = &text[start..start + text[start..].find('}').unwrap()];
            let fields: Vec<&str> = body
                .lines()
                .map(str::trim)
                .filter(|l| l.split_once(": ").is_some_and(|(name, ty)| name.chars().all(char::is_alphanumeric) && !ty.contains(' ')))
                .collect();
            assert_eq!(fields, ["postalCode: String", "city: String", "name: String!", "alias: String", "id: Int"], "{body}");
            // As in the reference, no field of the schema returns it.
            assert!(!text.contains(": Address") && !text.contains("[Address"), "a field returns Address");
        }
    }
}
