-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN ... REFERENCES); parse_utilcmd.c transformAlterTableStmt: a FK on a new column without default is marked valid without a scan (skipValidation: every value is NULL)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): projects AccessExclusiveLock, projects AccessShareLock, projects ShareRowExclusiveLock, teams AccessShareLock, teams ShareRowExclusiveLock
-- given: CREATE TABLE teams (id bigint PRIMARY KEY, name text);
-- given: CREATE TABLE projects (id bigint PRIMARY KEY, title text NOT NULL);
-- Rails: add_reference :projects, :team, foreign_key: true, index: false
ALTER TABLE "projects" ADD COLUMN "team_id" bigint REFERENCES "teams" ("id");
