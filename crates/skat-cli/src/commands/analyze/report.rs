//! `skat analyze`'s report for people (the default; `--format json` prints the JSON the
//! server's AnalyzeTable and the page share). Per deal: the contract, the declarer's
//! value with every hand open before the first card and at the end, then every card that
//! was marked on what its player knew (with the better card, the loss and its interval,
//! and whether the mark is for card points or for the winning chance), and every card
//! that flipped the result with cards open, then a bid above what the cards were worth
//! and a declaration the simulation says cost something. Per player at the end: the accuracy as
//! declarer and as defender. Built from the JSON, so a server's analysis and one made
//! here read alike.

use serde_json::Value;

use super::super::text::cell;

/// A card's ISS code (`CJ`, `HT`, `S7`) as people write it: `♣J`, `♥10`, `♠7`.
pub fn card_words(code: &str) -> String {
    let mut chars = code.chars();
    let suit = match chars.next() {
        Some('C') => "♣",
        Some('S') => "♠",
        Some('H') => "♥",
        Some('D') => "♦",
        _ => return code.to_string(),
    };
    let rank = match chars.as_str() {
        "T" => "10",
        other => other,
    };
    format!("{suit}{rank}")
}

/// `0.25` as `25%`.
fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// One deal as a few lines.
pub fn deal(d: &Value) -> String {
    let id = d["id"].as_str().unwrap_or("?");
    if d["analysed"] != true {
        return format!("deal {id}: not judged ({})\n", d["why"].as_str().unwrap_or("no card play"));
    }
    let null = d["game"].as_str() == Some("null");
    let declarer = d["declarer"].as_str().unwrap_or("?");
    let end = d["curve"].as_array().and_then(|c| c.last()).cloned().unwrap_or(Value::Null);
    let open = |v: &Value| match (null, v.as_u64()) {
        (true, Some(1)) => "won".to_string(),
        (true, Some(_)) => "lost".to_string(),
        (false, Some(n)) => format!("{n} card points"),
        _ => "-".to_string(),
    };
    let mut out = format!(
        "deal {id}: {declarer} plays {}; with every hand open {} at the start, {} at the end\n",
        d["game"].as_str().unwrap_or("?"),
        open(&d["start"]),
        open(&end)
    );
    let cards = d["cards"].as_array().cloned().unwrap_or_default();
    let mut told = 0;
    for c in &cards {
        let marked = c["mark"].as_str().is_some_and(|m| !m.is_empty());
        let flipped = c["flips"] == true;
        if marked || flipped {
            out.push_str(&card_line(c, null, marked, flipped));
            told += 1;
        }
    }
    if told == 0 {
        out.push_str(&format!("  no card marked ({} cards with a choice judged)\n", cards.len()));
    }
    out.push_str(&game_choice(&d["game_choice"]));
    out
}

/// The bidding and the game choice, when judged: an overbid, and a declaration that the
/// simulation says cost something (with its interval).
fn game_choice(g: &Value) -> String {
    let mut out = String::new();
    for b in g["bids"].as_array().into_iter().flatten().filter(|b| b["overbid"] == true) {
        out.push_str(&format!(
            "  {} bid {}: OVERBID, the cards were worth bidding to {} by simulation\n",
            b["player"].as_str().unwrap_or("?"),
            b["bid"],
            match b["worth"].as_u64() {
                Some(0) | None => "nothing (pass)".to_string(),
                Some(w) => w.to_string(),
            }
        ));
    }
    let c = &g["declaration"];
    if c.is_object() {
        let option = |j: &Value| {
            format!(
                "{} (worth {}, won {}%, expected {:+} SF)",
                j["option"].as_str().unwrap_or("?"),
                j["value"],
                (j["chance"].as_f64().unwrap_or(0.0) * 100.0).round(),
                j["expected"].as_f64().unwrap_or(0.0)
            )
        };
        let [lo, hi] = [0, 1].map(|i| c["interval"][i].as_f64().unwrap_or(0.0));
        if c["marked"] == true {
            out.push_str(&format!(
                "  the game: declared {}; {} was better by {} SF [{lo}, {hi}]\n",
                option(&c["made"]),
                option(&c["best"]),
                c["loss"]
            ));
        } else {
            out.push_str(&format!(
                "  the game: declared {}; no option reaching the bid was better by simulation\n",
                option(&c["made"])
            ));
        }
    }
    out
}

/// One judged card: who, what, the better card, what it cost and why it is marked.
fn card_line(c: &Value, null: bool, marked: bool, flipped: bool) -> String {
    let who = format!("{} ({})", c["player"].as_str().unwrap_or("?"), c["role"].as_str().unwrap_or("?"));
    let mut line = format!(
        "  move {:>2}  {} played {}",
        c["move"].as_u64().unwrap_or(0),
        who,
        card_words(c["card"].as_str().unwrap_or("?"))
    );
    let k = &c["known"];
    if marked {
        let mark = c["mark"].as_str().unwrap_or("");
        let best = card_words(k["best"].as_str().unwrap_or("?"));
        let interval = k["interval"]
            .as_array()
            .map_or(String::new(), |i| format!(" (95%: {} to {})", num(&i[0]), num(&i[1])));
        let by_chance = c["mark_by"].as_str() == Some("winning chance") || null;
        let (win, win_best) = (k["win"].as_f64().unwrap_or(0.0), k["win_best"].as_f64().unwrap_or(0.0));
        let cost = if by_chance {
            format!(
                "the declarer's winning chance {} after it, {} after {best}",
                percent(win),
                percent(win_best)
            )
        } else {
            format!("{} card points lost on average{interval} against {best}", num(&k["loss"]))
        };
        let worlds = k["worlds"].as_u64().unwrap_or(0);
        line.push_str(&format!(": {} on what it knew ({worlds} worlds): {cost}", mark.to_uppercase()));
    }
    if flipped {
        line.push_str(&format!(
            "; with every hand open it turned the result ({} was better)",
            card_words(c["best"].as_str().unwrap_or("?"))
        ));
    } else if marked && c["loss"].as_u64().is_some() {
        line.push_str(&format!("; with every hand open it cost {}", c["loss"]));
    }
    line.push('\n');
    line
}

fn num(v: &Value) -> String {
    v.as_f64().map_or_else(|| "-".to_string(), |x| format!("{x:.1}"))
}

/// The summary: per player and role, the cards judged, mean losses, marks and flips.
pub fn summary(s: &Value) -> String {
    let mut out = format!(
        "\naccuracy (on what each player knew: {} worlds per card; read it over many deals)\n",
        s["worlds"].as_u64().unwrap_or(0)
    );
    out.push_str(&format!(
        "{} {} {:>6} {:>10} {:>11} {:>8} {:>8} {:>6}\n",
        cell("player", 20),
        cell("as", 9),
        "cards",
        "loss open",
        "loss known",
        "mistakes",
        "blunders",
        "flips"
    ));
    let Some(players) = s["summary"].as_object() else { return out };
    for (name, roles) in players {
        for role in ["declarer", "defender"] {
            let r = &roles[role];
            if r["decisions"].as_u64().unwrap_or(0) == 0 {
                continue;
            }
            out.push_str(&format!(
                "{} {} {:>6} {:>10} {:>11} {:>8} {:>8} {:>6}\n",
                cell(name, 20),
                cell(role, 9),
                r["decisions"].as_u64().unwrap_or(0),
                num(&r["mean_loss"]),
                num(&r["known_mean_loss"]),
                r["mistakes"].as_u64().unwrap_or(0),
                r["blunders"].as_u64().unwrap_or(0),
                r["flips"].as_u64().unwrap_or(0)
            ));
        }
    }
    out.push_str(
        "(loss: card points per card against the best one; mistake and blunder marks: docs/analysis.md)\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_marked_card_says_what_it_cost_and_why() {
        let d = json!({
            "id": "t.3", "analysed": true, "game": "grand", "declarer": "Anna", "start": 71, "curve": [71, 71, 50],
            "cards": [
                {"move": 8, "player": "Bert", "role": "defender", "card": "SA", "best": "CJ", "loss": 1, "flips": false,
                 "mark": "blunder", "mark_by": "winning chance",
                 "known": {"worlds": 16, "best": "H7", "loss": 2.5, "interval": [0.4, 4.6], "win": 0.7, "win_best": 0.2}},
                {"move": 12, "player": "Anna", "role": "declarer", "card": "HT", "best": "D7", "loss": 20, "flips": true,
                 "mark": "", "known": null},
            ]
        });
        let text = deal(&d);
        assert!(text.starts_with("deal t.3: Anna plays grand; with every hand open 71 card points at the start, 50 card points at the end"), "{text}");
        assert!(text.contains("Bert (defender) played ♠A: BLUNDER on what it knew (16 worlds): the declarer's winning chance 70% after it, 20% after ♥7"), "{text}");
        assert!(
            text.contains(
                "Anna (declarer) played ♥10; with every hand open it turned the result (♦7 was better)"
            ),
            "{text}"
        );
        assert_eq!(card_words("CT"), "♣10");
        assert!(!text.contains("the game:"), "no game choice judged, none told: {text}");
    }

    #[test]
    fn an_overbid_and_a_worse_game_are_told() {
        let d = json!({
            "id": "t.4", "analysed": true, "game": "null", "declarer": "Anna", "start": 0, "curve": [0, 0], "cards": [],
            "game_choice": {
                "bids": [{"player": "Anna", "bid": 44, "worth": 0, "overbid": true}, {"player": "Bert", "bid": 20, "worth": 30, "overbid": false}],
                "declaration": {
                    "made": {"option": "null", "value": 23, "chance": 0.2, "expected": -62.2, "worlds": 20},
                    "best": {"option": "grand hand", "value": 168, "chance": 0.95, "expected": 194.1, "worlds": 20},
                    "loss": 256.3, "interval": [180.0, 332.6], "marked": true
                }
            }
        });
        let text = deal(&d);
        assert!(
            text.contains("Anna bid 44: OVERBID, the cards were worth bidding to nothing (pass)"),
            "{text}"
        );
        assert!(!text.contains("Bert bid"), "{text}");
        assert!(
            text.contains("the game: declared null (worth 23, won 20%, expected -62.2 SF); grand hand (worth 168, won 95%, expected +194.1 SF) was better by 256.3 SF [180, 332.6]"),
            "{text}"
        );
    }
}
