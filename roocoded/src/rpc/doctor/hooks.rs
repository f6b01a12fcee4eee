//! The doctor's hooks check: how many hooks the project has, whether they run (a
//! project's hooks run only once the user approved them as they are now) and the
//! commands that show and approve the waiting ones, with the entries that could not
//! be loaded.

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};
use roocode_protocol::hooks::HookList;
use roocode_protocol::session::ClientEnv;

use crate::agent::Engine;

const NAME: &str = "hooks";

/// The check of `cwd`'s project's hooks for a client with `env`.
pub(super) async fn check(engine: &Engine, cwd: &str, env: &ClientEnv) -> DoctorCheck {
    match engine.hook_list(cwd, env).await {
        Ok(list) => verdict(&list),
        Err(e) => DoctorCheck::new(
            NAME,
            CheckStatus::Fail,
            format!("the hooks cannot be listed: {e}"),
        ),
    }
}

fn verdict(list: &HookList) -> DoctorCheck {
    let total = list.hooks.len();
    let waiting = list.hooks.iter().filter(|h| !h.approved).count();
    let mut status = CheckStatus::Ok;
    let mut detail = match (total, waiting) {
        (0, _) => "no hook is configured for this project".to_string(),
        (n, 0) => format!("{n} {}, all of which run", plural(n, "hook", "hooks")),
        (n, w) => {
            status = CheckStatus::Warn;
            format!(
                "{w} of {n} hooks {} for approval and {} not run (project hooks run once approved as they are): read them with `roocode-cli hooks list`, then approve them with `roocode-cli hooks approve` (or `roocode-cli hooks approve ID…`)",
                plural(w, "waits", "wait"),
                plural(w, "does", "do"),
            )
        }
    };
    if !list.problems.is_empty() {
        status = CheckStatus::Warn;
        let n = list.problems.len();
        detail.push_str(&format!(
            "; {n} {} not loaded:\n{}",
            plural(n, "entry was", "entries were"),
            list.problems.join("\n")
        ));
    }
    DoctorCheck::new(NAME, status, detail)
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use roocode_protocol::hooks::HookInfo;

    use super::*;

    fn hook(scope: &str, approved: bool) -> HookInfo {
        HookInfo {
            id: format!("{scope}-1"),
            event: "pre_tool_use".into(),
            matcher: None,
            condition: None,
            action: "run ./check.sh".into(),
            file: "/p/.roocode/config.yaml".into(),
            line: 3,
            scope: scope.into(),
            approved,
            last_result: None,
        }
    }

    #[test]
    fn waiting_hooks_warn_with_the_command_that_approves_them() {
        let none = verdict(&HookList::default());
        assert_eq!(none.status, CheckStatus::Ok);
        assert_eq!(none.detail, "no hook is configured for this project");

        let all = verdict(&HookList {
            hooks: vec![hook("user", true), hook("project", true)],
            problems: Vec::new(),
        });
        assert_eq!(all.status, CheckStatus::Ok);
        assert_eq!(all.detail, "2 hooks, all of which run");

        let waiting = verdict(&HookList {
            hooks: vec![hook("user", true), hook("project", false)],
            problems: Vec::new(),
        });
        assert_eq!(waiting.status, CheckStatus::Warn);
        assert!(
            waiting
                .detail
                .starts_with("1 of 2 hooks waits for approval and does not run"),
            "{}",
            waiting.detail
        );
        assert!(
            waiting.detail.contains("`roocode-cli hooks approve`"),
            "{}",
            waiting.detail
        );
    }

    #[test]
    fn entries_not_loaded_are_listed() {
        let check = verdict(&HookList {
            hooks: vec![hook("user", true)],
            problems: vec!["/p/.roocode/config.yaml:4: unknown event `pre_tool`".into()],
        });
        assert_eq!(check.status, CheckStatus::Warn);
        assert_eq!(
            check.detail,
            "1 hook, all of which run; 1 entry was not loaded:\n/p/.roocode/config.yaml:4: unknown event `pre_tool`"
        );
    }
}
