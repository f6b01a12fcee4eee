//! Redaction of credentials in tool output (issue 9, item 4; `security.redact`).
//!
//! Every tool result passes [`redact_output`] once, in the agent's executor, before it
//! is stored, spilled to a file (context layer 1), sent to the model or shown; live
//! `tool_output` progress goes through [`LiveRedactor`], which only lets whole lines
//! out (and holds an open private key block) so a key split between two chunks is
//! still seen whole. A credential becomes `[redacted: <kind>]` and the result gets a
//! note saying so.
//!
//! What counts as a credential: private key blocks (`-----BEGIN … PRIVATE KEY-----` to
//! its `END`, or to the end of the key material when the output was cut), and the
//! *prefixed* token formats of gitleaks' rules — cloud, provider and forge keys whose
//! shape is fixed (`AKIA…`, `ghp_…`, `sk-ant-…`, `xoxb-…`, JWTs, …) — plus two keyed
//! assignments with a fixed name (`aws_secret_access_key = …`, Azure's `AccountKey=…`).
//! There is deliberately no generic entropy rule: lockfile checksums, git SHAs, UUIDs
//! and base64 data are never touched (the tests hold look-alikes of each).
//!
//! Edit and Write call [`check_markers`]: text carrying a marker the file does not
//! already contain is refused, since the model would otherwise write
//! `[redacted: …]` over the user's real key.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;

/// The start of every marker; [`check_markers`] looks for it.
pub const MARKER_PREFIX: &str = "[redacted: ";

/// One rule: a kind (shown in the marker) and its pattern. A pattern may mark the part
/// to replace with a group `(?P<v>…)`; otherwise the whole match is replaced.
struct Rule {
    kind: &'static str,
    pattern: &'static str,
}

/// The rules, most specific first: the first alternative that matches at a position
/// wins (so `sk-ant-…` is Anthropic's before it could be a generic `sk-` key).
const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        pattern: r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.-]{64,})",
    },
    Rule {
        kind: "aws-access-key",
        pattern: r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
    },
    Rule {
        kind: "aws-secret-key",
        pattern: r#"(?i:\baws_?secret_?access_?key)["']?\s*[:=]\s*["']?(?P<v>[A-Za-z0-9/+=]{40})"#,
    },
    Rule {
        kind: "azure-storage-key",
        pattern: r"(?i:\bAccountKey)=(?P<v>[A-Za-z0-9+/]{86}==)",
    },
    Rule {
        kind: "github-pat",
        pattern: r"\bghp_[0-9A-Za-z]{36}\b",
    },
    Rule {
        kind: "github-oauth",
        pattern: r"\bgho_[0-9A-Za-z]{36}\b",
    },
    Rule {
        kind: "github-app-token",
        pattern: r"\bgh[us]_[0-9A-Za-z]{36}\b",
    },
    Rule {
        kind: "github-refresh-token",
        pattern: r"\bghr_[0-9A-Za-z]{36}\b",
    },
    Rule {
        kind: "github-fine-grained-pat",
        pattern: r"\bgithub_pat_[0-9A-Za-z_]{82}\b",
    },
    Rule {
        kind: "gitlab-pat",
        pattern: r"\bglpat-[0-9A-Za-z_-]{20}[0-9A-Za-z_.-]*",
    },
    Rule {
        kind: "gitlab-token",
        pattern: r"\bgl(?:rt|dt|ptt|ft|soat|cbt|agent)-[0-9A-Za-z_-]{20,}",
    },
    Rule {
        kind: "slack-token",
        pattern: r"\bxox[baprse]-[0-9]{6,}-[0-9A-Za-z-]{8,}",
    },
    Rule {
        kind: "slack-app-token",
        pattern: r"\bxapp-[0-9]-[A-Z0-9]{8,}-[0-9]{8,}-[0-9a-z]{32,}",
    },
    Rule {
        kind: "slack-webhook",
        pattern: r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,}",
    },
    Rule {
        kind: "stripe-key",
        pattern: r"\b(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,99}\b",
    },
    Rule {
        kind: "stripe-webhook-secret",
        pattern: r"\bwhsec_[0-9A-Za-z]{32,}\b",
    },
    Rule {
        kind: "google-api-key",
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
    },
    Rule {
        kind: "google-oauth-secret",
        pattern: r"\bGOCSPX-[0-9A-Za-z_-]{28}",
    },
    Rule {
        kind: "google-oauth-token",
        pattern: r"\bya29\.[0-9A-Za-z_-]{20,}",
    },
    Rule {
        kind: "anthropic-key",
        pattern: r"\bsk-ant-[a-z]{3,6}[0-9]{2}-[0-9A-Za-z_-]{32,}",
    },
    Rule {
        kind: "openrouter-key",
        pattern: r"\bsk-or-v1-[0-9a-f]{64}\b",
    },
    Rule {
        kind: "openai-key",
        pattern: r"\bsk-(?:proj|svcacct|admin)-[0-9A-Za-z_-]{20,}",
    },
    Rule {
        kind: "openai-key",
        pattern: r"\bsk-[0-9A-Za-z]{20}T3BlbkFJ[0-9A-Za-z]{20}\b",
    },
    Rule {
        kind: "api-key",
        pattern: r"\bsk-[0-9A-Za-z]{32,}\b",
    },
    Rule {
        kind: "npm-token",
        pattern: r"\bnpm_[0-9A-Za-z]{36}\b",
    },
    Rule {
        kind: "pypi-token",
        pattern: r"\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[0-9A-Za-z_-]{50,}",
    },
    Rule {
        kind: "sendgrid-key",
        pattern: r"\bSG\.[0-9A-Za-z_-]{22}\.[0-9A-Za-z_-]{43}\b",
    },
    Rule {
        kind: "twilio-key",
        pattern: r"\bSK[0-9a-fA-F]{32}\b",
    },
    Rule {
        kind: "digitalocean-token",
        pattern: r"\bdo[opr]_v1_[0-9a-f]{64}\b",
    },
    Rule {
        kind: "huggingface-token",
        pattern: r"\b(?:hf_|api_org_)[A-Za-z]{34}\b",
    },
    Rule {
        kind: "shopify-token",
        pattern: r"\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b",
    },
    Rule {
        kind: "atlassian-token",
        pattern: r"\bATATT3[0-9A-Za-z_=-]{180,}",
    },
    Rule {
        kind: "databricks-token",
        pattern: r"\bdapi[0-9a-h]{32}(?:-[0-9])?\b",
    },
    Rule {
        kind: "groq-key",
        pattern: r"\bgsk_[0-9A-Za-z]{52}\b",
    },
    Rule {
        kind: "xai-key",
        pattern: r"\bxai-[0-9A-Za-z]{80}\b",
    },
    Rule {
        kind: "dockerhub-pat",
        pattern: r"\bdckr_pat_[0-9A-Za-z_-]{27}",
    },
    Rule {
        kind: "age-secret-key",
        pattern: r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b",
    },
    Rule {
        kind: "jwt",
        pattern: r"\beyJ[0-9A-Za-z_-]{10,}\.eyJ[0-9A-Za-z_-]{10,}\.[0-9A-Za-z_-]{10,}",
    },
];

/// The rules compiled into one regex: rule `i` is the group `r{i}`, its value part (if
/// any) `v{i}`.
struct Compiled {
    all: Regex,
    /// An opening private key line, for [`LiveRedactor`].
    key_begin: Regex,
    key_end: Regex,
    marker: Regex,
}

static COMPILED: LazyLock<Option<Compiled>> = LazyLock::new(|| {
    let alternatives: Vec<String> = RULES
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            // ASCII word boundaries: a Unicode `\b` keeps the fast DFA engines away from
            // any text with a non-ASCII byte.
            let pattern = rule
                .pattern
                .replace("(?P<v>", &format!("(?P<v{i}>"))
                .replace(r"\b", r"(?-u:\b)");
            format!("(?P<r{i}>{pattern})")
        })
        .collect();
    let compiled = (|| {
        Ok::<_, regex::Error>(Compiled {
            all: Regex::new(&alternatives.join("|"))?,
            key_begin: Regex::new(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----")?,
            key_end: Regex::new(r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----")?,
            marker: Regex::new(r"\[redacted: [a-z0-9-]+\]")?,
        })
    })();
    match compiled {
        Ok(c) => Some(c),
        Err(e) => {
            // Unreachable while the unit tests pass (the patterns are constants).
            tracing::error!("the credential patterns do not compile ({e}); output is not redacted");
            None
        }
    }
});

/// Text with its credentials replaced, and how many of each kind were found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    /// Kind → count, in kind order.
    pub found: BTreeMap<&'static str, usize>,
}

impl Redacted {
    pub fn is_clean(&self) -> bool {
        self.found.is_empty()
    }

    /// The note appended to a redacted tool result, for the model and the user.
    pub fn note(&self) -> String {
        let total: usize = self.found.values().sum();
        let kinds: Vec<String> = self
            .found
            .iter()
            .map(|(kind, n)| match n {
                1 => (*kind).to_string(),
                n => format!("{kind} ×{n}"),
            })
            .collect();
        let what = if total == 1 {
            "1 credential".to_string()
        } else {
            format!("{total} credentials")
        };
        format!(
            "[RooCode replaced {what} in this output with [redacted: <kind>] markers ({}); \
             the real values were not sent to you. Never write a marker into a file: ask the \
             user to put the real value in place instead. (Config: security.redact.)]",
            kinds.join(", ")
        )
    }
}

/// `text` with every credential replaced by `[redacted: <kind>]`.
pub fn redact(text: &str) -> Redacted {
    let Some(c) = COMPILED.as_ref() else {
        return Redacted {
            text: text.to_string(),
            found: BTreeMap::new(),
        };
    };
    let mut found = BTreeMap::new();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for caps in c.all.captures_iter(text) {
        let Some((i, rule)) = RULES
            .iter()
            .enumerate()
            .find(|(i, _)| caps.name(&format!("r{i}")).is_some())
        else {
            continue;
        };
        let Some(whole) = caps.name(&format!("r{i}")) else {
            continue;
        };
        let secret = caps.name(&format!("v{i}")).unwrap_or(whole);
        out.push_str(&text[last..secret.start()]);
        out.push_str(MARKER_PREFIX);
        out.push_str(rule.kind);
        out.push(']');
        last = secret.end();
        *found.entry(rule.kind).or_insert(0) += 1;
    }
    out.push_str(&text[last..]);
    Redacted { text: out, found }
}

/// A tool result's content redacted, with the note appended when anything was found;
/// `None` when it holds no credential.
pub fn redact_output(content: &str) -> Option<String> {
    let redacted = redact(content);
    if redacted.is_clean() {
        return None;
    }
    let note = redacted.note();
    let mut text = redacted.text;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&note);
    Some(text)
}

/// The markers in `text`.
fn markers(text: &str) -> Vec<&str> {
    match COMPILED.as_ref() {
        Some(c) => c.marker.find_iter(text).map(|m| m.as_str()).collect(),
        None => Vec::new(),
    }
}

/// For Edit and Write: refuses `new_text` when it carries a redaction marker that
/// `current` (the file's content now, `None` for a new file) does not already hold
/// as text. The message says why and what to do instead.
pub fn check_markers(new_text: &str, current: Option<&str>) -> Result<(), String> {
    let Some(marker) = markers(new_text)
        .into_iter()
        .find(|m| !current.is_some_and(|c| c.contains(m)))
    else {
        return Ok(());
    };
    Err(format!(
        "The text contains the redaction marker {marker}. RooCode put that marker where a \
         credential was in a tool result; the real value was never shown to you, so writing \
         the marker would replace the user's real secret with it. Leave that line as it is \
         (Edit only the lines around it, with an old_string that does not include the \
         marker), or ask the user to fill in the value."
    ))
}

/// Most text a [`LiveRedactor`] holds back waiting for a line end or a key's end.
const LIVE_HOLD: usize = 64 * 1024;

/// Redacts a stream of live output chunks: only complete lines go out, and an open
/// private key block is held until its `END` line (or until `LIVE_HOLD` bytes), so
/// a credential split across chunks is still recognised.
#[derive(Debug, Default)]
pub struct LiveRedactor {
    pending: String,
}

impl LiveRedactor {
    /// Adds a chunk; returns the redacted text that may be shown now, if any.
    pub fn push(&mut self, chunk: &str) -> Option<String> {
        self.pending.push_str(chunk);
        let cut = self.safe_cut();
        self.take(cut)
    }

    /// Everything still held, redacted.
    pub fn finish(&mut self) -> Option<String> {
        let all = self.pending.len();
        self.take(all)
    }

    fn take(&mut self, cut: usize) -> Option<String> {
        if cut == 0 {
            return None;
        }
        let ready: String = self.pending.drain(..cut).collect();
        Some(redact(&ready).text)
    }

    /// How much of `pending` can go out: up to the last line end, but not from the
    /// line of a private key block that has not ended yet.
    fn safe_cut(&self) -> usize {
        let p = &self.pending;
        if p.len() > LIVE_HOLD {
            return p.len();
        }
        let mut cut = p.rfind('\n').map_or(0, |i| i + 1);
        if let Some(c) = COMPILED.as_ref()
            && let Some(begin) = c.key_begin.find_iter(&p[..cut]).last()
            && !c.key_end.is_match(&p[begin.end()..])
        {
            cut = p[..begin.start()].rfind('\n').map_or(0, |i| i + 1);
        }
        cut
    }
}

/// A progress sink that redacts: chunks go through a shared [`LiveRedactor`] and what
/// may be shown goes to `sink`. Call [`LiveSink::finish`] when the call is over.
#[derive(Clone)]
pub struct LiveSink {
    state: Arc<Mutex<LiveRedactor>>,
    sink: Arc<dyn Fn(&str) + Send + Sync>,
}

impl LiveSink {
    pub fn new(sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self {
            state: Arc::default(),
            sink: Arc::new(sink),
        }
    }

    /// A chunk of live output.
    pub fn push(&self, chunk: &str) {
        let ready = self.lock().push(chunk);
        if let Some(text) = ready {
            (self.sink)(&text);
        }
    }

    /// Sends what is still held.
    pub fn finish(&self) {
        let rest = self.lock().finish();
        if let Some(text) = rest {
            (self.sink)(&text);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LiveRedactor> {
        // Each critical section is one push or drain: a panic cannot leave it half done.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests;
