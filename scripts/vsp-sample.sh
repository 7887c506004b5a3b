#!/usr/bin/env bash
# Makes data/vsp-sample/ from a full VSP copy: every task and level with items 0-1 and in-context
# examples 0-1, the prompt texts and figures, the licence. Re-run: scripts/vsp-sample.sh /path/to/vsp
set -euo pipefail
SRC=${1:?usage: scripts/vsp-sample.sh VSP_ROOT}
DST=$(cd "$(dirname "$0")/.." && pwd)/data/vsp-sample
ITEMS="0 1"
rm -rf "$DST"
mkdir -p "$DST"
cp "$SRC/LICENSE" "$DST/LICENSE"
copy() { mkdir -p "$DST/$(dirname "$1")"; cp "$SRC/$1" "$DST/$1"; }
# The first N lines of a line-per-item file.
head_lines() { mkdir -p "$DST/$(dirname "$1")"; head -n "$2" "$SRC/$1" > "$DST/$1"; }
cd "$SRC"
for t in maze/task-main maze/task1 maze/task2 maze/task3 maze/task4 blocks/task-main blocks/task1 blocks/task2 blocks/task3 blocks/task4 collision/task-main google_map/task-main; do
  copy "$t/prompt-text/prompt-text.txt"
  for f in "$t"/prompt-visual-images/*; do copy "$f"; done
done
for t in maze/task-main maze/task1 maze/task2 maze/task3 maze/task4; do
  for lvl in "$t"/maps/*; do
    for sub in "$lvl"/*; do for i in $ITEMS; do copy "$sub/$i.$( [ "$(basename "$sub")" = img ] && echo png || echo txt)"; done; done
  done
  for lvl in "$t"/example/*; do
    for sub in "$lvl"/*; do for i in $ITEMS; do copy "$sub/$i.$( [ "$(basename "$sub")" = img ] && echo png || echo txt)"; done; done
  done
done
for lvl in blocks/task-main/maps/*; do
  head_lines "$lvl/info.txt" 2
  for sub in input_img output_img; do for i in $ITEMS; do copy "$lvl/$sub/$i.jpg"; done; done
  for sub in input_text output_text input_table output_table; do for i in $ITEMS; do copy "$lvl/$sub/$i.txt"; done; done
done
for lvl in blocks/task-main/example/*; do
  for i in $ITEMS; do copy "$lvl/begin/$i.jpg"; copy "$lvl/end/$i.jpg"; copy "$lvl/sol_$i.txt"; copy "$lvl/question$i.txt"; copy "$lvl/analysis$i.txt"; done
done
for t in blocks/task1 blocks/task2 blocks/task3 blocks/task4; do
  for lvl in "$t"/maps/* "$t"/example/*; do
    if [ "$t" = blocks/task4 ]; then
      mkdir -p "$DST/$lvl"; awk '$1 < 2' "$lvl/annotation.txt" > "$DST/$lvl/annotation.txt"
    else
      head_lines "$lvl/annotation.txt" 2
    fi
    for sub in "$lvl"/*/; do
      sub=${sub%/}
      for i in $ITEMS; do
        for f in "$sub/$i" "$sub/$i.txt" "$sub/$i.jpg"; do [ -f "$f" ] && copy "$f"; done
      done
    done
  done
done
m=collision/task-main/maps/level-default
for f in car-dir car-speed car-answer person-dir person-speed person-answer; do head_lines "$m/$f.txt" 2; done
for i in $ITEMS; do copy "$m/$i.png"; done
mkdir -p "$DST/derived"
node -e '
const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
d.items = d.items.filter((x) => x.id < 2);
require("fs").writeFileSync(process.argv[2], JSON.stringify(d, null, 1) + "\n");
' derived/google_map_answers.json "$DST/derived/google_map_answers.json"
for i in $ITEMS; do copy "google_map/task-main/maps/level1/test1-$i.png"; done
