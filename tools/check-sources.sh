#!/usr/bin/env bash
# tools/check-sources.sh — does every reference-section key cited in the repository resolve?
#
# Code comments, catalog `source` strings, layout notes and docs cite the project's reference notes
# by section (file name, then § and the section: hardware.md, nccl.md or inference.md). docs/sources.md
# carries one heading per key with the primary sources of that section. This script lists every such
# key in the tracked files (git ls-files; docs/sources.md and this script, whose text describes keys,
# excluded) and fails when docs/sources.md has no heading for one.
#
# What counts as a key:
#   - "<file>.md §<section>", <file> one of hardware, nccl, inference, <section> like 4.2, 3 or d.5; a
#     backtick after ".md" and the JSON escape \u00a7 for § are accepted; a trailing '.' is dropped;
#   - sections chained onto such a key with "/", ", ", " and ", or a range dash ("-" or an en dash,
#     with or without a second §): both ends of a range are checked, not the sections between.
# A bare § and section with no file name in front is not checked (it cannot be told apart from other
# uses of §); docs/sources.md still has entries for the bare keys used today.
#
# Usage: tools/check-sources.sh   (from the repository root; no arguments)
# Exit:  0 all keys resolve ("N keys cited, all resolved"); 1 a key has no heading (file:line and key
#        named on stderr) or docs/sources.md is missing. Needs only bash, git, grep, sed and awk.
set -euo pipefail
export LC_ALL=C  # byte-wise matching: § is the two bytes C2 A7, the en dash three bytes

doc="docs/sources.md"
self="tools/check-sources.sh"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-sources.sh: not inside a git work tree; nothing to list (skipped)"
  exit 0
fi
if [[ ! -f $doc ]]; then
  echo "check-sources.sh: $doc not found (run from the repository root)" >&2
  exit 1
fi

# Headings of docs/sources.md: "### hardware.md §4.2" (anything after the key is ignored).
declare -A have=()
while IFS= read -r key; do
  [[ -n $key ]] && have["$key"]=1
done < <(grep -E '^### (hardware|nccl|inference)\.md §' "$doc" |
  sed -E 's/^### ((hardware|nccl|inference)\.md §[0-9a-z]+(\.[0-9]+)*).*/\1/; s/\.$//')

# Citations: "file:line<TAB>key", one line per key cited.
# The awk program is single-quoted on purpose (SC2016).
# shellcheck disable=SC2016
list_citations() {
  git ls-files -z |
    xargs -0 grep -lZIsE '(hardware|nccl|inference)\.md' -- 2>/dev/null |
    tr '\0' '\n' | grep -vxF -e "$doc" -e "$self" | tr '\n' '\0' |
    xargs -0 -r awk -v S='§' -v D='–' '
      BEGIN {
        sec = "[0-9a-z]+(\\.[0-9]+)*"
        key = "(hardware|nccl|inference)\\.md`? ?" S sec
        chained = "^(/|, ?| and |-|" D ")" S sec     # /§5  , §d.5  and §5  -§x  –§d.5
        range_end = "^(-|" D ")([0-9]+(\\.[0-9]+)*|[a-z]\\.[0-9]+)"   # §2.6-2.7
      }
      function emit(file, s) {
        sub(/\.$/, "", s)
        print FILENAME ":" FNR "\t" file " " S s
      }
      {
        line = $0
        gsub(/\\u00a7/, S, line)
        while (match(line, key)) {
          m = substr(line, RSTART, RLENGTH)
          rest = substr(line, RSTART + RLENGTH)
          file = m; sub(/\.md.*$/, ".md", file)
          s = substr(m, index(m, S) + length(S))
          emit(file, s)
          for (;;) {
            if (match(rest, chained)) {
              c = substr(rest, RSTART, RLENGTH)
              emit(file, substr(c, index(c, S) + length(S)))
            } else if (match(rest, range_end)) {
              c = substr(rest, RSTART, RLENGTH)
              sub("^(-|" D ")", "", c)
              emit(file, c)
            } else break
            rest = substr(rest, RSTART + RLENGTH)
          }
          line = rest
        }
      }'
}

declare -A seen=()
missing=0
while IFS=$'\t' read -r where key; do
  [[ -z $key ]] && continue
  seen["$key"]=1
  if [[ -z ${have["$key"]+x} ]]; then
    echo "$where: '$key' has no heading '### $key' in $doc" >&2
    missing=$((missing + 1))
  fi
done < <(list_citations)

if ((missing > 0)); then
  echo "check-sources.sh: $missing citation(s) of keys missing from $doc (add an entry, see its top)" >&2
  exit 1
fi
echo "${#seen[@]} keys cited, all resolved"
