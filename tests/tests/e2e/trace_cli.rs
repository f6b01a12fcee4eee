//! `roocode-cli trace` end to end: a session whose project config allows `echo` and
//! denies `rm` by rule; the model runs an allowed Bash, a denied `rm -rf x` and a Read.
//! `trace --json` lists each call with its decision and layer (the rule's text, file
//! and 1-based line), the iterations and the tokens the mock reported; `--why` names
//! the rule, its file and line (and fails clearly for an unknown or ambiguous id);
//! the text timeline says the same; `--otlp FILE` writes an `ExportTraceServiceRequest`
//! checked field by field. A background sub-agent shows under the turn that started
//! it.

use std::collections::{HashMap, HashSet};

use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall, UsageSpec};
use serde_json::{Value, json};

use crate::harness::World;

/// The project config: one allow rule (line 3) and one deny rule (line 5).
const CONFIG: &str =
    "permissions:\n  allow:\n    - \"Bash(echo:*)\"\n  deny:\n    - \"Bash(rm:*)\"\n";

fn usage(input: u64, output: u64, read: u64, write: u64) -> UsageSpec {
    UsageSpec {
        input_tokens: Some(input),
        output_tokens: Some(output),
        cache_read_input_tokens: Some(read),
        cache_creation_input_tokens: Some(write),
    }
}

/// A session of one turn: Bash echo and Bash rm (model call 1), Read (2), an answer
/// (3). Returns the world and the session's full id.
async fn ruled_session() -> (World, String) {
    let script = Script::new()
        .reply(
            ScriptedReply::from(Reply::tool_calls(vec![
                ToolCall::with_id("call_echo", "Bash", json!({"command": "echo traced"})),
                ToolCall::with_id("call_rm", "Bash", json!({"command": "rm -rf x"})),
            ]))
            .with_usage(usage(1000, 50, 200, 100)),
        )
        .reply(
            ScriptedReply::from(Reply::tool_calls(vec![ToolCall::with_id(
                "call_read",
                "Read",
                json!({"file_path": "notes.txt"}),
            )]))
            .with_usage(usage(400, 30, 1200, 0)),
        )
        .reply(ScriptedReply::from(Reply::text("Done.")).with_usage(usage(300, 20, 1700, 0)));
    let w = World::new(script).await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(p.join(".roocode/config.yaml"), CONFIG).unwrap();
    std::fs::write(p.join("notes.txt"), "a note\n").unwrap();
    std::fs::create_dir_all(p.join("x")).unwrap();
    let out = w.run(&["send", "echo, clean up and read the notes"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(p.join("x").exists(), "the rm was denied");
    let sid = out.session_id();
    (w, sid)
}

fn tools_of(it: &Value) -> Vec<&Value> {
    it["tools"].as_array().unwrap().iter().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trace_json_why_and_text_name_the_rule_its_file_and_line() {
    let (w, sid) = ruled_session().await;
    let config = w.project_path().join(".roocode/config.yaml");
    let config = config.to_str().unwrap();

    let out = w.run(&["trace", &sid, "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let trace = out.json();
    assert_eq!(trace["version"], 1);
    assert_eq!(trace["session_id"], sid.as_str());
    let main = &trace["agent"];
    assert_eq!(
        (&main["kind"], &main["agent_id"]),
        (&json!("main"), &json!(sid))
    );
    let turns = main["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1, "{trace:#}");
    let turn = &turns[0];
    assert_eq!(turn["number"], 1);
    assert_eq!(turn["stop_reason"], "end_turn");
    assert!(
        turn["prompt"]
            .as_str()
            .unwrap()
            .starts_with("echo, clean up")
    );
    let its = turn["iterations"].as_array().unwrap();
    assert_eq!(its.len(), 3, "{trace:#}");
    let reported = [(1000, 50, 200, 100), (400, 30, 1200, 0), (300, 20, 1700, 0)];
    for (i, (it, (input, output, read, write))) in its.iter().zip(reported).enumerate() {
        assert_eq!(it["iteration"], i + 1, "{it:#}");
        assert_eq!(it["input_tokens"], input, "{it:#}");
        assert_eq!(it["output_tokens"], output, "{it:#}");
        assert_eq!(it["cache_read_tokens"], read, "{it:#}");
        assert_eq!(it["cache_write_tokens"], write, "{it:#}");
        let ratio = read as f64 / (input + read + write) as f64;
        assert!((it["cache_hit_ratio"].as_f64().unwrap() - ratio).abs() < 1e-9);
        assert!(it["model"].as_str().unwrap().contains("claude-sonnet-4-5"));
        assert!(
            it["latency_ms"].is_u64() && it["ttft_ms"].is_u64(),
            "{it:#}"
        );
        assert!(it["parts"]["system"]["chars"].as_u64().unwrap() > 0);
    }
    let first = tools_of(&its[0]);
    assert_eq!(first.len(), 2, "{:#}", its[0]);
    let (echo, rm) = (first[0], first[1]);
    assert_eq!(echo["call_id"], "call_echo");
    assert_eq!(
        (&echo["decision"], &echo["layer"]),
        (&json!("allow"), &json!("rule"))
    );
    assert_eq!(echo["decided_by"]["rule"], "Bash(echo:*)");
    assert_eq!(echo["decided_by"]["kind"], "allow");
    assert_eq!(echo["decided_by"]["origin"]["file"], config);
    assert_eq!(echo["decided_by"]["origin"]["line"], 3);
    assert_eq!(echo["outcome"], "ok");
    assert_eq!(rm["call_id"], "call_rm");
    assert_eq!(
        (&rm["decision"], &rm["layer"]),
        (&json!("deny"), &json!("rule"))
    );
    assert_eq!(rm["decided_by"]["rule"], "Bash(rm:*)");
    assert_eq!(rm["decided_by"]["kind"], "deny");
    assert_eq!(rm["decided_by"]["origin"]["file"], config);
    assert_eq!(rm["decided_by"]["origin"]["line"], 5);
    assert_eq!(rm["outcome"], "denied");
    assert!(rm["why"].as_str().unwrap().contains("Bash(rm:*)"), "{rm:#}");
    let second = tools_of(&its[1]);
    assert_eq!(second.len(), 1, "{:#}", its[1]);
    let read = second[0];
    assert_eq!(read["call_id"], "call_read");
    assert_eq!(
        (&read["decision"], &read["layer"]),
        (&json!("allow"), &json!("mode"))
    );
    assert_eq!(read["outcome"], "ok");
    assert!(tools_of(&its[2]).is_empty());

    // --why names the rule, the file and the line.
    let out = w.run(&["trace", &sid, "--why", "call_rm"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let why = out.stdout.trim();
    assert!(why.starts_with("Bash `rm -rf x` (call call_rm)"), "{why}");
    assert!(
        why.contains(&format!("the deny rule `Bash(rm:*)` in {config} at line 5")),
        "{why}"
    );
    assert!(why.contains("in turn 1, model call 1"), "{why}");
    assert!(why.contains("It did not run"), "{why}");
    // An unknown id, and a prefix of two ids, fail with what to do.
    let out = w.run(&["trace", &sid, "--why", "nope"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("no tool call `nope`"), "{}", out.stderr);
    assert!(
        out.stderr.contains("lists each call with its id"),
        "{}",
        out.stderr
    );
    let out = w.run(&["trace", &sid, "--why", "call_r"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("call_rm, call_read"), "{}", out.stderr);

    // The text timeline.
    let out = w.run(&["trace", &sid]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let text = &out.stdout;
    for needle in [
        "Turn 1 · \"echo, clean up and read the notes\" · end_turn",
        "  #1 ",
        " · in 1,300 out 50 · cache 15% · ttft ",
        "    Bash ",
        "allow (rule Bash(echo:*) .roocode/config.yaml:3) · echo traced  [call_echo]",
        "deny (rule Bash(rm:*) .roocode/config.yaml:5) · rm -rf x → denied  [call_rm]",
        "  #2 ",
        " · in 1,600 out 30 · cache 75% · ttft ",
        " · in 2,000 out 20 · cache 85% · ttft ",
        "allow (mode default) · notes.txt  [call_read]",
        "Total: 1 turn · 3 model calls · in 4,900 out 100 (cache 63%) · 3 tool calls (1 denied)",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }

    // Narrowing to a turn that is not there says which there are.
    let out = w.run(&["trace", &sid, "--turn", "2"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("no turn 2: its turns are 1 to 1"),
        "{}",
        out.stderr
    );
}

/// Whether `s` is `len` lowercase hex digits.
fn hex(s: &Value, len: usize) -> bool {
    s.as_str().is_some_and(|s| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The attributes of an OTLP object as key → value, each checked to be
/// `{key, value: {<one of stringValue, intValue, doubleValue, boolValue>}}`.
fn attributes(of: &Value) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    for a in of["attributes"].as_array().expect("attributes is an array") {
        let key = a["key"].as_str().expect("a string key").to_owned();
        let value = a["value"].as_object().expect("an AnyValue object");
        assert_eq!(value.len(), 1, "one kind of value: {a}");
        let (kind, v) = value.iter().next().unwrap();
        match kind.as_str() {
            "stringValue" => assert!(v.is_string(), "{a}"),
            // 64-bit integers are decimal strings in OTLP/JSON.
            "intValue" => assert!(v.as_str().is_some_and(|s| s.parse::<i64>().is_ok()), "{a}"),
            "doubleValue" => assert!(v.is_number(), "{a}"),
            "boolValue" => assert!(v.is_boolean(), "{a}"),
            other => panic!("unexpected value kind {other}: {a}"),
        }
        out.insert(key, v.clone());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trace_otlp_writes_an_export_trace_service_request() {
    let (w, sid) = ruled_session().await;
    let file = w.project_path().join("out/trace.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let out = w
        .run(&["trace", &sid, "--otlp", file.to_str().unwrap()])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains(file.to_str().unwrap()),
        "says where: {out:?}"
    );
    let request: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();

    let resources = request["resourceSpans"].as_array().unwrap();
    assert_eq!(resources.len(), 1);
    let resource = &resources[0];
    let attrs = attributes(&resource["resource"]);
    assert_eq!(attrs["service.name"], "roocode");
    assert_eq!(attrs["roocode.session_id"], sid.as_str());
    let scopes = resource["scopeSpans"].as_array().unwrap();
    assert_eq!(scopes.len(), 1);
    assert_eq!(scopes[0]["scope"]["name"], "roocode");
    assert!(scopes[0]["scope"]["version"].is_string());
    let spans = scopes[0]["spans"].as_array().unwrap();

    let trace_id = spans[0]["traceId"].clone();
    assert!(hex(&trace_id, 32), "{trace_id}");
    assert_eq!(trace_id, sid.replace('-', ""), "the session's uuid");
    let ids: HashSet<&str> = spans
        .iter()
        .map(|s| s["spanId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), spans.len(), "span ids are unique");
    let names = [
        "turn",
        "model_call",
        "model_attempt",
        "tool_call",
        "permission",
    ];
    let by_id: HashMap<&str, &Value> = spans
        .iter()
        .map(|s| (s["spanId"].as_str().unwrap(), s))
        .collect();
    for span in spans {
        assert_eq!(span["traceId"], trace_id, "{span}");
        assert!(hex(&span["spanId"], 16), "{span}");
        let name = span["name"].as_str().unwrap();
        assert!(names.contains(&name), "{span}");
        assert_eq!(span["kind"], 1, "SPAN_KIND_INTERNAL: {span}");
        let time = |key: &str| -> u128 {
            let s = span[key]
                .as_str()
                .unwrap_or_else(|| panic!("{key} is a string: {span}"));
            s.parse()
                .unwrap_or_else(|_| panic!("{key} is decimal: {span}"))
        };
        let (start, end) = (time("startTimeUnixNano"), time("endTimeUnixNano"));
        // A tool call lasts what the recorder measured of it.
        if name == "tool_call" {
            let ms = span["attributes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["key"] == "roocode.duration_ms")
                .and_then(|a| a["value"]["intValue"].as_str())
                .and_then(|v| v.parse::<u128>().ok())
                .unwrap_or_else(|| panic!("a duration: {span}"));
            assert_eq!(end - start, ms * 1_000_000, "{span}");
        }
        assert!(start > 1_600_000_000_000_000_000, "nanoseconds: {span}");
        attributes(span);
        let code = span["status"]["code"].as_u64().unwrap();
        assert!(code == 1 || code == 2, "{span}");
        match span.get("parentSpanId") {
            None => assert_eq!(name, "turn", "only a main turn is a root: {span}"),
            Some(parent) => {
                assert!(hex(parent, 16), "{span}");
                let parent = by_id[parent.as_str().unwrap()];
                let expected = match name {
                    "model_call" | "tool_call" | "turn" => "turn",
                    "model_attempt" => "model_call",
                    _ => "tool_call",
                };
                assert_eq!(parent["name"], expected, "{span}");
            }
        }
    }
    let count = |name: &str| spans.iter().filter(|s| s["name"] == name).count();
    assert_eq!(
        [
            count("turn"),
            count("model_call"),
            count("tool_call"),
            count("permission")
        ],
        [1, 3, 3, 3]
    );
    let call = spans
        .iter()
        .find(|s| s["name"] == "tool_call" && attributes(s)["roocode.call_id"] == "call_rm")
        .unwrap();
    assert_eq!(
        call["status"]["code"], 2,
        "a denied call is an error: {call}"
    );
    let permission = spans
        .iter()
        .find(|s| s["name"] == "permission" && s["parentSpanId"] == call["spanId"])
        .unwrap();
    let attrs = attributes(permission);
    assert_eq!(attrs["roocode.decision"], "deny");
    assert_eq!(attrs["roocode.layer"], "rule");
    let first_call = spans.iter().find(|s| s["name"] == "model_call").unwrap();
    let attrs = attributes(first_call);
    assert_eq!(attrs["gen_ai.usage.input_tokens"], "1000");
    assert_eq!(attrs["roocode.iteration"], "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_sub_agent_is_nested_under_the_turn_that_started_it() {
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("BG-TASK".into()),
            [
                Reply::tool_call("Glob", json!({"pattern": "*.txt"})),
                Reply::text("There are 2 text files."),
            ],
        )
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call_agent",
            "Agent",
            json!({
                "subagent_type": "general-purpose",
                "run_in_background": true,
                "description": "count files",
                "prompt": "BG-TASK: count the text files",
            }),
        )]))
        .reply(Reply::text("Started a background count."))
        .fallback(Reply::text("The helper counted 2 files."));
    let w = World::new(script).await;
    std::fs::write(w.project_path().join("a.txt"), "a").unwrap();
    std::fs::write(w.project_path().join("b.txt"), "b").unwrap();
    let out = w.run(&["send", "--wait-agents", "count the files"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let sid = out.session_id();

    let out = w.run(&["trace", &sid, "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let trace = out.json();
    let main = &trace["agent"];
    let turns = main["turns"].as_array().unwrap();
    assert_eq!(
        turns.len(),
        2,
        "the start and the notification's turn: {trace:#}"
    );
    assert!(main["agents"].as_array().unwrap().is_empty(), "{trace:#}");
    let children = turns[0]["agents"].as_array().unwrap();
    assert_eq!(children.len(), 1, "{trace:#}");
    assert!(turns[1]["agents"].as_array().unwrap().is_empty());
    let child = &children[0];
    assert_eq!(child["kind"], "sub_agent");
    assert_eq!(child["agent_type"], "general-purpose");
    let child_id = child["agent_id"].as_str().unwrap().to_owned();
    let child_its = child["turns"][0]["iterations"].as_array().unwrap();
    assert_eq!(child_its.len(), 2, "{child:#}");
    assert_eq!(child_its[0]["tools"][0]["tool"], "Glob");
    assert_eq!(child_its[0]["tools"][0]["outcome"], "ok");

    // In the text, under turn 1 and before turn 2, one level deeper.
    let out = w.run(&["trace", &sid]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    let at = |pred: &dyn Fn(&str) -> bool| {
        lines
            .iter()
            .position(|l| pred(l))
            .unwrap_or_else(|| panic!("not found in:\n{}", out.stdout))
    };
    let turn1 = at(&|l| l.starts_with("Turn 1 · \"count the files\""));
    let agent = at(&|l| l.starts_with("  sub-agent ") && l.contains("general-purpose"));
    let glob = at(&|l| l.starts_with("        Glob "));
    let turn2 = at(&|l| l.starts_with("Turn 2 · "));
    assert!(
        turn1 < agent && agent < glob && glob < turn2,
        "{}",
        out.stdout
    );

    // --agent keeps the child only; --turn 2 leaves it out.
    let short = &child_id[child_id.len() - 12..child_id.len() - 4];
    let out = w.run(&["trace", &sid, "--agent", short, "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["agent"]["agent_id"], child_id.as_str());
    let out = w.run(&["trace", &sid, "--turn", "2", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let only = out.json();
    assert_eq!(only["agent"]["turns"].as_array().unwrap().len(), 1);
    assert_eq!(only["agent"]["turns"][0]["number"], 2);
    // (Its task notification mentions the child, but the child is not there.)
    assert!(
        only["agent"]["turns"][0]["agents"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(only["agent"]["agents"].as_array().unwrap().is_empty());
}
