//! The doctor's checks of a project's setup: the config files that apply there (every
//! problem of each, with its line and column), the command sandbox on this kernel for
//! it, and whether the providers' keys are set (never their values) so the model its
//! sessions would use resolves.

use std::path::{Path, PathBuf};

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};
use roocode_protocol::session::ClientEnv;

use crate::config::{Config, ConfigError, Problem};
use crate::sandbox::{SandboxSettings, capabilities, report};

/// The checks of the project at `root` for a client with `env`, in order: each config
/// file, the sandbox, the keys and the model. Blocking.
pub(super) fn checks(user_dir: &Path, root: &Path, env: &ClientEnv) -> Vec<DoctorCheck> {
    let files = [
        user_dir.join("config.yaml"),
        root.join(".roocode").join("config.yaml"),
        root.join(".roocode").join("config.local.yaml"),
    ];
    let mut checks: Vec<DoctorCheck> = files.iter().map(config_check).collect();
    let config = Config::load(user_dir, root).unwrap_or_default();
    match SandboxSettings::load(user_dir, root) {
        Ok(settings) => checks.extend(report::doctor_checks(capabilities(), &settings)),
        Err(e) => checks.push(DoctorCheck::new(
            "sandbox",
            CheckStatus::Fail,
            e.to_string(),
        )),
    }
    checks.extend(key_checks(env, &config));
    checks
}

fn config_check(file: &PathBuf) -> DoctorCheck {
    let name = format!("config: {}", file.display());
    match std::fs::read_to_string(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            DoctorCheck::new(name, CheckStatus::Ok, "not present (optional)")
        }
        Err(e) => DoctorCheck::new(name, CheckStatus::Fail, format!("cannot be read: {e}")),
        Ok(text) => match Config::parse(file, &text) {
            Ok(_) => DoctorCheck::new(name, CheckStatus::Ok, "valid"),
            Err(e) => DoctorCheck::new(name, CheckStatus::Fail, problems_detail(&e)),
        },
    }
}

/// The problems of one file (named by the check): `line L column C: message`, one per
/// line, under a count when there are several.
fn problems_detail(e: &ConfigError) -> String {
    let problems = e.problems();
    let shown: Vec<String> = problems.iter().map(Problem::without_path).collect();
    match shown.as_slice() {
        [one] => one.clone(),
        many => format!("{} problems:\n{}", many.len(), many.join("\n")),
    }
}

/// Presence of the built-in providers' keys and of each configured provider's
/// `api_key_env`, and whether the model sessions would use resolves.
fn key_checks(env: &ClientEnv, config: &Config) -> Vec<DoctorCheck> {
    let set = |name: &str| env.get(name).is_some_and(|v| !v.trim().is_empty());
    let mut vars: Vec<(String, String)> = vec![
        ("anthropic".into(), "ANTHROPIC_API_KEY".into()),
        ("openai".into(), "OPENAI_API_KEY".into()),
    ];
    for (name, provider) in &config.providers {
        if let Some(var) = &provider.api_key_env {
            vars.push((name.clone(), var.clone()));
        }
    }
    let mut checks: Vec<DoctorCheck> = vars
        .into_iter()
        .map(|(provider, var)| {
            let (status, detail) = if set(&var) {
                (CheckStatus::Ok, format!("{var} is set"))
            } else {
                (CheckStatus::Warn, format!("{var} is not set in this shell"))
            };
            DoctorCheck::new(format!("provider: {provider}"), status, detail)
        })
        .collect();
    let spec = crate::llm::model_spec(env, config);
    let http = reqwest::Client::new();
    let model = match crate::llm::resolve_model(&spec, env, config, &http) {
        Ok(_) => DoctorCheck::new("model", CheckStatus::Ok, format!("{spec}: ready")),
        Err(e) => DoctorCheck::new("model", CheckStatus::Fail, format!("{spec}: {e}")),
    };
    checks.push(model);
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_check_lists_every_problem_of_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.yaml");
        std::fs::write(&file, "modle: a\npermissions: {alow: []}\nmax_turns: x\n").unwrap();
        let check = config_check(&file);
        assert_eq!(check.status, CheckStatus::Fail);
        let lines: Vec<&str> = check.detail.lines().collect();
        assert_eq!(lines[0], "3 problems:", "{}", check.detail);
        assert!(
            lines[1].starts_with("line 1 column 1: unknown key `modle` (did you mean `model`?)"),
            "{}",
            check.detail
        );
        assert!(
            lines[2].starts_with("line 2 column 15: unknown key `alow` in `permissions`"),
            "{}",
            check.detail
        );
        assert!(
            lines[3].starts_with("line 3 column 12: max_turns: invalid type"),
            "{}",
            check.detail
        );

        std::fs::write(&file, "model: x\nsandbox: [oops\n").unwrap();
        let check = config_check(&file);
        assert_eq!(check.status, CheckStatus::Fail);
        assert!(check.detail.starts_with("line "), "{}", check.detail);
        assert_eq!(check.detail.lines().count(), 1, "{}", check.detail);

        std::fs::write(&file, "model: x\n").unwrap();
        assert_eq!(config_check(&file).status, CheckStatus::Ok);
    }
}
