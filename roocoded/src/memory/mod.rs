//! What RooCode remembers across sessions (DESIGN §6): the [`instructions`] the user
//! writes (`ROOCODE.md` files with `@include`), and the [`auto`] memory the agent keeps
//! itself through the `Memory` tool (Markdown files with frontmatter plus a `MEMORY.md`
//! index per directory, injected at session start).

pub mod auto;
pub mod instructions;

pub use auto::{MemoryDirs, MemoryEntry, MemoryError, MemoryType, index_for_prompt};
pub use instructions::{InstructionsError, load_instructions, system_reminder};
