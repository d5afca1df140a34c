-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN, REFERENCES); parse_utilcmd.c: the inline FOREIGN KEY is only marked valid without checking when the column has no default; with DEFAULT 1 every existing row references teams(1) and the constraint is validated by a scan (RI_Initial_Check) while the locks are held
-- verified: seq scan of players and of teams (RI_Initial_Check) while holding AccessExclusiveLock on players and ShareRowExclusiveLock on teams; with a missing teams row it fails with a foreign key violation
-- given: CREATE TABLE teams (id bigint PRIMARY KEY, name text);
-- given: CREATE TABLE players (id bigint PRIMARY KEY, name text);
ALTER TABLE players ADD COLUMN team_id bigint NOT NULL DEFAULT 1 REFERENCES teams (id);
