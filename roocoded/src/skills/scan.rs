//! Finding skills in their folders, reading them safely, and keeping the one of each
//! name from the highest source.

use std::path::{Path, PathBuf};

use crate::project::UserDirs;

use super::error::{Invalid, Located};
use super::{Problem, Shadowed, Skill, SkillSet, SkillSource, builtin, fields, tool};
use crate::frontmatter::folders::{Collected, distinct_dirs, list_dir};
use crate::frontmatter::{self, FileError};

/// Larger files are refused: a skill is a prompt, not a data file.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The file of a folder skill.
const SKILL_FILE: &str = "SKILL.md";

/// Loads the skills of the four folders for `home` and `project_root`, then the
/// built-ins; of each name the highest source wins ([`SkillSource::precedence`]). A
/// missing folder is no problem; a folder that is both (the project is the home) is
/// read once, as the project's.
pub fn load(user: &UserDirs, project_root: &Path) -> SkillSet {
    let mut merge = Merge::default();
    let dirs = SkillSource::FOLDERS
        .into_iter()
        .filter_map(|source| Some((source, source.dir(user, project_root)?)));
    for (source, dir) in distinct_dirs(dirs) {
        scan_dir(&dir, source, &mut merge);
    }
    for (file, text) in builtin::FILES {
        let name = file.trim_end_matches(".md");
        let path = PathBuf::from(format!("<built-in>/{file}"));
        match parse_located(text, name, SkillSource::BuiltIn, None) {
            Ok(skill) => merge.add(skill),
            Err(e) => merge.found.problem(&path, e),
        }
    }
    merge.finish()
}

/// Parses one skill's text. `default_name` is its name when the frontmatter gives none
/// (the file or folder name); `path` is recorded in it.
pub fn parse(
    text: &str,
    default_name: &str,
    source: SkillSource,
    path: Option<&Path>,
) -> Result<Skill, Problem> {
    parse_located(text, default_name, source, path).map_err(|e| {
        let file = path.map_or_else(|| PathBuf::from(default_name), Path::to_path_buf);
        e.problem(&file)
    })
}

fn parse_located(
    text: &str,
    default_name: &str,
    source: SkillSource,
    path: Option<&Path>,
) -> Result<Skill, Located> {
    let (split, map, lenient) = frontmatter::parse_optional(text)?;
    let mut skill = fields::skill(map, &split, default_name, source, path)?;
    if lenient {
        skill
            .warnings
            .push(frontmatter::LENIENT_WARNING.to_string());
    }
    Ok(skill)
}

/// Reads the skills of one folder into `merge`.
fn scan_dir(dir: &Path, source: SkillSource, merge: &mut Merge) {
    let paths = match list_dir(dir) {
        Ok(Some(paths)) => paths,
        Ok(None) => return,
        Err(e) => return merge.found.problem(dir, Located::nowhere(Invalid::read(e))),
    };
    for path in paths {
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_string)
        else {
            let error = Invalid::field("file name", "is not UTF-8: rename it");
            merge.found.problem(&path, Located::nowhere(error));
            continue;
        };
        if path.is_dir() {
            folder_skill(&path, &name, source, merge);
        } else if let Some(stem) = name.strip_suffix(".md")
            && !stem.eq_ignore_ascii_case("readme")
            && let Some(skill) = file_skill(&path, stem, source, merge)
        {
            merge.add(skill);
        }
    }
}

/// A folder `<name>/` with `SKILL.md`, its `tool.json` and `references/`. A folder
/// without `SKILL.md` is not a skill (it may hold shared files) unless its file is
/// misspelled in case, which is reported.
fn folder_skill(dir: &Path, name: &str, source: SkillSource, merge: &mut Merge) {
    let file = dir.join(SKILL_FILE);
    if !file.is_file() {
        if let Some(misspelled) = misspelled_skill_file(dir) {
            let error = Invalid::SkillFileCase(misspelled);
            merge
                .found
                .problem(&dir.join(SKILL_FILE), Located::nowhere(error));
        }
        return;
    }
    let Some(mut skill) = file_skill(&file, name, source, merge) else {
        return;
    };
    skill.dir = Some(dir.to_path_buf());
    let references = dir.join("references");
    skill.references = references.is_dir().then_some(references);
    let tools = dir.join(tool::FILE);
    if tools.exists() {
        match tool::load(&tools) {
            Ok(tools) => skill.tools = tools,
            Err(problem) => {
                skill
                    .warnings
                    .push(format!("its tools are not loaded: {problem}"));
                merge.found.problems.push(problem);
            }
        }
    }
    merge.add(skill);
}

/// The name of a `skill.md` in another case, if `dir` has one.
fn misspelled_skill_file(dir: &Path) -> Option<String> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .find(|n| n.eq_ignore_ascii_case(SKILL_FILE))
}

/// The skill of one Markdown file, or `None` (its problem recorded).
fn file_skill(path: &Path, name: &str, source: SkillSource, merge: &mut Merge) -> Option<Skill> {
    let text = merge.found.read(path, MAX_FILE_BYTES)?;
    match parse_located(&text, name, source, Some(path)) {
        Ok(skill) => Some(skill),
        Err(e) => {
            merge.found.problem(path, e);
            None
        }
    }
}

/// Skills by name; sources come highest first, so a later one of a known name loses.
#[derive(Default)]
struct Merge {
    found: Collected<Skill, Invalid>,
    shadowed: Vec<Shadowed>,
}

impl Merge {
    fn add(&mut self, skill: Skill) {
        let Some((winner, skill)) = self.found.add(skill.name.clone(), skill) else {
            return;
        };
        if winner.source == skill.source {
            let error = Invalid::Duplicate {
                name: skill.name.clone(),
                other: winner.origin(),
            };
            let file = skill.path.unwrap_or_default();
            return self.found.problem(&file, Located::nowhere(error));
        }
        self.shadowed.push(Shadowed {
            name: skill.name,
            source: skill.source,
            path: skill.path,
            by: winner.source,
            by_path: winner.path.clone(),
        });
    }

    fn finish(self) -> SkillSet {
        let (skills, problems) = self.found.finish();
        SkillSet {
            skills,
            shadowed: self.shadowed,
            problems,
        }
    }
}
