-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint FOREIGN KEY without NOT VALID verifies every existing row under SHARE ROW EXCLUSIVE on both tables); Alembic op.drop_constraint + op.create_foreign_key(..., ondelete='CASCADE') compile to these two statements
-- verified: PG15: the ADD CONSTRAINT scanned comments and posts (seq_scan +1 each) inside the block; locks held before COMMIT: AccessExclusiveLock on comments and posts (the DROP CONSTRAINT removes the FK triggers on both), ShareRowExclusiveLock on both
-- given: CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num));
-- given: CREATE TABLE posts (id SERIAL NOT NULL, title VARCHAR(200) NOT NULL, PRIMARY KEY (id));
-- given: CREATE TABLE comments (id SERIAL NOT NULL, post_id INTEGER NOT NULL, body TEXT, PRIMARY KEY (id), CONSTRAINT comments_post_id_fkey FOREIGN KEY(post_id) REFERENCES posts (id));
BEGIN;

-- Running upgrade 3f2a1b4c5d6e -> 7a8b9c0d1e2f

ALTER TABLE comments DROP CONSTRAINT comments_post_id_fkey;

ALTER TABLE comments ADD CONSTRAINT comments_post_id_fkey FOREIGN KEY(post_id) REFERENCES posts (id) ON DELETE CASCADE;

UPDATE alembic_version SET version_num='7a8b9c0d1e2f' WHERE alembic_version.version_num = '3f2a1b4c5d6e';

COMMIT;
