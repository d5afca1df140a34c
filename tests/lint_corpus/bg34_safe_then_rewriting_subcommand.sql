-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (multiple subcommands are applied in one pass; any rewriting subcommand rewrites the table); the first subcommands are harmless, the last changes int -> bigint
-- verified: PG15 and PG16 servers (same result): relfilenode changed for orders, orders_pkey; seq_scan rose on public.orders; locks held (whole file in one test transaction): orders AccessExclusiveLock, orders ShareLock, orders_pkey AccessExclusiveLock
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, status text, quantity int NOT NULL);
ALTER TABLE orders
  ADD COLUMN notes text,
  ALTER COLUMN status SET DEFAULT 'new',
  ALTER COLUMN quantity TYPE bigint;
