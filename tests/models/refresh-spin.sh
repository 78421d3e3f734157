#!/usr/bin/env bash
# Regenerate the SPIN reference outputs in tests/models/spin/ and print the
# figures of every model (one JSON object per line on stdout), so that
# tests/models/manifest.json can be refreshed.
#
# Usage (from the repository root):   [VECTORSZ=N] tests/models/refresh-spin.sh [model ...]
#   VECTORSZ: compile pan with -DVECTORSZ=N (for models whose state vector exceeds
#          pan's default 1024 bytes); the manifest entry then records "vectorsz": N.
#   model: a path relative to tests/models, e.g. rendezvous_handshake.pml,
#          worker_pool/main.pml or unsupported/trace_pingpong.pml.
#          Without arguments every model is processed.
#
# Models:
#   tests/models/*.pml                  -> spin/<base>.pan.txt, .pan-d.txt
#   tests/models/<dir>/main.pml         -> spin/<dir>.pan.txt, .pan-d.txt
#                                          (spin runs in the folder of main.pml)
#   tests/models/unsupported/*.pml      -> spin/unsupported/<base>.*
# tests/models/bad/ and tests/models/spin/ are never processed.
# When `spin -a` fails, its output is saved as <name>.spin-a.txt instead.
#
# Pipeline (the configuration git rmc is compared against):
#   spin -o1 -o2 -o3 -a <model> && gcc -O0 -DNOREDUCE -DSAFETY -DNOCLAIM -o pan pan.c
#   ./pan -c0 -n -m1000000     (-m doubled while pan says "max search depth too small")
#   and, for the automata (never claims included), the same pan.c compiled without
#   -DNOCLAIM as pan_d:  ./pan_d -d
set -euo pipefail

SPIN=${SPIN:-spin}
CC=${CC:-gcc}
VSZ=${VECTORSZ:+-DVECTORSZ=$VECTORSZ}
MAXDEPTH_LIMIT=${MAXDEPTH_LIMIT:-64000000}

root=$(pwd)
models_dir="$root/tests/models"
if [ ! -d "$models_dir" ]; then
	echo "run this script from the repository root" >&2
	exit 2
fi
out_dir="$models_dir/spin"
mkdir -p "$out_dir" "$out_dir/unsupported"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmc-spin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

list_models() {
	local f d
	for f in "$models_dir"/*.pml; do
		[ -e "$f" ] && echo "${f#"$models_dir"/}"
	done
	for d in "$models_dir"/*/; do
		d=${d%/}
		case "$(basename "$d")" in bad|spin|unsupported) continue ;; esac
		[ -e "$d/main.pml" ] && echo "${d#"$models_dir"/}/main.pml"
	done
	for f in "$models_dir"/unsupported/*.pml; do
		[ -e "$f" ] && echo "${f#"$models_dir"/}"
	done
	return 0
}

# figure <regex> <file>: first integer after the text matched by regex
figure() {
	local v
	v=$(sed -n -E "s/.*$1[^0-9]*([0-9]+).*/\1/p" "$2" | head -n 1)
	echo "${v:-null}"
}
figure_before() {	# integer in front of the text, e.g. "   34 states, stored"
	local v
	v=$(sed -n -E "s/^[[:space:]]*([0-9]+) $1.*/\1/p" "$2" | head -n 1)
	echo "${v:-null}"
}
json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}

if [ $# -gt 0 ]; then
	models=("$@")
else
	mapfile -t models < <(list_models)
fi

for rel in "${models[@]}"; do
	src="$models_dir/$rel"
	if [ ! -f "$src" ]; then
		echo "no such model: $rel" >&2
		exit 2
	fi
	case "$rel" in
	*/main.pml) name=${rel%/main.pml} ;;
	*) name=${rel%.pml} ;;
	esac
	work="$tmp/$(echo "$name" | tr '/' '_')"
	rm -rf "$work"
	mkdir -p "$work"
	if [ "$(basename "$rel")" = main.pml ]; then
		cp -R "$(dirname "$src")"/. "$work"/
	else
		cp "$src" "$work"/
	fi
	file=$(basename "$rel")
	rm -f "$out_dir/$name.pan.txt" "$out_dir/$name.pan-d.txt" "$out_dir/$name.spin-a.txt"

	spin_ok=true; oracle_unusable=false; note=""
	depth=1000000
	spin_cmd="$SPIN -o1 -o2 -o3 -a $file"
	cc_cmd="$CC -O0 -DNOREDUCE -DSAFETY -DNOCLAIM${VSZ:+ $VSZ} -o pan pan.c"
	if ! (cd "$work" && $SPIN -o1 -o2 -o3 -a "$file") >"$work/spin-a.out" 2>&1; then
		spin_ok=false
		cp "$work/spin-a.out" "$out_dir/$name.spin-a.txt"
	fi
	pan_cmd="./pan -c0 -n -m$depth"
	if $spin_ok; then
		if ! (cd "$work" && $CC -O0 -DNOREDUCE -DSAFETY -DNOCLAIM $VSZ -o pan pan.c &&
			$CC -O0 -DNOREDUCE -DSAFETY $VSZ -o pan_d pan.c) >"$work/cc.out" 2>&1; then
			oracle_unusable=true; note="pan.c does not compile"
		else
			(cd "$work" && ./pan_d -d) >"$out_dir/$name.pan-d.txt" 2>&1 || true
			while :; do
				pan_cmd="./pan -c0 -n -m$depth"
				rc=0
				(cd "$work" && ./pan -c0 -n -m"$depth") >"$work/pan.out" 2>&1 || rc=$?
				if grep -q "max search depth too small" "$work/pan.out" &&
					[ "$depth" -lt "$MAXDEPTH_LIMIT" ]; then
					depth=$((depth * 2))
					continue
				fi
				break
			done
			cp "$work/pan.out" "$out_dir/$name.pan.txt"
			if grep -q "max search depth too small" "$work/pan.out"; then
				oracle_unusable=true; note="depth limit"
			elif grep -q "has unconditional self-loop" "$work/pan.out"; then
				oracle_unusable=true; note="pan refuses the model (unconditional self-loop)"
			elif grep -q "VECTORSZ" "$work/pan.out"; then
				oracle_unusable=true; note="VECTORSZ too small"
			elif [ "$rc" -ne 0 ] || ! grep -q "states, stored" "$work/pan.out"; then
				oracle_unusable=true; note="pan failed (exit $rc)"
			fi
		fi
	fi

	p="$out_dir/$name.pan.txt"
	d="$out_dir/$name.pan-d.txt"
	if [ -f "$p" ]; then
		stored=$(figure_before "states, stored" "$p")
		matched=$(figure_before "states, matched" "$p")
		trans=$(figure_before "transitions" "$p")
		atomic=$(figure_before "atomic steps" "$p")
		dreach=$(figure "depth reached" "$p")
		errors=$(figure "errors:" "$p")
	else
		stored=null; matched=null; trans=null; atomic=null; dreach=null; errors=null
	fi
	if [ -f "$d" ]; then
		nproc=$(grep -c -E '^(proctype |claim |init$|(no)?trace assertion$)' "$d" || true)
	else
		nproc=null
	fi
	command="$spin_cmd && $cc_cmd && $pan_cmd"
	if [ "$(basename "$rel")" = main.pml ]; then
		command="cd $(dirname "$rel") && $command"
	fi
	printf '{"model": %s, "spin_accepts": %s, "command": %s, "proctypes": %s, "states_stored": %s, "states_matched": %s, "transitions": %s, "atomic_steps": %s, "depth_reached": %s, "errors": %s, "oracle_unusable": %s, %s"notes": %s}\n' \
		"$(json_str "$rel")" "$spin_ok" "$(json_str "$command")" "$nproc" \
		"$stored" "$matched" "$trans" "$atomic" "$dreach" "$errors" \
		"$oracle_unusable" "${VECTORSZ:+\"vectorsz\": $VECTORSZ, }" "$(json_str "$note")"
done
