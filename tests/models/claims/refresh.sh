#!/bin/sh
# Writes spin/<model>.pan.txt and spin/<model>.pan-a.txt for every model of manifest.json:
# pan's output for the product with the model's first never claim, `-c0` (every error, as
# git rmc verify reports them), without and with -a. Needs spin 6.5.2 and gcc. Run from
# this folder; then check the figures in manifest.json against them.
set -e
for m in $(python3 -c "import json; print(' '.join(e['model'] for e in json.load(open('manifest.json'))))"); do
  name=$(basename "$m" .pml)
  dir=$(mktemp -d)
  cp "$m" "$dir/m.pml"
  (cd "$dir" && spin -o1 -o2 -o3 -a m.pml >/dev/null && gcc -O0 -w -DNOREDUCE -o pan pan.c &&
    { ./pan -c0 -m1000000 > out.txt 2>&1; ./pan -a -c0 -m1000000 > out-a.txt 2>&1; true; })
  filter='elapsed time\|pan: rate\|memory usage\|memory used\|Megabytes\|equivalent memory'
  grep -v "$filter" "$dir/out.txt" > "spin/$name.pan.txt"
  grep -v "$filter" "$dir/out-a.txt" > "spin/$name.pan-a.txt"
  rm -rf "$dir"
done
