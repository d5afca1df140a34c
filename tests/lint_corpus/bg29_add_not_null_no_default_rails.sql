-- expect: unsafe add-column-not-null-without-default
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN; Notes: NOT NULL requires scanning the table); fails as soon as the existing table has a row (new column is NULL in every row)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); new relations index_comments_on_author_id; seq_scan rose on public.comments; with one row inserted first the ADD COLUMN fails: ERROR column "author_id" of relation "comments" contains null values
-- given: CREATE TABLE "comments" ("id" bigserial primary key, "body" text, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL);
ALTER TABLE "comments" ADD "author_id" bigint NOT NULL;
CREATE INDEX CONCURRENTLY "index_comments_on_author_id" ON "comments" ("author_id");
