//! What never changes about a stored team or member — a team's row, the team a session
//! leads, a member's team, name and type, a team's roster — kept in memory, so that
//! the paths every team message takes (is this session a teammate? what is its name?
//! who is "bob"? which team is this?) do not ask the database each time.
//!
//! Filled on a miss and changed by the store's own writes (a team created, a member
//! added, a team or session deleted), always while holding the connection: a fill
//! reads and records in one step no write can come between, so it can never record a
//! state older than one a write recorded. What a member's row says that does change
//! (its state, backend, worktree) is never cached.

use std::collections::HashMap;

use super::TeamRow;

/// A member of a team's roster: who it is and what it is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterEntry {
    pub agent_id: String,
    pub name: String,
}

/// A member's lasting facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub team_id: String,
    pub name: String,
    pub agent_type: String,
}

#[derive(Debug, Default)]
pub(super) struct TeamCache {
    teams: HashMap<String, TeamRow>,
    /// Session → the id of the team it leads (`None`: it leads none).
    leads: HashMap<String, Option<String>>,
    /// Session → its membership (`None`: it is a member of no team).
    members: HashMap<String, Option<Membership>>,
    /// Team → its members in the order they joined.
    rosters: HashMap<String, Vec<RosterEntry>>,
}

impl TeamCache {
    pub(super) fn team(&self, id: &str) -> Option<&TeamRow> {
        self.teams.get(id)
    }

    pub(super) fn led_by(&self, session: &str) -> Option<&Option<String>> {
        self.leads.get(session)
    }

    pub(super) fn membership(&self, session: &str) -> Option<&Option<Membership>> {
        self.members.get(session)
    }

    pub(super) fn roster(&self, team: &str) -> Option<&Vec<RosterEntry>> {
        self.rosters.get(team)
    }

    pub(super) fn put_roster(&mut self, team: &str, roster: Vec<RosterEntry>) {
        self.rosters.insert(team.to_string(), roster);
    }

    /// A team as stored (found, or just created).
    pub(super) fn put_team(&mut self, team: &TeamRow) {
        self.leads
            .insert(team.lead_session_id.clone(), Some(team.id.clone()));
        self.teams.insert(team.id.clone(), team.clone());
    }

    /// That `session` leads no team.
    pub(super) fn put_no_lead(&mut self, session: &str) {
        self.leads.insert(session.to_string(), None);
    }

    pub(super) fn put_membership(&mut self, session: &str, membership: Option<Membership>) {
        self.members.insert(session.to_string(), membership);
    }

    /// A member added: its membership known, its team's roster read again when next
    /// asked for.
    pub(super) fn member_added(&mut self, session: &str, membership: Membership) {
        self.rosters.remove(&membership.team_id);
        self.members.insert(session.to_string(), Some(membership));
    }

    /// A team deleted: its row, its lead's entry and its members' memberships go.
    pub(super) fn forget_team(&mut self, id: &str) {
        self.teams.remove(id);
        self.rosters.remove(id);
        self.leads.retain(|_, team| team.as_deref() != Some(id));
        self.members
            .retain(|_, m| m.as_ref().is_none_or(|m| m.team_id != id));
    }

    /// A session deleted: what it led and what it was a member of went with it (the
    /// database cascades), so everything is read again.
    pub(super) fn clear(&mut self) {
        *self = TeamCache::default();
    }
}
