-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible types need no rewrite); tablecmds.c ATColumnChangeRequiresRewrite strips RelabelType nodes: USING "slug"::text is a relabel of the column itself (varchar -> text is castmethod 'b' in pg_cast.dat), so no rewrite
-- verified: PG15: relfilenode of articles unchanged and articles_slug_key index relfilenode unchanged
-- given: CREATE TABLE articles (id bigint PRIMARY KEY, slug varchar(120) NOT NULL UNIQUE, body text);
ALTER TABLE articles ALTER COLUMN slug TYPE text USING slug::text;
