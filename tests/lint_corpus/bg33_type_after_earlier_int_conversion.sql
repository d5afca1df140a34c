-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE); an earlier migration changed code from varchar to integer, so this is integer -> text (I/O conversion, rewrite), not varchar -> text
-- verified: PG15 and PG16 servers (same result): relfilenode changed for vouchers, vouchers_pkey; seq_scan rose on public.vouchers; locks held (whole file in one test transaction): vouchers AccessExclusiveLock, vouchers ShareLock, vouchers_pkey AccessExclusiveLock
-- given: CREATE TABLE vouchers (id bigint PRIMARY KEY, code varchar(20));
-- given: ALTER TABLE vouchers ALTER COLUMN code TYPE integer USING code::integer;
ALTER TABLE vouchers ALTER COLUMN code TYPE text;
