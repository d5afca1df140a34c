-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET STATISTICS: SHARE UPDATE EXCLUSIVE lock; SET STORAGE: "sets the storage mode for a column ... ALTER TABLE does not change existing data, only future rows")
-- verified: SET STATISTICS: ShareUpdateExclusiveLock only; SET STORAGE: relfilenode unchanged, no scan
-- given: CREATE TABLE documents (id bigint PRIMARY KEY, owner_id bigint, body text, meta jsonb);
ALTER TABLE documents ALTER COLUMN owner_id SET STATISTICS 1000;
ALTER TABLE documents ALTER COLUMN body SET STORAGE EXTERNAL, ALTER COLUMN meta SET STORAGE MAIN;
