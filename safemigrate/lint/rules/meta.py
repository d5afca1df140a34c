"""The rules about the files themselves and about allow directives (not suppressible)."""

from __future__ import annotations

from ..findings import make_rule

INVALID_MIGRATION_FILE_DOC = """
Catches: everything safemigrate refuses before applying anything (exit 2): a `.sql` file whose
name is not `<version>_<name>.sql`, two files with the same version, a file that cannot be read
or is not UTF-8, SQL that does not parse, unbalanced BEGIN/COMMIT,
ROLLBACK, misplaced or unknown `-- safemigrate:` directives.

Why it hurts: `safemigrate up` stops at this file, so no later migration applies either.

Instead: fix the file as the message says. `safemigrate check` exits 2 when it finds one.
"""

UNKNOWN_RULE_IN_ALLOW_DOC = """
Catches: `-- safemigrate: allow <rule-id> -- <reason>` naming a rule that does not exist (a
typo, or a rule that cannot be suppressed, such as invalid-migration-file), or naming none.

Why it hurts: the suppression silently does nothing, so the finding it meant to allow stays, or
a later real finding of the intended rule is not the one that was reviewed.

Instead: use an id from `safemigrate check --explain` / the rule list, e.g.
`-- safemigrate: allow drop-table-or-column -- column unused since release 42`.
"""

UNUSED_ALLOW_DOC = """
Catches: an allow directive that suppresses nothing: the rule does not fire on the next
statement, the comment is not on its own line, or it is not directly before a statement (at the
end of the file, or inside a statement).

Why it hurts: a stale allow hides the next real finding of that rule if the statement changes,
and it misleads readers about what is risky.

Instead: remove it, or move it to the comment lines directly before the statement it is about.
"""

ALLOW_WITHOUT_REASON_DOC = """
Catches: an allow directive without a reason: `-- safemigrate: allow <rule-id>` with nothing
after a second `--`.

Why it hurts: a reviewer cannot tell a deliberate, checked exception from a silenced warning.
Such an allow suppresses nothing.

Instead: say why it is safe: `-- safemigrate: allow rename -- old name unused since v3.2`.
"""

EMPTY_MIGRATION_DOC = """
Catches: a migration file with no SQL statement, only comments (or nothing): for example a
file made by `safemigrate new` before its SQL was written, or a placeholder kept for a version
number.

Why it hurts: `safemigrate up` accepts it and records it as applied (one journal row, status
shows it applied), so SQL added to the file later never runs: the changed file is reported as
drift instead. A file shipped empty by mistake silently applies nothing.

Instead: write the migration's SQL before it is applied anywhere, or delete the file. A
deliberate placeholder can stay; this is a warning, not an error.
"""

INVALID_MIGRATION_FILE = make_rule(
    "invalid-migration-file",
    "error",
    "file that safemigrate refuses to run (bad name, duplicate version, does not parse, ...)",
    INVALID_MIGRATION_FILE_DOC,
)
UNKNOWN_RULE_IN_ALLOW = make_rule(
    "unknown-rule-in-allow",
    "error",
    "allow directive naming an unknown rule",
    UNKNOWN_RULE_IN_ALLOW_DOC,
)
UNUSED_ALLOW = make_rule(
    "unused-allow", "error", "allow directive that suppresses nothing", UNUSED_ALLOW_DOC
)
ALLOW_WITHOUT_REASON = make_rule(
    "allow-without-reason",
    "error",
    "allow directive without a reason",
    ALLOW_WITHOUT_REASON_DOC,
)

EMPTY_MIGRATION = make_rule(
    "empty-migration",
    "warning",
    "migration file without SQL statements (applied as an empty migration)",
    EMPTY_MIGRATION_DOC,
)

META_RULES = (
    INVALID_MIGRATION_FILE,
    UNKNOWN_RULE_IN_ALLOW,
    UNUSED_ALLOW,
    ALLOW_WITHOUT_REASON,
    EMPTY_MIGRATION,
)
