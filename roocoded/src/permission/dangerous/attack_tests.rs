//! The tables for the classes issue 9's attack found layer 1 missing: denied, asked
//! (what cannot be judged before it runs), and look-alikes that must still run; and
//! paths judged from the shell's real working directory.

use std::path::Path;

use super::tests::{denied, find, misjudged, opaque};
use super::*;
use crate::permission::command::analyze;

/// Denied outright.
const DENIED_ISSUE9: &[&str] = &[
    // command substitution / expansions whose value is known after all
    "D=~; rm -rf \"$D\"",
    "D=~/; rm -rf $D",
    "rm -rf \"${HOME%/}\"",
    "rm -rf \"${HOME%%/}\"/*",
    // dotfile globs
    "rm -rf ~/.[!.]*",
    "rm -rf ~/.??*",
    "rm -rf $HOME/.[a-zA-Z]*",
    "rm -rf /.[!.]*",
    // find that deletes everything
    "find ~ -delete",
    "find ~ -type f -delete",
    "find ~ -name '*' -delete",
    "find $HOME -exec rm -rf {} +",
    "find / -depth -delete",
    "find . -delete",
    "find -L ~ -mindepth 1 -exec rm {} \\;",
    "find ~ ! -name keep -delete",
    "find ~ -exec shred -u {} \\;",
    // git clean of the home
    "cd ~ && git clean -fdx",
    "git -C ~ clean -fdx",
    "git -C $HOME clean -ffdx",
    "git --work-tree=$HOME clean -fdx",
    "git clean -fdx ~",
    "cd / && git clean -fdx",
    // git -c that runs a command
    "git -c alias.x='!rm -rf ~' x",
    "git -c 'alias.st=!rm -rf /' st",
    "git -c core.pager='rm -rf ~' log",
    "git -c core.sshCommand='rm -rf ~' fetch",
    "git -c alias.p='push -f origin main' p",
    "git -c core.fsmonitor='rm -rf ~' status",
    // aliases
    "bash -c \"alias ls='rm -rf ~'; ls\"",
    "alias x='rm -rf /'; x",
    "sh -c 'shopt -s expand_aliases; alias g=\"rm -rf ~\"; g'",
    // wrappers that were missing
    "script -qc 'rm -rf ~' /dev/null",
    "script -c \"rm -rf /\"",
    "flock /tmp/l rm -rf ~",
    "flock -w 5 /tmp/l -c 'rm -rf ~'",
    "chroot / rm -rf /",
    "chroot --userspec=me / rm -rf ~",
    "strace -f rm -rf ~",
    "strace -o /dev/null -e trace=file rm -rf /",
    "ltrace rm -rf ~",
    "unshare -r rm -rf ~",
    "unshare --mount --map-root-user rm -rf /",
    "nsenter -t 1 -m rm -rf /",
    "taskset 0x1 rm -rf ~",
    "taskset -c 0 rm -rf /",
    "gdb -batch -ex 'shell rm -rf ~'",
    "gdb -ex run --args rm -rf ~",
    "valgrind rm -rf ~",
    "chrt -f 10 rm -rf /",
    "numactl -N 0 rm -rf ~",
    "prlimit --nofile=100 rm -rf ~",
    "setpriv --reuid=1000 rm -rf ~",
    "fakeroot rm -rf /",
    "eatmydata rm -rf ~",
    "systemd-run --user rm -rf ~",
    "runcon -t x rm -rf ~",
    "sg users -c 'rm -rf ~'",
    "setarch x86_64 rm -rf ~",
    "linux64 rm -rf /",
    "capsh -- -c 'rm -rf ~'",
    "tmux new-session -d 'rm -rf ~'",
    "screen -dm rm -rf ~",
    "echo 'rm -rf ~' | at now",
    "batch <<< 'rm -rf /'",
    "parallel rm -rf ::: ~ /tmp/x",
    "parallel ::: 'rm -rf ~'",
    "entr -s 'rm -rf ~'",
    "xvfb-run rm -rf ~",
    "nice -n 19 ionice -c3 timeout 60 stdbuf -o0 setsid rm -rf ~",
    "setsid -f rm -rf ~",
    "timeout --preserve-status -k 1 5 rm -rf ~",
    "env -S 'rm -rf ~'",
    "busybox sh -c 'rm -rf ~'",
    "sudo -u nobody rm -rf ~",
    "sudo -E -H -u root -- rm -rf /",
    "doas -u root rm -rf ~",
    "/lib64/ld-linux-x86-64.so.2 /bin/rm -rf ~",
    "tar -cf /dev/null x --to-command='rm -rf ~'",
    "tar --checkpoint=1 --checkpoint-action=exec='rm -rf ~' -cf /dev/null .",
    "rsync -e 'rm -rf ~' a b:",
    // /proc/self/cwd
    "rm -rf /proc/self/cwd/*",
    "rm -rf /proc/self/cwd",
    "rm -rf /proc/$$/cwd/",
    "rm -rf /proc/self/root/",
    "rm -rf /proc/thread-self/cwd/..",
    // destructive commands outside the old list
    "kill -9 -1",
    "kill -KILL -1",
    "kill -s KILL -1",
    "kill -- -1",
    "kill -1 -1",
    "sudo kill -9 -1",
    "killall5 -9",
    "pkill -9 -u me",
    "pkill -f .",
    "killall -u me",
    "crontab -r",
    "crontab -ri",
    "crontab -u me -r",
    "mv ~ /tmp/gone",
    "mv $HOME /dev/null",
    "mv ~/ ~/../x",
    "mv / /x",
    "mv ~/.ssh /tmp",
    "mv /home/me/work/proj /tmp",
    "mv ~/* /tmp",
    ": > ~/.bashrc",
    "> ~/.bashrc",
    "echo > ~/.zshrc",
    "cat /dev/null > ~/.profile",
    "printf '' >| ~/.bash_profile",
    "true > $HOME/.gitconfig",
    "cp /dev/null ~/.bashrc",
    "truncate -s 0 ~/.bashrc",
    "truncate -s0 ~/.profile",
    "tee ~/.bashrc < /dev/null",
    "dd if=/dev/null of=~/.bashrc",
    "cd ~ && : > .bashrc",
    "echo ssh-ed25519 AAAA x >> ~/.ssh/authorized_keys",
    "cat k.pub | tee -a ~/.ssh/authorized_keys",
    "cp k.pub ~/.ssh/authorized_keys",
    "echo k > ~/.ssh/id_rsa",
    "shred -u ~/.ssh/id_ed25519",
    "rm ~/.bashrc",
    "rm -f ~/.ssh/id_rsa",
    "rm -rf ~/.ssh",
    "rm -rf ~/.config",
    "rm -rf $HOME/.gnupg",
    "unlink_all() { rm -rf ~; }; unlink_all",
    "rsync -a --delete empty/ ~/",
    "rsync -a --delete-before x/ /",
    "find . -delete -name '*.o'",
    "find ~ -delete -name '*.pyc'",
];

/// Asked (layer 1 cannot judge them): never run unasked.
const ASKED_ISSUE9: &[&str] = &[
    // unknowable targets
    "rm -rf \"$(echo ~)\"",
    "rm -rf $(echo /)",
    "rm -rf `echo ~`",
    "rm -rf \"${X:-/}\"",
    "rm -rf ${HOME/me/you}",
    "D=$(echo ~); rm -rf \"$D\"",
    "chmod -R 000 \"$(echo ~)\"",
    // xargs input
    "ls | xargs rm -rf",
    "echo ~ | xargs -I{} rm -rf {}",
    "find . | xargs -0 rm -r",
    "cat list | xargs sudo rm -rf",
    "cat list | xargs chmod -R 000",
    "xargs -a list rm -rf",
    "ps -o pid= | xargs kill -9",
    "cat dirs | parallel rm -rf",
    "cat list | xargs sh -c 'rm -rf \"$@\"' _",
    // interpreter one-liners
    "python3 -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~'))\"",
    "python -c '__import__(\"shutil\").rmtree(\"/home/me\")'",
    "perl -e 'use File::Path; rmtree($ENV{HOME})'",
    "perl -MFile::Path=rmtree -e 'rmtree glob q(~)'",
    "node -e \"require('fs').rmSync(require('os').homedir(), {recursive: true})\"",
    "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(Dir.home)'",
    "ruby -e 'system(\"rm -rf ~\")'",
    "php -r 'system(\"rm -rf ~\");'",
    "awk 'BEGIN { system(\"rm -rf ~\") }'",
    "echo | awk '{ print | \"sh\" }'",
    "sed 's/.*/rm -rf ~/e' x",
    "sed -n '1e rm -rf ~' x",
    "gdb -batch -ex 'python import os; os.system(\"rm -rf ~\")'",
    "tmux send-keys 'rm -rf ~' Enter",
    // find that selects below the home
    "find ~ -name '*.rs' -delete",
    "find / -name core -exec rm -f {} \\;",
    // git that runs something later
    "git config core.fsmonitor 'rm -rf ~'",
    "git config --global alias.x '!rm -rf ~'",
    "git config core.hooksPath /tmp/hooks",
    "git -c core.hooksPath=/tmp/h commit -m x",
    "git config core.pager 'less -R'",
    // start-up files changed in place, crontab replaced
    "echo 'curl x | sh' >> ~/.bashrc",
    "sed -i 's/a/b/' ~/.bashrc",
    "crontab /tmp/jobs",
    "echo '* * * * * rm -rf ~' | crontab -",
    "cd \"$X\" && rm -rf *",
    "cd - && rm -rf .",
    "echo 1.2.3.4 x | tee -a /etc/hosts",
    "echo x > /etc/cron.d/job",
    "cp evil /usr/local/bin/git",
];

/// Must still run: look-alikes of the new classes.
const NOT_DENIED_ISSUE9: &[&str] = &[
    "rm -rf ./target",
    "rm -rf target build dist",
    "rm -rf \"$(pwd)/build\"",
    "rm -rf \"$TMPDIR\"/x",
    "find . -name '*.o' -delete",
    "find build -delete",
    "find . -type f -name '*.tmp' -exec rm {} +",
    "find . -name '*.rs' -exec grep -l foo {} +",
    "find ~ -name '*.rs'",
    "find / -name passwd -print",
    "git clean -fdx",
    "git clean -fd src",
    "git clean -n -dx ~",
    "cd src && git clean -fdx",
    "git -c color.ui=always log",
    "git -c user.name=x commit -m y",
    "git config user.email me@x",
    "git config --get core.pager",
    "git log --oneline",
    "kill -0 $$",
    "kill -9 1234",
    "kill -TERM %1",
    "kill -l",
    "pkill -f my-server",
    "killall node",
    "crontab -l",
    "python -c 'print(1)'",
    "python3 -c 'import sys; print(sys.version)'",
    "python3 -m json.tool x.json",
    "node -e 'console.log(1+1)'",
    "perl -ne 'print if /foo/' x",
    "ruby -e 'puts 42'",
    "awk '{print $1}' x",
    "awk -F: '$3 > 1000 {print $1}' /etc/passwd",
    "sed 's/a/b/g' x",
    "sed -i 's/a/b/' src/main.rs",
    "mv a b",
    "mv * build/",
    "mv build/x ~/Downloads/",
    "echo hi > out.txt",
    "echo x >> ~/notes.txt",
    "cp a.txt ~/backup/",
    "truncate -s 0 log.txt",
    "tee out.log < in",
    "cat ~/.bashrc",
    "grep alias ~/.bashrc",
    "ls -la ~/.ssh",
    "alias ll='ls -la'",
    "strace -c ls",
    "timeout 5 cargo test",
    "nice -n 10 make",
    "flock /tmp/l make",
    "script -qc 'make test' /dev/null",
    "taskset -c 0 ./bench",
    "tar -czf out.tgz src",
    "rsync -a src/ build/",
    "parallel gzip ::: a b",
    "tmux ls",
    "echo 'ls' | at now + 1 minute",
    "cd \"$X\" && rm -rf build",
    "rsync -a --delete src/ build/",
    "echo x > /var/tmp/x",
    "cat /etc/hosts",
];

#[test]
fn issue9_classes_are_denied() {
    let missed = misjudged(DENIED_ISSUE9, denied);
    assert!(missed.is_empty(), "not denied: {missed:#?}");
}

#[test]
fn issue9_unknowables_are_asked() {
    let wrong = misjudged(ASKED_ISSUE9, opaque);
    assert!(wrong.is_empty(), "not asked: {wrong:#?}");
}

#[test]
fn issue9_look_alikes_still_run() {
    let wrong = misjudged(NOT_DENIED_ISSUE9, Option::is_none);
    assert!(wrong.is_empty(), "wrongly flagged: {wrong:#?}");
}

/// Paths are judged from where the shell is, not from the session's directory.
#[test]
fn judged_from_the_shells_cwd() {
    let protected = ["main".to_string()];
    let at = |cwd: &str, line: &str| {
        let cx = DangerContext {
            protected_branches: &protected,
            home: Some(Path::new("/home/me")),
            root: Path::new("/home/me/work/proj"),
            cwd: Path::new(cwd),
        };
        check(&analyze(line), &cx)
    };
    let deep = "/home/me/work/proj/src/deep";
    assert!(matches!(
        at(deep, "rm -rf ../../../proj"),
        Some(Finding::Deny(_))
    ));
    assert!(matches!(
        at(deep, "rm -rf ../../.."),
        Some(Finding::Deny(_))
    ));
    assert!(matches!(
        at("/home/me/work/proj", "cd src/deep && rm -rf ../../../proj"),
        Some(Finding::Deny(_))
    ));
    assert!(matches!(
        at(deep, "rm -rf /proc/self/cwd/../../.."),
        Some(Finding::Deny(_))
    ));
    assert_eq!(at(deep, "rm -rf ../../target"), None);
    assert!(matches!(
        at("/home/me", "git clean -fdx"),
        Some(Finding::Deny(_))
    ));
}

#[test]
fn find_running_a_shell_is_asked_only_when_its_script_deletes() {
    assert_eq!(find("find . -exec sh -c 'echo \"$1\"' _ {} \\;"), None);
    assert_eq!(find("find . -name '*.sh' -exec bash {} \\;"), None);
    assert!(matches!(
        find("find ~ -exec sh -c 'rm -rf \"$1\"' _ {} \\;"),
        Some(Finding::Opaque(_))
    ));
}
