//! Tests of config parsing, validation errors and merge order.

use std::path::Path;

use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn defaults_without_files() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let config = Config::load(user.path(), project.path()).unwrap();
    assert_eq!(config, Config::default());
    assert_eq!(config.max_turns(), 50);
    assert_eq!(config.model(), None);
    assert_eq!(config.permission_mode(), roocode_protocol::Mode::Default);
    assert_eq!(config.compact_threshold(), 0.85);
    assert_eq!(config.large_result_chars(), 25_000);
}

#[test]
fn merge_order_user_project_local() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(
        &user.path().join("config.yaml"),
        "model: anthropic/claude-sonnet-4-5\nmax_turns: 10\n\
         permissions:\n  mode: plan\n  allow: [\"Read(src/**)\"]\n\
         providers:\n  deepseek: {type: openai, base_url: https://api.deepseek.com/v1, api_key_env: DEEPSEEK_API_KEY}\n\
         hooks:\n  - event: post_tool_use\n    action: {type: command, command: a}\n\
         mcp_servers:\n  github: {command: gh}\n",
    );
    write(
        &project.path().join(".roocode/config.yaml"),
        "model: openai/gpt-4.1\n\
         permissions:\n  allow: [\"Bash(git diff:*)\", \"Read(src/**)\"]\n  deny: [\"Bash(curl *)\"]\n\
         context: {compact_threshold: 0.7, window_tokens: 64000}\n\
         hooks:\n  - event: pre_tool_use\n    action: {type: command, command: b}\n\
         mcp_servers:\n  files: {command: fs}\n",
    );
    write(
        &project.path().join(".roocode/config.local.yaml"),
        "max_turns: 99\npermissions:\n  mode: acceptEdits\nretry: {max_attempts: 2}\n\
         mcp_servers:\n  github: {command: gh2}\n",
    );
    let c = Config::load(user.path(), project.path()).unwrap();
    assert_eq!(c.model(), Some("openai/gpt-4.1"));
    assert_eq!(c.max_turns(), 99);
    assert_eq!(c.permission_mode(), roocode_protocol::Mode::AcceptEdits);
    assert_eq!(c.permissions.allow, ["Read(src/**)", "Bash(git diff:*)"]);
    assert_eq!(c.permissions.deny, ["Bash(curl *)"]);
    assert_eq!(c.compact_threshold(), 0.7);
    assert_eq!(c.window_tokens(), Some(64000));
    assert_eq!(c.retry.max_attempts, Some(2));
    let deepseek = &c.providers["deepseek"];
    assert_eq!(deepseek.kind, ProviderKind::Openai);
    assert_eq!(deepseek.api_key_env.as_deref(), Some("DEEPSEEK_API_KEY"));
    let hooks = c.hooks.as_ref().unwrap().as_sequence().unwrap();
    assert_eq!(hooks.len(), 2, "hook lists are combined");
    let mcp = c.mcp_servers.as_ref().unwrap().as_mapping().unwrap();
    assert_eq!(mcp.len(), 2);
    assert_eq!(mcp["github"]["command"].as_str(), Some("gh2"));
    assert_eq!(c.sources.len(), 3);
}

#[test]
fn same_file_is_read_once() {
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".roocode/config.yaml"),
        "permissions: {allow: [a]}\n",
    );
    // The user dir is ~/.roocode and the project is ~ itself.
    let c = Config::load(&home.path().join(".roocode"), home.path()).unwrap();
    assert_eq!(c.permissions.allow, ["a"]);
    assert_eq!(c.sources.len(), 1);
}

#[test]
fn wrong_type_names_file_line_column_and_key() {
    let project = tempfile::tempdir().unwrap();
    let path = project.path().join(".roocode/config.yaml");
    write(&path, "model: openai/gpt-4.1\n\nmax_turns: x\n");
    let err = Config::load(&project.path().join("nouser"), project.path()).unwrap_err();
    let text = err.to_string();
    assert_eq!(
        text,
        format!(
            "{}:3:12: max_turns: invalid type: string \"x\", expected u32",
            path.display()
        )
    );
    assert!(
        matches!(&err, ConfigError::Problems(p) if p.len() == 1 && p[0].line == Some(3)),
        "{err:?}"
    );
}

#[test]
fn broken_yaml_names_file_and_line() {
    let project = tempfile::tempdir().unwrap();
    let path = project.path().join(".roocode/config.local.yaml");
    write(
        &path,
        "model: a\npermissions:\n  allow: [\"x\"\n  deny: []\n",
    );
    let err = Config::load(&project.path().join("nouser"), project.path()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{}:4:3: did not find expected", path.display())),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
}

#[test]
fn unknown_top_level_key_is_rejected() {
    let err = Config::parse(Path::new("/p/.roocode/config.yaml"), "model: a\nmodle: b\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("/p/.roocode/config.yaml:2:1: unknown key `modle` (did you mean `model`?)"),
        "{err}"
    );
}

#[test]
fn unknown_nested_key_and_bad_enum_are_rejected() {
    let p = Path::new("c.yaml");
    let err = Config::parse(p, "permissions:\n  alow: []\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("c.yaml:2:3: unknown key `alow` in `permissions`"),
        "{err}"
    );
    let err = Config::parse(p, "permissions: {mode: yolo}\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown variant `yolo`"), "{err}");
    let err = Config::parse(p, "providers:\n  x: {type: grpc, base_url: u}\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("c.yaml:2:") && err.contains("unknown variant `grpc`"),
        "{err}"
    );
    let err = Config::parse(p, "context: {compact_threshold: 3}\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("out of range"), "{err}");
    for bad in ["0", "-5", "big", "1.5"] {
        let err = Config::parse(p, &format!("context: {{small_window_tokens: {bad}}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.yaml:1:"), "{bad}: {err}");
    }
    let c = Config::parse(p, "context: {small_window_tokens: 32768}\n").unwrap();
    assert_eq!(c.small_window_tokens(), 32768);
    assert_eq!(Config::default().small_window_tokens(), 16_384);
}

#[test]
fn raw_keys_of_later_features_are_accepted() {
    let c = Config::parse(
        Path::new("c.yaml"),
        "enable_verification_agent: true\nrecovery: {chains: {network: [retry, abort]}}\n\
         prices:\n  my-model: {input: 1, output: 2}\n",
    )
    .unwrap();
    assert_eq!(c.enable_verification_agent, Some(true));
    assert_eq!(
        c.recovery_chains()[&crate::recovery::Category::Network]
            .steps
            .len(),
        2
    );
    assert_eq!(c.prices["my-model"].output, 2.0);
}

#[test]
fn empty_and_comment_only_files_are_empty_configs() {
    let p = Path::new("c.yaml");
    assert_eq!(Config::parse(p, "").unwrap().max_turns(), 50);
    assert_eq!(Config::parse(p, "# nothing\n").unwrap().model(), None);
    let err = Config::parse(p, "- a\n- b\n").unwrap_err().to_string();
    assert!(err.starts_with("c.yaml: expected a mapping"), "{err}");
}

#[test]
fn yaml_1_2_scalars_stay_strings() {
    let c = Config::parse(Path::new("c.yaml"), "model: no\n").unwrap();
    assert_eq!(c.model(), Some("no"));
}

#[test]
fn sandbox_env_and_security_sections_merge_and_default() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let c = Config::load(user.path(), project.path()).unwrap();
    assert_eq!(c.sandbox_mode(), SandboxMode::Auto);
    assert_eq!(c.sandbox_network(), SandboxNetwork::Allow);
    assert!(c.redact());
    write(
        &user.path().join("config.yaml"),
        "sandbox: {mode: required, allow_write: [/opt/cache], scrub_env: [MY_TOKEN]}\n\
         env: {forward: [EDITOR]}\n",
    );
    write(
        &project.path().join(".roocode/config.local.yaml"),
        "sandbox: {network: deny, allow_write: [/opt/other], deny_read: [~/.secret]}\n\
         security: {redact: false}\n",
    );
    let c = Config::load(user.path(), project.path()).unwrap();
    assert_eq!(c.sandbox_mode(), SandboxMode::Required);
    assert_eq!(c.sandbox_network(), SandboxNetwork::Deny);
    assert_eq!(c.sandbox.allow_write, ["/opt/cache", "/opt/other"]);
    assert_eq!(c.sandbox.deny_read, ["~/.secret"]);
    assert_eq!(c.sandbox.scrub_env, ["MY_TOKEN"]);
    assert_eq!(c.env.forward, ["EDITOR"]);
    assert!(!c.redact());
    write(
        &user.path().join("config.yaml"),
        "sandbox: {mode: sometimes}\n",
    );
    assert!(Config::load(user.path(), project.path()).is_err());
}

#[test]
fn tools_and_agents_sections_merge_by_tightening() {
    let p = Path::new("c.yaml");
    let mut c = Config::parse(
        p,
        "tools: {disabled: [WebFetch], bash: false}\nagents: {max_concurrent: 4, custom_disallowed: [Bash]}\n",
    )
    .unwrap();
    let later = Config::parse(
        p,
        "tools: {disabled: [Memory], bash: true}\nagents: {max_concurrent: 64, timeout_s: 60, custom_disallowed: [WebFetch]}\n",
    )
    .unwrap();
    c.merge(later);
    assert_eq!(c.tools.disabled, ["WebFetch", "Memory"]);
    assert_eq!(
        c.tools.bash,
        Some(false),
        "a later file cannot bring Bash back"
    );
    assert_eq!(c.agents.custom_disallowed, ["Bash", "WebFetch"]);
    let limits = c.agents_limits();
    assert_eq!(
        limits.max_concurrent, 4,
        "a later file cannot raise a limit"
    );
    assert_eq!(limits.timeout, std::time::Duration::from_secs(60));
    assert_eq!(limits.auto_background, std::time::Duration::from_secs(120));
    let defaults = Config::default().agents_limits();
    assert_eq!(defaults.max_concurrent, 16);
    assert_eq!(defaults.timeout, std::time::Duration::from_secs(1800));
    let err = Config::parse(p, "agents: {max_parallel: 3}\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown key `max_parallel` in `agents`"),
        "{err}"
    );
}

#[test]
fn the_verification_agent_switch_is_a_boolean() {
    let p = Path::new("c.yaml");
    let parse = |text: &str| Config::parse(p, text);
    assert!(!Config::default().verification_agent_enabled());
    assert!(
        parse("enable_verification_agent: true\n")
            .unwrap()
            .verification_agent_enabled()
    );
    assert!(
        !parse("enable_verification_agent: false\n")
            .unwrap()
            .verification_agent_enabled()
    );
    assert!(
        !parse("enable_verification_agent:\n")
            .unwrap()
            .verification_agent_enabled()
    );
    for bad in ["yes", "\"true\"", "1", "[true]"] {
        let err = parse(&format!("model: a/b\nenable_verification_agent: {bad}\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("c.yaml:2:")
                && err.contains("enable_verification_agent")
                && err.contains("expected true or false"),
            "{bad}: {err}"
        );
    }
    // A later file wins; a file that does not say keeps the earlier value.
    let mut merged = parse("enable_verification_agent: true\n").unwrap();
    merged.merge(parse("model: a/b\n").unwrap());
    assert!(merged.verification_agent_enabled());
    merged.merge(parse("enable_verification_agent: false\n").unwrap());
    assert!(!merged.verification_agent_enabled());
}

#[test]
fn the_idle_debounce_defaults_and_is_capped() {
    let p = Path::new("c.yaml");
    let debounce = |text: &str| {
        Config::parse(p, text)
            .unwrap()
            .teams_settings()
            .idle_debounce
    };
    assert_eq!(
        Config::default().teams_settings().idle_debounce.as_millis(),
        250
    );
    assert_eq!(debounce("teams: {idle_debounce_ms: 40}\n").as_millis(), 40);
    assert_eq!(
        debounce("teams: {idle_debounce_ms: 5000}\n").as_millis(),
        u128::from(MAX_IDLE_DEBOUNCE_MS)
    );
    assert_eq!(
        debounce("teams: {idle_debounce_ms: 18446744073709551615}\n").as_millis(),
        u128::from(MAX_IDLE_DEBOUNCE_MS)
    );
}
