#!/bin/sh
# Rewrites tests/ltl/spin_f.txt: what spin 6.5.2 prints for `spin -f` on every formula of
# tests/ltl/formulas.txt (the claim, or a rejection with spin's first line of complaint).
# First refreshes the random section of formulas.txt from the generator in tests/ltl.rs;
# `--keep-random` skips that step.
#
#   tests/ltl/refresh.sh [--keep-random]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")

spin -V 2>/dev/null | grep -q 'Version 6\.5\.2' || {
	echo "refresh.sh: needs spin 6.5.2 on the PATH" >&2
	exit 1
}

if [ "${1:-}" != "--keep-random" ]; then
	(cd "$root" && GIT_RMC_LTL_WRITE=1 cargo test -q --test ltl random_formulas_are_listed >/dev/null)
fi

list="$here/formulas.txt"
out="$here/spin_f.txt"
tmp="$out.tmp"
one=$(mktemp)
trap 'rm -f "$one" "$tmp"' EXIT

{
	echo "# spin -f output for tests/ltl/formulas.txt, written by tests/ltl/refresh.sh; do not edit."
	echo "# '@@ formula F' starts an entry; spin's output follows, or '@@ rejected: <its message>'."
} >"$tmp"
n=0
while IFS= read -r f; do
	case "$f" in
	'# random:'*) echo "@@ random" >>"$tmp"; continue ;;
	'#'* | '') continue ;;
	esac
	printf '@@ formula %s\n' "$f" >>"$tmp"
	if timeout 120 spin -f "$f" >"$one" 2>/dev/null; then
		cat "$one" >>"$tmp"
	else
		rc=$?
		if [ "$rc" -eq 124 ]; then
			echo "refresh.sh: spin -f takes over two minutes on: $f" >&2
			exit 1
		fi
		printf '@@ rejected: %s\n' "$(head -n 1 "$one")" >>"$tmp"
	fi
	n=$((n + 1))
done <"$list"
mv "$tmp" "$out"
echo "refresh.sh: $n formulas"
