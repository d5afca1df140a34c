-- expect: safe
-- doc: https://www.postgresql.org/docs/10/sql-altertable.html (Notes: "Adding a column with a DEFAULT clause ... will require the entire table and its indexes to be rewritten"); src/backend/catalog/heap.c AddRelationNewConstraints (same code before 11): "If the expression is just a NULL constant, we do not bother to make an explicit pg_attrdef entry, since the default behavior is equivalent", so ATExecAddColumn finds no default and does not rewrite
-- verified: on 15 relfilenode unchanged; DEFAULT NULL leaves atthasdef = false (no pg_attrdef entry is stored for a NULL constant, heap.c), so no default is evaluated per row on any version
-- pg-version: 10
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
ALTER TABLE accounts ADD COLUMN deleted_at timestamptz DEFAULT NULL;
