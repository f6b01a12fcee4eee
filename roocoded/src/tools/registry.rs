//! The tool [`Registry`]: registration (schemas compiled once), enable/disable by name,
//! strict validation of call arguments, turning a call into a [`Prepared`] one (validated
//! and parsed once), and the provider-neutral [`ToolSpec`] export.
//!
//! A registry may be an overlay over a shared base ([`Registry::overlay`]): a session's
//! MCP tools live in its own overlay over the daemon's one built-in registry, so two
//! projects' servers of one name never collide and the built-ins exist once.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;

use crate::llm::ToolSpec;

use super::{
    AgentTool, AskUserQuestionTool, BashOutputTool, BashTool, EditTool, ExitPlanModeTool, GlobTool,
    GrepTool, KillShellTool, MemoryTool, Prepared, ReadTool, SendMessageTool, SkillToolImpl, Spec,
    TaskCreateTool, TaskGetTool, TaskListTool, TaskStopTool, TaskUpdateTool, TeamCreateTool,
    TeamDeleteTool, TodoWriteTool, Tool, ToolContext, WebFetchTool, WriteTool,
};

/// Most problems listed in one validation message.
const MAX_LISTED_PROBLEMS: usize = 20;
/// Longest single problem line (a wrong-typed huge string would otherwise be echoed).
const MAX_PROBLEM_CHARS: usize = 300;

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("a tool named {0} is already registered")]
    Duplicate(String),
    #[error("input schema of tool {name} is invalid: {message}")]
    InvalidSchema { name: String, message: String },
}

/// Why a call cannot be prepared; either way it goes back to the model as an error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// No enabled tool has that name.
    #[error("No such tool: {name}. Available tools: {known}.")]
    UnknownTool { name: String, known: String },
    /// A tool the agent's array shows but its set does not hold (a fork keeps its
    /// parent's array; its own filtering applies when it calls).
    #[error("The tool {name} is not available to this agent. Its tools are: {known}.")]
    NotForThisAgent { name: String, known: String },
    /// The input does not match the tool's schema (the message lists every problem).
    #[error("{0}")]
    InvalidInput(String),
}

impl CallError {
    /// What recovery makes of it: every variant is the model's call gone wrong (a
    /// name it has not got, arguments its schema refuses): a `malformed_tool_call`.
    pub fn category(&self) -> crate::recovery::Category {
        crate::recovery::Category::MalformedToolCall
    }
}

struct Entry {
    tool: Arc<dyn Tool>,
    /// The tool's spec, taken once at registration.
    spec: Spec,
    /// The schema validated against (see [`normalise_schema`]).
    schema: Value,
    /// The schema the model is sent: `schema`, or for a tool whose schema is taken as
    /// given, the same with its `$ref`s inlined (see [`super::schema_export`]).
    exported: Value,
    validator: jsonschema::Validator,
    enabled: bool,
}

/// The tools of a session (or of an agent: sub-agents get filtered registries).
#[derive(Default)]
pub struct Registry {
    /// The tools below this registry's own (an overlay's shared built-ins): listed and
    /// exported first, never changed through the overlay.
    base: Option<Arc<Registry>>,
    /// Registration order, which is the export order (stable for prompt caching).
    entries: Vec<Entry>,
    by_name: HashMap<Arc<str>, usize>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<(&str, bool)> = self
            .all_entries()
            .map(|e| (&*e.spec.name, e.enabled))
            .collect();
        f.debug_struct("Registry").field("tools", &tools).finish()
    }
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry holding the built-in tools: Read, Write, Edit, Glob, Grep, Bash,
    /// BashOutput, KillShell, WebFetch, TodoWrite, AskUserQuestion, ExitPlanMode, Memory.
    pub fn with_builtins() -> Self {
        let mut registry = Self::new();
        let builtins: Vec<Arc<dyn Tool>> = vec![
            Arc::new(ReadTool),
            Arc::new(WriteTool),
            Arc::new(EditTool),
            Arc::new(GlobTool),
            Arc::new(GrepTool),
            Arc::new(BashTool),
            Arc::new(BashOutputTool),
            Arc::new(KillShellTool),
            Arc::new(WebFetchTool),
            Arc::new(TodoWriteTool),
            Arc::new(AskUserQuestionTool),
            Arc::new(ExitPlanModeTool),
            Arc::new(MemoryTool),
            Arc::new(AgentTool),
            Arc::new(TaskListTool),
            Arc::new(TaskGetTool),
            Arc::new(TaskStopTool),
            Arc::new(TeamCreateTool),
            Arc::new(TeamDeleteTool),
            Arc::new(TaskCreateTool),
            Arc::new(TaskUpdateTool),
            Arc::new(SendMessageTool),
            Arc::new(SkillToolImpl),
        ];
        for tool in builtins {
            if let Err(e) = registry.register(tool) {
                // The built-in schemas are covered by tests; this is unreachable in a
                // tested build, and a missing tool is better than a dead daemon.
                tracing::error!(error = %e, "built-in tool not registered");
            }
        }
        registry
    }

    /// An empty registry over `base`: its tools come after `base`'s, which it shows
    /// but never changes.
    pub fn overlay(base: &Arc<Registry>) -> Self {
        Self {
            base: Some(Arc::clone(base)),
            ..Self::default()
        }
    }

    /// The base's entries, then this registry's own, in order.
    fn all_entries(&self) -> Box<dyn Iterator<Item = &Entry> + '_> {
        match &self.base {
            Some(base) => Box::new(base.all_entries().chain(self.entries.iter())),
            None => Box::new(self.entries.iter()),
        }
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        match self.by_name.get(name) {
            Some(&i) => Some(&self.entries[i]),
            None => self.base.as_ref().and_then(|b| b.entry(name)),
        }
    }

    /// Add a tool, enabled. Its schema is compiled now, once.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let spec = tool.spec();
        let name = &*spec.name;
        if self.entry(name).is_some() {
            return Err(RegistryError::Duplicate(name.to_string()));
        }
        let (schema, exported) = if tool.schema_as_given() {
            let schema = tool.input_schema();
            let exported = super::schema_export::for_model(&schema).map_err(|message| {
                RegistryError::InvalidSchema {
                    name: name.to_string(),
                    message,
                }
            })?;
            (schema, exported)
        } else {
            let schema = normalise_schema(name, tool.input_schema())?;
            (schema.clone(), schema)
        };
        let validator =
            jsonschema::validator_for(&schema).map_err(|e| RegistryError::InvalidSchema {
                name: name.to_string(),
                message: e.to_string(),
            })?;
        self.by_name.insert(spec.name.clone(), self.entries.len());
        self.entries.push(Entry {
            tool,
            spec,
            schema,
            exported,
            validator,
            enabled: true,
        });
        Ok(())
    }

    /// Enable or disable one of this registry's own tools; false if none has that name.
    pub fn set_enabled(&mut self, name: &str, enabled: bool) -> bool {
        match self.by_name.get(name) {
            Some(&i) => {
                self.entries[i].enabled = enabled;
                true
            }
            None => false,
        }
    }

    fn enabled_entry(&self, name: &str) -> Option<&Entry> {
        self.entry(name).filter(|e| e.enabled)
    }

    /// An enabled tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.enabled_entry(name).map(|e| Arc::clone(&e.tool))
    }

    /// Names of the enabled tools, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.all_entries()
            .filter(|e| e.enabled)
            .map(|e| &*e.spec.name)
            .collect()
    }

    /// The enabled tools as the model sees them, in registration order.
    pub fn defs(&self) -> Vec<ToolSpec> {
        self.all_entries()
            .filter(|e| e.enabled)
            .map(|e| ToolSpec {
                name: e.spec.name.clone(),
                description: e.spec.description.clone(),
                input_schema: e.exported.clone(),
            })
            .collect()
    }

    /// Check a call's arguments against the tool's schema. Unknown fields and wrong
    /// types are rejected; the error message is written for the model and lists every
    /// problem with the JSON pointer of the offending value.
    pub fn validate(&self, name: &str, input: &Value) -> Result<(), String> {
        let Some(entry) = self.enabled_entry(name) else {
            return Err(self.unknown(name).to_string());
        };
        check(entry, name, input)
    }

    /// Validate `input` against the tool's schema and parse it, once, into a call whose
    /// permission facts are computed from the typed arguments. `ctx` resolves paths.
    pub fn prepare(
        &self,
        name: &str,
        input: &Value,
        ctx: &ToolContext,
    ) -> Result<Prepared, CallError> {
        let Some(entry) = self.enabled_entry(name) else {
            return Err(self.unknown(name));
        };
        check(entry, name, input).map_err(CallError::InvalidInput)?;
        entry
            .tool
            .prepare(input, ctx)
            .map_err(|e| CallError::InvalidInput(e.to_string()))
    }

    fn unknown(&self, name: &str) -> CallError {
        CallError::UnknownTool {
            name: name.to_string(),
            known: self.names().join(", "),
        }
    }
}

/// The schema check of [`Registry::validate`], for an entry found.
fn check(entry: &Entry, name: &str, input: &Value) -> Result<(), String> {
    if entry.validator.is_valid(input) {
        return Ok(());
    }
    // Arguments that did not parse reach here as their raw text (see `llm::assemble`):
    // the parser's own message says what is wrong with them.
    if let Value::String(raw) = input
        && let Err(e) = serde_json::from_str::<Value>(raw)
    {
        let shown = super::output::truncate_chars(raw, MAX_PROBLEM_CHARS);
        return Err(format!(
            "The arguments of {name} are not valid JSON ({e}): {shown}\nSend the call again with its arguments as one JSON object."
        ));
    }
    let mut message = format!("Invalid input for tool {name}:");
    let mut count = 0;
    for error in entry.validator.iter_errors(input) {
        count += 1;
        if count > MAX_LISTED_PROBLEMS {
            continue;
        }
        let pointer = error.instance_path().as_str();
        let pointer = if pointer.is_empty() {
            "(root)"
        } else {
            pointer
        };
        let problem = super::output::truncate_chars(&error.to_string(), MAX_PROBLEM_CHARS);
        let _ = write!(message, "\n- {pointer}: {problem}");
        if let jsonschema::error::ValidationErrorKind::AdditionalProperties { .. } = error.kind()
            && let Some(valid) = valid_names(&entry.schema, error.schema_path().as_str())
        {
            if valid.is_empty() {
                message.push_str("; this tool takes no parameters");
            } else {
                let _ = write!(message, "; the valid parameters are {valid}");
            }
        }
    }
    if count > MAX_LISTED_PROBLEMS {
        let _ = write!(
            message,
            "\n- … and {} more problems",
            count - MAX_LISTED_PROBLEMS
        );
    }
    Err(message)
}

/// The property names of the (sub)schema whose `additionalProperties` an error points
/// at (`/properties/todos/items/additionalProperties` → the todo item's names).
fn valid_names(schema: &Value, schema_path: &str) -> Option<String> {
    let parent = schema_path.strip_suffix("/additionalProperties")?;
    let properties = schema.pointer(parent)?.get("properties")?.as_object()?;
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    Some(names.join(", "))
}

/// Make a schema strict at the top level: it must describe an object, and if it does not
/// say whether unknown properties are allowed, they are not (DESIGN §7: unknown fields
/// rejected; this also covers MCP tools whose schemas leave it open).
fn normalise_schema(name: &str, mut schema: Value) -> Result<Value, RegistryError> {
    let invalid = |message: &str| RegistryError::InvalidSchema {
        name: name.to_string(),
        message: message.to_string(),
    };
    let object = schema
        .as_object_mut()
        .ok_or_else(|| invalid("the schema must be a JSON object"))?;
    if object.get("type") != Some(&Value::String("object".into())) {
        return Err(invalid("the schema must have \"type\": \"object\""));
    }
    object
        .entry("additionalProperties")
        .or_insert(Value::Bool(false));
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_support::{BUILTIN_NAMES, FakeTool};
    use serde_json::json;

    #[test]
    fn shared_types_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Registry>();
        check::<crate::tools::ToolContext>();
        check::<crate::permission::PermissionGate>();
    }

    #[test]
    fn builtins_register_in_stable_order() {
        let registry = Registry::with_builtins();
        let names: Vec<String> = registry
            .defs()
            .into_iter()
            .map(|d| d.name.to_string())
            .collect();
        assert_eq!(names, BUILTIN_NAMES);
        for def in registry.defs() {
            assert_eq!(def.input_schema["additionalProperties"], json!(false));
            assert!(
                def.description.len() > 200,
                "{} needs a real manual",
                def.name
            );
        }
    }

    #[test]
    fn arguments_that_are_not_json_get_the_parsers_message() {
        let registry = Registry::with_builtins();
        // What the stream assembler makes of arguments that did not parse.
        let raw = json!("{\"file_path\": \"a.rs\", oops}");
        let err = registry.validate("Read", &raw).unwrap_err();
        assert!(
            err.starts_with("The arguments of Read are not valid JSON (key must be a string at line 1 column 23)"),
            "{err}"
        );
        assert!(err.contains("oops"), "{err}");
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_rejected_with_pointers() {
        let registry = Registry::with_builtins();
        assert_eq!(
            registry.validate("Read", &json!({"file_path": "a.rs", "limit": 10})),
            Ok(())
        );
        let err = registry
            .validate("Read", &json!({"file_path": "a.rs", "limt": 10}))
            .unwrap_err();
        assert_eq!(
            err,
            "Invalid input for tool Read:\n\
             - (root): Additional properties are not allowed ('limt' was unexpected); the valid parameters are file_path, limit, offset"
        );
        let err = registry
            .validate("Read", &json!({"file_path": 7, "offset": "3"}))
            .unwrap_err();
        assert_eq!(
            err,
            "Invalid input for tool Read:\n\
             - /file_path: 7 is not of type \"string\"\n\
             - /offset: \"3\" is not of type \"integer\""
        );
        let err = registry.validate("Read", &json!({})).unwrap_err();
        assert_eq!(
            err,
            "Invalid input for tool Read:\n- (root): \"file_path\" is a required property"
        );
        let err = registry
            .validate(
                "Grep",
                &json!({"pattern": "x", "output_mode": "lines", "-C": -1}),
            )
            .unwrap_err();
        assert!(err.contains("- /output_mode: "), "{err}");
        assert!(
            err.contains("- /-C: -1 is less than the minimum of 0"),
            "{err}"
        );
    }

    #[test]
    fn disabled_and_unknown_tools() {
        let mut registry = Registry::with_builtins();
        assert!(registry.set_enabled("Glob", false));
        assert!(!registry.set_enabled("Nope", false));
        assert!(registry.get("Glob").is_none());
        assert!(registry.get("Read").is_some());
        let names: Vec<String> = registry
            .defs()
            .into_iter()
            .map(|d| d.name.to_string())
            .collect();
        let without_glob: Vec<&str> = BUILTIN_NAMES.into_iter().filter(|n| *n != "Glob").collect();
        assert_eq!(names, without_glob);
        assert_eq!(
            registry.validate("Glob", &json!({"pattern": "*"})),
            Err(format!(
                "No such tool: Glob. Available tools: {}.",
                without_glob.join(", ")
            ))
        );
        assert!(registry.set_enabled("Glob", true));
        assert!(registry.get("Glob").is_some());
    }

    #[test]
    fn registration_checks_names_and_schemas() {
        let mut registry = Registry::with_builtins();
        let dup = registry.register(Arc::new(ReadTool)).unwrap_err();
        assert_eq!(dup.to_string(), "a tool named Read is already registered");

        let open = FakeTool::new(
            "Open",
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        );
        registry.register(Arc::new(open)).unwrap();
        assert!(
            registry
                .validate("Open", &json!({"a": "x", "b": 1}))
                .is_err()
        );
        let def = registry.defs().pop().unwrap();
        assert_eq!(def.input_schema["additionalProperties"], json!(false));

        let not_object = FakeTool::new("Bad", json!({"type": "string"}));
        assert!(matches!(
            registry.register(Arc::new(not_object)),
            Err(RegistryError::InvalidSchema { .. })
        ));
        let broken = FakeTool::new(
            "Broken",
            json!({"type": "object", "properties": {"a": {"type": 5}}}),
        );
        assert!(matches!(
            registry.register(Arc::new(broken)),
            Err(RegistryError::InvalidSchema { .. })
        ));
        assert!(registry.get("Bad").is_none());
    }
}
