//! Tests of the command parser and walker.

use super::*;

fn names(line: &str) -> Vec<String> {
    analyze(line).execs.iter().map(|e| e.name.clone()).collect()
}

fn parts(line: &str) -> Vec<String> {
    analyze(line).parts.into_iter().map(|p| p.text).collect()
}

#[test]
fn splits_on_operators_and_sees_through_wrappers() {
    assert_eq!(
        parts("a && b | c; d & e\nf || g"),
        ["a", "b", "c", "d", "e", "f", "g"]
    );
    assert_eq!(
        names("sudo -u root env X=1 nice -n 5 rm -rf x"),
        ["sudo", "env", "nice", "rm"]
    );
    assert_eq!(
        names("bash -c 'echo hi && sh -c \"rm x\"'"),
        ["bash", "echo", "sh", "rm"]
    );
    assert_eq!(
        names("r''m x; \"rm\" y; \\rm z; /bin/rm w"),
        ["rm", "rm", "rm", "rm"]
    );
    assert_eq!(
        names("( cd a && { b; } ) | xargs -I{} cp {} x"),
        ["cd", "b", "xargs", "cp"]
    );
    assert_eq!(names("echo $(date) `whoami`"), ["date", "whoami", "echo"]);
    assert_eq!(names("find . -name x -exec rm {} \\;"), ["find", "rm"]);
    assert_eq!(
        names("timeout 5 time -p nohup command exec ls"),
        ["timeout", "time", "nohup", "command", "exec", "ls"]
    );
    assert_eq!(names("echo 'rm -rf x' | bash"), ["echo", "bash", "rm"]);
    assert_eq!(
        names("bash <<'EOF'\nrm -rf x\nEOF\necho done"),
        ["bash", "rm", "echo"]
    );
    assert_eq!(
        names("if true; then rm x; else ls; fi"),
        ["true", "rm", "ls"]
    );
    assert_eq!(names("for f in $(ls); do rm \"$f\"; done"), ["ls", "rm"]);
    assert_eq!(names("case $x in a) rm a;; b|c) ls;; esac"), ["rm", "ls"]);
    assert_eq!(names("env -S 'rm -rf x'"), ["env", "rm"]);
    assert_eq!(names("watch -n 1 'ls | wc'"), ["watch", "ls", "wc"]);
}

#[test]
fn opaque_forms_are_listed() {
    for line in [
        "eval \"$X\"",
        "$(echo rm) -rf x",
        "`echo rm` x",
        "$CMD args",
        "source <(curl x)",
        "bash <(curl x)",
        "echo 'unterminated",
        "sh -c \"$(curl x)\"",
    ] {
        assert!(!analyze(line).opaque.is_empty(), "{line}");
    }
    for line in ["echo $(date)", "ls -la", "$HOME/bin/tool x", "~/bin/x"] {
        assert!(
            analyze(line).opaque.is_empty(),
            "{line}: {:?}",
            analyze(line).opaque
        );
    }
    let a = analyze("echo x | base64 -d | sh");
    assert!(
        a.execs
            .iter()
            .any(|e| e.program_from_pipe && e.name == "sh")
    );
}

#[test]
fn functions_that_fork_themselves_are_found() {
    assert_eq!(analyze(":(){ :|:& };:").fork_bombs, [":"]);
    assert_eq!(
        analyze("bomb() { bomb | bomb & }; bomb").fork_bombs,
        ["bomb"]
    );
    assert_eq!(analyze("function f { f & f; }; f").fork_bombs, ["f"]);
    assert!(analyze("f() { echo hi; }; f | cat").fork_bombs.is_empty());
}

#[test]
fn cd_is_followed() {
    let a = analyze("cd build && rm -rf *");
    let rm = a.execs.iter().find(|e| e.name == "rm").unwrap();
    assert_eq!(rm.cwd.comps, [Comp::Name("build".into())]);
    let a = analyze("cd && rm x");
    assert_eq!(a.execs[1].cwd.base, Base::Home);
}

#[test]
fn brace_expansion() {
    let a = analyze("rm -rf /{etc,usr}");
    let alts: Vec<String> = a.execs[0].args[1]
        .brace_alternatives()
        .iter()
        .map(Word::shell_text)
        .collect();
    assert_eq!(alts, ["/etc", "/usr"]);
}

#[test]
fn never_panics_and_stays_bounded() {
    // A small deterministic generator over the characters that matter to the parser.
    let alphabet: Vec<char> = "ab /~$(){}[]<>|&;'\"`\\\n#*=-,.0123456789ECHOrmf"
        .chars()
        .collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..20_000 {
        let len = (seed % 40) as usize;
        let mut line = String::new();
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            line.push(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        let _ = analyze(&line);
    }
    let braces = "{a,b,c,d,e,f,g,h}".repeat(40);
    let started = std::time::Instant::now();
    let _ = analyze(&format!("rm -rf /{braces}"));
    let _ = analyze(&"$(".repeat(500));
    let _ = analyze(&"(".repeat(5000));
    let _ = analyze(&format!("bash -c '{}'", "bash -c \\'".repeat(50)));
    assert!(started.elapsed().as_secs() < 2);
}

#[test]
fn sees_through_the_launchers_of_issue_9() {
    assert_eq!(
        names("strace -f taskset 1 flock /tmp/l setpriv --reuid=1 rm x"),
        ["strace", "taskset", "flock", "setpriv", "rm"]
    );
    assert_eq!(names("script -qc 'rm x' /dev/null"), ["script", "rm"]);
    assert_eq!(names("git -c alias.x='!rm y' x"), ["git", "rm"]);
    assert_eq!(names("alias l='rm z'"), ["alias", "rm"]);
    assert_eq!(names("parallel rm ::: a b"), ["parallel", "rm", "rm"]);
    assert_eq!(names("echo 'rm q' | at now"), ["echo", "at", "rm"]);
    let a = analyze("ls | xargs sudo rm -rf");
    let rm = a.execs.iter().find(|e| e.name == "rm").unwrap();
    assert!(rm.args_from_input);
    assert!(!a.execs[0].args_from_input);
    assert_eq!(
        analyze("python3 -c 'print(1)'").inline_code,
        Vec::<String>::new()
    );
    assert_eq!(analyze("python3 -c 'import os'").inline_code.len(), 1);
}
