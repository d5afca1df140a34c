-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN, REFERENCES); src/backend/parser/parse_utilcmd.c transformAlterTableStmt/transformColumnDefinition: a new column without a default is all NULL, so the inline FOREIGN KEY is created with skip_validation (no scan of either table)
-- verified: no scan of players or teams, relfilenodes unchanged; AccessExclusiveLock on players, ShareRowExclusiveLock on teams, brief
-- given: CREATE TABLE teams (id bigint PRIMARY KEY, name text);
-- given: CREATE TABLE players (id bigint PRIMARY KEY, name text);
ALTER TABLE players ADD COLUMN team_id bigint REFERENCES teams (id) ON DELETE SET NULL;
