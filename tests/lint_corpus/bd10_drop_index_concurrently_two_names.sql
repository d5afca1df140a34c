-- expect: unsafe require-concurrent-index-drop
-- doc: https://www.postgresql.org/docs/current/sql-dropindex.html (CONCURRENTLY: "only one index name can be specified, and the CASCADE option is not supported")
-- verified: PG15: ERROR: DROP INDEX CONCURRENTLY does not support dropping multiple objects
-- given: CREATE TABLE posts (id bigserial PRIMARY KEY, author_id bigint, slug text, published_at timestamptz);
-- given: CREATE INDEX posts_author_idx ON posts (author_id);
-- given: CREATE INDEX posts_slug_idx ON posts (slug);
DROP INDEX CONCURRENTLY IF EXISTS posts_author_idx, posts_slug_idx;
