//! The name policy: what a name of an account, a tournament, a table or a player may
//! hold, and when two names are the same name.
//!
//! Names are shown to people (tables, standings, the page, records), so they must look
//! like what they are and nothing else. A name is refused, never silently changed,
//! except for Unicode normalisation (NFC), which changes no character a reader sees.
//!
//! | rule | kinds | why |
//! |---|---|---|
//! | 1 to [`NameKind::max_chars`] characters after NFC | all | a bound on every column, row and record |
//! | no control characters (Cc), no line or paragraph separators | all | `new\nline` would break logs and records |
//! | no bidirectional controls (U+202A-202E, U+2066-2069, U+200E/F, U+061C) | all | `U+202E` makes a name read backwards |
//! | no other format characters (Cf: zero-width space, soft hyphen...), except a zero-width joiner between two emoji | all | invisible differences are impersonation |
//! | no private-use, surrogate or unassigned code points | all | they render as nothing or as anything |
//! | the only space is U+0020, never first, last or doubled | all | `a  b` and `a b` look alike |
//! | at most two combining marks in a row | all | stacked marks draw over neighbouring text |
//! | no `[` `]` | all | the ISS record format uses them as delimiters |
//! | no `,` | account, player | entrants are given as a comma-separated list |
//! | letters from one script (UTS #39 single-script, augmented: Han with Kana is Japanese) | account | `paypаl` with a Cyrillic `а` is refused |
//! | unique by [`name_keys`]: the confusable skeleton (UTS #39) of the name as written, in small letters and in capitals, with and without combining marks | account | `HEUR-A`, `heur-a`, `HEUR-А`, Greek `ΗΕΑΤ` beside `HEAT` and `kermit́` beside `kermit` are one name |
//!
//! Normalisation, scripts and skeletons come from the `unicode-normalization` and
//! `unicode-security` crates (the Unicode tables, not a hand-written list).

use std::fmt;

use unicode_normalization::UnicodeNormalization as _;
use unicode_properties::{GeneralCategory, UnicodeEmoji as _, UnicodeGeneralCategory as _};
use unicode_security::MixedScript as _;

/// What is being named: each kind has its length bound and its extra rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// A bot account: unique, single-script.
    Account,
    /// A tournament (its tables are named `<name> #<n>`).
    Tournament,
    /// A hand-made table.
    Table,
    /// A player's name at a hand-made table.
    Player,
}

impl NameKind {
    /// The most characters a name of this kind has.
    pub const fn max_chars(self) -> usize {
        match self {
            NameKind::Account => 32,
            NameKind::Tournament => 48,
            NameKind::Table | NameKind::Player => 64,
        }
    }

    /// The field's name in refusals.
    pub const fn field(self) -> &'static str {
        match self {
            NameKind::Account => "name",
            NameKind::Tournament => "tournament",
            NameKind::Table => "table",
            NameKind::Player => "player",
        }
    }
}

/// Which rule a refused name broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// Empty, or too long.
    Length,
    /// A control character or a line separator.
    Control,
    /// A format character (invisible).
    Format,
    /// A bidirectional control.
    Bidi,
    /// A space other than U+0020, or one at an edge or doubled.
    Whitespace,
    /// A character records or lists use as a delimiter.
    Separator,
    /// Private use, a surrogate or unassigned.
    Unassigned,
    /// Letters of more than one script.
    MixedScript,
    /// More than two combining marks in a row, or one with nothing to mark.
    Marks,
}

impl NameRule {
    /// The rule's word in refusals (`rule` metadata).
    pub const fn as_str(self) -> &'static str {
        match self {
            NameRule::Length => "length",
            NameRule::Control => "control",
            NameRule::Format => "format",
            NameRule::Bidi => "bidi",
            NameRule::Whitespace => "whitespace",
            NameRule::Separator => "separator",
            NameRule::Unassigned => "unassigned",
            NameRule::MixedScript => "mixed-script",
            NameRule::Marks => "marks",
        }
    }
}

/// Why a name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct NameError {
    /// What was being named.
    pub kind: NameKind,
    /// The rule it broke.
    pub rule: NameRule,
    /// The offending character, when one is to blame.
    pub found: Option<char>,
}

impl NameError {
    fn describe(&self) -> String {
        let what = match self.kind {
            NameKind::Account => "an account name",
            NameKind::Tournament => "a tournament name",
            NameKind::Table => "a table name",
            NameKind::Player => "a player name",
        };
        let at = self.found.map(|c| format!(" (U+{:04X})", u32::from(c))).unwrap_or_default();
        let max = self.kind.max_chars();
        match self.rule {
            NameRule::Length => format!("{what} has 1 to {max} characters"),
            NameRule::Control => format!("{what} may not hold control characters or line breaks{at}"),
            NameRule::Format => format!("{what} may not hold invisible format characters{at}"),
            NameRule::Bidi => format!("{what} may not hold bidirectional controls{at}"),
            NameRule::Whitespace => {
                format!("{what} uses single plain spaces between words, none at either end{at}")
            }
            NameRule::Separator => format!("{what} may not hold `{}`", self.found.unwrap_or('[')),
            NameRule::Unassigned => format!("{what} may not hold private-use or unassigned characters{at}"),
            NameRule::MixedScript => format!("{what} takes its letters from one script (UTS #39)"),
            NameRule::Marks => format!("{what} has at most two combining marks on a character{at}"),
        }
    }
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.field())
    }
}

/// Whether `c` is a bidirectional control (U+202A-202E, U+2066-2069, U+200E, U+200F,
/// U+061C): text that holds one can read backwards. Refused in names, owner contacts and
/// comments alike.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Checks `raw` against the policy for `kind`; returns it in NFC.
pub fn check_name(kind: NameKind, raw: &str) -> Result<String, NameError> {
    let refuse = |rule, found| Err(NameError { kind, rule, found });
    let name: String = raw.nfc().collect();
    let chars: Vec<char> = name.chars().collect();
    if chars.is_empty() || chars.len() > kind.max_chars() {
        return refuse(NameRule::Length, None);
    }
    let mut marks = 0;
    for (i, &c) in chars.iter().enumerate() {
        let category = c.general_category();
        if is_bidi_control(c) {
            return refuse(NameRule::Bidi, Some(c));
        }
        match category {
            GeneralCategory::Control
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator => {
                return refuse(NameRule::Control, Some(c));
            }
            GeneralCategory::Format => {
                // A zero-width joiner builds one emoji from two (a family, a flag): allowed
                // there and nowhere else.
                let joins_emoji = c == '\u{200D}'
                    && i > 0
                    && chars.get(i + 1).is_some_and(|n| n.is_emoji_char())
                    && (chars[i - 1].is_emoji_char() || chars[i - 1] == '\u{FE0F}');
                if !joins_emoji {
                    return refuse(NameRule::Format, Some(c));
                }
            }
            GeneralCategory::PrivateUse | GeneralCategory::Surrogate | GeneralCategory::Unassigned => {
                return refuse(NameRule::Unassigned, Some(c));
            }
            GeneralCategory::SpaceSeparator if c != ' ' => return refuse(NameRule::Whitespace, Some(c)),
            _ => {}
        }
        if c == ' ' && (i == 0 || i + 1 == chars.len() || chars[i - 1] == ' ') {
            return refuse(NameRule::Whitespace, Some(c));
        }
        if matches!(c, '[' | ']') || (c == ',' && matches!(kind, NameKind::Account | NameKind::Player)) {
            return refuse(NameRule::Separator, Some(c));
        }
        let is_mark = matches!(category, GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark);
        marks = if is_mark { marks + 1 } else { 0 };
        if is_mark && (i == 0 || marks > 2) {
            return refuse(NameRule::Marks, Some(c));
        }
    }
    if kind == NameKind::Account && !name.as_str().is_single_script() {
        return refuse(NameRule::MixedScript, None);
    }
    Ok(name)
}

/// The keys under which account names are unique: two names are one name when their key
/// sets share a key ([`same_name`]).
///
/// One key cannot do it, because "looks like" and "is the same name in another case" do
/// not compose: Greek `ΗΕΑΤ` looks like Latin `HEAT`, its small letters `ηεατ` look like
/// nothing Latin, and `heat` is `HEAT` in small letters. So a name has a key for each way
/// a reader may meet it: as written, in small letters and in capitals (the case a page or
/// a log may show it in), each with and without combining marks (`kermit́` and `Kermít`
/// pass for `kermit`; after NFD, so `é` loses its accent too). Each key is NFKC, the
/// UTS #39 confusable skeleton of that form, then lower case (the skeleton maps `l`, `I`
/// and `1` to one prototype and may return capitals; lower case after it makes `HEAT` and
/// `heat` meet). The first key, the skeleton of the small letters, is the
/// [`primary_key`] a name had before names had several keys.
pub fn name_keys(name: &str) -> Vec<String> {
    let nfkc: String = name.nfkc().collect();
    let forms =
        [nfkc.chars().flat_map(char::to_lowercase).collect::<String>(), nfkc.clone(), nfkc.to_uppercase()];
    let mut keys: Vec<String> = Vec::with_capacity(6);
    for form in forms.iter().flat_map(|f| [f.clone(), without_marks(f)]) {
        let key: String = unicode_security::skeleton(&form).flat_map(char::to_lowercase).collect();
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// The first of [`name_keys`]: NFKC, small letters, confusable skeleton, small letters.
/// Looking a name up in any case goes by it (`heur-a` finds `HEUR-A`).
pub fn primary_key(name: &str) -> String {
    let folded: String = name.nfkc().flat_map(char::to_lowercase).collect();
    unicode_security::skeleton(&folded).flat_map(char::to_lowercase).collect()
}

/// Whether two names are one name by the policy: a key in common.
pub fn same_name(a: &str, b: &str) -> bool {
    let theirs = name_keys(b);
    name_keys(a).iter().any(|k| theirs.contains(k))
}

/// `s` without its combining marks (after canonical decomposition, so precomposed
/// letters lose theirs too), recomposed.
fn without_marks(s: &str) -> String {
    s.nfd()
        .filter(|c| {
            !matches!(c.general_category(), GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark)
        })
        .nfc()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(kind: NameKind, s: &str) -> Option<NameRule> {
        check_name(kind, s).err().map(|e| e.rule)
    }

    #[test]
    fn names_from_the_field_report() {
        // Impersonation by case and by look-alike letters: one key.
        assert!(same_name("HEUR-A", "heur-a"));
        assert!(same_name("heur-a", "heur-\u{0430}"), "Cyrillic a");
        assert!(same_name("pimc1", "pimcl"));
        assert!(!same_name("heur-a", "heur-b"));
        // A right-to-left override, refused rather than dropped.
        assert_eq!(rule(NameKind::Account, "\u{202E}gnp.exe"), Some(NameRule::Bidi));
        // Tabs and newlines are refused, not removed.
        assert_eq!(rule(NameKind::Account, "new\nline"), Some(NameRule::Control));
        assert_eq!(rule(NameKind::Account, "tab\there"), Some(NameRule::Control));
        // A 4,800-character table name.
        assert_eq!(rule(NameKind::Table, &"x".repeat(4800)), Some(NameRule::Length));
        assert!(check_name(NameKind::Table, &"x".repeat(64)).is_ok());
    }

    #[test]
    fn what_is_refused_and_why() {
        assert_eq!(rule(NameKind::Account, ""), Some(NameRule::Length));
        assert_eq!(rule(NameKind::Account, &"x".repeat(33)), Some(NameRule::Length));
        assert_eq!(rule(NameKind::Account, "zero\u{200B}width"), Some(NameRule::Format));
        assert_eq!(rule(NameKind::Account, "soft\u{00AD}hyphen"), Some(NameRule::Format));
        assert_eq!(rule(NameKind::Account, " lead"), Some(NameRule::Whitespace));
        assert_eq!(rule(NameKind::Account, "trail "), Some(NameRule::Whitespace));
        assert_eq!(rule(NameKind::Account, "two  spaces"), Some(NameRule::Whitespace));
        assert_eq!(rule(NameKind::Account, "no\u{00A0}break"), Some(NameRule::Whitespace));
        assert_eq!(rule(NameKind::Account, "a[1]"), Some(NameRule::Separator));
        assert_eq!(rule(NameKind::Account, "a,b"), Some(NameRule::Separator));
        assert!(check_name(NameKind::Tournament, "Season 1, round 2").is_ok());
        assert_eq!(rule(NameKind::Account, "priv\u{E000}"), Some(NameRule::Unassigned));
        assert_eq!(rule(NameKind::Account, "pay\u{0440}al"), Some(NameRule::MixedScript));
        assert_eq!(rule(NameKind::Account, "e\u{0301}\u{0301}\u{0301}\u{0301}"), Some(NameRule::Marks));
        assert_eq!(rule(NameKind::Account, "\u{0301}x"), Some(NameRule::Marks));
    }

    #[test]
    fn what_is_accepted() {
        for ok in [
            "heur-a",
            "Müller",
            "Сергей",
            "山田たろう",
            "bot 🤖",
            "👨\u{200D}👩\u{200D}👧 family",
            "PIMC v2.1",
        ] {
            assert!(check_name(NameKind::Account, ok).is_ok(), "{ok}");
        }
        // NFC: a decomposed é is stored composed, and both have one key.
        assert_eq!(check_name(NameKind::Account, "Rene\u{0301}").unwrap(), "René");
        assert_eq!(name_keys("Rene\u{0301}"), name_keys("René"));
    }

    /// The look-alikes in capital letters and with combining marks that one key let
    /// through (issue 45), each pair both ways round.
    pub(crate) const LOOK_ALIKES: [(&str, &str); 8] = [
        ("HEAT", "\u{0397}\u{0395}\u{0391}\u{03A4}"), // Greek capitals
        ("HEAT", "\u{041D}\u{0415}\u{0410}\u{0422}"), // Cyrillic capitals
        ("TOP", "\u{03A4}\u{039F}\u{03A1}"),          // Greek
        ("TOP", "\u{0422}\u{041E}\u{0420}"),          // Cyrillic
        ("ABE", "\u{0391}\u{0392}\u{0395}"),          // Greek
        ("kermit", "kermit\u{0301}"),                 // a combining accent
        ("kermit", "Kerm\u{00ED}t"),                  // a precomposed one
        ("heat", "\u{0397}\u{0395}\u{0391}\u{03A4}"), // small Latin, Greek capitals
    ];

    #[test]
    fn look_alikes_in_capitals_and_with_marks_are_one_name() {
        for (a, b) in LOOK_ALIKES {
            assert!(check_name(NameKind::Account, a).is_ok(), "{a} is a valid name");
            assert!(check_name(NameKind::Account, b).is_ok(), "{b} is a valid name");
            assert!(same_name(a, b), "{a} and {b}");
            assert!(same_name(b, a), "{b} and {a}");
        }
        // Cyrillic ТОР is the Latin TOP's look-alike (and the Greek one's).
        assert!(same_name("\u{0422}\u{041E}\u{0420}", "\u{03A4}\u{039F}\u{03A1}"));
        // A name in another case is the same name, in any script.
        assert!(same_name("\u{03B7}\u{03B5}\u{03B1}\u{03C4}", "\u{0397}\u{0395}\u{0391}\u{03A4}"));
        assert!(same_name("сергей", "СЕРГЕЙ"));
        // Names that only share letters are still apart.
        for (a, b) in [("heat", "heap"), ("TOP", "TIP"), ("Сергей", "Серёга"), ("bot 1", "bot 2")]
        {
            assert!(!same_name(a, b), "{a} and {b}");
        }
        // The primary key is the first key and is what a name had before.
        assert_eq!(name_keys("HEUR-A")[0], primary_key("heur-a"));
    }
}
