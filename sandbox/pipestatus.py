"""Exit statuses that do not hide a failure inside a pipeline.

bash reports a pipeline's last command, so `make test | tail -5` exits 0 when the tests fail (a
live model finished a step on exactly that). `set -o pipefail` fixes that but breaks ordinary
commands: `git log | head -1 && git status` stops at git's SIGPIPE (141), since head stopped
reading, and never runs the second command. So nothing changes while the command runs; when
it ends, an EXIT trap looks at the statuses of its last pipeline and, where bash would exit 0,
exits with the status of the rightmost member that failed, except a member killed by SIGPIPE
because a later one stopped reading. An explicit `exit N` is kept as written.

The trap goes on the command's first line, so bash's line numbers in errors do not move.
"""

from __future__ import annotations

SIGPIPE_STATUS = 141

_TRAP = (
    'trap \'__c=$? __p=("${PIPESTATUS[@]}"); '
    'if [ "$__c" -eq 0 ] && [[ $BASH_COMMAND != exit* ]]; then '
    'for __s in "${__p[@]:0:${#__p[@]}-1}"; do '
    f'[ "$__s" -ne 0 ] && [ "$__s" -ne {SIGPIPE_STATUS} ] && __c=$__s; '
    "done; fi; exit $__c' EXIT; "
)


def with_pipeline_status(command: str) -> str:
    """`command` for `bash -c`, exiting non-zero when any member of its last pipeline failed."""
    return _TRAP + command
