-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (RENAME CONSTRAINT; ALTER CONSTRAINT changes the deferrability of a foreign key: catalog-only, no check of existing rows); the rename rule covers tables and columns, not constraints
-- verified: PG15: seq_scan and relfilenode of comments and posts unchanged
-- given: CREATE TABLE posts (id SERIAL NOT NULL, title VARCHAR(200) NOT NULL, PRIMARY KEY (id));
-- given: CREATE TABLE comments (id SERIAL NOT NULL, post_id INTEGER NOT NULL, body TEXT, PRIMARY KEY (id), CONSTRAINT comments_post_id_fkey FOREIGN KEY(post_id) REFERENCES posts (id));
ALTER TABLE comments RENAME CONSTRAINT comments_post_id_fkey TO fk_comments_post;
ALTER TABLE comments ALTER CONSTRAINT fk_comments_post DEFERRABLE INITIALLY DEFERRED;
