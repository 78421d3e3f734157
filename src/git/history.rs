//! Revisions and history: resolving what the user typed to commits, ranges and walks in
//! git's order, ancestry questions and the tips of branches and remote-tracking refs.

use std::collections::BTreeSet;

use git2::{BranchType, ErrorCode, Repository, Sort};

use super::{CommitId, CommitInfo, GitError, Repo};

impl Repo {
    /// HEAD's commit; None on an unborn branch (a repository without commits). Works with a
    /// detached HEAD.
    pub fn head(&self) -> Result<Option<CommitId>, GitError> {
        head_of(&self.git)
    }

    /// Any revision git understands (`HEAD~2`, a branch, a tag, a short hash) to a commit;
    /// an error naming the revision otherwise.
    pub fn resolve(&self, rev: &str) -> Result<CommitId, GitError> {
        let object = self
            .git
            .revparse_single(rev)
            .map_err(|e| self.revision_error(rev, e))?;
        match object.peel_to_commit() {
            Ok(c) => Ok(c.id().into()),
            Err(_) => Err(GitError::NotACommit(rev.to_string())),
        }
    }

    /// A range as `git rev-list --topo-order --reverse` gives it, oldest first: `A..B` is
    /// the commits reachable from B and not from A (an empty side means HEAD, as for git);
    /// a single revision `X` means just that commit.
    pub fn range(&self, spec: &str) -> Result<Vec<CommitId>, GitError> {
        let bad = |reason| GitError::BadRange {
            spec: spec.to_string(),
            reason,
        };
        if spec.contains("...") {
            return Err(bad(
                "symmetric differences (A...B) are not supported, use A..B",
            ));
        }
        let Some((from, to)) = spec.split_once("..") else {
            return Ok(vec![self.resolve(spec)?]);
        };
        if from.is_empty() && to.is_empty() {
            return Err(bad("expected A..B"));
        }
        if to.contains("..") {
            return Err(bad("more than one `..`"));
        }
        let side = |rev: &str| self.resolve(if rev.is_empty() { "HEAD" } else { rev });
        let (from, to) = (side(from)?, side(to)?);
        self.walk(to, &[from])
    }

    /// Every commit in HEAD's history, oldest first, as `git rev-list --topo-order
    /// --reverse HEAD`.
    pub fn all(&self) -> Result<Vec<CommitId>, GitError> {
        let head = self.resolve("HEAD")?;
        self.walk(head, &[])
    }

    pub fn commit(&self, id: CommitId) -> Result<CommitInfo, GitError> {
        let c = self.find_commit(id)?;
        let author = c.author();
        let time = c.committer().when().seconds();
        Ok(CommitInfo {
            id,
            parents: c.parent_ids().map(CommitId::from).collect(),
            subject: String::from_utf8_lossy(c.summary_bytes().unwrap_or_default()).into_owned(),
            message: String::from_utf8_lossy(c.message_bytes()).into_owned(),
            author: format!(
                "{} <{}>",
                String::from_utf8_lossy(author.name_bytes()),
                String::from_utf8_lossy(author.email_bytes())
            ),
            time,
        })
    }

    #[cfg(test)]
    /// `from`'s first parent, that one's first parent, ... (not `from` itself), newest
    /// first. Stops without an error at a root commit and at a shallow clone's boundary (a
    /// parent whose object is missing).
    pub fn first_parents(&self, from: CommitId) -> Result<Vec<CommitId>, GitError> {
        let mut out = Vec::new();
        let mut current = self.find_commit(from)?;
        while let Some(parent) = current.parent_ids().next() {
            match self.git.find_commit(parent) {
                Ok(c) => current = c,
                Err(e) if e.code() == ErrorCode::NotFound => break,
                Err(e) => return Err(e.into()),
            }
            out.push(parent.into());
        }
        Ok(out)
    }

    #[cfg(test)]
    /// Whether `ancestor` is in `of`'s history; a commit counts as its own ancestor, as for
    /// `git merge-base --is-ancestor`.
    pub fn is_ancestor(&self, ancestor: CommitId, of: CommitId) -> Result<bool, GitError> {
        self.find_commit(ancestor)?;
        self.find_commit(of)?;
        if ancestor == of {
            return Ok(true);
        }
        Ok(self.git.graph_descendant_of(of.oid(), ancestor.oid())?)
    }

    /// The commits local branches point at, plus HEAD and the HEADs of the repository's
    /// other worktrees (a detached HEAD there is on no branch), sorted, without duplicates.
    /// For cache garbage collection: what is reachable from these is kept.
    pub fn branch_tips(&self) -> Result<Vec<CommitId>, GitError> {
        let mut tips = BTreeSet::new();
        for branch in self.git.branches(Some(BranchType::Local))? {
            let (branch, _) = branch?;
            // A branch that does not lead to a commit (hand-edited, or its object lost)
            // protects nothing; it is not a reason to fail.
            if let Ok(c) = branch.get().peel_to_commit() {
                tips.insert(CommitId::from(c.id()));
            }
        }
        tips.extend(self.head()?);
        tips.extend(self.worktree_heads());
        Ok(tips.into_iter().collect())
    }

    /// The commits remote-tracking refs (`refs/remotes/*`) point at, sorted, without
    /// duplicates.
    pub fn remote_tracking_tips(&self) -> Result<Vec<CommitId>, GitError> {
        let mut tips = BTreeSet::new();
        for reference in self.git.references_glob("refs/remotes/*")? {
            if let Ok(c) = reference?.peel_to_commit() {
                tips.insert(CommitId::from(c.id()));
            }
        }
        Ok(tips.into_iter().collect())
    }

    /// Commits reachable from `tip` and from none of `exclude`, oldest first (topological,
    /// as `git rev-list --topo-order --reverse tip ^exclude...`). For the pre-push hook: a
    /// new branch's commits that are on no remote-tracking ref.
    pub fn commits_not_in(
        &self,
        tip: CommitId,
        exclude: &[CommitId],
    ) -> Result<Vec<CommitId>, GitError> {
        self.walk(tip, exclude)
    }

    #[cfg(test)]
    /// The newest commit that is an ancestor of (or equal to) `tip` and reachable from one
    /// of `tips` (a merge base over several refs); None when there is none. "Newest": of the
    /// merge bases, one that is no ancestor of another; if several such remain (histories
    /// that crossed), the one with the latest committer time.
    pub fn newest_common(
        &self,
        tip: CommitId,
        tips: &[CommitId],
    ) -> Result<Option<CommitId>, GitError> {
        self.find_commit(tip)?;
        let mut bases = BTreeSet::new();
        for &other in tips {
            match self.git.merge_bases(tip.oid(), other.oid()) {
                Ok(found) => bases.extend(found.iter().map(|&o| CommitId::from(o))),
                Err(e) if e.code() == ErrorCode::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut best: Option<(i64, CommitId)> = None;
        for &base in &bases {
            let mut covered = false;
            for &other in &bases {
                if other != base && self.git.graph_descendant_of(other.oid(), base.oid())? {
                    covered = true;
                    break;
                }
            }
            if !covered {
                let time = self.find_commit(base)?.committer().when().seconds();
                best = best.max(Some((time, base)));
            }
        }
        Ok(best.map(|(_, id)| id))
    }

    /// The commits reachable from `tip` and from none of `hide`, oldest first, in the order
    /// of `git rev-list --topo-order --reverse`.
    fn walk(&self, tip: CommitId, hide: &[CommitId]) -> Result<Vec<CommitId>, GitError> {
        // libgit2's topological sort is git's (children before parents, the side a merge
        // brings in right after the merge), so its reverse is git's oldest-first list; the
        // tests hold it to `git rev-list` on generated histories.
        let mut walk = self.git.revwalk()?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
        walk.push(tip.oid())?;
        for h in hide {
            walk.hide(h.oid())?;
        }
        walk.map(|o| Ok(CommitId::from(o?))).collect()
    }

    /// A commit by id, with an error that tells a shallow clone's missing history from an
    /// id that is simply not there.
    pub(super) fn find_commit(&self, id: CommitId) -> Result<git2::Commit<'_>, GitError> {
        match self.git.find_commit(id.oid()) {
            Ok(c) => Ok(c),
            Err(e) if e.code() == ErrorCode::NotFound && self.is_shallow() => {
                Err(GitError::MissingFromShallow(id))
            }
            Err(e) if e.code() == ErrorCode::NotFound => Err(GitError::UnknownCommit(id)),
            Err(e) => Err(e.into()),
        }
    }

    /// The error for a revision libgit2 could not parse or find.
    fn revision_error(&self, rev: &str, e: git2::Error) -> GitError {
        match e.code() {
            ErrorCode::Ambiguous => GitError::AmbiguousRevision(rev.to_string()),
            ErrorCode::NotFound
            | ErrorCode::InvalidSpec
            | ErrorCode::UnbornBranch
            | ErrorCode::Peel => {
                if self.has_no_commits() {
                    GitError::EmptyRepository
                } else {
                    GitError::UnknownRevision(rev.to_string())
                }
            }
            _ => e.into(),
        }
    }

    /// A repository where nothing has been committed yet: HEAD is unborn and no ref
    /// exists. (libgit2's `is_empty` also wants HEAD on the default branch name, which a
    /// repository made with another initial branch does not have.)
    fn has_no_commits(&self) -> bool {
        matches!(self.head(), Ok(None))
            && self
                .git
                .references()
                .map(|mut refs| refs.next().is_none())
                .unwrap_or(false)
    }

    /// The HEADs of the main work tree and of every linked worktree, as far as they can be
    /// read: a worktree whose folder was deleted without `git worktree prune` is skipped.
    fn worktree_heads(&self) -> Vec<CommitId> {
        let mut heads = Vec::new();
        if let Ok(main) = Repository::open(self.git.commondir()) {
            heads.extend(head_of(&main).ok().flatten());
        }
        let Ok(names) = self.git.worktrees() else {
            return heads;
        };
        // Names that are not UTF-8 cannot be looked up through git2; skipping one costs at
        // most a cache entry.
        for name in names.iter().flatten().flatten() {
            let Ok(worktree) = self.git.find_worktree(name) else {
                continue;
            };
            if worktree.validate().is_err() {
                continue;
            }
            if let Ok(repo) = Repository::open_from_worktree(&worktree) {
                heads.extend(head_of(&repo).ok().flatten());
            }
        }
        heads
    }
}

fn head_of(git: &Repository) -> Result<Option<CommitId>, GitError> {
    match git.head() {
        Ok(head) => Ok(Some(head.peel_to_commit()?.id().into())),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
