-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET SCHEMA: the table moves; queries using the old qualified or search_path name fail)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan counter unchanged (same count, now listed under archive.old_orders: the move itself does not scan); locks held (whole file in one test transaction): old_orders AccessExclusiveLock
-- given: CREATE SCHEMA archive;
-- given: CREATE TABLE public.old_orders (id bigint PRIMARY KEY, total numeric);
ALTER TABLE IF EXISTS public.old_orders SET SCHEMA archive;
