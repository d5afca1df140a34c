-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html ; parse_utilcmd.c transformAlterTableStmt (skipValidation only when the new column has no default): the FK is validated against every row
-- verified: PG15+16: the FK validation scanned projects (seq_scan +1 on projects besides the ADD COLUMN)
-- given: CREATE TABLE workspaces (id bigint PRIMARY KEY, name text);
-- given: INSERT INTO workspaces VALUES (1, 'default');
-- given: CREATE TABLE projects (id bigint PRIMARY KEY, title text NOT NULL);
-- every existing project goes to the default workspace
ALTER TABLE projects ADD COLUMN workspace_id bigint NOT NULL DEFAULT 1 REFERENCES workspaces (id);
