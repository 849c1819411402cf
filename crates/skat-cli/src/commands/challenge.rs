//! `skat challenge make|list|accept|decline`: an account's challenges, with its bot token
//! (the account's bot, in its lobby, answers offers with `skat bot --accept-challenges`).

use std::process::ExitCode;
use std::time::Duration;

use skat_proto::pb;
use skat_sdk::SdkError;
use skat_sdk::client::with_token;

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Challenge accounts (a house bot, `house-heuristic`, or any that accepts) to a
    /// duplicate meeting; waits for the answers and prints the meeting's tournament id.
    Make(MakeArgs),
    /// The account's challenges, made or offered, newest first.
    List(ListArgs),
    /// Accept a challenge offered to the account.
    Accept(AnswerArgs),
    /// Decline a challenge offered to the account.
    Decline(AnswerArgs),
}

#[derive(Debug, clap::Args)]
struct Token {
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// The account's bot token.
    #[arg(long, env = "SKAT_BOT_TOKEN", hide_env_values = true)]
    bot_token: String,
}

#[derive(Debug, clap::Args)]
struct MakeArgs {
    #[command(flatten)]
    token: Token,
    /// The opponents' account names: 2 (a table of 3) or 3 (a table of 4).
    #[arg(long, value_delimiter = ',', required = true)]
    opponents: Vec<String>,
    /// Deals per list (0: the standard 36 or 48).
    #[arg(long, default_value_t = 0)]
    deals: u32,
    /// Lists, each in every seat rotation (1 to 10).
    #[arg(long, default_value_t = 1)]
    lists: u32,
    /// Time per action (default: the server's).
    #[arg(long, value_parser = humantime::parse_duration)]
    action_timeout: Option<Duration>,
    /// Clock per seat per deal (default: the server's).
    #[arg(long, value_parser = humantime::parse_duration)]
    deal_clock: Option<Duration>,
    /// Count the meeting for the ratings.
    #[arg(long)]
    rated: bool,
    /// Print the challenge and return at once instead of waiting for the answers.
    #[arg(long)]
    no_wait: bool,
}

#[derive(Debug, clap::Args)]
struct ListArgs {
    #[command(flatten)]
    token: Token,
    /// Only those waiting for answers.
    #[arg(long)]
    pending: bool,
}

#[derive(Debug, clap::Args)]
struct AnswerArgs {
    #[command(flatten)]
    token: Token,
    /// The challenge's id.
    id: String,
}

pub fn run(args: Args) -> CmdResult {
    super::conn::runtime()?.block_on(async {
        match args.command {
            Command::Make(a) => make(a).await,
            Command::List(a) => list(a).await,
            Command::Accept(a) => answer(a, true).await,
            Command::Decline(a) => answer(a, false).await,
        }
    })
}

fn state(c: &pb::ChallengeInfo) -> &'static str {
    match pb::ChallengeState::try_from(c.state) {
        Ok(pb::ChallengeState::Pending) => "pending",
        Ok(pb::ChallengeState::Accepted) => "accepted",
        Ok(pb::ChallengeState::Declined) => "declined",
        Ok(pb::ChallengeState::Expired) => "expired",
        _ => "unknown",
    }
}

/// `a`, `a and b`, `a, b and c`.
fn names(list: &[String]) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `4 deals, one list`, `36 deals each, 3 lists`: the meeting a challenge asks for.
fn meeting(deals: u32, lists: u32) -> String {
    let deals = if deals == 1 { "1 deal".to_string() } else { format!("{deals} deals") };
    match lists {
        0 | 1 => format!("{deals}, one list"),
        n => format!("{deals} each, {n} lists in every seat rotation"),
    }
}

/// A challenge in a line of words: who, whom, the meeting, where it stands.
fn line(c: &pb::ChallengeInfo) -> String {
    let waiting: Vec<String> = c.opponents.iter().filter(|o| !c.accepted.contains(o)).cloned().collect();
    let mut text = format!(
        "challenge {}: {} challenges {} to {}{}",
        c.challenge_id,
        c.challenger,
        names(&c.opponents),
        meeting(c.deals, c.lists),
        if c.rated { ", rated" } else { ", not rated" }
    );
    let accepted =
        if c.accepted.is_empty() { String::new() } else { format!("accepted by {}", names(&c.accepted)) };
    let now = match state(c) {
        "pending" if accepted.is_empty() => {
            format!("waiting for {} (until {})", names(&waiting), super::text::date(c.expires_ms))
        }
        "pending" => format!("{accepted}; waiting for {}", names(&waiting)),
        "accepted" => {
            format!("accepted by {}: the meeting is tournament {}", names(&c.accepted), c.tournament_id)
        }
        "declined" if accepted.is_empty() => "declined".to_string(),
        "declined" => format!("declined ({accepted})"),
        "expired" => format!("expired: no answer from {}", names(&waiting)),
        other => other.to_string(),
    };
    text.push_str(" · ");
    text.push_str(&now);
    text
}

async fn make(a: MakeArgs) -> CmdResult {
    let mut client = a.token.server.connect(Some("bot token")).await?;
    let time_control = super::conn::time_control(a.action_timeout, a.deal_clock);
    let request = pb::ChallengeRequest {
        opponents: a.opponents.clone(),
        deals: a.deals,
        lists: a.lists,
        time_control,
        rated: a.rated,
    };
    let made = client.challenge(with_token(request, &a.token.bot_token)).await.map_err(SdkError::from)?;
    let mut c = made.into_inner().challenge.ok_or("a response without its challenge")?;
    outln!("{}", line(&c));
    while !a.no_wait && state(&c) == "pending" {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let all = client
            .list_challenges(with_token(
                pb::ListChallengesRequest { pending_only: false },
                &a.token.bot_token,
            ))
            .await
            .map_err(SdkError::from)?
            .into_inner()
            .challenges;
        if let Some(now) = all.into_iter().find(|x| x.challenge_id == c.challenge_id) {
            if now.state != c.state {
                outln!("{}", line(&now));
            }
            c = now;
        }
    }
    if !c.tournament_id.is_empty() {
        outln!("  deals committed: {}", c.deals_commitment);
        outln!("  standings: skat tournament show {}", c.tournament_id);
    }
    Ok(if matches!(state(&c), "accepted" | "pending") { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

async fn list(a: ListArgs) -> CmdResult {
    let mut client = a.token.server.connect(Some("bot token")).await?;
    let request = pb::ListChallengesRequest { pending_only: a.pending };
    let all = client
        .list_challenges(with_token(request, &a.token.bot_token))
        .await
        .map_err(SdkError::from)?
        .into_inner()
        .challenges;
    if all.is_empty() {
        outln!("no challenges");
    }
    for c in &all {
        outln!("{}", line(c));
    }
    Ok(ExitCode::SUCCESS)
}

async fn answer(a: AnswerArgs, accept: bool) -> CmdResult {
    let c = skat_sdk::lobby::answer_challenge(&a.token.server.address(), &a.token.bot_token, &a.id, accept)
        .await?;
    outln!("{}", line(&c));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_reads_as_words() {
        let mut c = pb::ChallengeInfo {
            challenge_id: "c1".into(),
            challenger: "ann".into(),
            opponents: vec!["house-pimc".into(), "house-random".into()],
            deals: 4,
            lists: 1,
            state: pb::ChallengeState::Pending as i32,
            expires_ms: 1_796_378_519_631,
            ..Default::default()
        };
        assert_eq!(
            line(&c),
            "challenge c1: ann challenges house-pimc and house-random to 4 deals, one list, not rated \
             · waiting for house-pimc and house-random (until 2026-12-04 10:01:59Z)"
        );
        c.accepted = vec!["house-pimc".into()];
        assert!(line(&c).ends_with("· accepted by house-pimc; waiting for house-random"), "{}", line(&c));
        c.accepted.push("house-random".into());
        c.state = pb::ChallengeState::Accepted as i32;
        c.tournament_id = "t9".into();
        assert!(
            line(&c).ends_with("· accepted by house-pimc and house-random: the meeting is tournament t9")
        );
        assert!(!line(&c).contains('['));
        assert_eq!(meeting(36, 3), "36 deals each, 3 lists in every seat rotation");
    }
}
