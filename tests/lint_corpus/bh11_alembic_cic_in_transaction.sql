-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html ("a regular CREATE INDEX command can be performed within a transaction block, but CREATE INDEX CONCURRENTLY cannot")
-- verified: PG15: ERROR: CREATE INDEX CONCURRENTLY cannot run inside a transaction block
-- given: CREATE TABLE alembic_version (version_num varchar(32) NOT NULL PRIMARY KEY);
-- given: CREATE TABLE documents (id serial PRIMARY KEY, owner_id int, title text);
-- given: INSERT INTO alembic_version VALUES ('1a2b3c4d5e6f');
BEGIN;
-- Running upgrade 1a2b3c4d5e6f -> 9f8e7d6c5b4a
CREATE INDEX CONCURRENTLY ix_documents_owner_id ON documents (owner_id);
UPDATE alembic_version SET version_num='9f8e7d6c5b4a' WHERE alembic_version.version_num = '1a2b3c4d5e6f';
COMMIT;
