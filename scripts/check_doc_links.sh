#!/usr/bin/env bash
# Fails, listing each one, when a relative link in the user documentation (README.md, docs/*.md,
# bench/README.md) points at a file or directory that does not exist. Web links (http, https,
# mailto) and links to an anchor on the same page are not checked; "#anchor" is stripped first.
# Usage: scripts/check_doc_links.sh [REPOSITORY_ROOT]
set -euo pipefail

root="${1:-.}"
cd "$root"

broken=0
checked=0
for page in README.md docs/*.md bench/README.md; do
    [ -f "$page" ] || continue
    dir="$(dirname "$page")"
    # Markdown links and images: ](target) or ](target "title"); one per line of output.
    while IFS=: read -r line target; do
        target="${target%% *}"            # drop an optional "title"
        target="${target#<}"; target="${target%>}"
        case "$target" in
            http://* | https://* | mailto:* | '#'* | '') continue ;;
        esac
        path="${target%%#*}"
        checked=$((checked + 1))
        if [ ! -e "$dir/$path" ]; then
            echo "$page:$line: broken link '$target' ($dir/$path does not exist)"
            broken=$((broken + 1))
        fi
    done < <(grep -no '\]([^)]*)' "$page" | sed -E 's/^([0-9]+):\]\((.*)\)$/\1:\2/')
done

if [ "$broken" -gt 0 ]; then
    echo "check_doc_links: $broken broken relative link(s) of $checked checked"
    exit 1
fi
echo "check_doc_links: all $checked relative links resolve"
