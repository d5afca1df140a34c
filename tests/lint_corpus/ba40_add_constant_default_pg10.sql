-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/10/sql-altertable.html (Notes: "Adding a column with a DEFAULT clause ... will require the entire table and its indexes to be rewritten"); the fast default arrived in PostgreSQL 11 (release notes)
-- verified: not reproducible on 15 (on 15: relfilenode unchanged, fast default); label rests on the PostgreSQL 10 ALTER TABLE docs and the PostgreSQL 11 release notes
-- pg-version: 10
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
ALTER TABLE accounts ADD COLUMN is_admin boolean DEFAULT false;
