//! The C1B export through the progenitor client: the root public key the server publishes
//! (`GET /api/tachograph/root-public-key`), then the signed export of the companies
//! (`POST /api/companies/generate_tachograph_files`), each ZIP entry checked by `c1b`.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use futures::TryStreamExt;
use roadlog_client::rest;

use crate::c1b;

/// What was checked.
pub struct Report {
    pub root_key_id: String,
    pub files: usize,
    pub signatures: usize,
}

/// Downloads the root key and the export, and checks every file of the export with that key.
pub async fn download_and_check(
    server: &str,
    token: &str,
    companies: &[i64],
    out: Option<&Path>,
) -> anyhow::Result<Report> {
    let mut headers = reqwest::header::HeaderMap::new();
    let bearer = format!("Bearer {token}")
        .parse()
        .context("the token is not a header value")?;
    headers.insert(reqwest::header::AUTHORIZATION, bearer);
    let http = reqwest::Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .context("cannot build the HTTP client")?;
    let api = rest::Client::new_with_client(server, http);

    let root_key = collect(
        api.tachograph_root_public_key()
            .send()
            .await
            .context("root public key")?
            .into_inner(),
    )
    .await?;
    let root = c1b::RootKey::parse(&root_key).context("EC_PK.bin")?;
    println!(
        "root public key: EC_PK.bin, {} bytes, key id {}",
        root_key.len(),
        root.id_hex()
    );

    let zip = api
        .generate_tachograph_files()
        .body_map(|body| body.company_ids(companies.to_vec()).with_digital_signatures(true))
        .send()
        .await
        .context("the C1B export")?;
    let zip = collect(zip.into_inner()).await?;
    println!("export: fichiers_C1B.zip, {} bytes", zip.len());
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(dir.join("EC_PK.bin"), &root_key).context("cannot write EC_PK.bin")?;
        std::fs::write(dir.join("fichiers_C1B.zip"), &zip).context("cannot write fichiers_C1B.zip")?;
    }

    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).context("the export is not a ZIP archive")?;
    if archive.is_empty() {
        bail!("the export holds no file: nothing to check");
    }
    let mut signatures = 0;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).context("a ZIP entry")?;
        let name = entry.name().context("a ZIP entry name")?.to_string();
        c1b::check_entry_name(&name).with_context(|| format!("entry {name:?}"))?;
        let mut file = Vec::new();
        // A card file is at most a few tens of KiB: a much larger entry is refused unread.
        (&mut entry)
            .take(c1b::MAX_FILE_LEN + 1)
            .read_to_end(&mut file)
            .with_context(|| format!("reading {name}"))?;
        let checked = c1b::check_file(&file, &root).with_context(|| name.clone())?;
        println!(
            "  {name}: {} bytes, card {} certified by CA {} under the root, {} EF signatures valid",
            file.len(),
            checked.card_key_id,
            checked.ca_key_id,
            checked.signatures
        );
        signatures += checked.signatures;
    }
    Ok(Report {
        root_key_id: root.id_hex(),
        files: archive.len(),
        signatures,
    })
}

/// A streamed body, whole.
async fn collect(stream: rest::ByteStream) -> anyhow::Result<Vec<u8>> {
    let chunks: Vec<bytes::Bytes> = stream.into_inner().try_collect().await.context("reading the answer")?;
    Ok(chunks.concat())
}
