//! Deleting a team (`TeamDelete`, `team.delete`): refused while any member is active;
//! otherwise no member is woken any more, every member is stopped and its run waited
//! for (bounded: one woken just before is stopped mid-way and ends first, recorded as
//! a member), each teammate's worktree (a team created with
//! isolation `worktree`) is committed and removed — its branch deleted when the
//! project's `HEAD` has all of it, kept and named when it has commits not merged yet
//! (never merged, never forced: convergence is work the lead dispatches) — and the
//! team's state (members, tasks, mail) goes. The members' sessions stay, as every
//! session does until the user removes it.

use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::agents::AgentState;

use crate::agent::children::RetiredBranch;
use crate::agent::{AgentError, Engine};
use crate::store::{MemberRow, MemberState};

/// What the lead of a worktree team is told about convergence (the `TeamCreate`
/// answer; the lead's prompt in a team says it too).
pub const CONVERGENCE: &str = "Each teammate works in its own git worktree and branch. Merging the branches is work you dispatch (do it yourself, or make it a task for a teammate), one branch at a time; a conflict that cannot be resolved mechanically goes to the user, never forced. TeamDelete keeps every branch with commits not merged yet and says which.";

/// How long a delete waits for the runs of members it stopped to end (as
/// `stop_children` waits for a parent's children).
const RUN_END_WAIT: Duration = Duration::from_secs(10);

/// How often that wait looks again for a run that ended without an outcome.
const LOOK_AGAIN: Duration = Duration::from_millis(50);

impl Engine {
    /// Deletes team `team_id`; the answer says what was done (members stopped,
    /// branches deleted or kept). An active member makes it an error naming who is
    /// still working.
    pub async fn delete_team(self: &Arc<Self>, team_id: &str) -> Result<String, AgentError> {
        let Some(team) = self.store.team(team_id).await? else {
            return Err(AgentError::Invalid(format!("no team has the id {team_id}")));
        };
        let members = self.store.members(team_id).await?;
        let active: Vec<&str> = members
            .iter()
            .filter(|m| m.state == MemberState::Active)
            .map(|m| m.name.as_str())
            .collect();
        if !active.is_empty() {
            return Err(AgentError::Invalid(format!(
                "team \"{}\" still has active members ({}): ask them to shut down (SendMessage kind shutdown_request) or wait until they are idle, then delete it",
                team.name,
                active.join(", ")
            )));
        }
        if !self.teams.begin_delete(team_id) {
            return Err(AgentError::Invalid(format!(
                "team \"{}\" is being deleted already: wait for that to finish",
                team.name
            )));
        }
        let deleted = self
            .delete_checked_team(team_id, &team.name, &members)
            .await;
        self.teams.end_delete(team_id);
        deleted
    }

    /// [`Engine::delete_team`] once no member was active: from here on no member is
    /// woken, and one woken since the check is stopped and its run waited for (bounded)
    /// before its rows go — else its end would be recorded after its team's, as a plain
    /// sub-agent's, and its lead told of an agent of a team that is gone.
    async fn delete_checked_team(
        self: &Arc<Self>,
        team_id: &str,
        name: &str,
        members: &[MemberRow],
    ) -> Result<String, AgentError> {
        // Every member, whatever the list said: one may have been woken since, and is
        // then stopped mid-way (its worktree retired as such).
        let mut members = members.to_vec();
        for member in &mut members {
            if self.store.agent(&member.agent_id).await?.is_none() {
                continue;
            }
            if self.children.get(&member.agent_id).is_some() {
                member.state = MemberState::Active;
            }
            self.stop_agent(&member.agent_id).await?;
        }
        let ids: Vec<&str> = members.iter().map(|m| m.agent_id.as_str()).collect();
        if !self.runs_ended(&ids, RUN_END_WAIT).await {
            tracing::warn!(team = %name, "a member's run did not end in time; deleting the team anyway");
        }
        let mut lines = Vec::new();
        let mut kept = false;
        for member in &members {
            if let Some(retired) = self.retire_member_worktree(member).await {
                kept |= retired.unmerged != Some(0) || retired.problem.is_some();
                lines.push(branch_line(
                    &member.name,
                    member.worktree.as_deref(),
                    &retired,
                ));
            }
        }
        self.store.delete_team(team_id).await?;
        tracing::info!(team = %name, members = members.len(), "team deleted");
        let mut answer = format!(
            "Team \"{name}\" deleted: its {} member(s) stopped, its tasks and mail removed.",
            members.len()
        );
        for line in &lines {
            answer.push_str("\n- ");
            answer.push_str(line);
        }
        if kept {
            answer.push_str("\nKept branches are never merged or deleted for you: merge the ones you want (`git merge <branch>`), delete the others yourself.");
        }
        Ok(answer)
    }

    /// Waits until no run of `ids` is open (each has ended, or never started), at most
    /// `limit`; whether they all did.
    async fn runs_ended(&self, ids: &[&str], limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let open: Vec<_> = ids
                .iter()
                .filter_map(|id| self.children.get(id))
                .filter(|entry| entry.outcome().borrow().is_none())
                .collect();
            if open.is_empty() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            // An outcome wakes this at once; an entry closed without one (a run that
            // never started) is seen at the next look.
            let any_ended = futures_util::future::select_all(open.iter().map(|entry| {
                let mut outcome = entry.outcome();
                Box::pin(async move {
                    let _ = outcome.wait_for(Option::is_some).await;
                })
            }));
            let _ = tokio::time::timeout(LOOK_AGAIN, any_ended).await;
        }
    }

    /// The member's worktree committed and removed, and what became of its branch;
    /// `None` for a member that had none.
    async fn retire_member_worktree(&self, member: &MemberRow) -> Option<RetiredBranch> {
        let row = match self.store.agent(&member.agent_id).await {
            Ok(Some(row)) => row,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(agent = %member.agent_id, "cannot read the teammate's agent: {e}");
                return None;
            }
        };
        // A member that was idle had ended its turns; one stopped mid-way did not.
        let state = match member.state {
            MemberState::Idle => AgentState::Completed,
            MemberState::Active | MemberState::Stopped | MemberState::Unknown => {
                AgentState::Cancelled
            }
        };
        self.retire_worktree(&row, state).await
    }
}

/// One member's line of the answer.
fn branch_line(name: &str, worktree: Option<&str>, retired: &RetiredBranch) -> String {
    let b = &retired.branch;
    let at = worktree.map(|w| format!(" ({w})")).unwrap_or_default();
    if let Some(problem) = &retired.problem {
        return format!(
            "{name}: its worktree{at} could not be removed, so it and branch `{b}` are kept: {problem}"
        );
    }
    match retired.unmerged {
        Some(0) => format!(
            "{name}: worktree{at} removed; branch `{b}` deleted (your branch has all of it)."
        ),
        Some(1) => format!(
            "{name}: worktree{at} removed; branch `{b}` kept: 1 commit not merged into your branch."
        ),
        Some(n) => format!(
            "{name}: worktree{at} removed; branch `{b}` kept: {n} commits not merged into your branch."
        ),
        None => format!(
            "{name}: worktree{at} removed; branch `{b}` kept (whether it is merged could not be checked)."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_line_says_whether_the_branch_was_kept_and_why() {
        let retired = |unmerged, problem: Option<&str>| RetiredBranch {
            branch: "roocode/alice-1234abcd".into(),
            unmerged,
            problem: problem.map(str::to_string),
        };
        let kept = branch_line("alice", Some("/w/1"), &retired(Some(2), None));
        assert_eq!(
            kept,
            "alice: worktree (/w/1) removed; branch `roocode/alice-1234abcd` kept: 2 commits not merged into your branch."
        );
        let gone = branch_line("bob", None, &retired(Some(0), None));
        assert!(
            gone.contains("deleted (your branch has all of it)"),
            "{gone}"
        );
        let stuck = branch_line("c", None, &retired(Some(0), Some("Worktree: busy.")));
        assert!(stuck.contains("kept: Worktree: busy."), "{stuck}");
        assert!(branch_line("d", None, &retired(None, None)).contains("kept"));
    }
}
