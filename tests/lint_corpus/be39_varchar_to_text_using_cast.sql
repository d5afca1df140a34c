-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible, no rewrite); tablecmds.c ATColumnChangeRequiresRewrite strips RelabelType, so USING v::text (varchar -> text is a binary-coercible cast, pg_cast castmethod 'b') still reduces to the bare column
-- verified: PG15+16: articles and articles_slug_idx keep their relfilenodes, no seq scan
-- given: CREATE TABLE articles (id bigint PRIMARY KEY, slug varchar(120) NOT NULL, body text);
-- given: CREATE INDEX articles_slug_idx ON articles (slug);
-- Alembic: op.alter_column('articles', 'slug', type_=sa.Text(), postgresql_using='slug::text')
ALTER TABLE articles ALTER COLUMN slug TYPE TEXT USING slug::text;
