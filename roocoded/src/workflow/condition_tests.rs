//! The tests of `condition`.

use super::*;

fn all(items: Vec<Condition>) -> Condition {
    Condition::All(items)
}
fn any(items: Vec<Condition>) -> Condition {
    Condition::Any(items)
}
fn not(c: Condition) -> Condition {
    Condition::Not(Box::new(c))
}
fn artifact(name: &str) -> Condition {
    Condition::ArtifactExists(name.to_string())
}
fn tool(name: &str) -> Condition {
    Condition::ToolObserved(name.to_string())
}
fn state(key: &str, value: &str) -> Condition {
    Condition::StateEq {
        key: key.to_string(),
        value: value.to_string(),
    }
}

#[test]
fn good_texts_parse() {
    let cases = [
        ("user_approval", Condition::UserApproval),
        ("  plan_todos_complete ", Condition::PlanTodosComplete),
        ("evidence_met", Condition::EvidenceMet),
        ("artifact_exists(plan)", artifact("plan")),
        ("artifact_exists ( test-plan_2 )", artifact("test-plan_2")),
        ("tool_observed(Bash)", tool("Bash")),
        (
            "tool_observed(mcp__server__tool)",
            tool("mcp__server__tool"),
        ),
        ("turn_count(1)", Condition::TurnCount(1)),
        ("turn_count( 1000 )", Condition::TurnCount(1000)),
        ("state_eq(review=passed)", state("review", "passed")),
        (
            "state_eq( a.b-c_d = two words )",
            state("a.b-c_d", "two words"),
        ),
        (
            "state_eq(_k=\"x, (y) \\\"z\\\"\")",
            state("_k", "x, (y) \"z\""),
        ),
        ("state_eq(k=a=b)", state("k", "a=b")),
        ("all(user_approval)", all(vec![Condition::UserApproval])),
        (
            "all( artifact_exists(plan) , user_approval )",
            all(vec![artifact("plan"), Condition::UserApproval]),
        ),
        (
            "any(not(evidence_met), all(turn_count(3), state_eq(k=\"a,b\")))",
            any(vec![
                not(Condition::EvidenceMet),
                all(vec![Condition::TurnCount(3), state("k", "a,b")]),
            ]),
        ),
        ("not (tool_observed(Edit))", not(tool("Edit"))),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_str(text), Ok(expected), "{text}");
    }
}

#[test]
fn bad_texts_are_explained() {
    let cases = [
        ("", "no condition written"),
        (
            "   ",
            "the conditions are: user_approval, artifact_exists(name)",
        ),
        (
            "artifact_exist(plan)",
            "unknown condition \"artifact_exist\" (did you mean artifact_exists?); \
             the conditions are: user_approval",
        ),
        ("gate", "unknown condition \"gate\""),
        ("User_Approval", "(did you mean user_approval?)"),
        ("user_approval(x)", "user_approval takes no argument"),
        ("evidence_met()", "evidence_met takes no argument"),
        (
            "artifact_exists",
            "artifact_exists needs an argument: write artifact_exists(name)",
        ),
        ("artifact_exists()", "needs an argument"),
        (
            "artifact_exists(Plan)",
            "artifact_exists(Plan): an artifact name is lowercase",
        ),
        ("artifact_exists(1plan)", "an artifact name"),
        ("tool_observed(mcp-tool)", "a tool name is letters"),
        ("tool_observed(_x)", "a tool name"),
        ("turn_count", "turn_count needs an argument"),
        ("turn_count(0)", "from 1 to 1000"),
        ("turn_count(1001)", "from 1 to 1000"),
        ("turn_count(+3)", "from 1 to 1000"),
        ("turn_count(three)", "from 1 to 1000"),
        ("turn_count(99999999999)", "from 1 to 1000"),
        ("state_eq(review)", "write key=value"),
        ("state_eq(Review=x)", "write key=value"),
        ("state_eq(1k=x)", "write key=value"),
        ("state_eq(k=)", "write key=value"),
        ("state_eq(k=\"\")", "write key=value"),
        ("state_eq(k=\"a\"b)", "write key=value"),
        ("state_eq(k=\"a)", "an unclosed double quote"),
        (
            "all(user_approval",
            "unbalanced parentheses in \"all(user_approval\"",
        ),
        ("user_approval)", "unbalanced parentheses"),
        ("all(user_approval))", "unbalanced parentheses"),
        (
            "user_approval evidence_met",
            "unexpected text \"evidence_met\" after \"user_approval\"",
        ),
        (
            "artifact_exists(plan) x",
            "unexpected text \"x\" after \"artifact_exists(plan)\"",
        ),
        ("(user_approval)", "expected a condition name"),
        ("all()", "all(...) needs at least one condition"),
        ("any", "any(...) needs at least one condition"),
        ("all(user_approval,)", "an empty item in all(...)"),
        ("any(,user_approval)", "an empty item in any(...)"),
        (
            "not(user_approval, evidence_met)",
            "not(...) takes exactly one condition, found 2",
        ),
        ("not()", "found 0"),
        (
            "all(user_approval, artifact_exists(Plan))",
            "artifact_exists(Plan)",
        ),
        ("all(any(not(turn_count(0))))", "from 1 to 1000"),
    ];
    for (text, fragment) in cases {
        let message = parse_str(text)
            .map(|c| c.to_string())
            .expect_err(text)
            .to_string();
        assert!(message.contains(fragment), "{text}: {message}");
    }
}

#[test]
fn display_round_trips_every_variant() {
    let cases = [
        (Condition::UserApproval, "user_approval"),
        (artifact("plan"), "artifact_exists(plan)"),
        (Condition::PlanTodosComplete, "plan_todos_complete"),
        (Condition::EvidenceMet, "evidence_met"),
        (tool("mcp__s__t"), "tool_observed(mcp__s__t)"),
        (Condition::TurnCount(3), "turn_count(3)"),
        (state("review", "passed"), "state_eq(review=passed)"),
        (state("k", "two words, ok"), "state_eq(k=two words, ok)"),
        (state("k", " padded"), "state_eq(k=\" padded\")"),
        (state("k", "a(b"), "state_eq(k=\"a(b\")"),
        (
            state("k", "say \"hi\" \\o/"),
            "state_eq(k=\"say \\\"hi\\\" \\\\o/\")",
        ),
        (state("k", "back\\slash"), "state_eq(k=back\\slash)"),
        (
            all(vec![artifact("plan"), Condition::UserApproval]),
            "all(artifact_exists(plan), user_approval)",
        ),
        (
            any(vec![
                not(Condition::EvidenceMet),
                all(vec![state("k", ")")]),
            ]),
            "any(not(evidence_met), all(state_eq(k=\")\")))",
        ),
        (
            not(any(vec![Condition::TurnCount(1000)])),
            "not(any(turn_count(1000)))",
        ),
    ];
    for (condition, text) in cases {
        assert_eq!(condition.to_string(), text);
        assert_eq!(parse_str(text), Ok(condition), "{text}");
    }
}

fn yaml(text: &str) -> Value {
    yaml_serde::from_str::<Value>(text).expect(text)
}

#[test]
fn yaml_forms_parse() {
    let cases = [
        ("user_approval", Condition::UserApproval),
        ("\"artifact_exists(plan)\"", artifact("plan")),
        (
            "[artifact_exists(plan), user_approval]",
            all(vec![artifact("plan"), Condition::UserApproval]),
        ),
        ("all: [evidence_met]", all(vec![Condition::EvidenceMet])),
        (
            "any:\n  - tool_observed(Bash)\n  - not: plan_todos_complete\n",
            any(vec![tool("Bash"), not(Condition::PlanTodosComplete)]),
        ),
        (
            "not: [evidence_met, user_approval]",
            not(all(vec![Condition::EvidenceMet, Condition::UserApproval])),
        ),
        (
            "all:\n  - any: [turn_count(2), \"state_eq(k=v)\"]\n  - - user_approval\n",
            all(vec![
                any(vec![Condition::TurnCount(2), state("k", "v")]),
                all(vec![Condition::UserApproval]),
            ]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse(&yaml(text)), Ok(expected), "{text}");
    }
}

#[test]
fn bad_yaml_is_explained() {
    let cases = [
        ("3", "found a number (3)"),
        ("true", "found a boolean (true)"),
        ("~", "found nothing (null)"),
        ("[]", "found an empty list"),
        ("!thing x", "found a tagged value"),
        ("{}", "exactly one key, all, any or not; found no keys"),
        ("either: [user_approval]", "found keys either"),
        (
            "{all: [user_approval], any: [evidence_met]}",
            "found keys all, any",
        ),
        (
            "all: user_approval",
            "`all` takes a list of at least one condition, found the text \"user_approval\"",
        ),
        (
            "any: []",
            "`any` takes a list of at least one condition, found an empty list",
        ),
        ("not: 5", "found a number (5)"),
        ("[user_approval, 4]", "found a number (4)"),
        (
            "all: [artifact_exist(plan)]",
            "did you mean artifact_exists?",
        ),
        ("\"\"", "no condition written"),
    ];
    for (text, fragment) in cases {
        let message = parse(&yaml(text)).expect_err(text).to_string();
        assert!(message.contains(fragment), "{text}: {message}");
    }
}

#[derive(Default)]
struct Known {
    approval: bool,
    artifacts: Vec<&'static str>,
    todos: bool,
    evidence: bool,
    tools: Vec<&'static str>,
    turns: u32,
    state: Vec<(&'static str, &'static str)>,
}

impl Facts for Known {
    fn user_approval(&self) -> bool {
        self.approval
    }
    fn artifact_exists(&self, name: &str) -> bool {
        self.artifacts.contains(&name)
    }
    fn plan_todos_complete(&self) -> bool {
        self.todos
    }
    fn evidence_met(&self) -> bool {
        self.evidence
    }
    fn tool_observed(&self, tool: &str) -> bool {
        self.tools.contains(&tool)
    }
    fn turn_count(&self) -> u32 {
        self.turns
    }
    fn state(&self, key: &str) -> Option<String> {
        self.state
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    }
}

fn some_facts() -> Known {
    Known {
        approval: false,
        artifacts: vec!["plan"],
        todos: true,
        evidence: false,
        tools: vec!["Bash"],
        turns: 3,
        state: vec![("review", "passed")],
    }
}

#[test]
fn holds_for_every_variant_and_combinator() {
    let facts = some_facts();
    let cases = [
        ("user_approval", false),
        ("artifact_exists(plan)", true),
        ("artifact_exists(spec)", false),
        ("plan_todos_complete", true),
        ("evidence_met", false),
        ("tool_observed(Bash)", true),
        ("tool_observed(bash)", false),
        ("turn_count(3)", true),
        ("turn_count(4)", false),
        ("state_eq(review=passed)", true),
        ("state_eq(review=failed)", false),
        ("state_eq(other=passed)", false),
        ("all(artifact_exists(plan), turn_count(2))", true),
        ("all(artifact_exists(plan), user_approval)", false),
        ("any(user_approval, evidence_met)", false),
        ("any(user_approval, plan_todos_complete)", true),
        ("not(user_approval)", true),
        ("not(plan_todos_complete)", false),
        (
            "not(all(user_approval, any(evidence_met, not(turn_count(9)))))",
            true,
        ),
    ];
    for (text, expected) in cases {
        let condition = parse_str(text).expect(text);
        assert_eq!(condition.holds(&facts), expected, "{text}");
    }
    let everything = Known {
        approval: true,
        evidence: true,
        ..some_facts()
    };
    assert!(
        parse_str("all(user_approval, evidence_met)")
            .expect("parses")
            .holds(&everything)
    );
    assert!(all(vec![]).holds(&facts));
    assert!(!any(vec![]).holds(&facts));
}

#[test]
fn unmet_names_the_leaves_in_the_way() {
    let facts = some_facts();
    let cases: [(&str, &[&str]); 8] = [
        ("artifact_exists(plan)", &[]),
        ("artifact_exists(spec)", &["artifact_exists(spec)"]),
        (
            "all(artifact_exists(spec), plan_todos_complete, user_approval)",
            &["artifact_exists(spec)", "user_approval"],
        ),
        (
            "any(user_approval, evidence_met, turn_count(5))",
            &["user_approval", "evidence_met", "turn_count(5)"],
        ),
        ("any(user_approval, plan_todos_complete)", &[]),
        ("not(tool_observed(Bash))", &["not(tool_observed(Bash))"]),
        (
            "all(user_approval, any(user_approval, not(turn_count(2))))",
            &["user_approval", "not(turn_count(2))"],
        ),
        (
            "all(state_eq(review=\"no (way)\"))",
            &["state_eq(review=\"no (way)\")"],
        ),
    ];
    for (text, expected) in cases {
        let condition = parse_str(text).expect(text);
        assert_eq!(condition.unmet(&facts), expected, "{text}");
    }
}

#[test]
fn artifacts_are_listed_once_in_order() {
    let condition = parse_str(
        "all(artifact_exists(plan), any(not(artifact_exists(review)), \
         artifact_exists(plan)), user_approval)",
    )
    .expect("parses");
    assert_eq!(condition.artifacts(), ["plan", "review"]);
    assert!(Condition::UserApproval.artifacts().is_empty());
}

#[test]
fn a_hostile_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}user_approval{}", "not(".repeat(600), ")".repeat(600));
    assert_eq!(parse_str(&deep), Err(ConditionError::TooBig));
    let ok = format!(
        "{}user_approval{}",
        "not(".repeat(MAX_DEPTH),
        ")".repeat(MAX_DEPTH)
    );
    assert!(parse_str(&ok).is_ok());
    let long = format!("all({})", vec!["user_approval"; 400].join(", "));
    assert_eq!(parse_str(&long), Err(ConditionError::TooBig));
    let mut yaml = "user_approval".to_string();
    for _ in 0..40 {
        yaml = format!("{{not: {yaml}}}");
    }
    let value: Value = yaml_serde::from_str(&yaml).unwrap();
    assert_eq!(parse(&value), Err(ConditionError::TooBig));
}
