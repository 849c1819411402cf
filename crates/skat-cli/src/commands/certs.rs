//! `skat certs`: a private CA and certificates signed by it, made on this machine.
//!
//! For tests, a private network and mutual TLS (client certificates), not for a public
//! server: strangers' bots trust the system's roots, so a server on the internet wants a
//! certificate from a public CA (cert-manager with Let's Encrypt, docs/deploy.md).
//!
//! Run again on the same folder, it keeps the CA and issues new leaf certificates: that is
//! a rotation (`skat serve` reloads the files; clients that trust `ca.pem` notice
//! nothing). Every file is written beside its final name and renamed into place, so a
//! server polling the files never reads half of one; keys are readable by their owner
//! only.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, KeyUsagePurpose,
};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder for the files (made if missing): ca.pem, ca-key.pem, server.pem,
    /// server-key.pem, and client-NAME.pem, client-NAME-key.pem per --client.
    #[arg(long)]
    out: PathBuf,
    /// A name or IP address the server certificate is valid for (repeat for several).
    #[arg(long = "host", default_values = ["localhost", "127.0.0.1", "::1"])]
    hosts: Vec<String>,
    /// Also a client certificate with this name, for `skat serve --tls-client-ca ca.pem`
    /// (repeat for several).
    #[arg(long = "client")]
    clients: Vec<String>,
    /// Days the new leaf certificates are valid (the CA: ten times as long).
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u64).range(1..=3650))]
    days: u64,
}

/// The CA's name: fixed, so that a later run can sign with the same CA from its key alone.
const CA_NAME: &str = "skat private CA";

fn ca_params(days: u64) -> Result<CertificateParams, rcgen::Error> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, CA_NAME);
    params.distinguished_name = name;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages =
        vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    valid_for(&mut params, days * 10);
    Ok(params)
}

fn valid_for(params: &mut CertificateParams, days: u64) {
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let epoch = rcgen::date_time_ymd(1970, 1, 1);
    // An hour back: a clock slightly behind ours still accepts the certificate.
    params.not_before = epoch + now.saturating_sub(Duration::from_secs(3600));
    params.not_after = epoch + now + Duration::from_secs(days * 86_400);
}

fn leaf(
    names: Vec<String>,
    common_name: &str,
    usage: ExtendedKeyUsagePurpose,
    days: u64,
) -> Result<CertificateParams, rcgen::Error> {
    let mut params = CertificateParams::new(names)?;
    params.distinguished_name.push(DnType::CommonName, common_name);
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    params.extended_key_usages = vec![usage];
    valid_for(&mut params, days);
    Ok(params)
}

/// Writes `text` to `path` whole: beside it first, then renamed over it.
fn write(path: &Path, text: &str, secret: bool) -> std::io::Result<()> {
    let partial = path.with_extension("partial");
    std::fs::write(&partial, text)?;
    if secret {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    std::fs::rename(&partial, path)
}

pub fn run(args: Args) -> CmdResult {
    make(&args.out, &args.hosts, &args.clients, args.days, true)?;
    Ok(ExitCode::SUCCESS)
}

/// Makes (or keeps) the CA in `out` and issues a server certificate for `hosts` and one
/// client certificate per name in `clients`; says what it wrote when `tell`.
pub fn make(
    out: &Path,
    hosts: &[String],
    clients: &[String],
    days: u64,
    tell: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let say = |line: String| {
        if tell {
            outln!("{line}");
        }
    };
    std::fs::create_dir_all(out)?;
    let (ca_pem, ca_key_pem) = (out.join("ca.pem"), out.join("ca-key.pem"));
    let ca_key = if ca_key_pem.exists() && ca_pem.exists() {
        let key = KeyPair::from_pem(&std::fs::read_to_string(&ca_key_pem)?)
            .map_err(|e| format!("{}: not a private key this command made ({e})", ca_key_pem.display()))?;
        say(format!("kept the CA in {} (its key signs the new certificates)", ca_pem.display()));
        key
    } else {
        let key = KeyPair::generate()?;
        let cert = ca_params(days)?.self_signed(&key)?;
        write(&ca_key_pem, &key.serialize_pem(), true)?;
        write(&ca_pem, &cert.pem(), false)?;
        say(format!(
            "made a CA: {} (trust it: --ca-file / SKAT_CA_FILE), key {}",
            ca_pem.display(),
            ca_key_pem.display()
        ));
        key
    };
    let issuer = Issuer::new(ca_params(days)?, ca_key);

    let key = KeyPair::generate()?;
    let cert = leaf(hosts.to_vec(), "skat server", ExtendedKeyUsagePurpose::ServerAuth, days)?
        .signed_by(&key, &issuer)?;
    // The key first: a server that reloads between the two renames sees a new key with
    // the old certificate, refuses the pair and keeps serving with what it had.
    write(&out.join("server-key.pem"), &key.serialize_pem(), true)?;
    write(&out.join("server.pem"), &cert.pem(), false)?;
    say(format!(
        "server certificate for {}: {} and {} (skat serve --tls-cert --tls-key), {days} days",
        hosts.join(", "),
        out.join("server.pem").display(),
        out.join("server-key.pem").display(),
    ));
    for client in clients {
        if client.is_empty() || !client.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(
                format!("--client `{client}`: letters, digits, - and _ only (it names the files)").into()
            );
        }
        let key = KeyPair::generate()?;
        let cert =
            leaf(Vec::new(), client, ExtendedKeyUsagePurpose::ClientAuth, days)?.signed_by(&key, &issuer)?;
        write(&out.join(format!("client-{client}-key.pem")), &key.serialize_pem(), true)?;
        write(&out.join(format!("client-{client}.pem")), &cert.pem(), false)?;
        say(format!("client certificate {client}: {}", out.join(format!("client-{client}.pem")).display()));
    }
    Ok(())
}
