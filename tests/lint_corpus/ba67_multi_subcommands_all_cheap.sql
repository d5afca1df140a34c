-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html ("all the actions are applied in a single pass over the table" - here no action needs a pass: a nullable column, a constant default (PostgreSQL 11+), a varchar widening)
-- verified: accounts relfilenode unchanged, no scan; AccessExclusiveLock brief
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50), note text);
ALTER TABLE accounts ADD COLUMN locale text, ADD COLUMN login_count integer NOT NULL DEFAULT 0, ALTER COLUMN name TYPE varchar(120), ALTER COLUMN note SET DEFAULT '';
