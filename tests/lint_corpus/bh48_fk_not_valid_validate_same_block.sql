-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (NOT VALID then VALIDATE: the point is lost when both run in one transaction: the ADD's SHARE ROW EXCLUSIVE is still held during the validation scan)
-- verified: PG15: inside the block ShareRowExclusiveLock on both comments and posts held while VALIDATE ran
-- given: CREATE TABLE posts (id bigint PRIMARY KEY, title text);
-- given: CREATE TABLE comments (id bigint PRIMARY KEY, post_id bigint, body text);
BEGIN;
ALTER TABLE comments ADD CONSTRAINT comments_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) NOT VALID;
ALTER TABLE comments VALIDATE CONSTRAINT comments_post_id_fkey;
COMMIT;
