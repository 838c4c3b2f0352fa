#!/usr/bin/env bash
# api.tested (issue 14, section 3): every sv_* function declared in
# include/sdpa_var/*.h is named by some file under tests/ other than this
# one, so no public function goes untested. Lists the declarations (a line
# that starts a declaration: return type, then sv_name followed by '('),
# not the docstrings, and fails naming each function no test mentions.
#   tests/api/tested_test.sh SOURCE_DIR
set -u
root=${1:?usage: tested_test.sh SOURCE_DIR}
self=tests/api/tested_test.sh
# Declarations: "type sv_name(" at the start of a line, with the type's
# words and stars before it (const char *sv_x(, sv_status sv_y(, ...).
fns=$(grep -hoE '^[a-z_][a-z0-9_ ]*[ *]+sv_[a-z0-9_]+\(' "$root"/include/sdpa_var/*.h |
      grep -oE 'sv_[a-z0-9_]+\($' | tr -d '(' | sort -u)
count=$(printf '%s\n' "$fns" | grep -c .)
if [ "$count" -lt 50 ]; then # a broken pattern would check nothing
    echo "api.tested: found only $count declarations in include/sdpa_var/*.h" >&2
    exit 1
fi
missing=0
for f in $fns; do
    if ! grep -rlw --exclude-dir=golden -- "$f" "$root/tests" | grep -qv "$self\$"; then
        echo "api.tested: $f is declared in include/sdpa_var/ but no file under tests/ names it" >&2
        missing=$((missing + 1))
    fi
done
echo "api.tested: $((count - missing)) of $count public functions named by a test"
[ "$missing" -eq 0 ]
