-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE); text -> varchar(n) applies a length coercion varchar(text, n) that varchar_support cannot remove (old typmod unknown/-1): rewrite
-- verified: PG15 and PG16 servers (same result): relfilenode changed for tags, tags_pkey; seq_scan rose on public.tags; locks held (whole file in one test transaction): tags AccessExclusiveLock, tags ShareLock, tags_pkey AccessExclusiveLock
-- given: CREATE TABLE tags (id bigint PRIMARY KEY, name text NOT NULL);
-- Rails: change_column :tags, :name, :string, limit: 100
ALTER TABLE "tags" ALTER COLUMN "name" TYPE character varying(100);
