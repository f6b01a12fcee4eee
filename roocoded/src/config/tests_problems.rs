//! Tests of reporting every problem of a file at once (issue 7): lines, suggestions,
//! nested keys, unknown keys beside type errors, several files; and of the `skills`,
//! `continuation` and `notifications` sections.

use std::path::Path;

use super::*;

fn problems(text: &str) -> Vec<Problem> {
    match Config::parse(Path::new("c.yaml"), text) {
        Err(ConfigError::Problems(problems)) => problems,
        other => panic!("expected problems, got {other:?}"),
    }
}

fn positions(problems: &[Problem]) -> Vec<(usize, usize)> {
    problems
        .iter()
        .map(|p| (p.line.unwrap_or(0), p.column.unwrap_or(0)))
        .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_problem_of_a_file_is_reported_at_once_with_its_line() {
    let text = "model: a/b\n\
                permisions:\n  deny: [Bash]\n\
                max_turns: lots\n\
                context:\n  compact_threshold: 3\n  window: 10\n";
    let found = problems(text);
    assert_eq!(
        positions(&found),
        [(2, 1), (4, 12), (6, 22), (7, 3)],
        "{found:#?}"
    );
    assert!(
        found[0]
            .message
            .starts_with("unknown key `permisions` (did you mean `permissions`?); valid top-level keys: model, providers, max_turns, permissions,"),
        "{}",
        found[0].message
    );
    assert_eq!(
        found[1].message,
        "max_turns: invalid type: string \"lots\", expected u32"
    );
    assert!(
        found[2].message.contains("out of range"),
        "{}",
        found[2].message
    );
    assert_eq!(
        found[3].message,
        "unknown key `window` in `context` (did you mean `window_tokens`?); valid keys there: \
         compact_threshold, large_result_chars, window_tokens, small_window_tokens"
    );
    // One problem a line, each naming the file and its position.
    let shown = ConfigError::Problems(found).to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 4, "{shown}");
    assert!(
        lines[0].starts_with("c.yaml:2:1: unknown key `permisions`"),
        "{shown}"
    );
    assert!(lines[1].starts_with("c.yaml:4:12: max_turns: "), "{shown}");
    assert!(
        lines[3].starts_with("c.yaml:7:3: unknown key `window`"),
        "{shown}"
    );
}

#[test]
fn a_misspelt_section_never_drops_its_rules_silently() {
    // `permisions:` with deny rules is an error, not a file without deny rules.
    let err = Config::parse(
        Path::new("c.yaml"),
        "permisions:\n  deny: [\"Bash(rm *)\"]\n",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown key `permisions` (did you mean `permissions`?)"),
        "{err}"
    );
}

#[test]
fn a_nested_unknown_key_in_flow_style_suggests_the_valid_one() {
    let found = problems("model: a/b\npermissions: {alow: [Read], deny: [Bash]}\n");
    assert_eq!(positions(&found), [(2, 15)], "{found:#?}");
    assert_eq!(
        found[0].message,
        "unknown key `alow` in `permissions` (did you mean `allow`?); valid keys there: \
         mode, allow, ask, deny, additional_directories, protected_branches"
    );
    // Without a close key there is no guess, only the valid keys.
    let found = problems("security:\n  scrub: true\n");
    assert_eq!(
        found[0].message,
        "unknown key `scrub` in `security`; valid keys there: redact"
    );
}

#[test]
fn a_type_error_and_an_unknown_key_of_one_section_are_both_reported() {
    let found = problems("permissions:\n  mode: yolo\n  alow: []\n  deny: 3\n");
    assert_eq!(positions(&found), [(2, 9), (3, 3), (4, 9)], "{found:#?}");
    assert!(
        found[0]
            .message
            .starts_with("permissions.mode: unknown variant `yolo`"),
        "{}",
        found[0].message
    );
    assert!(found[1].message.contains("did you mean `allow`?"));
    assert!(
        found[2]
            .message
            .starts_with("permissions.deny: invalid type: integer `3`, expected a sequence"),
        "{}",
        found[2].message
    );
}

#[test]
fn a_bad_entry_of_a_map_is_reported_once_per_problem() {
    // The wrong `type` is left out to look further: its absence is not a second problem.
    let found = problems("providers:\n  x: {type: grpc, bse_url: u}\n  y: {type: openai}\n");
    assert_eq!(positions(&found), [(2, 13), (2, 19)], "{found:#?}");
    assert!(found[0].message.contains("unknown variant `grpc`"));
    assert!(
        found[1]
            .message
            .starts_with("unknown key `bse_url` in `providers.x` (did you mean `base_url`?)"),
        "{}",
        found[1].message
    );
    // A key that is really missing is.
    let found = problems("providers:\n  x: {tpye: openai}\nprices:\n  m: {input: 1}\n");
    let messages: Vec<&str> = found.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(found.len(), 3, "{messages:#?}");
    // By position: the entry (where `type` is missing) starts before its first key.
    assert_eq!(messages[0], "providers.x: missing field `type`");
    assert!(messages[1].contains("did you mean `type`?"), "{messages:?}");
    assert!(
        messages[2].contains("missing field `output`"),
        "{messages:?}"
    );
}

#[test]
fn list_items_and_empty_sections_are_judged_one_by_one() {
    let found = problems(
        "permissions:\n  allow:\n    - Read\n    - {a: b}\n    - [c]\nenv:\nsecurity: {redact: yes}\n",
    );
    assert_eq!(positions(&found), [(4, 7), (5, 7), (7, 20)], "{found:#?}");
    assert!(
        found[0]
            .message
            .starts_with("permissions.allow[1]: invalid type: map, expected a string"),
        "{}",
        found[0].message
    );
    assert!(found[1].message.starts_with("permissions.allow[2]: "));
    assert!(
        found[2]
            .message
            .starts_with("security.redact: invalid type")
    );
    // An empty section is an empty one.
    let c = Config::parse(Path::new("c.yaml"), "env:\npermissions:\n").unwrap();
    assert!(c.env.forward.is_empty());
}

#[test]
fn raw_sections_are_not_looked_into_but_mcp_servers_entries_are() {
    let found = problems(
        "modle: a\nhooks: [{evnt: x}]\n\
         mcp_servers:\n  x: {comand: y}\n",
    );
    assert_eq!(positions(&found), [(1, 1), (4, 7)], "{found:#?}");
    assert!(found[1].message.contains("did you mean `command`?"));
}

#[test]
fn recovery_names_are_checked_where_they_are_written() {
    let found = problems("recovery:\n  chain: {}\n  max_total_attempts: 0\n");
    assert_eq!(positions(&found), [(2, 3), (3, 23)], "{found:#?}");
    assert!(
        found[0].message.contains("did you mean `chains`?"),
        "{found:#?}"
    );
    assert!(found[1].message.contains("at least 1"), "{found:#?}");
    let found = problems("recovery:\n  chains: {network: [retyr]}\n");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, Some(2), "{found:#?}");
    assert!(
        found[0].message.contains("did you mean `retry`?"),
        "{found:#?}"
    );
    let config = Config::parse(
        Path::new("c.yaml"),
        "recovery: {max_total_attempts: 4, chains: {edit_error: [{remind_and_retry: 1}, abort]}}\n",
    )
    .unwrap();
    assert_eq!(config.recovery_max_total_attempts(), 4);
    let chains = config.recovery_chains();
    assert_eq!(
        chains[&crate::recovery::Category::EditError].steps[0].times,
        1
    );
    assert_eq!(
        chains[&crate::recovery::Category::Network],
        crate::recovery::Chain::default_for(crate::recovery::Category::Network)
    );
}

#[test]
fn problems_of_all_files_are_listed_in_file_order() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let user_file = user.path().join("config.yaml");
    let local = project.path().join(".roocode/config.local.yaml");
    write(&user_file, "max_turns: [1]\n");
    write(
        &project.path().join(".roocode/config.yaml"),
        "model: fine/here\n",
    );
    write(&local, "tools: {bsh: false}\nsandbox: {mode: sometimes}\n");
    let err = Config::load(user.path(), project.path()).unwrap_err();
    let found = err.problems();
    let files: Vec<&Path> = found.iter().map(|p| p.path.as_path()).collect();
    assert_eq!(files, [&user_file, &local, &local], "{err}");
    assert_eq!(err.path(), user_file);
    assert_eq!(err.to_string().lines().count(), 3, "{err}");
}

#[test]
fn a_document_setting_every_key_reads_and_the_search_finds_nothing_in_it() {
    let text = "model: a/b\n\
        providers: {p: {type: openai, base_url: http://x/v1, api_key_env: K}}\n\
        max_turns: 3\n\
        permissions: {mode: plan, allow: [a], ask: [b], deny: [c], additional_directories: [d], protected_branches: [e]}\n\
        context: {compact_threshold: 0.5, large_result_chars: 10, window_tokens: 100, small_window_tokens: 50}\n\
        retry: {max_attempts: 2, base_delay_ms: 1, max_delay_secs: 2, max_total_secs: 3}\n\
        prices: {m: {input: 1, output: 2, cache_read: 0.1, cache_write: 1.2}}\n\
        sandbox: {mode: off, network: deny, allow_write: [a], deny_read: [b], scrub_env: [C]}\n\
        env: {forward: [EDITOR]}\n\
        security: {redact: false}\n\
        tools: {disabled: [WebFetch], bash: true}\n\
        agents: {max_concurrent: 2, timeout_s: 3, auto_background_s: 4, custom_disallowed: [Bash]}\n\
        teams: {backend: in-process, idle_debounce_ms: 10}\n\
        coordinator: false\n\
        mcp_servers: {s: {type: stdio, command: c, args: [a], env: {A: b}, cwd: d, url: u, headers: {H: v}, enabled: true, startup_timeout_s: 1, tool_timeout_s: 2}}\n\
        mcp: {startup_wait_ms: 5, defer_threshold: 0.2}\n\
        hooks: [{event: x}]\n\
        enable_verification_agent: true\n\
        recovery: {max_total_attempts: 4, fallback_model: openai/gpt-4.1, chains: {network: [{retry: 2}, abort]}}\n\
        skills: {auto: [commit-style]}\n\
        continuation: {max_per_message: 2, max_per_session: 9}\n\
        notifications: {idle_after_ms: 250}\n";
    let config = Config::parse(Path::new("c.yaml"), text).unwrap();
    assert_eq!(config.idle_notify_after().as_millis(), 250);
    assert_eq!(config.max_continuations_per_session(), 9);
    assert!(validate::problems::<Config>(Path::new("c.yaml"), text).is_empty());
}

#[test]
fn skills_and_continuation_default_merge_and_reject_unknown_keys() {
    let p = Path::new("c.yaml");
    let defaults = Config::default();
    assert!(defaults.auto_skills().is_empty());
    assert_eq!(defaults.max_continuations_per_message(), 5);
    assert_eq!(defaults.max_continuations_per_session(), 25);

    let mut merged = Config::parse(
        p,
        "skills: {auto: [commit-style, rust-review]}\ncontinuation: {max_per_message: 0}\n",
    )
    .unwrap();
    merged.merge(
        Config::parse(
            p,
            "skills:\n  auto: [rust-review, docs]\ncontinuation: {max_per_session: 40}\n",
        )
        .unwrap(),
    );
    assert_eq!(
        merged.auto_skills(),
        ["commit-style", "rust-review", "docs"]
    );
    assert_eq!(merged.max_continuations_per_message(), 0, "0 means never");
    assert_eq!(merged.max_continuations_per_session(), 40);
    merged.merge(Config::parse(p, "continuation: {max_per_message: 3}\n").unwrap());
    assert_eq!(
        merged.max_continuations_per_message(),
        3,
        "a later file wins"
    );

    let found =
        problems("skills: {autoload: [x]}\ncontinuation: {max_per_msg: 1, max_per_session: -1}\n");
    assert_eq!(positions(&found), [(1, 10), (2, 16), (2, 49)], "{found:#?}");
    assert_eq!(
        found[0].message,
        "unknown key `autoload` in `skills` (did you mean `auto`?); valid keys there: auto"
    );
    assert_eq!(
        found[1].message,
        "unknown key `max_per_msg` in `continuation`; valid keys there: max_per_message, max_per_session"
    );
    assert!(
        found[2].message
            == "continuation.max_per_session: invalid type: integer `-1`, expected u32",
        "{}",
        found[2].message
    );
}

#[test]
fn notifications_default_merge_and_reject_bad_values() {
    let p = Path::new("c.yaml");
    assert_eq!(
        Config::default().idle_notify_after().as_millis(),
        u128::from(DEFAULT_IDLE_NOTIFY_AFTER_MS)
    );
    let mut merged = Config::parse(p, "notifications: {idle_after_ms: 5000}\n").unwrap();
    merged.merge(Config::parse(p, "model: a/b\n").unwrap());
    assert_eq!(merged.idle_notify_after().as_millis(), 5000, "kept");
    merged.merge(Config::parse(p, "notifications: {idle_after_ms: 100}\n").unwrap());
    assert_eq!(
        merged.idle_notify_after().as_millis(),
        100,
        "a later file wins"
    );

    let found = problems("notifications: {idle_after: 1}\n");
    assert_eq!(
        found[0].message,
        "unknown key `idle_after` in `notifications` (did you mean `idle_after_ms`?); valid keys there: idle_after_ms"
    );
    let found = problems("notifications:\n  idle_after_ms: 0\n");
    assert!(
        found[0].message.contains("must be at least 1"),
        "{found:#?}"
    );
    let found = problems("notifications: {idle_after_ms: soon}\n");
    assert!(found[0].message.contains("invalid type"), "{found:#?}");
}

#[test]
fn a_file_of_many_problems_lists_a_bounded_number() {
    let text: String = (0..100).map(|i| format!("key{i}: 1\n")).collect();
    let found = problems(&text);
    assert_eq!(found.len(), 65);
    assert_eq!(found[0].line, Some(1));
    assert_eq!(
        found[64].message,
        "there are more problems than these: fix these first"
    );
}

#[test]
fn every_error_kind_is_a_list_of_problems() {
    let read = ConfigError::Read {
        path: "a.yaml".into(),
        source: std::io::Error::other("denied"),
    };
    assert_eq!(
        read.problems(),
        [Problem::new(
            Path::new("a.yaml"),
            None,
            "cannot read the file: denied"
        )]
    );
    let broken = Config::parse(Path::new("b.yaml"), "a: [\n").unwrap_err();
    assert_eq!(broken.problems().len(), 1, "{broken}");
    assert!(broken.to_string().starts_with("b.yaml:"), "{broken}");
    let problem = Problem::new(Path::new("c.yaml"), Some((3, 4)), "bad");
    assert_eq!(problem.to_string(), "c.yaml:3:4: bad");
    assert_eq!(problem.without_path(), "line 3 column 4: bad");
}
