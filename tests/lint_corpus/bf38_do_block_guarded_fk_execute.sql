-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint FOREIGN KEY without NOT VALID: validated immediately, SHARE ROW EXCLUSIVE on both tables while every row is checked)
-- verified: PG15: the DO block adds the FK; pg_constraint.convalidated = true; with an orphan row inserted before, the DO block fails with "violates foreign key constraint" (the rows are checked)
-- given: CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL);
-- given: CREATE TABLE posts (id bigint PRIMARY KEY, author_id bigint NOT NULL, title text NOT NULL);
-- Re-runnable migration: add the FK only when it is missing.
DO $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM pg_constraint
         WHERE conname = 'posts_author_id_fkey' AND conrelid = 'public.posts'::regclass
    ) THEN
        EXECUTE 'ALTER TABLE public.posts ADD CONSTRAINT posts_author_id_fkey FOREIGN KEY (author_id) REFERENCES public.authors (id) ON DELETE CASCADE';
    END IF;
END
$$;
