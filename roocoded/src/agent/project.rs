//! The project of a working directory under the names the agent calls; git is read by
//! [`crate::project`].

pub use crate::project::{branch as git_branch, root as project_root};
