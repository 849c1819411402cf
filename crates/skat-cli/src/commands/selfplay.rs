//! `skat selfplay`: complete deals between uniformly random legal players.

use std::io::Write;
use std::process::ExitCode;

use skat_engine::iss::{self, RecordMeta};
use skat_engine::random::RandomPlayer;
use skat_engine::record::Move;
use skat_engine::{Deal, DealRecord, Dealt};

use super::CmdResult;

/// Output formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// ISS records, one per line; `skat replay` reads them back.
    Iss,
    /// The engine's JSON deal records, one per line (cards, moves, result).
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of deals.
    #[arg(long, default_value_t = 10)]
    games: u64,
    /// Seed for the cards (deal i is dealt from (seed, i)) and the players' choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "iss")]
    format: Format,
}

/// Plays deal `number` of `seed` with random players seeded from `seed`.
pub fn play(seed: u64, number: u64, player: &mut RandomPlayer) -> DealRecord {
    let dealt = Dealt::seeded(seed, number);
    let mut deal = Deal::new(dealt);
    let mut moves = Vec::new();
    player.play_out(&mut deal, |position, action| moves.push(Move { position, action }));
    let outcome = deal.outcome().expect("a played-out deal has an outcome");
    DealRecord {
        number: number as u32,
        seed: Some(seed),
        seats: [0, 1, 2].map(skat_engine::Seat::new),
        dealer: skat_engine::Seat::new(2),
        dealt,
        moves,
        outcome,
    }
}

pub fn run(args: Args) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut player = RandomPlayer::new(args.seed);
    for number in 0..args.games {
        let record = play(args.seed, number, &mut player);
        match args.format {
            Format::Iss => {
                let meta = RecordMeta {
                    server: "skat-server selfplay".into(),
                    id: number.to_string(),
                    date: String::new(),
                    players: ["random-0".into(), "random-1".into(), "random-2".into()],
                    series: args.seed.to_string(),
                };
                writeln!(out, "{}", iss::write(&record, &meta))?;
            }
            Format::Json => writeln!(out, "{}", serde_json::to_string(&record)?)?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
