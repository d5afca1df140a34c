-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE recurses to every partition; each is rewritten); int4 -> numeric is a function cast
-- verified: PG15 and PG16 servers (same result): relfilenode changed for payments_2025, payments_2026; seq_scan rose on public.payments_2025, public.payments_2026; locks held (whole file in one test transaction): payments AccessExclusiveLock, payments_2025 AccessExclusiveLock, payments_2025 ShareLock, payments_2026 AccessExclusiveLock, payments_2026 ShareLock
-- given: CREATE TABLE payments (id bigint NOT NULL, paid_on date NOT NULL, amount int) PARTITION BY RANGE (paid_on);
-- given: CREATE TABLE payments_2025 PARTITION OF payments FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE payments_2026 PARTITION OF payments FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE payments ALTER COLUMN amount TYPE numeric(12,2);
