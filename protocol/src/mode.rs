//! [`Mode`]: the permission mode of a session (DESIGN.md §8), spelled as Claude Code
//! spells it. The one mode type of the daemon, its config files and the wire.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A permission mode.
///
/// On the wire an unknown name (a mode added by a newer daemon) decodes as
/// [`Mode::Unknown`] so an older client keeps the rest of the message; everything that
/// *accepts* a mode from a person or a file ([`Mode::parse`], [`Mode::strict`]) refuses
/// it instead. The permission gate treats `Unknown` as `Default`: it asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Read allow, write ask, command ask.
    #[default]
    Default,
    /// Edits inside the sandbox allowed.
    AcceptEdits,
    /// As default; the plan file is allowed.
    Plan,
    /// Everything allowed except what the other layers deny or always ask.
    BypassPermissions,
    /// Ask becomes deny (unattended agents).
    DontAsk,
    /// A mode this build does not know (wire fallback only).
    Unknown,
}

impl Mode {
    /// The modes a session can be put in, in the order they are listed to people.
    pub const ALL: [Mode; 5] = [
        Mode::Default,
        Mode::AcceptEdits,
        Mode::Plan,
        Mode::BypassPermissions,
        Mode::DontAsk,
    ];

    /// The mode for its name; `None` for anything else (never [`Mode::Unknown`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The name as configs, commands and the wire spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::Plan => "plan",
            Self::BypassPermissions => "bypassPermissions",
            Self::DontAsk => "dontAsk",
            Self::Unknown => "unknown",
        }
    }

    /// The valid names, comma-separated, for error messages.
    pub fn names() -> String {
        Self::ALL.map(Mode::as_str).join(", ")
    }

    /// A deserializer that refuses unknown names, for config files and requests
    /// (`#[serde(deserialize_with = "Mode::strict")]`).
    pub fn strict<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        const NAMES: [&str; 5] = [
            "default",
            "acceptEdits",
            "plan",
            "bypassPermissions",
            "dontAsk",
        ];
        Self::parse(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, &NAMES))
    }

    /// [`Mode::strict`] for an optional field.
    pub fn strict_option<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Self>, D::Error> {
        #[derive(Deserialize)]
        struct Strict(#[serde(deserialize_with = "Mode::strict")] Mode);
        Ok(Option::<Strict>::deserialize(deserializer)?.map(|s| s.0))
    }
}

/// On the wire a mode is one of the known names (a newer daemon may send others, which
/// decode as [`Mode::Unknown`]).
impl schemars::JsonSchema for Mode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Mode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Self::ALL.map(Mode::as_str).to_vec();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::parse(name)
            .ok_or_else(|| format!("unknown mode `{name}`: use one of {}", Self::names()))
    }
}

impl Serialize for Mode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Mode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(Self::parse(&name).unwrap_or(Self::Unknown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in Mode::ALL {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(serde_json::from_str::<Mode>(&json).unwrap(), mode);
        }
        assert_eq!(Mode::parse("unknown"), None);
    }

    #[test]
    fn the_wire_tolerates_a_newer_mode_and_configs_do_not() {
        let wire: Mode = serde_json::from_str("\"autoPilot\"").unwrap();
        assert_eq!(wire, Mode::Unknown);

        #[derive(Debug, Deserialize)]
        struct File {
            #[serde(default, deserialize_with = "Mode::strict_option")]
            mode: Option<Mode>,
        }
        let err = serde_json::from_str::<File>(r#"{"mode":"autoPilot"}"#).unwrap_err();
        assert!(
            err.to_string().contains("unknown variant `autoPilot`"),
            "{err}"
        );
        let ok: File = serde_json::from_str(r#"{"mode":"plan"}"#).unwrap();
        assert_eq!(ok.mode, Some(Mode::Plan));
        let none: File = serde_json::from_str("{}").unwrap();
        assert_eq!(none.mode, None);
    }
}
