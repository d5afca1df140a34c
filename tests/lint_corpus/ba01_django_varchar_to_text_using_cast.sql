-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: binary coercible, no rewrite); src/backend/commands/tablecmds.c ATColumnChangeRequiresRewrite strips the RelabelType that "title"::text produces, so USING col::text to the same target type is not a rewrite
-- verified: relfilenode of blog_post and of blog_post_title_idx unchanged (index reused); AccessExclusiveLock on blog_post held briefly, no scan
-- given: CREATE TABLE blog_post (id bigserial PRIMARY KEY, title varchar(200) NOT NULL, body text);
-- given: CREATE INDEX CONCURRENTLY blog_post_title_idx ON blog_post (title);
ALTER TABLE "blog_post" ALTER COLUMN "title" TYPE text USING "title"::text;
