-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE; Notes: a non-binary-coercible change rewrites the table and its indexes); int4 -> int8 has a conversion function (pg_cast castmethod 'f')
-- verified: PG15 and PG16 servers (same result): relfilenode changed for clicks, clicks_pkey; seq_scan rose on public.clicks; locks held (whole file in one test transaction): alembic_version RowExclusiveLock, alembic_version_pkey RowExclusiveLock, clicks AccessExclusiveLock, clicks ShareLock, clicks_pkey AccessExclusiveLock
-- given: CREATE TABLE clicks (id integer NOT NULL, campaign_id integer, CONSTRAINT clicks_pkey PRIMARY KEY (id));
-- given: CREATE TABLE alembic_version (version_num varchar(32) NOT NULL PRIMARY KEY);
-- Running upgrade 3f2a1c -> 9b7d44, widen clicks.id
ALTER TABLE clicks ALTER COLUMN id TYPE BIGINT;
UPDATE alembic_version SET version_num='9b7d44' WHERE alembic_version.version_num = '3f2a1c';
