-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html ; parse_utilcmd.c transformAlterTableStmt (a FK on a column added without default is not validated: every value is NULL)
-- verified: PG15+16: no seq scan on either table, relfilenodes unchanged
-- given: CREATE TABLE teams (id bigint PRIMARY KEY, name text NOT NULL);
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
-- Rails: add_reference :users, :team, foreign_key: true, index: false
ALTER TABLE "users" ADD "team_id" bigint CONSTRAINT "fk_rails_users_team" REFERENCES "teams" ("id");
