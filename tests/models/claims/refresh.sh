#!/bin/sh
# Writes spin/<model>.pan.txt, spin/<model>.pan-a.txt and spin/<model>.pan-af.txt for every
# model of manifest.json: pan's output for the product with the model's first never claim,
# `-c0` (every error, as git rmc verify reports them), without -a, with -a, and with -a -f
# (weak fairness); and spin/<model>.pan-l.txt and spin/<model>.pan-lf.txt for every model of
# non_progress.json (pan built with -DNP, -l and -l -f). Needs spin 6.5.2 and gcc. Run from
# this folder; then check the figures in manifest.json and non_progress.json against them.
set -e
filter='elapsed time\|pan: rate\|memory usage\|memory used\|Megabytes\|equivalent memory'
for m in $(python3 -c "import json; print(' '.join(e['model'] for e in json.load(open('manifest.json'))))"); do
  name=$(basename "$m" .pml)
  dir=$(mktemp -d)
  cp "$m" "$dir/m.pml"
  (cd "$dir" && spin -o1 -o2 -o3 -a m.pml >/dev/null && gcc -O0 -w -DNOREDUCE -o pan pan.c &&
    { ./pan -c0 -m1000000 > out.txt 2>&1; ./pan -a -c0 -m1000000 > out-a.txt 2>&1;
      ./pan -a -f -c0 -m1000000 > out-af.txt 2>&1; true; })
  grep -v "$filter" "$dir/out.txt" > "spin/$name.pan.txt"
  grep -v "$filter" "$dir/out-a.txt" > "spin/$name.pan-a.txt"
  grep -v "$filter" "$dir/out-af.txt" > "spin/$name.pan-af.txt"
  rm -rf "$dir"
done
for m in $(python3 -c "import json; print(' '.join(e['model'] for e in json.load(open('non_progress.json'))))"); do
  name=$(basename "$m" .pml)
  dir=$(mktemp -d)
  cp "$m" "$dir/m.pml"
  (cd "$dir" && spin -o1 -o2 -o3 -a m.pml >/dev/null && gcc -O0 -w -DNOREDUCE -DNP -o pan pan.c &&
    { ./pan -l -c0 -m1000000 > out-l.txt 2>&1; ./pan -l -f -c0 -m1000000 > out-lf.txt 2>&1; true; })
  grep -v "$filter" "$dir/out-l.txt" > "spin/$name.pan-l.txt"
  grep -v "$filter" "$dir/out-lf.txt" > "spin/$name.pan-lf.txt"
  rm -rf "$dir"
done
