# bench/sim/revs.sh: sourced by the bench/sim scripts that build the simulator at git revisions.
# The sourcing script sets ME (its name, for messages), root (the repository) and work (its temp
# dir), and calls revs_cleanup when it exits.

trees=()

# revs_tree REV NAME: sets tree to the directory holding REV's files: the repository itself for
# WORKTREE (uncommitted changes included), else a detached worktree at $work/NAME. Exits 2,
# naming what is allowed, if REV is not a revision.
revs_tree() {
	local rev=$1 name=$2
	if [ "$rev" = WORKTREE ]; then
		tree=$root
	else
		if ! git -C "$root" rev-parse --verify --quiet "$rev^{commit}" >/dev/null; then
			echo "$ME: '$rev' is not a revision of $root (a branch, a tag, a commit or WORKTREE)" >&2
			exit 2
		fi
		tree=$work/$name
		git -C "$root" worktree add --detach --quiet "$tree" "$rev"
		trees+=("$tree")
	fi
	echo "== building $name: $rev ($(git -C "$tree" rev-parse --short HEAD)$([ "$rev" = WORKTREE ] && echo ' + uncommitted'))"
}

# revs_cleanup removes the worktrees revs_tree made.
revs_cleanup() {
	for t in "${trees[@]}"; do git -C "$root" worktree remove --force "$t" 2>/dev/null || true; done
}
