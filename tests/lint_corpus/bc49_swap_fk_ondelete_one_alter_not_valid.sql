-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (multiple subcommands in one ALTER TABLE run under one lock; ADD ... NOT VALID skips the check of existing rows; VALIDATE CONSTRAINT in its own statement takes SHARE UPDATE EXCLUSIVE)
-- verified: PG15: the first ALTER TABLE did not scan (seq_scan of comments and posts unchanged) and held AccessExclusiveLock on comments and posts only for the catalog change; VALIDATE then scanned both under ShareUpdateExclusiveLock (comments) and RowShareLock (posts)
-- given: CREATE TABLE posts (id SERIAL NOT NULL, title VARCHAR(200) NOT NULL, PRIMARY KEY (id));
-- given: CREATE TABLE comments (id SERIAL NOT NULL, post_id INTEGER NOT NULL, body TEXT, PRIMARY KEY (id), CONSTRAINT comments_post_id_fkey FOREIGN KEY(post_id) REFERENCES posts (id));
-- Flyway V57__comments_cascade_on_post_delete.sql
ALTER TABLE public.comments
    DROP CONSTRAINT comments_post_id_fkey,
    ADD CONSTRAINT comments_post_id_fkey FOREIGN KEY (post_id) REFERENCES public.posts (id) ON DELETE CASCADE NOT VALID;

ALTER TABLE public.comments VALIDATE CONSTRAINT comments_post_id_fkey;
