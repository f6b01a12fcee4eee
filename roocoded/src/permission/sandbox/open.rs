//! Opening what the path sandbox let through without trusting the path a second time.
//!
//! The sandbox judges a path at one instant. Opening it again by name afterwards would
//! let a directory swapped for a symlink in between lead the open anywhere. So a
//! [`Checked`] path keeps the real directory it was judged inside (the project root, an
//! additional directory or a readable directory) and the rest below it; every open
//! starts from a descriptor of that directory and the kernel refuses any step out of it:
//!
//! - `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` where the kernel has it (Linux
//!   5.6+, not blocked by a seccomp filter): symlinks that stay below the directory
//!   still work, anything else (an absolute link, `..` above it, `/proc/self/cwd`) fails;
//! - elsewhere a walk one component at a time with `O_NOFOLLOW`: no symlink at all is
//!   followed (the checked rest has none, since it came from a real path, so one there
//!   now is a swap).
//!
//! Regular files are opened with `O_NONBLOCK | O_NOCTTY` (then made blocking again), so
//! a FIFO or terminal swapped in cannot hang or take over the daemon; callers still
//! check the opened file's type. New files are created with `O_CREAT | O_EXCL` in a
//! parent directory reached the same way, missing directories made one by one.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use nix::errno::Errno;
use nix::fcntl::AtFlags;
use nix::fcntl::{FcntlArg, OFlag, OpenHow, ResolveFlag, fcntl, openat, openat2};
use nix::sys::stat::{Mode, SFlag, fstatat, mkdirat};

/// A path the sandbox let through: `base` (a real directory it was judged inside)
/// and `rel`, the real path's components below it (only plain names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    base: PathBuf,
    rel: PathBuf,
    real: PathBuf,
}

/// How paths below a directory are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// One `openat2` call with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`.
    Openat2,
    /// One `openat(O_NOFOLLOW)` per component.
    Walk,
}

impl Strategy {
    /// The best this kernel offers (probed once per process).
    pub fn best() -> Self {
        static BEST: OnceLock<Strategy> = OnceLock::new();
        *BEST.get_or_init(|| {
            let probe = File::open("/").map_err(|_| Errno::ENOENT).and_then(|root| {
                openat2(
                    root.as_fd(),
                    ".",
                    OpenHow::new()
                        .flags(OFlag::O_PATH | OFlag::O_CLOEXEC)
                        .resolve(ResolveFlag::RESOLVE_BENEATH),
                )
            });
            match probe {
                Ok(_) => Strategy::Openat2,
                Err(e) => {
                    tracing::info!(
                        error = %e,
                        "openat2 is unavailable; file tools walk paths with O_NOFOLLOW"
                    );
                    Strategy::Walk
                }
            }
        })
    }
}

/// What an existing regular file is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Read,
    /// Read and write (the writing tools read the old content through the same file).
    ReadWrite,
}

impl Checked {
    /// `real` as a path inside `dir` (both real paths), if it is inside.
    pub(crate) fn within(real: &Path, dir: &Path) -> Option<Self> {
        let rel = real.strip_prefix(dir).ok()?;
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        Some(Self {
            base: dir.to_path_buf(),
            rel: rel.to_path_buf(),
            real: real.to_path_buf(),
        })
    }

    /// The real path as the sandbox judged it.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// The directory it was judged inside.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The path below [`Checked::base`] (empty for the directory itself).
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// `below` (a path relative to this one, as a walk below it finds it) relative to
    /// [`Checked::base`], for [`Beneath`]'s opens.
    pub fn rel_of(&self, below: &Path) -> PathBuf {
        if below.as_os_str().is_empty() {
            self.rel.clone()
        } else {
            self.rel.join(below)
        }
    }

    /// Open the base directory, to open this path and paths below it. The directory
    /// itself is a real path, so it is reached from `/` without following any link:
    /// renaming it (or a directory above it) and putting a link in its place after the
    /// check does not move the open.
    pub fn open_base(&self) -> io::Result<Beneath> {
        Beneath::open_real(&self.base, Strategy::best())
    }

    /// Open the existing regular file (or refuse its replacement by a link leading out).
    pub fn open_file(&self, purpose: Purpose) -> io::Result<File> {
        self.open_base()?.open_file(&self.rel, purpose)
    }

    /// Open the existing file for reading and writing; `None` if it does not exist.
    pub fn open_existing(&self) -> io::Result<Option<File>> {
        match self.open_file(Purpose::ReadWrite) {
            Ok(file) => Ok(Some(file)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Create the file (it must not exist), and its missing parent directories.
    pub fn create_file(&self) -> io::Result<File> {
        self.open_base()?.create_file(&self.rel)
    }
}

/// A directory opened once; paths below it are resolved by the kernel from there.
#[derive(Debug)]
pub struct Beneath {
    dir: OwnedFd,
    path: PathBuf,
    strategy: Strategy,
}

impl Beneath {
    /// Open `dir` (a real path) with the given strategy.
    pub fn open(dir: &Path, strategy: Strategy) -> io::Result<Self> {
        let fd = nix::fcntl::open(
            dir,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(io::Error::from)?;
        Ok(Self {
            dir: fd,
            path: dir.to_path_buf(),
            strategy,
        })
    }

    /// Open the real directory `dir` (absolute, without links) by a no-follow walk from
    /// `/`, then resolve below it with `strategy`.
    pub fn open_real(dir: &Path, strategy: Strategy) -> io::Result<Self> {
        let root = Self::open(Path::new("/"), Strategy::Walk)?;
        let rel = dir.strip_prefix("/").map_err(|_| not_plain(dir))?;
        let fd = root.resolve(rel, OFlag::O_PATH | OFlag::O_DIRECTORY, Mode::empty())?;
        Ok(Self {
            dir: fd,
            path: dir.to_path_buf(),
            strategy,
        })
    }

    /// The directory's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Open the existing regular file `rel` below the directory. Its type is checked
    /// by the caller (a directory opened for reading succeeds; for writing, `EISDIR`).
    pub fn open_file(&self, rel: &Path, purpose: Purpose) -> io::Result<File> {
        let access = match purpose {
            Purpose::Read => OFlag::O_RDONLY,
            Purpose::ReadWrite => OFlag::O_RDWR,
        };
        let flags = access | OFlag::O_NONBLOCK | OFlag::O_NOCTTY;
        let fd = self.resolve(rel, flags, Mode::empty())?;
        blocking(fd)
    }

    /// True if `rel` exists below the directory without leaving it (links included).
    pub fn contains(&self, rel: &Path) -> bool {
        self.resolve(rel, OFlag::O_PATH, Mode::empty()).is_ok()
    }

    /// Create the new file `rel` (`O_EXCL`: it must not exist, not even as a link),
    /// making its missing parent directories, each reached without following a link.
    pub fn create_file(&self, rel: &Path) -> io::Result<File> {
        let (parent, name) = split(rel)?;
        let mut dir = self.resolve(Path::new(""), OFlag::O_PATH, Mode::empty())?;
        for part in parent.components() {
            let Component::Normal(part) = part else {
                return Err(not_plain(rel));
            };
            dir = step_or_make(dir.as_fd(), part, &self.path)?;
        }
        let fd = openat(
            dir.as_fd(),
            name,
            OFlag::O_WRONLY
                | OFlag::O_CREAT
                | OFlag::O_EXCL
                | OFlag::O_NOFOLLOW
                | OFlag::O_NOCTTY
                | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o666),
        )
        .map_err(|e| explain(e, rel, &self.path))?;
        Ok(File::from(fd))
    }

    /// Remove the file `rel` (not a directory) from its parent, reached without
    /// following a link; a link at the name itself is removed, never its target.
    pub fn remove_file(&self, rel: &Path) -> io::Result<()> {
        let (parent, name) = split(rel)?;
        let dir = self.resolve(parent, OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty())?;
        nix::unistd::unlinkat(dir.as_fd(), name, nix::unistd::UnlinkatFlags::NoRemoveDir)
            .map_err(|e| explain(e, rel, &self.path))
    }

    /// Resolve `rel` (plain components only; empty for the directory itself) with
    /// `flags` under the strategy's rules.
    fn resolve(&self, rel: &Path, flags: OFlag, mode: Mode) -> io::Result<OwnedFd> {
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(not_plain(rel));
        }
        let flags = flags | OFlag::O_CLOEXEC;
        let target: &Path = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let result = match self.strategy {
            Strategy::Openat2 => {
                let how = OpenHow::new()
                    .flags(flags)
                    .mode(mode)
                    .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS);
                // EAGAIN: a rename or mount anywhere on the system raced the kernel's
                // check of a `..` step; it asks the caller to try again (openat2(2)).
                let mut tries = 0;
                loop {
                    match openat2(self.dir.as_fd(), target, how) {
                        Err(Errno::EAGAIN) if tries < OPENAT2_RETRIES => tries += 1,
                        other => break other,
                    }
                }
            }
            Strategy::Walk => walk(self.dir.as_fd(), rel, flags, mode),
        };
        result.map_err(|e| explain(e, rel, &self.path))
    }
}

/// How often an `openat2` that the kernel answered EAGAIN is tried again.
const OPENAT2_RETRIES: u32 = 16;

/// One `openat(O_NOFOLLOW)` per component: directories on the way, then the last one
/// with `flags`.
fn walk(dir: BorrowedFd<'_>, rel: &Path, flags: OFlag, mode: Mode) -> Result<OwnedFd, Errno> {
    let parts: Vec<&OsStr> = rel.iter().collect();
    let Some((last, parents)) = parts.split_last() else {
        return openat(dir, ".", flags, mode);
    };
    let mut current: Option<OwnedFd> = None;
    for part in parents {
        let from = current.as_ref().map_or(dir, |fd| fd.as_fd());
        current = Some(step(from, part)?);
    }
    let from = current.as_ref().map_or(dir, |fd| fd.as_fd());
    let fd = match openat(from, *last, flags | OFlag::O_NOFOLLOW, mode) {
        // O_DIRECTORY answers ENOTDIR for a symlink; say what it really is.
        Err(Errno::ENOTDIR) if is_symlink(from, last) => return Err(Errno::ELOOP),
        other => other?,
    };
    // With O_PATH, O_NOFOLLOW opens a symlink itself instead of failing.
    let st = nix::sys::stat::fstat(fd.as_fd())?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK {
        return Err(Errno::ELOOP);
    }
    Ok(fd)
}

/// The directory `name` in `dir`, refusing a symlink (`ELOOP`).
fn step(dir: BorrowedFd<'_>, name: &OsStr) -> Result<OwnedFd, Errno> {
    let opened = openat(
        dir,
        name,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::empty(),
    );
    match opened {
        // O_DIRECTORY answers ENOTDIR for a symlink; say what it really is.
        Err(Errno::ENOTDIR) if is_symlink(dir, name) => Err(Errno::ELOOP),
        other => other,
    }
}

fn is_symlink(dir: BorrowedFd<'_>, name: &OsStr) -> bool {
    fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .is_ok_and(|st| SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK)
}

/// [`step`], creating the directory first when it is missing.
fn step_or_make(dir: BorrowedFd<'_>, name: &OsStr, base: &Path) -> io::Result<OwnedFd> {
    let shown = Path::new(name);
    match step(dir, name) {
        Err(Errno::ENOENT) => match mkdirat(dir, name, Mode::from_bits_truncate(0o777)) {
            Ok(()) | Err(Errno::EEXIST) => step(dir, name).map_err(|e| explain(e, shown, base)),
            Err(e) => Err(explain(e, shown, base)),
        },
        other => other.map_err(|e| explain(e, shown, base)),
    }
}

/// Make a file descriptor opened with `O_NONBLOCK` blocking again.
fn blocking(fd: OwnedFd) -> io::Result<File> {
    let flags = fcntl(fd.as_fd(), FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) & !OFlag::O_NONBLOCK;
    fcntl(fd.as_fd(), FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    Ok(File::from(fd))
}

fn split(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names a directory the sandbox allows, not a file in it",
        )),
    }
}

fn not_plain(rel: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is not a plain path below the allowed directory",
            rel.display()
        ),
    )
}

/// The error for a failed open: a step out of the directory or through a link becomes
/// a refusal saying so; the rest stay as the system said them.
fn explain(e: Errno, rel: &Path, base: &Path) -> io::Error {
    match e {
        Errno::EXDEV | Errno::ELOOP => io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "refused by the path sandbox: {} in {} now goes through a symbolic link \
                 (it was replaced by one, or by a link leading outside, after the sandbox \
                 checked it); check the path and try again",
                rel.display(),
                base.display()
            ),
        ),
        other => io::Error::from(other),
    }
}

#[cfg(test)]
mod tests;
