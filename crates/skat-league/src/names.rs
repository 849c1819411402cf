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
//! | unique by [`name_key`]: NFKC, case folded, confusable skeleton (UTS #39) | account | `HEUR-A`, `heur-a` and `HEUR-А` are one name |
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

/// The key under which account names are unique: NFKC, lower-cased (Unicode's simple
/// case folding differs from lower case for a few characters; `ß` and `ss` are
/// confusable anyway), then the UTS #39 confusable skeleton, lower-cased again (the
/// skeleton maps `l`, `I` and `1` to one prototype, and may return capitals).
pub fn name_key(name: &str) -> String {
    let folded: String = name.nfkc().flat_map(char::to_lowercase).collect();
    unicode_security::skeleton(&folded).flat_map(char::to_lowercase).collect()
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
        assert_eq!(name_key("HEUR-A"), name_key("heur-a"));
        assert_eq!(name_key("heur-a"), name_key("heur-\u{0430}"), "Cyrillic a");
        assert_eq!(name_key("pimc1"), name_key("pimcl"));
        assert_ne!(name_key("heur-a"), name_key("heur-b"));
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
        assert_eq!(name_key("Rene\u{0301}"), name_key("René"));
    }
}
