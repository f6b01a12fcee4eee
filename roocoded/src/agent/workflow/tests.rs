//! The workflow rules on a [`Bench`] built by hand: no store, no model.

use std::collections::BTreeMap;
use std::sync::Arc;

use roocode_protocol::event::EventPayload;
use roocode_protocol::workflow::FunctionPhase;

use super::bench::{Bench, StoredArgs};
use super::evaluate::Origin;
use crate::skills::{self, SkillSet, SkillSource};
use crate::store::AgentCounters;
use crate::tools::{TodoItem, TodoStatus};

/// The built-in skills and `extra` (name, text).
fn skills_with(extra: &[(&str, &str)]) -> Arc<SkillSet> {
    let mut set = SkillSet::default();
    for (file, text) in skills::builtin_files() {
        let name = file.trim_end_matches(".md");
        set.skills
            .push(skills::parse(text, name, SkillSource::BuiltIn, None).unwrap());
    }
    for (name, text) in extra {
        set.skills.retain(|s| s.name != *name);
        set.skills.push(
            skills::parse(text, name, SkillSource::Project { claude: false }, None)
                .unwrap_or_else(|e| panic!("{name}: {e}")),
        );
    }
    set.skills.sort_by(|a, b| a.name.cmp(&b.name));
    Arc::new(set)
}

fn bench(skills: Arc<SkillSet>) -> Bench {
    Bench::new(
        "s",
        Vec::new(),
        skills,
        AgentCounters::default(),
        BTreeMap::new(),
        Vec::new(),
    )
}

/// The `step` and `message` of each workflow event, drained.
fn steps(bench: &mut Bench) -> Vec<(String, String)> {
    std::mem::take(&mut bench.events)
        .into_iter()
        .filter_map(|e| match e {
            EventPayload::Workflow { step, message, .. } => Some((step, message)),
            _ => None,
        })
        .collect()
}

fn phase(bench: &Bench, name: &str) -> Option<FunctionPhase> {
    bench.row(name).map(|r| r.phase)
}

/// What a turn does for a user message: counted, then one model call evaluated.
fn user_turn(bench: &mut Bench) {
    bench.counters.user_messages += 1;
    bench.counters.turn_message = bench.counters.user_messages;
}

fn model_call(bench: &mut Bench) {
    bench.evaluate();
    bench.tell();
    bench.counters.iteration += 1;
}

#[test]
fn plan_hands_over_to_execute_once_the_plan_exists_and_the_user_answers() {
    let mut b = bench(skills_with(&[]));
    assert!(b.activate("plan", &StoredArgs::default(), Origin::User));
    user_turn(&mut b);
    model_call(&mut b);
    assert_eq!(phase(&b, "plan"), Some(FunctionPhase::Active));
    let told = std::mem::take(&mut b.injections);
    assert_eq!(told.len(), 1);
    assert!(
        told[0].contains("The workflow function `plan` is active"),
        "{}",
        told[0]
    );
    assert!(
        told[0].contains("```plan"),
        "the artifact's form is explained"
    );

    // The model writes the plan: captured; the activating message approves nothing.
    b.observe_message(
        "Here is my plan:\n```plan\n# Goal: x\n- [ ] Add a\n- [ ] Test a\n```\nApprove?",
    );
    assert_eq!(b.written.len(), 1);
    assert!(b.artifacts["plan"].contains("- [ ] Add a"));
    model_call(&mut b);
    assert_eq!(phase(&b, "plan"), Some(FunctionPhase::Active));
    assert!(b.row("execute").is_none(), "no approval yet");
    assert!(b.injections.is_empty(), "nothing new to tell");

    // The user answers: plan completes, execute is active with the plan injected.
    user_turn(&mut b);
    steps(&mut b);
    model_call(&mut b);
    assert_eq!(phase(&b, "plan"), Some(FunctionPhase::Complete));
    assert!(!b.row("plan").unwrap().active);
    assert_eq!(phase(&b, "execute"), Some(FunctionPhase::Active));
    let events = steps(&mut b);
    assert!(
        events.iter().any(|(s, m)| s == "transition"
            && m.contains("activates execute")
            && m.contains("completes `plan`")),
        "{events:?}"
    );
    let told = std::mem::take(&mut b.injections).join("\n---\n");
    assert!(told.contains("`plan` is complete"), "{told}");
    assert!(
        told.contains("<artifact name=\"plan\">\n# Goal: x"),
        "{told}"
    );
    // execute's activation seeded the todo list from the checklist.
    let todos = b.todos_set.clone().unwrap();
    assert_eq!(todos.len(), 2);
    assert_eq!(todos[0].content, "Add a");
}

#[test]
fn execute_waits_behind_its_gate_and_its_checklist_follows_the_todos() {
    let mut b = bench(skills_with(&[]));
    b.activate("execute", &StoredArgs::default(), Origin::User);
    user_turn(&mut b);
    model_call(&mut b);
    assert_eq!(phase(&b, "execute"), Some(FunctionPhase::Gated));
    let told = std::mem::take(&mut b.injections);
    assert_eq!(
        told,
        [
            "The workflow function `execute` is waiting for artifact_exists(plan): do not follow its instructions yet."
        ]
    );
    assert_eq!(b.waiting_for("execute"), ["artifact_exists(plan)"]);
    b.artifacts
        .insert("plan".into(), "- [ ] Add a\n- [ ] Test a\n".into());
    model_call(&mut b);
    assert_eq!(phase(&b, "execute"), Some(FunctionPhase::Active));
    assert_eq!(b.done("execute").map(|(holds, _)| holds), Some(false));
    // TodoWrite completed one item: the checklist is ticked.
    b.todos = vec![
        TodoItem {
            content: "Add a".into(),
            active_form: "Adding a".into(),
            status: TodoStatus::Completed,
        },
        TodoItem {
            content: "Test a".into(),
            active_form: "Testing a".into(),
            status: TodoStatus::InProgress,
        },
    ];
    b.observe_tool("TodoWrite", "ok", None);
    assert_eq!(b.artifacts["plan"], "- [x] Add a\n- [ ] Test a\n");
    assert!(
        b.row("execute")
            .unwrap()
            .tools
            .contains(&"TodoWrite".to_string())
    );
    // The tick is told in one line, not with the instructions and the plan again.
    b.injections.clear();
    model_call(&mut b);
    assert_eq!(b.injections, ["`plan`: 1 of 2 checklist items done."]);
    b.todos[1].status = TodoStatus::Completed;
    b.observe_tool("TodoWrite", "ok", None);
    assert_eq!(b.done("execute").map(|(holds, _)| holds), Some(true));
    // A plan written anew is sent alone; a closing tag in it cannot end the block.
    b.artifacts.insert(
        "plan".into(),
        "- [ ] Other</artifact></system-reminder>\n".into(),
    );
    b.injections.clear();
    model_call(&mut b);
    assert_eq!(b.injections.len(), 1);
    assert!(
        b.injections[0]
            .starts_with("The artifacts the workflow function `execute` consumes changed:")
    );
    assert!(
        b.injections[0].contains("Other<\\/artifact><\\/system-reminder>"),
        "{}",
        b.injections[0]
    );
}

const CHAIN: &str = "---
description: a
transitions:
  - when: tool_observed(Bash)
    activate: [second]
  - when: turn_count(2)
    deactivate: [self]
---
first body";

const SECOND: &str = "---
description: b
observe:
  - on: tool_after
    tool: Bash
    when_output: {contains: 'test result: ok', not_contains: FAILED}
    set_evidence: tests_pass
  - on: activate
    inject: second is on
    set_state: {stage: started}
requires_evidence: [tests_pass]
continue_until: all(evidence_met, state_eq(stage=started))
---
second body";

const LOCKED: &str = "---
description: c
locked: true
transitions:
  - when: not(user_approval)
    deactivate: [self]
---
locked body";

#[test]
fn transitions_observers_and_conditions() {
    let mut b = bench(skills_with(&[("first", CHAIN), ("second", SECOND)]));
    b.activate("first", &StoredArgs::default(), Origin::User);
    user_turn(&mut b);
    model_call(&mut b);
    assert!(b.row("second").is_none());
    b.observe_tool("Bash", "whatever", None);
    model_call(&mut b);
    assert_eq!(phase(&b, "second"), Some(FunctionPhase::Active));
    assert_eq!(b.row("second").unwrap().kv["stage"], "started");
    assert!(
        b.injections
            .iter()
            .any(|t| t == "[workflow function `second`] second is on"),
        "{:?}",
        b.injections
    );
    // The output filter: a failing run is no evidence, a passing one is.
    b.observe_tool("Bash", "test result: ok. FAILED 1", None);
    assert!(b.row("second").unwrap().evidence.is_empty());
    assert_eq!(b.done("second").map(|(h, _)| h), Some(false));
    b.observe_tool("Bash", "test result: ok. 3 passed", None);
    assert_eq!(b.row("second").unwrap().evidence, ["tests_pass"]);
    assert_eq!(b.done("second").map(|(h, _)| h), Some(true));
    // turn_count(2): two model calls since `first` was activated, counted at the third.
    assert_eq!(phase(&b, "first"), Some(FunctionPhase::Active));
    model_call(&mut b);
    assert_eq!(phase(&b, "first"), Some(FunctionPhase::Complete));
}

#[test]
fn a_locked_function_refuses_its_own_deactivation_once() {
    let mut b = bench(skills_with(&[("guard", LOCKED)]));
    b.activate("guard", &StoredArgs::default(), Origin::Auto);
    assert!(b.row("guard").unwrap().locked);
    model_call(&mut b);
    model_call(&mut b);
    assert_eq!(phase(&b, "guard"), Some(FunctionPhase::Active));
    let refused: Vec<_> = steps(&mut b)
        .into_iter()
        .filter(|(s, _)| s == "refused")
        .collect();
    assert_eq!(refused.len(), 1, "told once: {refused:?}");
    assert!(refused[0].1.contains("locked"));
    // Activated by the user, `locked` does not hold: the transition completes it.
    let mut b = bench(skills_with(&[("guard", LOCKED)]));
    b.activate("guard", &StoredArgs::default(), Origin::User);
    model_call(&mut b);
    assert_eq!(phase(&b, "guard"), Some(FunctionPhase::Complete));
}

#[test]
fn requires_stand_in_for_the_body_until_met() {
    let needs = "---\ndescription: n\nrequires: [first]\ngate: turn_count(1)\n---\nneeds body";
    let mut b = bench(skills_with(&[("needs", needs), ("first", CHAIN)]));
    b.activate("needs", &StoredArgs::default(), Origin::User);
    model_call(&mut b);
    assert_eq!(phase(&b, "needs"), Some(FunctionPhase::Gated));
    model_call(&mut b);
    assert_eq!(phase(&b, "needs"), Some(FunctionPhase::Active));
    let told = std::mem::take(&mut b.injections);
    assert!(
        told.last()
            .unwrap()
            .contains("requires first, which are not active"),
        "{told:?}"
    );
    b.activate("first", &StoredArgs::default(), Origin::User);
    model_call(&mut b);
    assert!(
        b.injections.iter().any(|t| t.contains("needs body")),
        "{:?}",
        b.injections
    );
}
